package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Reads of stored transactions with their raw BOC, for the views that
// render a transaction from its BOC (history: toncenter v2, tonlib's
// shapes). A transaction imported from toncenter trace JSON has no BOC
// (BOC nil): its reader says so rather than invent one.

func (r *txRow) withBOC() *chain.Transaction {
	t := r.summary()
	t.BOC = r.BOC
	return t
}

func rowsWithBOC(rows []txRow) []*chain.Transaction {
	out := make([]*chain.Transaction, len(rows))
	for i := range rows {
		out[i] = rows[i].withBOC()
	}
	return out
}

// AccountTransactions are an account's stored transactions with lt in
// (afterLt, atMostLt], newest first, at most limit (atMostLt 0: no upper
// bound). One walk of transactions_account_lt.
func (s *Store) AccountTransactions(ctx context.Context, account string, atMostLt, afterLt uint64, limit int) ([]*chain.Transaction, error) {
	var rows []txRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		q := db.NewSelect().Model(&rows).Where("account = ?", account).Where("lt > ?", int64(afterLt)).
			OrderExpr("lt DESC").Limit(int64(limit))
		if atMostLt != 0 {
			q = q.Where("lt <= ?", int64(atMostLt))
		}
		return q.Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	return rowsWithBOC(rows), nil
}

// BlockTransactions are the stored transactions of the shard (workchain,
// shard prefix as unsigned) with lt in [startLt, endLt), by lt then hash:
// a block's (a block covers its lt range in its shard). At most limit.
// The shard's accounts are one range of the raw address text, so the
// other shards' rows of the lt range are filtered in the database.
func (s *Store) BlockTransactions(ctx context.Context, workchain int32, shard uint64, startLt, endLt uint64, limit int) ([]*chain.Transaction, error) {
	lo, hi := shardAccountRange(workchain, shard)
	var rows []txRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).Where("lt >= ?", int64(startLt)).Where("lt < ?", int64(endLt)).
			Where("account >= ?", lo).Where("account <= ?", hi).
			OrderExpr("lt, hash").Limit(int64(limit)).Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	return rowsWithBOC(rows), nil
}

// shardAccountRange is the first and last raw address (as the store
// writes them: upper-case hex) of a shard.
func shardAccountRange(workchain int32, shard uint64) (string, string) {
	low := shard & -shard
	first := shard - low    // the prefix, then zeros
	last := shard + low - 1 // the prefix, then ones
	if low == 1<<63 {       // the whole workchain
		first, last = 0, ^uint64(0)
	}
	const rest = "000000000000000000000000000000000000000000000000"
	const restF = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
	return fmt.Sprintf("%d:%016X%s", workchain, first, rest), fmt.Sprintf("%d:%016X%s", workchain, last, restF)
}

// TransactionByHash is the stored transaction with that hash, or nil.
func (s *Store) TransactionByHash(ctx context.Context, hash chain.Hash) (*chain.Transaction, error) {
	var row txRow
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&row).Where("hash = ?", hash.Base64()).Limit(1).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return row.withBOC(), nil
}

// TransactionByInMessage is the stored transaction of destination whose
// inbound message came from source (raw; "" for an external message) and
// was created at createdLt, or nil: tonlib's tryLocateResultTx.
func (s *Store) TransactionByInMessage(ctx context.Context, source, destination string, createdLt uint64) (*chain.Transaction, error) {
	var hashes []string
	if err := s.read(func(db *bun.DB) error {
		hashes = hashes[:0]
		return db.NewSelect().Model((*msgRow)(nil)).Column("tx_hash").Where("destination = ?", destination).
			Where("created_lt = ?", int64(createdLt)).Where("source = ?", source).Where("direction = 'in'").
			Limit(1).Scan(ctx, &hashes)
	}); err != nil {
		return nil, unavailable(err)
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	return s.TransactionByHash(ctx, parseHashText(hashes[0]))
}

// TransactionByOutMessage is the stored transaction of source that sent a
// message to destination created at createdLt, or nil: tonlib's
// tryLocateSourceTx. A message is created by the sender's transaction at
// an lt just above the transaction's own, so it is the sender's newest
// transaction below createdLt, when that one lists the message.
func (s *Store) TransactionByOutMessage(ctx context.Context, source, destination string, createdLt uint64) (*chain.Transaction, error) {
	txs, err := s.AccountTransactions(ctx, source, createdLt-1, 0, 1)
	if err != nil || len(txs) == 0 || createdLt == 0 {
		return nil, err
	}
	var n int64
	if err := s.read(func(db *bun.DB) error {
		var err error
		n, err = db.NewSelect().Model((*msgRow)(nil)).Where("tx_hash = ?", txs[0].Hash.Base64()).
			Where("direction = 'out'").Where("created_lt = ?", int64(createdLt)).Where("destination = ?", destination).
			Count(ctx)
		return err
	}); err != nil {
		return nil, unavailable(err)
	}
	if n == 0 {
		return nil, nil
	}
	return txs[0], nil
}
