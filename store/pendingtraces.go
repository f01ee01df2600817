package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// PendingTrace is the emulated trace of a message sent through this server,
// kept until its real trace is stored or it expires (package pending makes
// and reads Body). Hashes are standard base64, accounts raw upper-case.
type PendingTrace struct {
	ExtHash     string // the sent message's hash
	ExtHashNorm string // its TEP-467 normalized hash
	TraceID     string
	Accounts    []string // every account of its transactions and actions
	Created     time.Time
	Expires     time.Time
	Body        []byte
}

// PendingFilter selects pending traces: those of any of Accounts, those
// whose sent message's hash or normalized hash is among ExtHashes, and
// those among TraceIDs; each given must hold. Now is the clock the expiry
// is read against.
type PendingFilter struct {
	Accounts  []string
	ExtHashes []string
	TraceIDs  []string
	Now       time.Time
}

// MaxPending bounds the pending traces one answer carries: an account
// rarely has more than a few messages in flight.
const MaxPending = 1000

type pendingTraceRow struct {
	bun.BaseModel `bun:"table:pending_traces"`

	ExtHash     string `bun:"ext_hash,pk"`
	ExtHashNorm string `bun:"ext_hash_norm,notnull"`
	TraceID     string `bun:"trace_id,notnull"`
	Created     int64  `bun:"created,notnull"`
	Expires     int64  `bun:"expires,notnull"`
	Body        []byte `bun:"body,notnull"`
}

type pendingAccountRow struct {
	bun.BaseModel `bun:"table:pending_trace_accounts"`

	Account string `bun:"account,pk"`
	ExtHash string `bun:"ext_hash,pk"`
}

// SavePending keeps p (replacing an earlier emulation of the same message)
// and forgets the pending traces that expired by p.Created.
func (s *Store) SavePending(ctx context.Context, p PendingTrace) error {
	row := pendingTraceRow{ExtHash: p.ExtHash, ExtHashNorm: p.ExtHashNorm, TraceID: p.TraceID,
		Created: p.Created.UnixMilli(), Expires: p.Expires.UnixMilli(), Body: p.Body}
	accounts := make([]pendingAccountRow, 0, len(p.Accounts))
	for _, a := range p.Accounts {
		accounts = append(accounts, pendingAccountRow{Account: a, ExtHash: p.ExtHash})
	}
	accounts = dedupe(accounts, func(r *pendingAccountRow) string { return r.Account }, nil)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := dropPending(ctx, tx, tx.NewSelect().Model((*pendingTraceRow)(nil)).Column("ext_hash").
			Where("expires <= ?", row.Created)); err != nil {
			return err
		}
		if err := dropPending(ctx, tx, bun.In([]string{p.ExtHash})); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return fmt.Errorf("save pending trace: %w", err)
		}
		if len(accounts) > 0 {
			if _, err := tx.NewInsert().Model(&accounts).Exec(ctx); err != nil {
				return fmt.Errorf("save pending trace accounts: %w", err)
			}
		}
		return nil
	})
	if err != nil && isUnavailable(err) {
		return unavailable(err)
	}
	return err
}

// FindPending lists the unexpired pending traces f selects, oldest first.
func (s *Store) FindPending(ctx context.Context, f PendingFilter) ([]PendingTrace, error) {
	var rows []pendingTraceRow
	q := s.db.NewSelect().Model(&rows).Where("expires > ?", f.Now.UnixMilli())
	if len(f.Accounts) > 0 {
		q = q.Where("ext_hash IN (?)", s.db.NewSelect().Model((*pendingAccountRow)(nil)).Column("ext_hash").
			Where("account IN (?)", bun.In(f.Accounts)))
	}
	if len(f.TraceIDs) > 0 {
		q = q.Where("trace_id IN (?)", bun.In(f.TraceIDs))
	}
	if len(f.ExtHashes) > 0 {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("ext_hash IN (?)", bun.In(f.ExtHashes)).WhereOr("ext_hash_norm IN (?)", bun.In(f.ExtHashes))
		})
	}
	if err := q.OrderExpr("created ASC, ext_hash ASC").Limit(MaxPending).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	out := make([]PendingTrace, len(rows))
	for i, r := range rows {
		out[i] = PendingTrace{ExtHash: r.ExtHash, ExtHashNorm: r.ExtHashNorm, TraceID: r.TraceID,
			Created: time.UnixMilli(r.Created), Expires: time.UnixMilli(r.Expires), Body: r.Body}
	}
	return out, nil
}

// settlePending is the batch's step that forgets the pending traces whose
// message the batch stores as a transaction's in-message: their real
// trace is in the store now (and answers /api/v3/traces). One cheap read
// when nothing is pending, the usual case of an import.
func settlePending(ctx context.Context, tx bun.Tx, txs []*chain.Transaction) error {
	var hashes []string
	for _, t := range txs {
		if t.InMsg != nil && t.InMsg.IsExternalIn() {
			hashes = append(hashes, hashText(t.InMsg.Hash))
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	any, err := tx.NewSelect().Model((*pendingTraceRow)(nil)).Limit(1).Exists(ctx)
	if err != nil || !any {
		return err
	}
	for start := 0; start < len(hashes); start += 1000 {
		if err := dropPending(ctx, tx, bun.In(hashes[start:min(start+1000, len(hashes))])); err != nil {
			return err
		}
	}
	return nil
}

// dropPending deletes the pending traces whose ext_hash is in hashes (a
// list or a subquery) with their account rows.
func dropPending(ctx context.Context, tx bun.Tx, hashes any) error {
	var gone []string
	if err := tx.NewSelect().Model((*pendingTraceRow)(nil)).Column("ext_hash").
		Where("ext_hash IN (?)", hashes).Scan(ctx, &gone); err != nil {
		return fmt.Errorf("drop pending traces: %w", err)
	}
	if len(gone) == 0 {
		return nil
	}
	if _, err := tx.NewDelete().Model((*pendingAccountRow)(nil)).Where("ext_hash IN (?)", bun.In(gone)).Exec(ctx); err != nil {
		return fmt.Errorf("drop pending traces: %w", err)
	}
	if _, err := tx.NewDelete().Model((*pendingTraceRow)(nil)).Where("ext_hash IN (?)", bun.In(gone)).Exec(ctx); err != nil {
		return fmt.Errorf("drop pending traces: %w", err)
	}
	return nil
}
