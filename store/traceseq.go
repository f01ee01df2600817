package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// A trace is streamed (package notify's trace events) once it is whole,
// so it takes its seq from the same counter as transactions and actions
// (seq.go) in the commit that stores it complete, after that commit's
// transactions and actions: a client told the trace was told its parts
// first, and a position between them resumes with neither lost nor
// repeated. A trace stored complete already keeps its seq.

// traceItem is a complete trace as the numbering sees it.
type traceItem struct {
	id    string // base64
	endLt uint64
}

// completeOrder is the complete traces of traces, without repeats, in
// numbering order (end lt, id): the order their last transactions came.
func completeOrder(traces []*chain.Trace) []traceItem {
	seen := map[string]bool{}
	var items []traceItem
	for _, t := range traces {
		if id := t.ID.Base64(); t.Complete && !seen[id] {
			seen[id] = true
			items = append(items, traceItem{id, t.EndLt})
		}
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].endLt != items[j].endLt {
			return items[i].endLt < items[j].endLt
		}
		return items[i].id < items[j].id
	})
	return items
}

// assignTraceSeqs takes seqs for the batch's traces that it stores
// complete and the store does not hold complete yet, by id; hi is the
// highest, 0 when none was taken. It runs in the batch's transaction after
// assignTxSeqs and assignSeqs, which lock the counter's row.
func assignTraceSeqs(ctx context.Context, tx bun.Tx, traces []*chain.Trace) (seqs map[string]int64, hi uint64, err error) {
	items := completeOrder(traces)
	if len(items) == 0 {
		return nil, 0, nil
	}
	done := map[string]bool{}
	for start := 0; start < len(items); start += 1000 {
		ids := make([]string, 0, 1000)
		for _, it := range items[start:min(start+1000, len(items))] {
			ids = append(ids, it.id)
		}
		var found []string
		if err := tx.NewSelect().Model((*traceRow)(nil)).Column("id").Where("id IN (?) AND complete", bun.In(ids)).
			Scan(ctx, &found); err != nil {
			return nil, 0, fmt.Errorf("read stored traces: %w", err)
		}
		for _, id := range found {
			done[id] = true
		}
	}
	n := len(items) - len(done)
	if n == 0 {
		return nil, 0, nil
	}
	last, err := takeSeqs(ctx, tx, n)
	if err != nil {
		return nil, 0, err
	}
	seqs, hi = numberTraces(items, done, last-int64(n))
	return seqs, hi, nil
}

// numberTraces gives the items not in done the numbers after base, in
// order, by id; hi is the highest given (0 when none was).
func numberTraces(items []traceItem, done map[string]bool, base int64) (seqs map[string]int64, hi uint64) {
	seqs = make(map[string]int64, len(items)-len(done))
	next := base
	for _, it := range items {
		if !done[it.id] {
			next++
			seqs[it.id] = next
			hi = uint64(next)
		}
	}
	return seqs, hi
}

// withTraceSeqs sets the rows' seqs from seqs.
func withTraceSeqs(rows []traceRow, seqs map[string]int64) {
	for i := range rows {
		if n, ok := seqs[rows[i].ID]; ok {
			rows[i].Seq = &n
		}
	}
}

// SeqTrace is a complete trace with its place in the stream.
type SeqTrace struct {
	Seq uint64
	StoredTrace
	// ExternalHashNorm is the TEP-467 normalized hash of the external
	// message that started it ("" when none is known).
	ExternalHashNorm string
}

// TracesAfter returns up to limit complete traces with seq > after, in seq
// order, with their transactions (lt order, messages included): those with
// a transaction of one of accounts or started by an external message of
// one of extNorms when either is given, else every one. It reads the
// primary, as ActionsAfter does: a position is what was committed there.
// The seq index gives the order; each trace's match is an index probe.
func (s *Store) TracesAfter(ctx context.Context, accounts, extNorms []string, after uint64, limit int) ([]SeqTrace, error) {
	var rows []traceRow
	q := s.db.NewSelect().Model(&rows).Where("traces.seq > ?", int64(after))
	if len(accounts) > 0 || len(extNorms) > 0 {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			if len(accounts) > 0 {
				q = q.WhereOr(`EXISTS (SELECT 1 FROM transactions AS t WHERE t.trace_id = traces.id AND t.account IN (?)
					AND t.lt >= traces.start_lt AND t.lt <= traces.end_lt)`, bun.In(accounts))
			}
			if len(extNorms) > 0 {
				q = q.WhereOr(`EXISTS (SELECT 1 FROM messages AS m WHERE m.tx_hash = traces.id AND m.direction = 'in'
					AND m.hash_norm IN (?))`, bun.In(extNorms))
			}
			return q
		})
	}
	if err := q.OrderExpr("traces.seq ASC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	out := make([]SeqTrace, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	byID := make(map[string]*SeqTrace, len(rows))
	from, to := rows[0].StartLt, rows[0].EndLt
	for i, r := range rows {
		out[i] = SeqTrace{Seq: uint64(*r.Seq), StoredTrace: StoredTrace{ID: r.ID, StartLt: uint64(r.StartLt), EndLt: uint64(r.EndLt),
			StartUtime: uint32(r.StartUtime), EndUtime: uint32(r.EndUtime), Complete: r.Complete}}
		ids[i], byID[r.ID] = r.ID, &out[i]
		from, to = min(from, r.StartLt), max(to, r.EndLt)
	}
	var txs []txRow
	// The lt range bounds the read to the partitions that hold the page.
	if err := s.db.NewSelect().Model(&txs).Where("transactions.trace_id IN (?)", bun.In(ids)).
		Where("transactions.lt BETWEEN ? AND ?", from, to).OrderExpr("transactions.lt ASC, transactions.hash ASC").Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	msgs, err := messagesOf(ctx, s.db, txs)
	if err != nil {
		return nil, unavailable(err)
	}
	byHash := make(map[string]*chain.Transaction, len(txs))
	for i := range txs {
		t := txs[i].summary()
		t.BOC = txs[i].BOC
		byHash[txs[i].Hash] = t
		if st := byID[txs[i].TraceID]; st != nil {
			st.Transactions = append(st.Transactions, t)
		}
	}
	for i := range msgs {
		addMessage(byHash[msgs[i].TxHash], &msgs[i])
	}
	norms, err := s.traceExtNorms(ctx, txs)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].ExternalHashNorm = norms[out[i].ID]
	}
	return out, nil
}
