package toncenter

import (
	"strconv"

	"github.com/tonql/tonql/chain"
)

// JettonWallet is toncenter's JettonWallet (index models): what
// /api/v3/jetton/wallets lists and streaming v2's JettonsNotification
// carries. Balance is null while unknown (the account had a transaction
// after the state it was read from): never an older balance; the hashes
// are null where the state they would be of is not known.
type JettonWallet struct {
	Address           string  `json:"address"`
	Balance           *string `json:"balance"`
	Owner             string  `json:"owner"`
	Jetton            string  `json:"jetton"`
	LastTransactionLt string  `json:"last_transaction_lt"`
	CodeHash          *string `json:"code_hash"`
	DataHash          *string `json:"data_hash"`
}

// RenderJettonWallet is a registry row in toncenter's shape.
func RenderJettonWallet(w *chain.JettonWallet) JettonWallet {
	code, data := w.CodeHash.Base64(), w.DataHash.Base64()
	out := JettonWallet{Address: w.Address, Owner: w.Owner, Jetton: w.Jetton,
		LastTransactionLt: strconv.FormatUint(w.LastTxLt, 10), CodeHash: &code, DataHash: &data}
	if w.Balance != "" {
		out.Balance = &w.Balance
	}
	return out
}
