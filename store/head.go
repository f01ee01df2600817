package store

import (
	"context"
	"database/sql"
	"errors"
)

// Head is the newest data the database holds.
type Head struct {
	Utime   uint32 // chain time; 0 when the database holds no data
	Lt      uint64 // logical time of the newest transaction; 0 with none
	McSeqno uint32 // masterchain block of the newest transaction (or the newest config), when known
}

// Head reads the newest transaction (by logical time, through its index)
// and, with no transaction stored, the newest account state; the newest
// config's masterchain block stands in when the transaction has none.
// (A full scan of accounts happens only for a database of states alone.)
func (s *Store) Head(ctx context.Context) (Head, error) {
	var h Head
	var utime, lt, mc int64
	err := s.db.QueryRowContext(ctx, `SELECT utime, lt, mc_seqno FROM transactions ORDER BY lt DESC LIMIT 1`).Scan(&utime, &lt, &mc)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var at sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT MAX(read_at_utime) FROM accounts`).Scan(&at); err != nil {
			return h, unavailable(err)
		}
		h.Utime = uint32(at.Int64)
	case err != nil:
		return h, unavailable(err)
	default:
		h.Utime, h.Lt, h.McSeqno = uint32(utime), uint64(lt), uint32(mc)
	}
	if h.McSeqno == 0 {
		var seqno sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT MAX(mc_seqno) FROM chain_configs`).Scan(&seqno); err != nil {
			return h, unavailable(err)
		}
		h.McSeqno = uint32(seqno.Int64)
	}
	return h, nil
}

// HeadTime is Head as the fee estimator's head clock reads it
// (fees.HeadSource): chain time and logical time.
func (s *Store) HeadTime(ctx context.Context) (uint32, uint64, error) {
	h, err := s.Head(ctx)
	return h.Utime, h.Lt, err
}
