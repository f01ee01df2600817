package notify

import (
	"time"

	"github.com/tonql/tonql/chain"
)

// DefaultPendingTimeout is how long a pending trace waits for its real
// trace to be stored before it is invalidated: a message is valid for a
// minute or so, and a follower stores a block within seconds of it.
const DefaultPendingTimeout = 3 * time.Minute

// PendingTrace is the emulated trace of a message sent through this server.
type PendingTrace struct {
	// ExtHashNorm is the message's TEP-467 normalized hash (standard base64):
	// the stored trace's actions carry it as trace_external_hash_norm.
	ExtHashNorm string
	// Actions are the preview's top-level actions (preview.Preview.Actions).
	Actions  []*chain.Action
	Book     chain.AddressBook
	Metadata chain.Metadata
}

// pendingTrace is a pending trace told to subscribers and not yet settled.
type pendingTrace struct {
	deadline time.Time
	subs     map[*Subscription]struct{}
}

// WantsPending tells whether a live subscription asks for pending events:
// without one, a sent message need not be emulated for streams.
func (h *Hub) WantsPending() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.needPending > 0
}

// Pending tells the subscriptions that want pending events and watch an
// account of p's actions (or its hash) about p at once. Its real trace,
// once stored, comes as finalized events and settles it; if none is stored
// within PendingTimeout, those subscriptions get an invalidation.
func (h *Hub) Pending(p PendingTrace) {
	events := make([]*Event, 0, len(p.Actions))
	for _, a := range p.Actions {
		c := *a
		// The preview leaves Accounts out (shown on request) and the trace
		// has no stored hash yet: the match needs both.
		c.Accounts = a.ParticipantAddresses()
		hash := p.ExtHashNorm
		c.TraceExternalHashNorm = &hash
		events = append(events, &Event{Action: &c, Pending: true, book: p.Book, tokens: p.Metadata})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.needPending == 0 {
		return
	}
	told := map[*Subscription]struct{}{}
	var cut []*Subscription
	for _, e := range events {
		e.Seq = h.last
		seen := map[*Subscription]bool{}
		give := func(s *Subscription) {
			if seen[s] || !s.req.Pending || !s.wants(TypeActions) {
				return
			}
			seen[s] = true
			if !s.watch.passes(&s.req.Filter, e) || !matches(&s.req.Filter, e) {
				return
			}
			told[s] = struct{}{}
			if !s.push(e, h.o.Queue) {
				cut = append(cut, s)
			}
		}
		for s := range h.others {
			give(s)
		}
		for _, acc := range e.Action.Accounts {
			for s := range h.byAccount[acc] {
				give(s)
			}
		}
		for s := range h.byExt[p.ExtHashNorm] {
			give(s)
		}
	}
	for _, s := range cut {
		h.stats.cutSlow.Add(1)
		h.leaveLocked(s)
	}
	if len(told) > 0 {
		h.pending[p.ExtHashNorm] = &pendingTrace{deadline: time.Now().Add(h.o.PendingTimeout), subs: told}
	}
}

func (h *Hub) hasPending() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pending) > 0
}

// settleLocked forgets the pending trace whose real actions are being told
// (h.mu held).
func (h *Hub) settleLocked(e *Event) {
	if x := e.extNorm(); x != nil && len(h.pending) > 0 {
		delete(h.pending, *x)
	}
}

// expirePending invalidates the pending traces past their deadline. The
// store was read just before (catchUp), so a trace stored by then has
// settled its pending one.
func (h *Hub) expirePending(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for hash, p := range h.pending {
		if now.Before(p.deadline) {
			continue
		}
		delete(h.pending, hash)
		e := &Event{Seq: h.last, Invalidated: hash}
		for s := range p.subs {
			if _, open := h.subs[s]; open && !s.push(e, h.o.Queue) {
				h.stats.cutSlow.Add(1)
				h.leaveLocked(s)
			}
		}
	}
}
