package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerTraceSeq must stay in this file: bun names a Go migration after
// the file that registers it.
func registerTraceSeq(m *migrate.Migrations) {
	m.MustRegister(traceSeqUp, traceSeqDown)
}

// traces.seq is a trace's place in the stream of events (package notify's
// trace events), taken from the actions' counter (action_seq) by the
// commit that stores the trace complete, after that commit's transactions
// and actions: one resume cursor covers every kind. A trace stored
// incomplete has none until the commit that completes it; rows stored
// complete before this migration have none (NULL): they were committed
// before any stream could be told of them. traces_seq serves the hub's
// read of what was committed after a position.
func traceSeqUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE traces ADD COLUMN seq BIGINT`, `CREATE INDEX traces_seq ON traces (seq)`)
}

func traceSeqDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS traces_seq`, `ALTER TABLE traces DROP COLUMN seq`)
}
