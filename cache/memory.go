package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Memory is an in-process LRU with per-entry expiry. Values are copied in and
// out so callers can never alias each other's bytes. The LRU is
// golang-lru's unlocked one under this mutex, so that checking an entry's
// expiry and dropping it is one step.
type Memory struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[string, memEntry]
	now    func() time.Time
	hits   atomic.Int64
	misses atomic.Int64
}

type memEntry struct {
	value   []byte
	expires time.Time
}

// NewMemory makes an LRU holding at most maxEntries (at least 1).
func NewMemory(maxEntries int) *Memory {
	return NewMemoryClock(maxEntries, time.Now)
}

// NewMemoryClock is NewMemory with an injectable clock, so expiry can be
// tested without sleeping.
func NewMemoryClock(maxEntries int, now func() time.Time) *Memory {
	l, _ := simplelru.NewLRU[string, memEntry](max(maxEntries, 1), nil) // errs only for a size < 1
	return &Memory{lru: l, now: now}
}

func (m *Memory) Get(_ context.Context, key string) ([]byte, bool) {
	m.mu.Lock()
	e, ok := m.lru.Get(key)
	if ok && !m.now().Before(e.expires) {
		m.lru.Remove(key)
		ok = false
	}
	m.mu.Unlock()
	if !ok {
		m.misses.Add(1)
		return nil, false
	}
	m.hits.Add(1)
	return append([]byte(nil), e.value...), true
}

func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	e := memEntry{value: append([]byte(nil), value...), expires: m.now().Add(ttl)}
	m.mu.Lock()
	m.lru.Add(key, e)
	m.mu.Unlock()
}

// Len is the number of entries held (expired ones included until touched).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len()
}

// Counts reports hits and misses since start (Counter).
func (m *Memory) Counts() (hits, misses int64) { return m.hits.Load(), m.misses.Load() }
