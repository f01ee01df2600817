package chain

// Multisig is a multisig v2 wallet (ton-blockchain/multisig-contract-v2)
// as its get_multisig_data answers on the state read.
type Multisig struct {
	Address string
	// NextOrderSeqno is the decimal seqno the next new order gets; "-1"
	// when the wallet allows arbitrary order seqnos (the contract answers
	// -1 then, and toncenter keeps that integer).
	NextOrderSeqno     string
	Threshold          int
	Signers, Proposers []string // raw addresses, in index order
	// Unknown (Known false): NextOrderSeqno, Threshold, Signers and
	// Proposers (an order may have changed any of them).
	ContractState
}
