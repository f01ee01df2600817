package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// registerWebhooks must stay in this file: bun names a Go migration after
// the file that registers it.
func registerWebhooks(m *migrate.Migrations) {
	m.MustRegister(webhooksUp, webhooksDown)
}

// Webhooks (package webhooks). Times are unix milliseconds.
//
// webhooks is one row per hook: what it watches (addresses and
// event_types, JSON arrays as text), where it delivers (url, signed with
// secret), start_seq (it is told actions with a higher seq: those
// committed after it was made), and its delivery state: attempts (failed
// attempts of the event at its head), next_attempt_at (not before),
// failing_since (the first failure since the last success), and the lease
// (lease_owner until lease_until) by which one server process at a time
// delivers its events, so each is sent in order and by one process.
//
// webhook_state is one row: the dispatcher's cursor (every action up to
// it was matched against the hooks, and its events queued) and version,
// moved by every change of the hooks, so a dispatcher knows when to read
// them again. A dispatcher's batch and a hook's creation both update the
// row, so they are serialized: no hook misses an action committed after it.
//
// webhook_events is the outbox: an event waiting for its hook, payload
// the JSON body sent, attempts its failed attempts; removed when the
// receiver took it (or it expired).
//
// webhook_deliveries is the log of attempts a hook's owner reads.
func webhooksUp(ctx context.Context, db *bun.DB) error {
	id := "id BIGSERIAL PRIMARY KEY"
	if db.Dialect().Name() != dialect.PG {
		id = "id INTEGER PRIMARY KEY AUTOINCREMENT"
	}
	return execAll(ctx, db,
		`CREATE TABLE webhooks (
			id TEXT PRIMARY KEY,
			owner TEXT NOT NULL,
			url TEXT NOT NULL,
			secret TEXT NOT NULL,
			addresses TEXT NOT NULL,
			event_types TEXT NOT NULL,
			start_seq BIGINT NOT NULL,
			created_at BIGINT NOT NULL,
			attempts INTEGER NOT NULL DEFAULT 0,
			next_attempt_at BIGINT NOT NULL DEFAULT 0,
			failing_since BIGINT,
			last_success_at BIGINT,
			last_error TEXT NOT NULL DEFAULT '',
			disabled_at BIGINT,
			disabled_reason TEXT NOT NULL DEFAULT '',
			lease_owner TEXT NOT NULL DEFAULT '',
			lease_until BIGINT NOT NULL DEFAULT 0)`,
		`CREATE INDEX webhooks_owner ON webhooks (owner, created_at)`,
		`CREATE TABLE webhook_state (
			id INTEGER PRIMARY KEY,
			cursor BIGINT NOT NULL,
			version BIGINT NOT NULL)`,
		`INSERT INTO webhook_state (id, cursor, version) VALUES (1, 0, 0)`,
		`CREATE TABLE webhook_events (
			hook_id TEXT NOT NULL,
			seq BIGINT NOT NULL,
			payload TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			attempts INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY (hook_id, seq))`,
		`CREATE TABLE webhook_deliveries (
			`+id+`,
			hook_id TEXT NOT NULL,
			event_id TEXT NOT NULL,
			attempt INTEGER NOT NULL,
			outcome TEXT NOT NULL,
			status_code INTEGER,
			latency_ms BIGINT NOT NULL,
			error TEXT NOT NULL DEFAULT '',
			at BIGINT NOT NULL)`,
		`CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (hook_id, id)`,
		`CREATE INDEX webhook_deliveries_at ON webhook_deliveries (at)`,
	)
}

func webhooksDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP TABLE IF EXISTS webhook_deliveries`, `DROP TABLE IF EXISTS webhook_events`,
		`DROP TABLE IF EXISTS webhook_state`, `DROP TABLE IF EXISTS webhooks`)
}
