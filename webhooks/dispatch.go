package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/notify"
)

// index is the live hooks by watched address: matching an action costs a
// map lookup per participant, however many hooks and addresses there are.
type index struct {
	byAddr map[string][]*watch
	// types are the event types the live hooks watch, in EventTypes'
	// order: what the dispatcher subscribes to.
	types []string
}

type watch struct {
	id    string
	start uint64   // told events with a higher seq
	types []string // the event types it watches
}

// dispatch keeps one hub subscription from the stored cursor and queues
// its events for the hooks; when the subscription ends (cut as slow, the
// hub closing, a failed write) it starts again from the stored cursor, so
// nothing is queued twice or skipped.
func (s *Service) dispatch(ctx context.Context) {
	if s.o.Hub == nil {
		return
	}
	for ctx.Err() == nil {
		err := s.dispatchOnce(ctx)
		if errors.Is(err, errTypesChanged) {
			continue // subscribe again at once, with the new types
		}
		if err != nil && ctx.Err() == nil {
			s.o.Logger.Warn("webhooks: dispatching failed; resuming from the stored cursor", "error", err.Error())
		}
		_ = backoff.Sleep(ctx, s.o.Poll)
	}
}

// errTypesChanged ends a subscription whose event types are no longer
// those the live hooks watch: one that lacks a type a new hook watches
// would skip that type's events past the cursor, one with a type no hook
// watches makes the hub read and render them for nobody (every
// transaction of every block, for a dispatcher of action hooks only).
var errTypesChanged = errors.New("webhooks: the hooks' event types changed")

func (s *Service) dispatchOnce(ctx context.Context) error {
	if err := s.fastForward(ctx); err != nil {
		return err
	}
	// No transaction: on SQLite one would wait for the writers' lock. A
	// hook made between the two reads is in an index kept under the older
	// version, which is harmless: enqueue reads the index again under the
	// newer one, and a hook takes only what follows its start.
	var st struct {
		Cursor  int64 `bun:"cursor"`
		Version int64 `bun:"version"`
	}
	db := s.o.Store.DB()
	if err := db.NewRaw("SELECT cursor, version FROM webhook_state WHERE id = 1").Scan(ctx, &st); err != nil {
		return err
	}
	idx, err := s.hooks(ctx, db, st.Version)
	if err != nil {
		return err
	}
	types := idx.subscribed()
	after := uint64(st.Cursor)
	// Only the types the live hooks watch (one position covers them all);
	// enqueue ends the subscription when that set changes, and it starts
	// again from the stored cursor with the new set.
	sub, err := s.o.Hub.Subscribe(ctx, notify.Request{After: &after, Internal: true, Types: types})
	if err != nil {
		return err
	}
	defer sub.Close()
	var events []*notify.Event
	covered := after // the stored cursor as this loop last moved it
	for {
		e, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		if e != nil {
			events = append(events, e)
			if len(events) < batch {
				continue
			}
		}
		if len(events) > 0 {
			upto := sub.Position()
			if err := s.enqueue(ctx, events, types, upto); err != nil {
				return err
			}
			covered = max(covered, upto, events[len(events)-1].Seq)
			events = events[:0]
			s.poke()
			continue
		}
		// Nothing waits: the stream told everything up to its position,
		// whose last numbers may be of events no hook's type takes (a
		// trace while no hook takes traces); the cursor moves there too,
		// or it would stay below the counter for good.
		if upto := sub.Position(); upto > covered {
			if err := s.enqueue(ctx, nil, types, upto); err != nil {
				return err
			}
			covered = upto
		}
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Ready():
		}
	}
}

// enqueue queues events for the hooks that watch them and moves the
// cursor past them, in one transaction. The state row is locked first:
// another process's dispatcher that got the same events finds the cursor
// past them and queues nothing, and a hook made meanwhile is seen. When
// the live hooks' types are no longer subscribed (the subscription's),
// it queues nothing, moves nothing and answers errTypesChanged. upto is
// the subscription's position after events (every event of its types up
// to it was among them): the cursor moves there.
func (s *Service) enqueue(ctx context.Context, events []*notify.Event, subscribed []string, upto uint64) error {
	return s.o.Store.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var st struct {
			Cursor  int64 `bun:"cursor"`
			Version int64 `bun:"version"`
		}
		if err := tx.NewRaw("UPDATE webhook_state SET cursor = cursor WHERE id = 1 RETURNING cursor, version").Scan(ctx, &st); err != nil {
			return err
		}
		idx, err := s.hooks(ctx, tx, st.Version)
		if err != nil {
			return err
		}
		if !slices.Equal(idx.subscribed(), subscribed) {
			return errTypesChanged
		}
		last := uint64(st.Cursor)
		now := nowMs()
		var vals []any
		var sql strings.Builder
		flush := func() error {
			if len(vals) == 0 {
				return nil
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO webhook_events (hook_id, seq, payload, created_at) VALUES "+
				strings.TrimSuffix(sql.String(), ",")+" ON CONFLICT DO NOTHING", vals...)
			vals, sql = vals[:0], strings.Builder{}
			return err
		}
		for _, e := range events {
			if e.Seq <= last {
				continue // queued by another process already
			}
			last = e.Seq
			var data []byte
			for _, w := range idx.match(e) {
				if data == nil {
					if data, err = e.JSON(true); err != nil {
						return err
					}
				}
				vals = append(vals, w.id, int64(e.Seq), string(payload(w.id, e.Type(), e.Seq, data)), now)
				sql.WriteString("(?, ?, ?, ?),")
				if len(vals) >= 400 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		last = max(last, upto)
		if last > uint64(st.Cursor) {
			_, err = tx.ExecContext(ctx, "UPDATE webhook_state SET cursor = ? WHERE id = 1", int64(last))
		}
		return err
	})
}

// match returns the hooks that take e, each once.
func (x *index) match(e *notify.Event) []*watch {
	var out []*watch
	typ := e.Type()
	for _, acc := range e.Accounts() {
		for _, w := range x.byAddr[acc] {
			if e.Seq > w.start && slices.Contains(w.types, typ) && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// subscribed is what the dispatcher subscribes to for x's hooks: their
// types; actions when there is no hook, so the cursor still moves with
// the stream (the hub reads every action anyway).
func (x *index) subscribed() []string {
	if len(x.types) == 0 {
		return []string{EventActions}
	}
	return x.types
}

// hooks returns the index of live hooks, read again when their version
// moved (a hook made, deleted or disabled, here or in another process).
func (s *Service) hooks(ctx context.Context, tx bun.IDB, version int64) (*index, error) {
	s.mu.Lock()
	if s.version == version && s.index != nil {
		defer s.mu.Unlock()
		return s.index, nil
	}
	s.mu.Unlock()
	var rows []struct {
		ID         string `bun:"id"`
		Addresses  string `bun:"addresses"`
		EventTypes string `bun:"event_types"`
		StartSeq   int64  `bun:"start_seq"`
	}
	if err := tx.NewRaw("SELECT id, addresses, event_types, start_seq FROM webhooks WHERE disabled_at IS NULL").Scan(ctx, &rows); err != nil {
		return nil, err
	}
	idx := &index{byAddr: map[string][]*watch{}}
	used := map[string]bool{}
	for _, r := range rows {
		var addrs, types []string
		if err := json.Unmarshal([]byte(r.Addresses), &addrs); err != nil {
			return nil, fmt.Errorf("webhook %s: addresses: %w", r.ID, err)
		}
		_ = json.Unmarshal([]byte(r.EventTypes), &types)
		for _, t := range types {
			used[t] = true
		}
		w := &watch{id: r.ID, start: uint64(r.StartSeq), types: types}
		for _, a := range addrs {
			idx.byAddr[a] = append(idx.byAddr[a], w)
		}
	}
	for _, t := range EventTypes {
		if used[t] {
			idx.types = append(idx.types, t)
		}
	}
	s.mu.Lock()
	s.version, s.index = version, idx
	s.mu.Unlock()
	return idx, nil
}

// payload is the body POSTed for an event: its id (what receivers dedup
// on: the same event is always sent with the same id), the hook, the
// type, its stream position and the data (for actions, a /api/v3/actions
// answer of the one action, with its accounts; for transactions, a
// /api/v3/transactions answer of the one transaction with its metadata).
func payload(hookID, typ string, seq uint64, data []byte) []byte {
	b := make([]byte, 0, len(data)+128)
	b = append(b, `{"event_id":`...)
	b = strconv.AppendQuote(b, eventID(hookID, seq))
	b = append(b, `,"hook_id":`...)
	b = strconv.AppendQuote(b, hookID)
	b = append(b, `,"type":`...)
	b = strconv.AppendQuote(b, typ)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"data":`...)
	b = append(b, data...)
	return append(b, '}')
}

func eventID(hookID string, seq uint64) string { return hookID + "-" + strconv.FormatUint(seq, 10) }

// fastForward moves the cursor past the events no hook can take. A hook
// takes only events after its start_seq (the newest event when it was
// made), so with no hook the cursor goes to the newest event, else to the
// oldest hook's start (disabled hooks included: the cursor never passes
// what the matching could still queue). Without it a server started on a
// database loaded in bulk, or one whose hooks were all deleted, reads
// every stored action again, page by page, for nobody: on 10M actions
// that cost every other client 2-3 ms of server CPU per request while it
// lasted (docs/PERFORMANCE.md). The state row is locked first, as enqueue
// and Create lock it, so a hook made meanwhile is seen.
func (s *Service) fastForward(ctx context.Context) error {
	return s.o.Store.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var cursor int64
		if err := tx.NewRaw("UPDATE webhook_state SET cursor = cursor WHERE id = 1 RETURNING cursor").Scan(ctx, &cursor); err != nil {
			return err
		}
		var oldest sql.NullInt64
		if err := tx.NewRaw("SELECT MIN(start_seq) FROM webhooks").Scan(ctx, &oldest); err != nil {
			return err
		}
		to := oldest.Int64
		if !oldest.Valid {
			if err := tx.NewRaw("SELECT last FROM action_seq WHERE id = 1").Scan(ctx, &to); err != nil {
				return err
			}
		}
		if to <= cursor {
			return nil
		}
		_, err := tx.ExecContext(ctx, "UPDATE webhook_state SET cursor = ? WHERE id = 1", to)
		return err
	})
}
