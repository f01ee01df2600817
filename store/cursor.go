package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Cursor is how far a follower got: the last masterchain block whose data,
// with every shard block it commits, is stored.
type Cursor struct {
	Seqno uint32
	Utime uint32
}

type cursorRow struct {
	bun.BaseModel `bun:"table:follow_cursor,alias:follow_cursor"`

	Name  string `bun:"name,pk"`
	Seqno int64  `bun:"seqno,notnull"`
	Utime int64  `bun:"utime,notnull"`
}

// ErrCursorMoved means another writer moved the cursor since this follower
// read it: two followers on one database. The batch is rolled back.
var ErrCursorMoved = errors.New("follow cursor was moved by another follower")

// FollowCursor returns the stored cursor of the named follower, nil when it
// never ran.
func (s *Store) FollowCursor(ctx context.Context, name string) (*Cursor, error) {
	var r cursorRow
	err := s.db.NewSelect().Model(&r).Where("name = ?", name).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return &Cursor{Seqno: uint32(r.Seqno), Utime: uint32(r.Utime)}, nil
}

// MoveCursor returns a step for Batch.Extra that moves the named cursor
// from `from` (nil: it does not exist yet) to `to`. It fails with
// ErrCursorMoved when the stored cursor is not `from`, so a second follower
// that slipped past the lock can never write a block twice or skip one.
func MoveCursor(name string, from *Cursor, to Cursor) func(ctx context.Context, tx bun.Tx) error {
	return func(ctx context.Context, tx bun.Tx) error {
		row := cursorRow{Name: name, Seqno: int64(to.Seqno), Utime: int64(to.Utime)}
		q := tx.NewInsert().Model(&row)
		if from == nil {
			q = q.On("CONFLICT (name) DO NOTHING")
		} else {
			q = q.On("CONFLICT (name) DO UPDATE").
				Set("seqno = EXCLUDED.seqno, utime = EXCLUDED.utime").
				Where("follow_cursor.seqno = ?", int64(from.Seqno))
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return fmt.Errorf("move follow cursor: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n != 1 {
			return ErrCursorMoved
		}
		return nil
	}
}

// TouchAccounts returns a step for Batch.Extra that records what a block
// says about accounts without reading their state: status and last
// transaction. Other columns of a known account stay (its balance and full
// state are refreshed on demand, see follow.FreshState); an unknown
// account is created with what the transaction tells.
func TouchAccounts(accs []chain.AccountState) func(ctx context.Context, tx bun.Tx) error {
	return func(ctx context.Context, tx bun.Tx) error {
		if len(accs) == 0 {
			return nil
		}
		rows := make([]accountRow, len(accs))
		for i := range accs {
			rows[i] = newAccountRow(&accs[i])
		}
		err := insertChunks(ctx, tx, rows, `CONFLICT (address) DO UPDATE SET
			status = EXCLUDED.status, last_tx_lt = EXCLUDED.last_tx_lt, last_tx_hash = EXCLUDED.last_tx_hash,
			is_wallet = accounts.is_wallet OR EXCLUDED.is_wallet,
			code_hash = CASE WHEN EXCLUDED.code_hash <> '' THEN EXCLUDED.code_hash ELSE accounts.code_hash END
			WHERE accounts.last_tx_lt < EXCLUDED.last_tx_lt`)
		if err != nil {
			return fmt.Errorf("touch accounts: %w", err)
		}
		return nil
	}
}

// Steps runs several Batch.Extra steps in order; nil steps are skipped.
func Steps(steps ...func(ctx context.Context, tx bun.Tx) error) func(ctx context.Context, tx bun.Tx) error {
	return func(ctx context.Context, tx bun.Tx) error {
		for _, step := range steps {
			if step == nil {
				continue
			}
			if err := step(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	}
}

// LockFollower makes sure only one follower writes to a Postgres database:
// it takes a session advisory lock on a connection of its own and holds it
// until unlock is called (or the process dies, which frees it). While
// another process holds it, LockFollower waits, calling waiting once, until
// ctx ends. SQLite needs no lock: the file belongs to one host, and
// MoveCursor still refuses a second writer's blocks.
func (s *Store) LockFollower(ctx context.Context, name string, poll time.Duration, waiting func()) (unlock func(), err error) {
	if !s.IsPostgres() {
		return func() {}, nil
	}
	h := fnv.New64a()
	h.Write([]byte("tonql-follow:" + name))
	key := int64(h.Sum64())
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, unavailable(err)
	}
	told := false
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(?)", key).Scan(&got); err != nil {
			conn.Close()
			return nil, unavailable(err)
		}
		if got {
			break
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			conn.Close()
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", key)
		conn.Close()
	}, nil
}
