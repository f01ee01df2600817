package rest

import (
	"net/http"
	"net/url"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
)

// Multisig v2 wallets in toncenter v3's MultisigResponse shape (package
// contracts reads them from their states). Their orders are not read
// (their code is a library cell): orders is always an empty list.
// Differences are in docs/API-NOTES.md.

type tcMultisig struct {
	Address           string          `json:"address"`
	NextOrderSeqno    *string         `json:"next_order_seqno"`
	Threshold         *int            `json:"threshold"`
	Signers           []string        `json:"signers"`   // null while unknown
	Proposers         []string        `json:"proposers"` // null while unknown
	LastTransactionLt string          `json:"last_transaction_lt"`
	CodeHash          *string         `json:"code_hash"`
	DataHash          *string         `json:"data_hash"`
	Orders            []tcMultisigOrd `json:"orders"`
}

// tcMultisigOrd stands for toncenter's MultisigOrder; none is ever given
// (see tcMultisig).
type tcMultisigOrd struct{}

// MultisigsOf renders multisig wallets in toncenter's shape.
func MultisigsOf(in []chain.Multisig) []tcMultisig {
	out := make([]tcMultisig, len(in))
	for i, m := range in {
		code, data := m.CodeHash.Base64(), m.DataHash.Base64()
		o := tcMultisig{Address: m.Address, LastTransactionLt: lt(m.LastTxLt), CodeHash: &code, DataHash: &data,
			Orders: []tcMultisigOrd{}}
		if m.Known {
			th := m.Threshold
			o.NextOrderSeqno, o.Threshold, o.Signers, o.Proposers = optional(m.NextOrderSeqno), &th, m.Signers, m.Proposers
		}
		out[i] = o
	}
	return out
}

// MultisigWalletsRoute serves GET /api/v3/multisig/wallets.
func MultisigWalletsRoute(res *resolvers.Resolver) http.HandlerFunc {
	return listRoute(res, "multisigs",
		map[string]bool{"address": true, "wallet_address": true, "limit": true, "offset": true, "sort": true, "include_orders": true}, false,
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.MultisigArgs{Address: splitList(q["address"]), WalletAddress: splitList(q["wallet_address"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			if a.Sort, err = single(q, "sort"); err != nil {
				return nil, nil, nil, err
			}
			// include_orders is checked (a bad value is 422) but changes
			// nothing: no order is read.
			if _, err = flag(q, "include_orders"); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.Multisigs(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var book []string
			for _, m := range list {
				book = append(book, m.Address)
				book = append(book, m.Signers...)
				book = append(book, m.Proposers...)
			}
			return MultisigsOf(list), book, nil, nil
		})
}
