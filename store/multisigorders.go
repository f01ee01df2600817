package store

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Multisig v2 orders as package contracts reads them (migration
// 20261201000223): a row per order contract.

type multisigOrderRow struct {
	bun.BaseModel `bun:"table:multisig_orders,alias:multisig_orders"`

	Address          string  `bun:"address,pk"`
	Multisig         string  `bun:"multisig,notnull"`
	OrderSeqno       *string `bun:"order_seqno"`
	Threshold        *int    `bun:"threshold"`
	SentForExecution *bool   `bun:"sent_for_execution"`
	ApprovalsMask    *string `bun:"approvals_mask"`
	ApprovalsNum     *int    `bun:"approvals_num"`
	ExpirationDate   *int64  `bun:"expiration_date"`
	OrderBOC         []byte  `bun:"order_boc"`
	Signers          *string `bun:"signers"` // a JSON list of raw addresses
	contractStateRow
}

func (r *multisigOrderRow) toChain() chain.MultisigOrder {
	o := chain.MultisigOrder{Address: r.Address, Multisig: r.Multisig, OrderSeqno: textOr(r.OrderSeqno),
		ApprovalsMask: textOr(r.ApprovalsMask), Order: r.OrderBOC, ContractState: r.toState()}
	if r.Threshold != nil {
		o.Threshold = *r.Threshold
	}
	if r.SentForExecution != nil {
		o.SentForExecution = *r.SentForExecution
	}
	if r.ApprovalsNum != nil {
		o.ApprovalsNum = *r.ApprovalsNum
	}
	if r.ExpirationDate != nil {
		o.ExpirationDate = uint64(*r.ExpirationDate)
	}
	if r.Signers != nil {
		// Written by saveOrders from a list: a row that does not parse
		// shows no signers rather than failing the page.
		_ = json.Unmarshal([]byte(*r.Signers), &o.Signers)
	}
	return o
}

// orderBehind is what an order's newer transaction makes unknown: its
// approvals and whether it was executed (what an approval or the execution
// changes; the proposal itself, its seqno, threshold, signers, expiry and
// actions, is fixed at init).
var orderBehind = behindSet{"multisig_orders", "known = FALSE, sent_for_execution = NULL, approvals_mask = NULL, approvals_num = NULL"}

// saveOrders writes order rows unless a later reading is stored.
func saveOrders(ctx context.Context, tx bun.Tx, in []chain.MultisigOrder) error {
	rows := make([]multisigOrderRow, 0, len(in))
	for _, o := range in {
		signers, err := json.Marshal(o.Signers)
		if err != nil {
			return err
		}
		text, th, sent, num, exp := string(signers), o.Threshold, o.SentForExecution, o.ApprovalsNum, int64(o.ExpirationDate)
		rows = append(rows, multisigOrderRow{Address: o.Address, Multisig: o.Multisig, OrderSeqno: optText(o.OrderSeqno),
			Threshold: &th, SentForExecution: &sent, ApprovalsMask: optText(o.ApprovalsMask), ApprovalsNum: &num,
			ExpirationDate: &exp, OrderBOC: o.Order, Signers: &text, contractStateRow: stateRow(o.ContractState)})
	}
	rows = dedupe(rows, func(r *multisigOrderRow) string { return r.Address }, func(a, b *multisigOrderRow) bool { return a.LastTxLt >= b.LastTxLt })
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
		Set("multisig = EXCLUDED.multisig, order_seqno = EXCLUDED.order_seqno, threshold = EXCLUDED.threshold").
		Set("sent_for_execution = EXCLUDED.sent_for_execution, approvals_mask = EXCLUDED.approvals_mask").
		Set("approvals_num = EXCLUDED.approvals_num, expiration_date = EXCLUDED.expiration_date").
		Set("order_boc = EXCLUDED.order_boc, signers = EXCLUDED.signers, known = EXCLUDED.known").
		Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
		Where(newerThan("multisig_orders")).Exec(ctx)
	return err
}

// OrderFilter selects multisig orders (toncenter's /api/v3/multisig/orders):
// by address and by multisig (raw addresses); Asc orders by last
// transaction lt oldest first (else newest first).
type OrderFilter struct {
	Addresses, Multisigs []string
	Asc                  bool
	TokenPage
}

// MultisigOrders lists orders by last transaction lt, then address.
func (s *Store) MultisigOrders(ctx context.Context, f OrderFilter) ([]chain.MultisigOrder, error) {
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	return readTokens[multisigOrderRow, *multisigOrderRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		v := inlineParams(q.DB())
		q = whereIn(whereIn(q, v, "address", f.Addresses), v, "multisig", f.Multisigs)
		return f.apply(q.Order("last_tx_lt"+dir, "address"+dir))
	})
}

// OrdersOf are the orders of multisigs (raw addresses), oldest first, at
// most limit of them.
func (s *Store) OrdersOf(ctx context.Context, multisigs []string, limit int) ([]chain.MultisigOrder, error) {
	if len(multisigs) == 0 {
		return nil, nil
	}
	return readTokens[multisigOrderRow, *multisigOrderRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("multisig IN (?)", bun.In(multisigs)).Order("last_tx_lt", "address").Limit(int64(limit))
	})
}
