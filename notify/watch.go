package notify

import (
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/store"
)

// Defaults of the watch-set limits (Options.MaxWatch, MaxWatchPerKey).
const (
	// DefaultMaxWatch is an exchange's deposit addresses on one stream.
	DefaultMaxWatch = 10_000
	// DefaultMaxWatchPerKey bounds what one key's streams watch together:
	// each watched key costs the hub a map entry per stream.
	DefaultMaxWatchPerKey = 100_000
	// MaxWatchLimit is the highest MaxWatch an operator may set: a replay
	// sends the set to the database as one IN list, and SQLite takes at
	// most 32,766 parameters in a statement.
	MaxWatchLimit = 30_000
)

// watch is a subscription's watch set as maps: the live test of an event
// is one lookup per participant, however large the set.
type watch struct {
	accounts map[string]struct{}
	exts     map[string]struct{}
}

// newWatch reads the set of f: its single account (the older one-address
// filter) and its watch lists. Nil when f watches nothing (every action
// passes).
func newWatch(f *store.ActionFilter) *watch {
	n := len(f.WatchAccounts) + len(f.WatchExtNorms)
	if f.Account != "" {
		n++
	}
	if n == 0 {
		return nil
	}
	w := &watch{accounts: make(map[string]struct{}, len(f.WatchAccounts)+1), exts: make(map[string]struct{}, len(f.WatchExtNorms))}
	if f.Account != "" {
		w.accounts[f.Account] = struct{}{}
	}
	for _, a := range f.WatchAccounts {
		w.accounts[a] = struct{}{}
	}
	for _, h := range f.WatchExtNorms {
		w.exts[h] = struct{}{}
	}
	return w
}

// size is what the set counts against MaxWatchPerKey.
func (w *watch) size() int {
	if w == nil {
		return 0
	}
	return len(w.accounts) + len(w.exts)
}

// passes tells whether e concerns the set. A filter with both a single
// account and watch lists needs the account (it is a filter like the
// others) and one of the lists.
func (w *watch) passes(f *store.ActionFilter, e *Event) bool {
	if w == nil {
		return true
	}
	if len(f.WatchAccounts) == 0 && len(f.WatchExtNorms) == 0 {
		return true // the single account: matches tests it
	}
	for _, a := range e.Accounts() {
		if _, ok := w.accounts[a]; ok {
			return true
		}
	}
	if h := e.extNorm(); h != nil {
		if _, ok := w.exts[*h]; ok {
			return true
		}
	}
	return false
}

// CheckWatch refuses a set larger than one stream may watch; field names
// the parameter that carried it (account, addresses, watch.addresses).
func (h *Hub) CheckWatch(field string, n int) error {
	if n > h.o.MaxWatch {
		return apperr.Field(field, "at most %d addresses and hashes on one stream (MAX_STREAM_ADDRESSES); got %d: split the set over several streams", h.o.MaxWatch, n)
	}
	return nil
}

// index adds s under each key of its set (h.mu held).
func (h *Hub) index(s *Subscription) {
	w := s.watch
	if w == nil {
		h.others[s] = struct{}{}
		return
	}
	for a := range w.accounts {
		addTo(h.byAccount, a, s)
	}
	for x := range w.exts {
		addTo(h.byExt, x, s)
	}
}

// unindex removes s from where index put it (h.mu held).
func (h *Hub) unindex(s *Subscription) {
	w := s.watch
	if w == nil {
		delete(h.others, s)
		return
	}
	for a := range w.accounts {
		removeFrom(h.byAccount, a, s)
	}
	for x := range w.exts {
		removeFrom(h.byExt, x, s)
	}
}

func addTo(m map[string]map[*Subscription]struct{}, k string, s *Subscription) {
	set := m[k]
	if set == nil {
		set = map[*Subscription]struct{}{}
		m[k] = set
	}
	set[s] = struct{}{}
}

func removeFrom(m map[string]map[*Subscription]struct{}, k string, s *Subscription) {
	delete(m[k], s)
	if len(m[k]) == 0 {
		delete(m, k)
	}
}
