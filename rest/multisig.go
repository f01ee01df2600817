package rest

import (
	"encoding/base64"
	"net/http"
	"net/url"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// Multisig v2 wallets and their orders in toncenter v3's MultisigResponse
// and MultisigOrderResponse shapes (package contracts reads them from
// their states). Differences are in docs/API-NOTES.md.

type tcMultisig struct {
	Address           string            `json:"address"`
	NextOrderSeqno    *string           `json:"next_order_seqno"`
	Threshold         *int              `json:"threshold"`
	Signers           []string          `json:"signers"`   // null while unknown
	Proposers         []string          `json:"proposers"` // null while unknown
	LastTransactionLt string            `json:"last_transaction_lt"`
	CodeHash          *string           `json:"code_hash"`
	DataHash          *string           `json:"data_hash"`
	Orders            []tcMultisigOrder `json:"orders"`
}

type tcMultisigOrder struct {
	Address           string                  `json:"address"`
	MultisigAddress   string                  `json:"multisig_address"`
	OrderSeqno        *string                 `json:"order_seqno"`
	Threshold         *int                    `json:"threshold"`
	SentForExecution  *bool                   `json:"sent_for_execution"` // null while unknown
	ApprovalsMask     *string                 `json:"approvals_mask"`     // null while unknown
	ApprovalsNum      *int                    `json:"approvals_num"`      // null while unknown
	ExpirationDate    *uint64                 `json:"expiration_date"`
	OrderBoc          *string                 `json:"order_boc"`
	Signers           []string                `json:"signers"`
	LastTransactionLt string                  `json:"last_transaction_lt"`
	CodeHash          *string                 `json:"code_hash"`
	DataHash          *string                 `json:"data_hash"`
	Actions           []toncenter.OrderAction `json:"actions"` // null unless parse_actions
}

// MultisigsOf renders multisig wallets in toncenter's shape. orders nil
// (include_orders=false) gives each an empty list; else a wallet's orders,
// null when it has none, as toncenter writes them.
func MultisigsOf(in []chain.Multisig, orders map[string][]chain.MultisigOrder) []tcMultisig {
	out := make([]tcMultisig, len(in))
	for i, m := range in {
		code, data := m.CodeHash.Base64(), m.DataHash.Base64()
		o := tcMultisig{Address: m.Address, LastTransactionLt: lt(m.LastTxLt), CodeHash: &code, DataHash: &data,
			Orders: []tcMultisigOrder{}}
		if orders != nil {
			o.Orders, _ = OrdersOf(orders[m.Address], false)
		}
		if m.Known {
			th := m.Threshold
			o.NextOrderSeqno, o.Threshold, o.Signers, o.Proposers = optional(m.NextOrderSeqno), &th, m.Signers, m.Proposers
		}
		out[i] = o
	}
	return out
}

// OrdersOf renders orders in toncenter's shape, their actions parsed when
// parse is set, and returns the addresses the actions name (for the
// address book). nil for none.
func OrdersOf(in []chain.MultisigOrder, parse bool) ([]tcMultisigOrder, []string) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]tcMultisigOrder, len(in))
	var named []string
	for i, o := range in {
		code, data := o.CodeHash.Base64(), o.DataHash.Base64()
		th, exp := o.Threshold, o.ExpirationDate
		r := tcMultisigOrder{Address: o.Address, MultisigAddress: o.Multisig, OrderSeqno: optional(o.OrderSeqno),
			Threshold: &th, ExpirationDate: &exp, Signers: o.Signers, LastTransactionLt: lt(o.LastTxLt),
			CodeHash: &code, DataHash: &data}
		if o.Order != nil {
			b := base64.StdEncoding.EncodeToString(o.Order)
			r.OrderBoc = &b
		}
		if o.Known {
			sent, num := o.SentForExecution, o.ApprovalsNum
			r.SentForExecution, r.ApprovalsMask, r.ApprovalsNum = &sent, optional(o.ApprovalsMask), &num
		}
		if parse && o.Order != nil {
			// An order that does not parse keeps its order_boc and no
			// actions, as toncenter leaves it.
			if acts, err := toncenter.OrderActions(o.Order); err == nil {
				r.Actions = acts
				for _, a := range acts {
					named = append(named, a.Addresses()...)
				}
			}
		}
		out[i] = r
	}
	return out, named
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
			include, err := boolParam(q, "include_orders")
			if err != nil {
				return nil, nil, nil, err
			}
			list, err := res.Multisigs(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var orders map[string][]chain.MultisigOrder
			if include == nil || *include { // toncenter's default
				if orders, err = res.OrdersOf(r.Context(), list); err != nil {
					return nil, nil, nil, err
				}
			}
			var book []string
			for _, m := range list {
				book = append(book, m.Address)
				book = append(book, m.Signers...)
				book = append(book, m.Proposers...)
				for _, o := range orders[m.Address] {
					book = append(book, o.Address)
					book = append(book, o.Signers...)
				}
			}
			return MultisigsOf(list, orders), book, nil, nil
		})
}

// MultisigOrdersRoute serves GET /api/v3/multisig/orders.
func MultisigOrdersRoute(res *resolvers.Resolver) http.HandlerFunc {
	return listRoute(res, "orders",
		map[string]bool{"address": true, "multisig_address": true, "parse_actions": true, "limit": true, "offset": true, "sort": true}, false,
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.OrderArgs{Address: splitList(q["address"]), MultisigAddress: splitList(q["multisig_address"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			if a.Sort, err = single(q, "sort"); err != nil {
				return nil, nil, nil, err
			}
			parse, err := flag(q, "parse_actions")
			if err != nil {
				return nil, nil, nil, err
			}
			list, err := res.MultisigOrders(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			orders, book := OrdersOf(list, parse)
			if orders == nil {
				orders = []tcMultisigOrder{}
			}
			for _, o := range list {
				book = append(book, o.Address, o.Multisig)
				book = append(book, o.Signers...)
			}
			return orders, book, nil, nil
		})
}
