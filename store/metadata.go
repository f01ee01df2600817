package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// tokenMetadataRow is a row of token_metadata (see its migration).
type tokenMetadataRow struct {
	bun.BaseModel `bun:"table:token_metadata,alias:token_metadata"`

	Address       string  `bun:"address,pk"`
	Kind          string  `bun:"kind"`
	ContentHash   []byte  `bun:"content_hash"`
	Content       []byte  `bun:"content"`
	Valid         bool    `bun:"valid"`
	Reason        string  `bun:"reason"`
	Name          *string `bun:"name"`
	Symbol        *string `bun:"symbol"`
	Decimals      *int    `bun:"decimals"`
	Image         *string `bun:"image"`
	Description   *string `bun:"description"`
	URI           *string `bun:"uri"`
	Extra         *string `bun:"extra"`
	Source        string  `bun:"source"`
	FetchedAt     *int64  `bun:"fetched_at"`
	Attempts      int     `bun:"attempts"`
	LastError     string  `bun:"last_error"`
	NextAttemptAt *int64  `bun:"next_attempt_at"`
	UpdatedAt     int64   `bun:"updated_at"`
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func millisPtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

func timePtr(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := time.UnixMilli(*ms).UTC()
	return &t
}

func tokenMetadataRowOf(md *chain.TokenMetadata) *tokenMetadataRow {
	r := &tokenMetadataRow{Address: md.Address, Kind: md.Kind, ContentHash: md.ContentHash[:],
		Valid: md.Valid, Reason: md.Reason, Name: md.Name, Symbol: md.Symbol, Decimals: md.Decimals,
		Image: md.Image, Description: md.Description, URI: md.URI, Source: md.Source,
		FetchedAt: millisPtr(md.FetchedAt), Attempts: md.Attempts, LastError: md.LastError,
		NextAttemptAt: millisPtr(md.NextAttemptAt), UpdatedAt: millis(md.UpdatedAt)}
	if len(md.Extra) > 0 {
		s := string(md.Extra)
		r.Extra = &s
	}
	return r
}

func (r *tokenMetadataRow) toChain() chain.TokenMetadata {
	md := chain.TokenMetadata{Address: r.Address, Kind: r.Kind, Valid: r.Valid, Reason: r.Reason,
		Name: r.Name, Symbol: r.Symbol, Decimals: r.Decimals, Image: r.Image, Description: r.Description,
		URI: r.URI, Source: r.Source, FetchedAt: timePtr(r.FetchedAt), Attempts: r.Attempts,
		LastError: r.LastError, NextAttemptAt: timePtr(r.NextAttemptAt), UpdatedAt: time.UnixMilli(r.UpdatedAt).UTC()}
	copy(md.ContentHash[:], r.ContentHash)
	if r.Extra != nil {
		md.Extra = json.RawMessage(*r.Extra)
	}
	return md
}

// tokenEnqueueBatch bounds the rows of one INSERT (19 columns each, far
// under either database's limit of bound parameters).
const tokenEnqueueBatch = 500

// EnqueueTokenContent hands tokens' content to the metadata worker: a
// token not seen before, or whose content hash or kind changed, is stored
// with its content, its old metadata cleared (reason "pending") and due
// now; a token whose content is unchanged is left as it is, so handing the
// same content over again (every block that touches the token, or a scan
// of the whole registry) costs one index lookup and no write. A changed
// token's version is incremented (tokencache.go). Returns how
// many tokens were new or changed. A token named twice keeps its last
// content.
func (s *Store) EnqueueTokenContent(ctx context.Context, contents []chain.TokenContent) (int, error) {
	now := time.Now()
	contents = dedupe(contents, func(c *chain.TokenContent) string { return c.Address }, nil)
	changed := 0
	for start := 0; start < len(contents); start += tokenEnqueueBatch {
		part := contents[start:min(start+tokenEnqueueBatch, len(contents))]
		rows := make([]tokenMetadataRow, len(part))
		due := millis(now)
		for i, c := range part {
			rows[i] = tokenMetadataRow{Address: c.Address, Kind: c.Kind, ContentHash: c.ContentHash[:], Content: c.Content,
				Reason: pendingReason, NextAttemptAt: &due, UpdatedAt: due}
		}
		res, err := s.db.NewInsert().Model(&rows).
			On("CONFLICT (address) DO UPDATE").
			Set("kind = EXCLUDED.kind, content_hash = EXCLUDED.content_hash, content = EXCLUDED.content").
			Set("valid = FALSE, reason = EXCLUDED.reason, name = NULL, symbol = NULL, decimals = NULL, image = NULL").
			Set("description = NULL, uri = NULL, extra = NULL, source = '', fetched_at = NULL, attempts = 0, last_error = ''").
			Set("next_attempt_at = EXCLUDED.next_attempt_at, updated_at = EXCLUDED.updated_at").
			Set("version = token_metadata.version + 1").
			Where("token_metadata.content_hash <> EXCLUDED.content_hash OR token_metadata.kind <> EXCLUDED.kind").
			Exec(ctx)
		if err != nil {
			return changed, unavailable(err)
		}
		n, _ := res.RowsAffected()
		changed += int(n)
	}
	s.forgetTokens(tokenAddresses(contents))
	return changed, nil
}

// pendingReason is the reason of a token not made yet (metadata.ReasonPending).
const pendingReason = "pending"

// ClaimTokenJobs takes up to limit due tokens (next_attempt_at at or
// before now, the longest due first) and moves them past now+lease, so
// no other worker takes them meanwhile; a worker that dies leaves them due
// again when the lease ends. On Postgres, rows another worker is claiming
// are skipped, not waited for.
func (s *Store) ClaimTokenJobs(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]chain.TokenJob, error) {
	// Nothing due (the usual answer) is found by a read: on SQLite an
	// UPDATE takes the one write lock even when it changes no row, and
	// would queue behind an import's long transaction every poll.
	var due []int
	if err := s.db.NewRaw(`SELECT 1 FROM token_metadata WHERE next_attempt_at <= ? LIMIT 1`, millis(now)).Scan(ctx, &due); err != nil {
		return nil, unavailable(err)
	}
	if len(due) == 0 {
		return nil, nil
	}
	lock := ""
	if s.IsPostgres() {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var rows []tokenMetadataRow
	err := s.db.NewRaw(`UPDATE token_metadata SET next_attempt_at = ?
		WHERE address IN (SELECT address FROM token_metadata WHERE next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`+lock+`)
		RETURNING address, kind, content_hash, content, attempts, valid, fetched_at`,
		millis(now.Add(lease)), millis(now), limit).Scan(ctx, &rows)
	if err != nil {
		return nil, unavailable(err)
	}
	jobs := make([]chain.TokenJob, len(rows))
	for i := range rows {
		r := &rows[i]
		jobs[i] = chain.TokenJob{TokenContent: chain.TokenContent{Address: r.Address, Kind: r.Kind, Content: r.Content},
			Attempts: r.Attempts, Valid: r.Valid && r.FetchedAt != nil}
		copy(jobs[i].ContentHash[:], r.ContentHash)
	}
	return jobs, nil
}

// SaveTokenMetadata stores what the worker made of a token, unless its
// content changed since the worker claimed it (the row then holds newer
// content, due again), and increments its version so that every server's
// next page shows it (tokencache.go). Reports whether it was stored.
func (s *Store) SaveTokenMetadata(ctx context.Context, md chain.TokenMetadata) (bool, error) {
	r := tokenMetadataRowOf(&md)
	res, err := s.db.NewUpdate().Model(r).
		Column("valid", "reason", "name", "symbol", "decimals", "image", "description", "uri", "extra", "source",
			"fetched_at", "attempts", "last_error", "next_attempt_at", "updated_at").
		Set("version = version + 1").
		Where("address = ? AND content_hash = ?", r.Address, r.ContentHash).
		Exec(ctx)
	s.forgetTokens([]string{r.Address})
	return affected(res, err)
}

// RecordTokenFailure notes a failed refresh of a token whose stored
// metadata stays (it was made from the same content): the attempt count,
// the failure's reason and when to try again.
func (s *Store) RecordTokenFailure(ctx context.Context, address string, hash chain.Hash, attempts int, reason string,
	next *time.Time, now time.Time) (bool, error) {
	res, err := s.db.NewUpdate().Model((*tokenMetadataRow)(nil)).
		Set("attempts = ?, last_error = ?, next_attempt_at = ?, updated_at = ?", attempts, reason, millisPtr(next), millis(now)).
		Where("address = ? AND content_hash = ?", address, hash[:]).
		Exec(ctx)
	return affected(res, err)
}

// ReleaseTokenJobs makes claimed tokens due at once again: a worker that
// stops hands back what it did not finish.
func (s *Store) ReleaseTokenJobs(ctx context.Context, addresses []string, now time.Time) error {
	if len(addresses) == 0 {
		return nil
	}
	_, err := s.db.NewUpdate().Model((*tokenMetadataRow)(nil)).
		Set("next_attempt_at = ?", millis(now)).
		Where("address IN (?)", bun.In(addresses)).
		Exec(ctx)
	return unavailable(err)
}

// RefreshTokenMetadata makes tokens due now, with a fresh count of
// attempts (the refresh a client or operator asks for). Reports how many
// of the addresses the store holds.
func (s *Store) RefreshTokenMetadata(ctx context.Context, addresses []string, now time.Time) (int, error) {
	if len(addresses) == 0 {
		return 0, nil
	}
	res, err := s.db.NewUpdate().Model((*tokenMetadataRow)(nil)).
		Set("next_attempt_at = ?, attempts = 0, updated_at = ?", millis(now), millis(now)).
		Where("address IN (?)", bun.In(addresses)).
		Exec(ctx)
	if err != nil {
		return 0, unavailable(err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// TokenMetadata reads the metadata of the tokens among addresses (raw
// upper-case), by address; addresses the store holds no token for are
// absent.
func (s *Store) TokenMetadata(ctx context.Context, addresses []string) (map[string]chain.TokenMetadata, error) {
	out := make(map[string]chain.TokenMetadata, len(addresses))
	if len(addresses) == 0 {
		return out, nil
	}
	var rows []tokenMetadataRow
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).ExcludeColumn("content").
			Where("address IN (?)", bun.In(addresses)).Scan(ctx)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	for i := range rows {
		out[rows[i].Address] = rows[i].toChain()
	}
	return out, nil
}

func affected(res interface{ RowsAffected() (int64, error) }, err error) (bool, error) {
	if err != nil {
		return false, unavailable(err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
