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

// MultisigOrder is an order of a multisig v2 wallet (its order contract)
// as its get_order_data answers on the state read.
type MultisigOrder struct {
	Address  string
	Multisig string // the wallet that deployed it (raw)
	// OrderSeqno and ApprovalsMask are decimal integers (the mask's bit i
	// is signer i's approval).
	OrderSeqno, ApprovalsMask string
	Threshold, ApprovalsNum   int
	SentForExecution          bool
	ExpirationDate            uint64 // unix seconds
	Signers                   []string
	// Order is the BOC of the order's cell: its actions, a Hashmap 8 of
	// send_message and update_multisig_param actions.
	Order []byte
	// Unknown (Known false): SentForExecution, ApprovalsMask and
	// ApprovalsNum (an approval or the execution changes them; the rest is
	// fixed when the order is made).
	ContractState
}
