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

// traces.seq is a complete trace's place in the stream of events (package
// notify, the trace event), taken from the actions' counter (action_seq)
// by the commit that stores the trace complete, so one resume cursor
// covers it with the rest (store/traceseq.go). Incomplete traces, and
// traces stored complete before this migration, have none (NULL): the
// latter were committed before any stream could be told of them.
// traces_seq serves the read of what was committed after a position.
func traceSeqUp(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `ALTER TABLE traces ADD COLUMN seq BIGINT`,
		`CREATE INDEX traces_seq ON traces (seq) WHERE seq IS NOT NULL`)
}

func traceSeqDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS traces_seq`, `ALTER TABLE traces DROP COLUMN seq`)
}
