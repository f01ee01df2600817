package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// BlockStates is what the store holds of masterchain block McSeqno for
// running a message at it: the account states it kept as they were when
// that block's shard blocks started (a fee-replay file's
// previous_accounts), the config in force, and the block's time. It reads
// like a fee-estimate state source (fees.StateSource).
//
// The rule, so that nothing is guessed: a stored state is the account's
// state at the block when its last transaction is older than the block's
// start and it was read at or after the block's time. No transaction of
// the account happened between the two, so the block began on this very
// state (a fee-replay file's before-states are read at their block's
// time; a state read later still qualifies until the account transacts).
// Any other account is unknown at the block. One caveat: shard blocks of
// the same second are told apart by logical time only, so a state read in
// the block's second counts as read at its start.
type BlockStates struct {
	s       *Store
	McSeqno uint32
	Utime   uint32 // gen_utime of the block's first shard block
	StartLt uint64 // its start_lt: what the block's first transaction runs after
}

// blockStatesQuery reads the shard blocks a masterchain block committed,
// first by start (blocks_mc).
const blockStatesQuery = `SELECT gen_utime, start_lt FROM blocks WHERE mc_seqno = ? ORDER BY start_lt LIMIT 1`

// StatesAt is BlockStates of masterchain block seqno; nil when the store
// holds no block of it.
func (s *Store) StatesAt(ctx context.Context, seqno uint32) (*BlockStates, error) {
	var utime, lt int64
	err := s.read(func(db *bun.DB) error {
		return db.QueryRowContext(ctx, blockStatesQuery, int64(seqno)).Scan(&utime, &lt)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return &BlockStates{s: s, McSeqno: seqno, Utime: uint32(utime), StartLt: uint64(lt)}, nil
}

// Account is the account's state of the block, nil when the store holds
// none (see BlockStates).
func (b *BlockStates) Account(ctx context.Context, address string) (*chain.AccountState, error) {
	st, err := b.s.Account(ctx, address)
	if err != nil || st == nil {
		return nil, err
	}
	if st.ReadAtUtime < b.Utime || st.LastTxLt >= b.StartLt {
		return nil, nil
	}
	return st, nil
}

// Config is the newest stored config at or before the block: the one in
// force then, as far as the store knows.
func (b *BlockStates) Config(ctx context.Context) (*chain.ChainConfig, error) {
	var r configRow
	err := b.s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&r).Where("mc_seqno <= ?", int64(b.McSeqno)).OrderExpr("mc_seqno DESC").Limit(1).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return r.toChain(), nil
}
