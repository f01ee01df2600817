package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Transactions are streamed beside actions (package notify), so each
// takes its seq from the same counter (seq.go) when it is first stored:
// one position, one resume cursor, for both. A batch's transactions are
// numbered before its actions (a transaction comes before the actions it
// makes) in (lt, hash) order; a transaction stored already keeps its seq.
//
// A transaction takes TxSlots numbers: its seq and the ones after it, the
// places of the events derived from it (TxSlotState; the third number was
// the jettons_change event's until migration 20261201000213 gave those
// their own numbers, jettonchanges.go, and stays unused), so
// each of those has a seq no other event has (a cursor names one event,
// a webhook's queue keys on it) with no column or counter of its own.
// Transactions numbered before migration 20261201000161 took one number
// each and have no derived events (SeqTx.Slots).

// TxSlots is how many numbers a transaction takes; TxSlotState is the
// offset from its seq of its account's state change.
const (
	TxSlots     = 3
	TxSlotState = 1
)

// assignTxSeqs takes seqs for the batch's transactions that are not stored
// yet, by hash (base64); hi is the highest, 0 when every one was stored.
// It must run in the batch's database transaction, before its rows are
// written: the counter's row lock orders the commit (seq.go).
func assignTxSeqs(ctx context.Context, tx bun.Tx, txs []*chain.Transaction) (seqs map[string]int64, hi uint64, err error) {
	if len(txs) == 0 {
		return nil, 0, nil
	}
	items := txOrder(txs)
	lo, top := int64(items[0].lt), int64(items[len(items)-1].lt)
	last, err := takeSeqs(ctx, tx, len(items)*TxSlots)
	if err != nil {
		return nil, 0, err
	}
	stored := map[string]bool{}
	// The lt bounds prune the lookup to the partitions of the batch's
	// range on Postgres.
	for start := 0; start < len(items); start += 1000 {
		hashes := make([]string, 0, 1000)
		for _, it := range items[start:min(start+1000, len(items))] {
			hashes = append(hashes, it.hash)
		}
		var found []string
		if err := tx.NewSelect().Model((*txRow)(nil)).Column("hash").Where("hash IN (?)", bun.In(hashes)).
			Where("lt BETWEEN ? AND ?", lo, top).Scan(ctx, &found); err != nil {
			return nil, 0, fmt.Errorf("read stored transactions: %w", err)
		}
		for _, h := range found {
			stored[h] = true
		}
	}
	seqs, hi = numberTxs(items, stored, last-int64(len(items)*TxSlots))
	// The stored ones' numbers go back while the row is locked, as
	// assignSeqs gives back its unused ones.
	if unused := len(stored) * TxSlots; unused > 0 {
		if _, err := takeSeqs(ctx, tx, -unused); err != nil {
			return nil, 0, err
		}
	}
	return seqs, hi, nil
}

// txItem is a transaction as the numbering sees it.
type txItem struct {
	hash string // base64
	lt   uint64
}

// txOrder is txs without repeats in numbering order (lt, hash).
func txOrder(txs []*chain.Transaction) []txItem {
	items := make([]txItem, 0, len(txs))
	seen := make(map[string]bool, len(txs))
	for _, t := range txs {
		if h := t.Hash.Base64(); !seen[h] {
			seen[h] = true
			items = append(items, txItem{h, t.Lt})
		}
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].lt != items[j].lt {
			return items[i].lt < items[j].lt
		}
		return items[i].hash < items[j].hash
	})
	return items
}

// numberTxs gives the items not in stored the numbers after base, in
// order, TxSlots each, by hash (the first of each's); hi is the highest
// taken (0 when none was).
func numberTxs(items []txItem, stored map[string]bool, base int64) (seqs map[string]int64, hi uint64) {
	seqs = make(map[string]int64, len(items)-len(stored))
	next := base
	for _, it := range items {
		if !stored[it.hash] {
			seqs[it.hash] = next + 1
			next += TxSlots
			hi = uint64(next)
		}
	}
	return seqs, hi
}

// SeqTx is a transaction with its place in the stream.
type SeqTx struct {
	Seq uint64
	*chain.Transaction
	// TraceExternalHashNorm is the TEP-467 normalized hash of the external
	// message that started its trace ("" when none is known).
	TraceExternalHashNorm string
	// Slots is true when the numbers after Seq are its derived events'
	// (TxSlots); false for one numbered before they were.
	Slots bool
}

// TransactionsAfter returns up to limit transactions with seq > after, of
// the accounts when any are given, in seq order, with their messages. It
// reads the primary, as ActionsAfter does: a position is what was
// committed there.
func (s *Store) TransactionsAfter(ctx context.Context, accounts []string, after uint64, limit int) ([]SeqTx, error) {
	var rows []txRow
	q := s.db.NewSelect().Model(&rows).Where("transactions.seq > ?", int64(after))
	if len(accounts) > 0 {
		q = q.Where("transactions.account IN (?)", bun.In(accounts))
	}
	if err := q.OrderExpr("transactions.seq ASC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	msgs, err := s.messagesOf(ctx, s.db, txHashes(rows))
	if err != nil {
		return nil, unavailable(err)
	}
	from, err := s.txSlotsFrom(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SeqTx, len(rows))
	byHash := make(map[string]*chain.Transaction, len(rows))
	for i := range rows {
		t := rows[i].summary()
		t.BOC = rows[i].BOC
		byHash[rows[i].Hash] = t
		out[i] = SeqTx{Seq: uint64(*rows[i].Seq), Transaction: t, Slots: *rows[i].Seq > from}
	}
	for i := range msgs {
		addMessage(byHash[msgs[i].TxHash], &msgs[i])
	}
	norms, err := s.traceExtNorms(ctx, rows)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].TraceExternalHashNorm = norms[rows[i].TraceID]
	}
	return out, nil
}

// traceExtNorms reads the normalized hash of the external message of
// each row's trace (extNormsOf), by trace id.
func (s *Store) traceExtNorms(ctx context.Context, rows []txRow) (map[string]string, error) {
	ids := make([]string, 0, len(rows))
	seen := map[string]bool{}
	for i := range rows {
		if id := rows[i].TraceID; id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return s.extNormsOf(ctx, ids)
}

// extNormsOf reads the normalized hash of the in-message of each trace's
// root transaction (a trace's id is its root's hash), by trace id; a
// trace whose root's in-message has none is absent.
func (s *Store) extNormsOf(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var found []struct {
		TxHash   string  `bun:"tx_hash"`
		HashNorm *string `bun:"hash_norm"`
	}
	if err := s.db.NewSelect().Table("messages").Column("tx_hash", "hash_norm").
		Where("tx_hash IN (?) AND direction = 'in'", bun.In(ids)).Scan(ctx, &found); err != nil {
		return nil, unavailable(err)
	}
	for _, f := range found {
		if f.HashNorm != nil {
			out[f.TxHash] = *f.HashNorm
		}
	}
	return out, nil
}

// txSlotsFrom is the counter's value when transactions began to take
// TxSlots numbers (migration 20261201000161). It never changes once
// migrated, so the first read is kept.
func (s *Store) txSlotsFrom(ctx context.Context) (int64, error) {
	if v := s.slotsFrom.Load(); v != nil {
		return *v, nil
	}
	var from int64
	if err := s.db.NewRaw("SELECT tx_slots_from FROM action_seq WHERE id = 1").Scan(ctx, &from); err != nil {
		return 0, unavailable(err)
	}
	s.slotsFrom.Store(&from)
	return from, nil
}
