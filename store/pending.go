package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// PendingTransactions loads the transactions of incomplete traces, so an
// importer that restarts can seed its trace assembler and complete them
// when the rest arrives. Transactions with a raw BOC are decoded from it;
// the others (imported from decoded JSON) are rebuilt from their rows.
func (s *Store) PendingTransactions(ctx context.Context) ([]*chain.Transaction, error) {
	return s.loadTransactions(ctx, s.db.NewSelect().Model((*traceRow)(nil)).Column("id").Where("complete = ?", false))
}

// TraceTransactions loads every transaction of the given traces, with
// their messages, in lt order: what the classifier needs to decode them
// again.
func (s *Store) TraceTransactions(ctx context.Context, traceIDs []string) ([]*chain.Transaction, error) {
	if len(traceIDs) == 0 {
		return nil, nil
	}
	return s.loadTransactions(ctx, bun.In(traceIDs))
}

// TraceIDsAfter pages through the stored trace ids in order, after the
// given one ("" for the first page).
func (s *Store) TraceIDsAfter(ctx context.Context, after string, limit int) ([]string, error) {
	var ids []string
	err := s.db.NewSelect().Model((*traceRow)(nil)).Column("id").Where("id > ?", after).
		OrderExpr("id ASC").Limit(int64(limit)).Scan(ctx, &ids)
	if err != nil {
		return nil, unavailable(err)
	}
	return ids, nil
}

// loadTransactions rebuilds the transactions whose trace is in traces (a
// list or a subquery). Transactions with a raw BOC are decoded from it;
// the others (imported from decoded JSON) are rebuilt from their rows.
func (s *Store) loadTransactions(ctx context.Context, traces any) ([]*chain.Transaction, error) {
	var rows []txRow
	err := s.db.NewSelect().Model(&rows).Where("trace_id IN (?)", traces).
		OrderExpr("lt ASC, hash ASC").Scan(ctx)
	if err != nil {
		return nil, unavailable(err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	byTx := map[string][]msgRow{}
	for start := 0; start < len(rows); start += 500 {
		hashes := make([]string, 0, 500)
		for _, r := range rows[start:min(start+500, len(rows))] {
			hashes = append(hashes, r.Hash)
		}
		var msgs []msgRow
		if err := s.db.NewSelect().Model(&msgs).Where("tx_hash IN (?)", bun.In(hashes)).
			OrderExpr("tx_hash, direction, seq").Scan(ctx); err != nil {
			return nil, unavailable(err)
		}
		for _, m := range msgs {
			byTx[m.TxHash] = append(byTx[m.TxHash], m)
		}
	}
	out := make([]*chain.Transaction, 0, len(rows))
	for i := range rows {
		tx, err := pendingTx(&rows[i], byTx[rows[i].Hash])
		if err != nil {
			return nil, fmt.Errorf("pending transaction %s: %w", rows[i].Hash, err)
		}
		out = append(out, tx)
	}
	return out, nil
}

func pendingTx(r *txRow, msgs []msgRow) (*chain.Transaction, error) {
	if len(r.BOC) > 0 {
		tx, err := chain.ParseTransactionBOC(r.BOC)
		if err != nil {
			return nil, err
		}
		// A lone BOC does not carry the workchain; the row does.
		tx.Account, tx.TraceID, tx.McSeqno = r.Account, parseHashText(r.TraceID), uint32(r.McSeqno)
		return tx, nil
	}
	tx := r.summary()
	for i := range msgs {
		addMessage(tx, &msgs[i])
	}
	return tx, nil
}

// addMessage puts a stored message on its transaction (nil: a message
// whose transaction was not read, which is left out); out-messages must
// come in seq order.
func addMessage(tx *chain.Transaction, m *msgRow) {
	if tx == nil {
		return
	}
	msg := chain.Message{
		Hash: parseHashText(m.Hash), Source: m.Source, Destination: m.Destination,
		HashNorm: parseHashText(textOrEmpty(m.HashNorm)),
		Value:    uint64(m.Value), FwdFee: uint64(m.FwdFee), CreatedLt: uint64(m.CreatedLt),
		Bounce: m.Bounce, Bounced: m.Bounced, Body: m.Body, InitState: m.InitState,
	}
	if m.Opcode != nil {
		op := uint32(*m.Opcode)
		msg.Opcode = &op
	}
	if m.BodyHash != nil {
		msg.BodyHash = parseHashText(*m.BodyHash)
	}
	applyMsgFacts(&msg, m.Facts)
	if m.Direction == "in" {
		tx.InMsg = &msg
	} else {
		tx.OutMsgs = append(tx.OutMsgs, msg)
	}
}

// summary is the transaction as its row has it, without messages.
func (r *txRow) summary() *chain.Transaction {
	tx := &chain.Transaction{
		Hash: parseHashText(r.Hash), Account: r.Account, Lt: uint64(r.Lt), Utime: uint32(r.Utime),
		OrigStatus: r.OrigStatus, EndStatus: r.EndStatus, TotalFees: uint64(r.TotalFees),
		Aborted: r.Aborted, ComputeExitCode: r.ComputeExitCode, ComputeSuccess: r.Success,
		ActionSuccess: r.Success, TraceID: parseHashText(r.TraceID), McSeqno: uint32(r.McSeqno),
	}
	if r.BlockWorkchain != nil && r.BlockShard != nil && r.BlockSeqno != nil {
		tx.Block = &chain.BlockID{Workchain: *r.BlockWorkchain, Shard: uint64(*r.BlockShard), Seqno: uint32(*r.BlockSeqno)}
	}
	applyTxFacts(tx, r.Facts)
	return tx
}

// DropTraces returns a step for Batch.Extra that deletes traces (and their
// actions) that a later batch merged into a bigger trace: their
// transactions now point at the new trace id.
func DropTraces(ids []chain.Hash) func(ctx context.Context, tx bun.Tx) error {
	return func(ctx context.Context, tx bun.Tx) error {
		if len(ids) == 0 {
			return nil
		}
		keys := make([]string, len(ids))
		for i, id := range ids {
			keys[i] = hashText(id)
		}
		old := tx.NewSelect().Model((*actionRow)(nil)).Column("action_id").Where("trace_id IN (?)", bun.In(keys))
		for _, m := range []any{(*actionAccountRow)(nil), (*actionTxRow)(nil)} {
			if _, err := tx.NewDelete().Model(m).Where("action_id IN (?)", old).Exec(ctx); err != nil {
				return fmt.Errorf("drop merged traces: %w", err)
			}
		}
		for _, m := range []any{(*actionRow)(nil)} {
			if _, err := tx.NewDelete().Model(m).Where("trace_id IN (?)", bun.In(keys)).Exec(ctx); err != nil {
				return fmt.Errorf("drop merged traces: %w", err)
			}
		}
		if _, err := tx.NewDelete().Model((*traceRow)(nil)).Where("id IN (?)", bun.In(keys)).Exec(ctx); err != nil {
			return fmt.Errorf("drop merged traces: %w", err)
		}
		// Their known facts were carried into the merged trace's (the
		// importer merges them before it classifies).
		if _, err := tx.NewDelete().Model((*traceKnownRow)(nil)).Where("trace_id IN (?)", bun.In(keys)).Exec(ctx); err != nil {
			return fmt.Errorf("drop merged traces: %w", err)
		}
		return nil
	}
}

func textOrEmpty(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TraceActionIDs lists the stored action ids of each given trace (base64
// ids): an import counts those of traces it did not write again.
func (s *Store) TraceActionIDs(ctx context.Context, traceIDs []string) (map[string][]string, error) {
	out := map[string][]string{}
	for start := 0; start < len(traceIDs); start += 1000 {
		var rows []actionRow
		if err := s.db.NewSelect().Model(&rows).Column("trace_id", "action_id").
			Where("trace_id IN (?)", bun.In(traceIDs[start:min(start+1000, len(traceIDs))])).Scan(ctx); err != nil {
			return nil, unavailable(err)
		}
		for _, r := range rows {
			out[r.TraceID] = append(out[r.TraceID], r.ActionID)
		}
	}
	return out, nil
}
