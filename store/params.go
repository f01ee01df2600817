package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// params numbers a query's values as placeholders ($n on Postgres, ?n on
// SQLite) instead of writing them into its text, so that the text depends
// on the query's shape alone and can be prepared (SQLite's pages; on
// Postgres only statements whose plan cannot depend on the values are:
// pageRowsSQL, the registry's lists by key (readList), a page's messages
// (messagesOf) and its traces' transactions (traceTransactions), messages
// and transactions by hash and traces by key (Messages, FindTransactions,
// FindTraces), the address book (scanFacts); the others run per value,
// see perValue and pgPage).
type params struct {
	pg     bool
	inline *bun.DB // when set, values are written into the text after all
	vals   []any
}

func newParams(db *bun.DB) *params { return &params{pg: db.Dialect().Name() == dialect.PG} }

// inlineParams writes the values into the text, as literals: for EXPLAIN,
// and for the pgbench scripts that replay what a server without prepared
// statements sent (PageSQL).
func inlineParams(db *bun.DB) *params { return &params{inline: db} }

// add returns the placeholder of v.
func (p *params) add(v any) bun.Safe {
	if p.inline != nil {
		return bun.Safe(p.inline.QueryGen().FormatQuery("?", v))
	}
	p.vals = append(p.vals, v)
	if p.pg {
		return bun.Safe("$" + strconv.Itoa(len(p.vals)))
	}
	return bun.Safe("?" + strconv.Itoa(len(p.vals)))
}

// list returns the placeholders of vs, comma-separated, for IN (...).
func (p *params) list(vs []string) bun.Safe {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(p.add(v)))
	}
	return bun.Safe(b.String())
}

// maxPrepared bounds the statements kept prepared per database. Shapes are
// few (on SQLite a filter's fields, its lists' lengths and the sort; on
// Postgres three) but not bounded by the code, so the least recently used
// ones are closed.
const maxPrepared = 512

// statements keeps the prepared statements of one database handle.
// database/sql prepares a statement again on each pooled connection it
// runs on and drops it with the connection.
type statements struct {
	db    *sql.DB
	cache *lru.Cache[string, *sql.Stmt]
}

func newStatements(db *sql.DB, size int) *statements {
	c, _ := lru.NewWithEvict[string, *sql.Stmt](size, func(_ string, st *sql.Stmt) { _ = st.Close() })
	return &statements{db: db, cache: c}
}

// query runs a parametrized query through its prepared statement.
func (s *statements) query(ctx context.Context, query string, args []any) (*sql.Rows, error) {
	st, err := s.get(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil && err.Error() == "sql: statement is closed" {
		// Evicted (and closed) by other shapes between the lookup and the
		// query: this once, run unprepared (the next ask prepares again).
		return s.db.QueryContext(ctx, query, args...)
	}
	return rows, err
}

// get returns the statement of query, prepared now if it is not cached.
func (s *statements) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.cache.Get(query); ok {
		return st, nil
	}
	// Prepared without a lock held (a stalled database must not queue
	// other requests behind a mutex that ignores their deadlines); of two
	// goroutines preparing one shape, the first to store it wins.
	fresh, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded, _ := s.cache.PeekOrAdd(query, fresh); loaded {
		_ = fresh.Close()
		return prev, nil
	}
	return fresh, nil
}

// prepared runs a parametrized query on db through the statement the
// store keeps prepared for it.
func (s *Store) prepared(ctx context.Context, db *bun.DB, query string, args []any) (*sql.Rows, error) {
	st, ok := s.statements.Load(db.DB)
	if !ok {
		st, _ = s.statements.LoadOrStore(db.DB, newStatements(db.DB, maxPrepared))
	}
	s.observe(db, query, args)
	return st.(*statements).query(ctx, query, args)
}

// scanPrepared runs a parametrized query through its prepared statement
// and scans its rows into dest (scanRows).
func (s *Store) scanPrepared(ctx context.Context, db *bun.DB, query string, args []any, dest any) error {
	rows, err := s.prepared(ctx, db, query, args)
	if err != nil {
		return err
	}
	return scanRows(ctx, db, rows, dest)
}

// sqlText writes q's statement. bun's String panics when a query cannot be
// written (a model it cannot map, a value it cannot format, an error set on
// the query), where its Scan returns the error: a read answers it as one.
func sqlText(db *bun.DB, q schema.QueryAppender) (string, error) {
	b, err := q.AppendQuery(db.QueryGen(), nil)
	return string(b), err
}

// scanQuery runs q, its values written in, and scans its rows into dest
// (scanRows): q.Scan, but for the rows read through typed targets.
func scanQuery(ctx context.Context, db *bun.DB, q *bun.SelectQuery, dest any) error {
	text, err := sqlText(db, q)
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, text)
	if err != nil {
		return err
	}
	return scanRows(ctx, db, rows, dest)
}

// scanRows scans rows into dest as bun's Scan would, and closes them:
// transactions and messages, read by the hundred, through their typed
// targets (fields.go).
func scanRows(ctx context.Context, db *bun.DB, rows *sql.Rows, dest any) error {
	switch d := dest.(type) {
	case *[]txRow:
		return scanFields(db, rows, d)
	case *[]msgRow:
		return scanFields(db, rows, d)
	}
	return db.ScanRows(ctx, rows, dest)
}

// scanByKeys reads into dest the rows of q whose column col is one of keys
// (col is the code's, never a client's). On Postgres the keys go as one
// array to a statement kept prepared: a lookup by key is planned alike for
// every value and every number of them, so it is not parsed and planned anew
// for each page (docs/PERFORMANCE.md, seventeenth session). SQLite takes them
// as a list.
func (s *Store) scanByKeys(ctx context.Context, db *bun.DB, q *bun.SelectQuery, col string, keys []string, dest any) error {
	if !s.IsPostgres() {
		return scanQuery(ctx, db, q.Where(col+" IN (?)", bun.In(keys)), dest)
	}
	text, err := sqlText(db, q.Where(col+" = ANY($1)"))
	if err != nil {
		return err
	}
	return s.scanPrepared(ctx, db, text, []any{textArray(keys)}, dest)
}

// keyedParams returns the params of a page's query: placeholders when it
// names its rows by key (a plan the same for every value: the statement is
// prepared, scanPage), else its values written in (planned for them).
func keyedParams(db *bun.DB, keyed bool) *params {
	if keyed {
		return newParams(db)
	}
	return inlineParams(db)
}

// scanPage reads one page of q into rows (q's model) through limit and
// offset: prepared, limit and offset as arguments too, when v numbers the
// values (keyedParams); else planned for the values written in.
func (s *Store) scanPage(ctx context.Context, db *bun.DB, q *bun.SelectQuery, v *params, limit, offset int, rows any) error {
	if v.inline != nil {
		return scanQuery(ctx, db, q.Limit(int64(limit)).Offset(int64(offset)), rows)
	}
	text, err := sqlText(db, q)
	if err != nil {
		return err
	}
	return s.scanPrepared(ctx, db, text+" LIMIT "+string(v.add(int64(limit)))+
		" OFFSET "+string(v.add(int64(offset))), v.vals, rows)
}

// perValue runs a parametrized query unprepared: Postgres plans it for the
// values given, as statements whose best plan depends on them need (an
// account's page, a time window, a stream's catch-up; see pgPage).
func perValue(ctx context.Context, db *bun.DB, query string, args []any) (*sql.Rows, error) {
	return db.DB.QueryContext(ctx, query, args...)
}
