package store

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
)

// Statement is one statement the store ran: its text and, for one it keeps
// prepared (params.go), its placeholders' values ($1 is Args[0]); the
// others have their values written in.
type Statement struct {
	Query string
	Args  []any
}

// ObserveStatements calls f with every statement the store runs on its
// primary from now on, as it is sent: tests count them, and loadgen's
// -capture writes the SQL a page sends as a pgbench script. bun's own
// query hooks see only the statements bun formats, not the ones the store
// runs prepared. f runs on the statement's goroutine and must be quick;
// observers cannot be removed (they are for tests and tools).
func (s *Store) ObserveStatements(f func(Statement)) {
	s.mu.Lock()
	s.observers = append(s.observers[:len(s.observers):len(s.observers)], f)
	obs := s.observers
	s.mu.Unlock()
	s.observed.Store(&obs)
	s.db.AddQueryHook(statementHook(f))
}

// observe tells the observers of a prepared statement run on db.
func (s *Store) observe(db *bun.DB, query string, args []any) {
	obs := s.observed.Load()
	if obs == nil || db != s.db {
		return
	}
	for _, f := range *obs {
		f(Statement{Query: query, Args: args})
	}
}

// statementHook passes bun's statements to an observer.
type statementHook func(Statement)

func (h statementHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h statementHook) AfterQuery(_ context.Context, e *bun.QueryEvent) { h(Statement{Query: e.Query}) }

// StatementRecorder keeps the statements a store runs (RecordStatements).
type StatementRecorder struct {
	mu   sync.Mutex
	list []Statement
}

// RecordStatements starts keeping every statement the store runs on its
// primary (ObserveStatements).
func (s *Store) RecordStatements() *StatementRecorder {
	r := &StatementRecorder{}
	s.ObserveStatements(func(st Statement) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.list = append(r.list, st)
	})
	return r
}

// Take returns the statements kept since the last Take and forgets them.
func (r *StatementRecorder) Take() []Statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.list
	r.list = nil
	return out
}
