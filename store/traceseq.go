package store

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// A trace is streamed (package notify, the trace event) once, when it is
// stored complete: the commit that stores it complete gives it a seq from
// the counter (seq.go), after the numbers of that commit's transactions
// and actions, so the event comes after theirs. An incomplete trace has
// none; a trace stored complete already keeps its own (a re-import tells
// nothing again), and one stored complete before migration 20261201000132
// gets none (it was committed before any stream could be told of it).

// assignTraceSeqs takes seqs for the batch's complete traces that were
// not stored complete yet, by id (base64), in (end_lt, id) order; hi is
// the highest, 0 when none was taken. Like assignTxSeqs it runs in the
// batch's database transaction before its rows are written, after the
// transactions' and actions' numbers were taken.
func assignTraceSeqs(ctx context.Context, tx bun.Tx, traces []*chain.Trace) (seqs map[string]int64, hi uint64, err error) {
	done := completeTraces(traces)
	if len(done) == 0 {
		return nil, 0, nil
	}
	last, err := takeSeqs(ctx, tx, len(done))
	if err != nil {
		return nil, 0, err
	}
	stored := map[string]bool{} // stored complete already: no new number
	for start := 0; start < len(done); start += 1000 {
		ids := make([]string, 0, 1000)
		for _, t := range done[start:min(start+1000, len(done))] {
			ids = append(ids, t.ID.Base64())
		}
		var found []string
		if err := tx.NewSelect().Model((*traceRow)(nil)).Column("id").Where("id IN (?) AND complete", bun.In(ids)).
			Scan(ctx, &found); err != nil {
			return nil, 0, fmt.Errorf("read stored traces: %w", err)
		}
		for _, id := range found {
			stored[id] = true
		}
	}
	seqs, hi = numberTraces(done, stored, last-int64(len(done)))
	if unused := len(stored); unused > 0 {
		if _, err := takeSeqs(ctx, tx, -unused); err != nil {
			return nil, 0, err
		}
	}
	return seqs, hi, nil
}

// numberTraces gives the complete traces not in stored the numbers after
// base in (end_lt, id) order, by id; hi is the highest (0: none).
func numberTraces(done []*chain.Trace, stored map[string]bool, base int64) (seqs map[string]int64, hi uint64) {
	order := make([]*chain.Trace, 0, len(done))
	for _, t := range done {
		if !stored[t.ID.Base64()] {
			order = append(order, t)
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].EndLt != order[j].EndLt {
			return order[i].EndLt < order[j].EndLt
		}
		return order[i].ID.Base64() < order[j].ID.Base64()
	})
	seqs = make(map[string]int64, len(order))
	for i, t := range order {
		seqs[t.ID.Base64()] = base + int64(i) + 1
		hi = uint64(base) + uint64(i) + 1
	}
	return seqs, hi
}

// completeTraces is the distinct complete traces among traces.
func completeTraces(traces []*chain.Trace) []*chain.Trace {
	var out []*chain.Trace
	seen := map[string]bool{}
	for _, t := range traces {
		if id := t.ID.Base64(); t.Complete && !seen[id] {
			seen[id] = true
			out = append(out, t)
		}
	}
	return out
}

// SeqTrace is a complete trace with its place in the stream.
type SeqTrace struct {
	Seq uint64
	StoredTrace
	// ExternalHashNorm is the TEP-467 normalized hash of the external
	// message that started it ("" when its root had none).
	ExternalHashNorm string
}

// TracesAfter returns up to limit complete traces with seq > after, in seq
// order, with their transactions (by lt): those in which a transaction of
// one of accounts took part, or whose external message's normalized hash
// is one of extNorms; every one when both are empty. It reads the primary,
// as TransactionsAfter does.
func (s *Store) TracesAfter(ctx context.Context, accounts, extNorms []string, after uint64, limit int) ([]SeqTrace, error) {
	var rows []traceRow
	q := s.db.NewSelect().Model(&rows).Where("traces.seq IS NOT NULL AND traces.seq > ?", int64(after))
	var or []string
	var args []any
	if len(accounts) > 0 {
		// The lt bounds let Postgres prune the lt partitions per trace
		// (as FindTraces).
		or = append(or, `EXISTS (SELECT 1 FROM transactions AS t WHERE t.trace_id = traces.id AND t.account IN (?)
			AND t.lt >= traces.start_lt AND t.lt <= traces.end_lt)`)
		args = append(args, bun.In(accounts))
	}
	if len(extNorms) > 0 {
		// A trace's id is its root transaction's hash.
		or = append(or, `EXISTS (SELECT 1 FROM messages AS m WHERE m.tx_hash = traces.id AND m.direction = 'in' AND m.hash_norm IN (?))`)
		args = append(args, bun.In(extNorms))
	}
	if len(or) > 0 {
		q = q.Where("("+strings.Join(or, " OR ")+")", args...)
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
	var from, to int64
	for i, r := range rows {
		if i == 0 || r.StartLt < from {
			from = r.StartLt
		}
		to = max(to, r.EndLt)
		out[i] = SeqTrace{Seq: uint64(*r.Seq), StoredTrace: StoredTrace{ID: r.ID, StartLt: uint64(r.StartLt), EndLt: uint64(r.EndLt),
			StartUtime: uint32(r.StartUtime), EndUtime: uint32(r.EndUtime), Complete: r.Complete}}
		ids[i] = r.ID
		byID[r.ID] = &out[i]
	}
	txs, err := s.traceTransactions(ctx, s.db, ids, from, to)
	if err != nil {
		return nil, unavailable(err)
	}
	msgs, err := s.messagesOf(ctx, s.db, txHashes(txs))
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
	norms, err := s.extNormsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].ExternalHashNorm = norms[out[i].ID]
	}
	return out, nil
}
