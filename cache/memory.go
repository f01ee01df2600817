package cache

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Memory is an in-process LRU with per-entry expiry. Values are copied in and
// out so callers can never alias each other's bytes.
type Memory struct {
	mu    sync.Mutex
	max   int
	ll    *list.List // front = most recently used
	items map[string]*list.Element
	now   func() time.Time
}

type memEntry struct {
	key     string
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
	if maxEntries < 1 {
		maxEntries = 1
	}
	return &Memory{max: maxEntries, ll: list.New(), items: map[string]*list.Element{}, now: now}
}

func (m *Memory) Get(_ context.Context, key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.expires) {
		m.ll.Remove(el)
		delete(m.items, key)
		return nil, false
	}
	m.ll.MoveToFront(el)
	return append([]byte(nil), e.value...), true
}

func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := &memEntry{key: key, value: append([]byte(nil), value...), expires: m.now().Add(ttl)}
	if el, ok := m.items[key]; ok {
		el.Value = e
		m.ll.MoveToFront(el)
		return
	}
	m.items[key] = m.ll.PushFront(e)
	for m.ll.Len() > m.max {
		last := m.ll.Back()
		m.ll.Remove(last)
		delete(m.items, last.Value.(*memEntry).key)
	}
}

// Len is the number of entries held (expired ones included until touched).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ll.Len()
}
