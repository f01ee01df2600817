package server

import (
	"container/list"
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vektah/gqlparser/v2/ast"
)

// docCache keeps parsed and validated documents, least recently used out
// first, bounded by an estimate of their memory rather than their number:
// a thousand small queries and a dozen of the largest allowed take about
// the same room. gqlgen adds a document only after it passed the limits
// (they run before it parses) and validation. It stays a list and a map of
// its own: golang-lru bounds a cache by its number of entries, not by
// their cost.
type docCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // front: most recently used
	items map[string]*list.Element

	hits, misses atomic.Int64
}

type cachedDoc struct {
	query string
	doc   *ast.QueryDocument
	cost  int64
	// complexity of those of the document's operations whose complexity
	// does not depend on their variables (complexityOf's fixed), once
	// computed: the walk was 0.9% of a page's instructions.
	complexity map[*ast.OperationDefinition]int
}

// docCostPerByte is the memory of a parsed and validated document per
// byte of its text, at most: TestDocCacheCostEstimate measured 17 (many
// fragments), 22 (aliases), 36 (short fields), 54 (a list of strings) and
// 72 (a list of empty strings), rounded up; entryOverhead covers the entry
// and the map.
const (
	docCostPerByte = 80
	entryOverhead  = 512
)

func newDocCache(maxBytes int64) *docCache {
	return &docCache{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

func docCost(query string) int64 { return int64(len(query))*(docCostPerByte+1) + entryOverhead }

// Get implements graphql.Cache.
func (c *docCache) Get(_ context.Context, query string) (*ast.QueryDocument, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[query]
	if !ok {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	c.order.MoveToFront(e)
	return e.Value.(*cachedDoc).doc, true
}

// Add implements graphql.Cache.
func (c *docCache) Add(_ context.Context, query string, doc *ast.QueryDocument) {
	cost := docCost(query)
	if cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[query]; ok {
		c.order.MoveToFront(e)
		return
	}
	for c.used+cost > c.max {
		oldest := c.order.Back()
		old := oldest.Value.(*cachedDoc)
		c.order.Remove(oldest)
		delete(c.items, old.query)
		c.used -= old.cost
	}
	c.items[query] = c.order.PushFront(&cachedDoc{query: query, doc: doc, cost: cost})
	c.used += cost
}

// cost is the complexity kept for op of the cached document of query.
func (c *docCache) cost(query string, op *ast.OperationDefinition) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[query]; ok {
		n, ok := e.Value.(*cachedDoc).complexity[op]
		return n, ok
	}
	return 0, false
}

// setCost keeps the complexity of op, an operation of the cached document
// of query (of that very document: a document evicted and parsed again
// has operations of its own).
func (c *docCache) setCost(query string, op *ast.OperationDefinition, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[query]
	if !ok {
		return
	}
	d := e.Value.(*cachedDoc)
	if !slices.Contains(d.doc.Operations, op) {
		return
	}
	if d.complexity == nil {
		d.complexity = make(map[*ast.OperationDefinition]int, len(d.doc.Operations))
	}
	d.complexity[op] = n
}

// has tells whether query is cached without touching the order.
func (c *docCache) has(query string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[query]
	return ok
}

// usage is the estimated bytes held and the number of documents.
func (c *docCache) usage() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.items)
}

// counts reports Get's hits and misses since start.
func (c *docCache) counts() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }
