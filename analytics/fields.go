package analytics

import "github.com/tonql/tonql/actions"

// The parts of the actions' values that trades and moves read. Every batch
// decodes each swap's and jetton transfer's value for the rollups; into
// the whole actions.JettonSwap (three nested transfers' worth of addresses)
// or actions.JettonTransfer (payloads, wallets) that made a string of
// every field, the largest part of the write path's decoding. Each field
// here has the name, JSON key and type of the actions field it stands for
// (TestFieldsMatchActions), so the values read the same.

// swapFields is what TradesOf reads of an actions.JettonSwap.
type swapFields struct {
	Sender          actions.Address    `json:"sender,omitempty"`
	AmountIn        actions.BigInt     `json:"amount_in,omitempty"`
	AmountOut       actions.BigInt     `json:"amount_out,omitempty"`
	JettonMasterIn  actions.Address    `json:"jetton_master_in,omitempty"`
	JettonMasterOut actions.Address    `json:"jetton_master_out,omitempty"`
	PeerSwaps       []actions.PeerSwap `json:"peer_swaps,omitempty"`
}

// transferFields is what MoveOf reads of an actions.JettonTransfer.
type transferFields struct {
	Sender       actions.Address `json:"sender,omitempty"`
	Recipient    actions.Address `json:"recipient,omitempty"`
	JettonMaster actions.Address `json:"jetton_master,omitempty"`
	Amount       actions.BigInt  `json:"amount,omitempty"`
}

// mintFields is what MoveOf reads of an actions.JettonMint.
type mintFields struct {
	Recipient    actions.Address `json:"recipient,omitempty"`
	JettonMaster actions.Address `json:"jetton_master,omitempty"`
	Amount       actions.BigInt  `json:"amount,omitempty"`
}

// burnFields is what MoveOf reads of an actions.JettonBurn.
type burnFields struct {
	Owner        actions.Address `json:"owner,omitempty"`
	JettonMaster actions.Address `json:"jetton_master,omitempty"`
	Amount       actions.BigInt  `json:"amount,omitempty"`
}
