package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Actions are streamed (package notify) in the order their commits made
// them visible, which is not the order of their logical times: an import
// of an old block or a shard block that lags writes actions below ones
// already told. So each action gets a seq when it is first written, from
// the one-row counter action_seq. The counter is moved as the first write
// of the transaction, and its row lock is held until the commit, so a
// second writer gets its numbers only after the first has committed: seqs
// grow in commit order, and "every action with seq > N" misses nothing
// that commits later. An action written again with the same id (its trace
// grew, a reclassify found the same action) keeps its seq: it was told
// once. The price is that writers of actions commit one at a time; they
// are one follower and perhaps an import.

// NotifyChannel is the Postgres channel on which a commit that wrote new
// actions announces its highest seq (NOTIFY is delivered at commit, and
// never for a rolled-back transaction).
const NotifyChannel = "tonql_actions"

// OnActionsCommitted registers fn to be called, after each SaveBatch of
// this process that gave actions new seqs has committed, with the highest
// of them. fn runs on the writer's goroutine and must not block.
func (s *Store) OnActionsCommitted(fn func(last uint64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.committed = append(s.committed, fn)
}

func (s *Store) actionsCommitted(last uint64) {
	s.mu.Lock()
	fns := s.committed
	s.mu.Unlock()
	for _, fn := range fns {
		fn(last)
	}
}

// assignSeqs takes seqs for a batch's actions: kept ones for actions
// already stored, new ones in page order (end_lt, action_id) for the rest.
// hi is the highest new seq, 0 when every action was known; kept are the
// ids of the actions stored already.
func assignSeqs(ctx context.Context, tx bun.Tx, actions []chain.Action) (seqs map[string]int64, kept map[string]bool, hi uint64, err error) {
	if len(actions) == 0 {
		return nil, nil, 0, nil
	}
	// Numbers are taken for every action, before it is known which are
	// stored already (the lock must come first); the unused ones are given
	// back below.
	last, err := takeSeqs(ctx, tx, len(actions))
	if err != nil {
		return nil, nil, 0, err
	}
	ids := make([]string, 0, len(actions))
	for i := range actions {
		ids = append(ids, actions[i].ActionID)
	}
	seqs, kept = make(map[string]int64, len(actions)), map[string]bool{}
	// An id's end_lt is fixed by the id (partitions.go), so bounding it by
	// the batch's end_lts changes no answer and prunes the lookup to the
	// partitions of that range on Postgres.
	ltLo, ltHi := ltRange(actions)
	// Read after the counter's lock is held: a writer that committed while
	// this one waited has its actions seen here.
	for start := 0; start < len(ids); start += 1000 {
		var rows []actionRow
		if err := tx.NewSelect().Model(&rows).Column("action_id", "seq").
			Where("action_id IN (?)", bun.In(ids[start:min(start+1000, len(ids))])).Where("end_lt BETWEEN ? AND ?", ltLo, ltHi).Scan(ctx); err != nil {
			return nil, nil, 0, fmt.Errorf("read action seqs: %w", err)
		}
		for _, r := range rows {
			seqs[r.ActionID], kept[r.ActionID] = r.Seq, true
		}
	}
	base := last - int64(len(actions))
	hi = numberNew(actions, seqs, base)
	given := int64(0)
	if hi > 0 {
		given = int64(hi) - base
	}
	// Numbers left over at the top (kept actions' share) go back while the
	// row is still locked: no one took any after them, and a batch that
	// writes nothing new (a re-import, a reclassify) then leaves the
	// counter as it found it.
	if unused := int64(len(actions)) - given; unused > 0 {
		if _, err := takeSeqs(ctx, tx, int(-unused)); err != nil {
			return nil, nil, 0, err
		}
	}
	return seqs, kept, hi, nil
}

// takeSeqs moves the counter past n numbers and returns the last of them;
// in a transaction, its row stays locked until the commit.
func takeSeqs(ctx context.Context, db bun.IDB, n int) (last int64, err error) {
	if err := db.NewRaw("UPDATE action_seq SET last = last + ? WHERE id = 1 RETURNING last", n).Scan(ctx, &last); err != nil {
		return 0, fmt.Errorf("take action seqs: %w", err)
	}
	return last, nil
}

// numberNew gives the actions without a seq in seqs the numbers after
// base, in page order (end_lt, action_id), and returns the highest given
// (0 when none was).
func numberNew(actions []chain.Action, seqs map[string]int64, base int64) (hi uint64) {
	order := make([]int, len(actions))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := &actions[order[i]], &actions[order[j]]
		if a.EndLt != b.EndLt {
			return a.EndLt < b.EndLt
		}
		return a.ActionID < b.ActionID
	})
	next := base
	for _, i := range order {
		if _, ok := seqs[actions[i].ActionID]; ok {
			continue
		}
		next++
		seqs[actions[i].ActionID] = next
		hi = uint64(next)
	}
	return hi
}

// notify queues the announcement of a commit's new actions (Postgres; on
// SQLite only this process can learn of them, through OnActionsCommitted).
func (w *writer) notify(last uint64) {
	if last == 0 || !w.queue {
		return
	}
	w.script = append(w.script, "NOTIFY "+NotifyChannel+", '"+strconv.FormatUint(last, 10)+"';\n"...)
}

// LastActionSeq is the highest seq taken by a committed transaction: every
// action with a seq at or below it is visible now, and every action
// committed later gets a higher one.
func (s *Store) LastActionSeq(ctx context.Context) (uint64, error) {
	var last int64
	if err := s.db.NewRaw("SELECT last FROM action_seq WHERE id = 1").Scan(ctx, &last); err != nil {
		return 0, unavailable(err)
	}
	return uint64(last), nil
}

// SeqAction is an action with its place in the stream.
type SeqAction struct {
	Seq uint64
	*chain.Action
}

// ActionsAfter returns up to limit actions with seq > after that match f,
// in seq order, with Accounts filled. Of f only the filters count (After,
// Limit, Offset and Asc do not); they are applied exactly as ListActions
// applies them.
func (s *Store) ActionsAfter(ctx context.Context, f ActionFilter, after uint64, limit int) ([]SeqAction, error) {
	v := newParams(s.db)
	q := s.db.NewSelect().TableExpr("actions AS a").ColumnExpr(actionColumns+", a.seq").
		Where("a.seq > ?", v.add(int64(after)))
	if f.Account != "" {
		q.Where("a.action_id IN (SELECT aa.action_id FROM action_accounts AS aa WHERE aa.account = ?)", v.add(f.Account))
	}
	applyWatch(q, f, v)
	applyTypeTime(q, f, v, "a.")
	applyIDs(q, f, v, "a.")
	if len(f.TraceIDs) > 0 {
		q.Where("a.trace_id IN (?)", v.list(f.TraceIDs))
	}
	if f.McSeqno != nil {
		q.Where("a.mc_seqno = ?", v.add(int64(*f.McSeqno)))
	}
	q.OrderExpr("a.seq ASC")
	text, err := sqlText(s.db, q)
	if err != nil {
		return nil, err
	}
	res, err := perValue(ctx, s.db, text+" LIMIT "+string(v.add(int64(limit))), v.vals)
	if err != nil {
		return nil, unavailable(err)
	}
	defer res.Close()
	var out []SeqAction
	for res.Next() {
		var r actionRow
		// actionColumns' targets (one list for every reader of them), then seq
		if err := res.Scan(append(r.fields(), &r.Seq)...); err != nil {
			return nil, unavailable(err)
		}
		out = append(out, SeqAction{Seq: uint64(r.Seq), Action: r.toChain()})
	}
	if err := res.Err(); err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// applyWatch adds f's watch set: the same index (action_accounts by
// account) that a page of one account's actions reads, for every address
// of the set at once, and the trace's normalized external hash.
func applyWatch(q *bun.SelectQuery, f ActionFilter, v *params) {
	var or []string
	if len(f.WatchAccounts) > 0 {
		or = append(or, "a.action_id IN (SELECT aa.action_id FROM action_accounts AS aa WHERE aa.account IN ("+string(v.list(f.WatchAccounts))+"))")
	}
	if len(f.WatchExtNorms) > 0 {
		or = append(or, "a.trace_external_hash_norm IN ("+string(v.list(f.WatchExtNorms))+")")
	}
	if len(or) > 0 {
		q.Where("(" + strings.Join(or, " OR ") + ")")
	}
}

// MatchFacts are what an action filter tests besides the action's own
// columns: the logical times of its transactions and the hashes (and
// normalized hashes) of their messages.
type MatchFacts struct {
	TxLts     []uint64
	MsgHashes []string
}

// ActionMatchFacts reads the MatchFacts of actions, by action id; lts and
// hashes are read only when asked for.
func (s *Store) ActionMatchFacts(ctx context.Context, actionIDs []string, lts, msgs bool) (map[string]*MatchFacts, error) {
	out := make(map[string]*MatchFacts, len(actionIDs))
	for _, id := range actionIDs {
		out[id] = &MatchFacts{}
	}
	for start := 0; start < len(actionIDs) && (lts || msgs); start += 1000 {
		chunk := bun.In(actionIDs[start:min(start+1000, len(actionIDs))])
		if lts {
			var rows []actionTxRow
			if err := s.db.NewSelect().Model(&rows).Column("action_id", "tx_lt").Where("action_id IN (?)", chunk).Scan(ctx); err != nil {
				return nil, unavailable(err)
			}
			for _, r := range rows {
				out[r.ActionID].TxLts = append(out[r.ActionID].TxLts, uint64(r.TxLt))
			}
		}
		if msgs {
			text, err := sqlText(s.db, s.db.NewSelect().TableExpr("action_transactions AS at").
				Join("JOIN messages AS m ON m.tx_hash = at.tx_hash").
				ColumnExpr("at.action_id, m.hash, COALESCE(m.hash_norm, '')").
				Where("at.action_id IN (?)", chunk))
			if err != nil {
				return nil, err
			}
			rows, err := s.db.QueryContext(ctx, text)
			if err != nil {
				return nil, unavailable(err)
			}
			for rows.Next() {
				var id, h, norm string
				if err := rows.Scan(&id, &h, &norm); err != nil {
					rows.Close()
					return nil, unavailable(err)
				}
				f := out[id]
				f.MsgHashes = append(f.MsgHashes, h)
				if norm != "" {
					f.MsgHashes = append(f.MsgHashes, norm)
				}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, unavailable(err)
			}
		}
	}
	return out, nil
}
