package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// APIKey is one personal endpoint key as the store knows it. The key itself
// is never stored: only its hash (see package apikey).
type APIKey struct {
	ID        string  // short public identifier, safe to log
	Hash      string  // hex SHA-256 of the key
	Name      string  // the operator's label
	RateLimit float64 // requests per second; 0 = server default, < 0 = unlimited
	RateBurst int     // bucket size; 0 = server default
	Units     int64   // request units persisted so far
	CreatedAt time.Time
	RevokedAt *time.Time // nil while the key is active
}

// Active tells whether requests with the key are accepted.
func (k *APIKey) Active() bool { return k.RevokedAt == nil }

// ErrKeyNotFound is returned by key operations that name a key the store does
// not hold.
var ErrKeyNotFound = errors.New("API key does not exist")

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID        string  `bun:"id,pk"`
	KeyHash   string  `bun:"key_hash"`
	Name      string  `bun:"name"`
	RateLimit float64 `bun:"rate_limit"`
	RateBurst int     `bun:"rate_burst"`
	Units     int64   `bun:"units"`
	CreatedAt int64   `bun:"created_at"`
	RevokedAt *int64  `bun:"revoked_at"`
}

func (r *apiKeyRow) toKey() *APIKey {
	k := &APIKey{ID: r.ID, Hash: r.KeyHash, Name: r.Name, RateLimit: r.RateLimit, RateBurst: r.RateBurst,
		Units: r.Units, CreatedAt: time.Unix(r.CreatedAt, 0).UTC()}
	if r.RevokedAt != nil {
		t := time.Unix(*r.RevokedAt, 0).UTC()
		k.RevokedAt = &t
	}
	return k
}

type unitBatchRow struct {
	bun.BaseModel `bun:"table:api_unit_batches"`

	BatchID   string `bun:"batch_id,pk"`
	AppliedAt int64  `bun:"applied_at"`
}

// CreateKey stores a new key (its hash) and returns it as stored.
func (s *Store) CreateKey(ctx context.Context, k APIKey) (*APIKey, error) {
	r := &apiKeyRow{ID: k.ID, KeyHash: k.Hash, Name: k.Name, RateLimit: k.RateLimit, RateBurst: k.RateBurst,
		CreatedAt: time.Now().Unix()}
	if _, err := s.db.NewInsert().Model(r).Exec(ctx); err != nil {
		return nil, unavailable(err)
	}
	return r.toKey(), nil
}

// KeyByHash finds a key, active or revoked, by the hash of the key; nil when
// there is none. The final constant-time comparison keeps the answer from
// depending on how much of a guessed hash matched, whatever the index does.
func (s *Store) KeyByHash(ctx context.Context, hash string) (*APIKey, error) {
	var r apiKeyRow
	err := s.db.NewSelect().Model(&r).Where("key_hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	if subtle.ConstantTimeCompare([]byte(r.KeyHash), []byte(hash)) != 1 {
		return nil, nil
	}
	return r.toKey(), nil
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]*APIKey, error) {
	var rows []apiKeyRow
	if err := s.db.NewSelect().Model(&rows).OrderExpr("created_at ASC, id ASC").Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	out := make([]*APIKey, len(rows))
	for i := range rows {
		out[i] = rows[i].toKey()
	}
	return out, nil
}

// RevokeKey marks the key with this hash revoked. Revoking a revoked key is
// not an error (the command may be retried); an unknown one is
// ErrKeyNotFound.
func (s *Store) RevokeKey(ctx context.Context, hash string) (*APIKey, error) {
	if _, err := s.db.NewUpdate().Model((*apiKeyRow)(nil)).Set("revoked_at = ?", time.Now().Unix()).
		Where("key_hash = ?", hash).Where("revoked_at IS NULL").Exec(ctx); err != nil {
		return nil, unavailable(err)
	}
	return s.existingKey(ctx, hash)
}

// existingKey is KeyByHash for a key that must exist.
func (s *Store) existingKey(ctx context.Context, hash string) (*APIKey, error) {
	k, err := s.KeyByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return nil, ErrKeyNotFound
	}
	return k, nil
}

// KeyLimit changes a key's own rate limit; a nil field is left as it is.
// Rate and Burst mean what they mean in APIKey (0 = the server default,
// Rate < 0 = unlimited).
type KeyLimit struct {
	Rate  *float64
	Burst *int
}

// SetKeyLimit changes the limit of the key with this hash, revoked or not,
// and returns the key as stored. Running servers read it on their next key
// lookup (apikey caches lookups for seconds). An unknown key is
// ErrKeyNotFound.
func (s *Store) SetKeyLimit(ctx context.Context, hash string, l KeyLimit) (*APIKey, error) {
	if l.Rate != nil || l.Burst != nil {
		q := s.db.NewUpdate().Model((*apiKeyRow)(nil)).Where("key_hash = ?", hash)
		if l.Rate != nil {
			q = q.Set("rate_limit = ?", *l.Rate)
		}
		if l.Burst != nil {
			q = q.Set("rate_burst = ?", *l.Burst)
		}
		if _, err := q.Exec(ctx); err != nil {
			return nil, unavailable(err)
		}
	}
	return s.existingKey(ctx, hash)
}

// unitBatchRetention bounds api_unit_batches: a batch id only has to be
// remembered until the Redis copy of that batch is deleted, which happens
// seconds after the commit unless every server stays down for this long.
const unitBatchRetention = 48 * time.Hour

// AddUnits adds request units to keys (by id) in one transaction. A
// non-empty batch id makes the call idempotent: a batch already applied is
// skipped, which is what lets a batch read from Redis be replayed safely
// after a crash. Units of unknown key ids are dropped.
func (s *Store) AddUnits(ctx context.Context, batch string, units map[string]int64) error {
	if len(units) == 0 && batch == "" {
		return nil
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if batch != "" {
			now := time.Now().Unix()
			res, err := tx.NewInsert().Model(&unitBatchRow{BatchID: batch, AppliedAt: now}).
				On("CONFLICT (batch_id) DO NOTHING").Exec(ctx)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil // applied before
			}
			if _, err := tx.NewDelete().Model((*unitBatchRow)(nil)).
				Where("applied_at < ?", now-int64(unitBatchRetention/time.Second)).Exec(ctx); err != nil {
				return err
			}
		}
		for id, n := range units {
			if n == 0 {
				continue
			}
			if _, err := tx.NewUpdate().Model((*apiKeyRow)(nil)).Set("units = units + ?", n).
				Where("id = ?", id).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	return unavailable(err)
}

// RevokedKeyIDs returns which of the given key ids are revoked (or gone):
// servers ask it every few seconds for the keys that hold open streams.
func (s *Store) RevokedKeyIDs(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var active []string
	if err := s.db.NewSelect().Model((*apiKeyRow)(nil)).Column("id").
		Where("id IN (?) AND revoked_at IS NULL", bun.In(ids)).Scan(ctx, &active); err != nil {
		return nil, unavailable(err)
	}
	live := make(map[string]bool, len(active))
	for _, id := range active {
		live[id] = true
	}
	var out []string
	for _, id := range ids {
		if !live[id] {
			out = append(out, id)
		}
	}
	return out, nil
}
