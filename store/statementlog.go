package store

import (
	"context"
	"database/sql/driver"
	"sync"
)

// StatementLog keeps the Postgres statements run under a context with
// their values, as the driver sends them: prepared ones with their
// placeholders and arguments, the others with values written in. loadgen's
// -capture turns them into the pgbench script of "the same SQL" a page
// sends. Kept at the driver (cancelConn), not in a bun query hook, because
// the statements the store keeps prepared (params.go) bypass bun.
type StatementLog struct {
	mu   sync.Mutex
	list []LoggedStatement
}

// LoggedStatement is one statement: its text and, for a prepared one, the
// values of its placeholders ($1 is Args[0]).
type LoggedStatement struct {
	Query string
	Args  []any
}

type statementLogKey struct{}

// WithStatementLog is ctx with a new StatementLog that every Postgres
// statement run under it is added to.
func WithStatementLog(ctx context.Context) (context.Context, *StatementLog) {
	l := &StatementLog{}
	return context.WithValue(ctx, statementLogKey{}, l), l
}

// Take returns the statements logged so far and forgets them.
func (l *StatementLog) Take() []LoggedStatement {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.list
	l.list = nil
	return out
}

// logStatement adds a statement to ctx's log, when it has one.
func logStatement(ctx context.Context, query string, args []driver.NamedValue) {
	l, _ := ctx.Value(statementLogKey{}).(*StatementLog)
	if l == nil {
		return
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, LoggedStatement{Query: query, Args: vals})
}
