package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// accountQuery reads one accountRow, columns in the order Account scans them.
const accountQuery = `SELECT address, status, code_hash, is_wallet, balance, last_tx_lt,
	last_tx_hash, shard_account_boc, read_at_utime FROM accounts WHERE address = ?`

// Account returns the stored state of an account, or nil when the store
// has never seen it.
//
// It is on every fee estimate's path, so it skips bun's query builder and
// reflective scanning (about a third of the read's cost): a fixed query,
// formatted by bun (dialect placeholders, query hooks), scanned into the
// row's fields directly.
func (s *Store) Account(ctx context.Context, address string) (*chain.AccountState, error) {
	var r accountRow
	err := s.db.QueryRowContext(ctx, accountQuery, address).Scan(&r.Address, &r.Status, &r.CodeHash,
		&r.IsWallet, &r.Balance, &r.LastTxLt, &r.LastTxHash, &r.ShardAccountBOC, &r.ReadAtUtime)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return r.toChain(), nil
}

// Config returns the newest stored chain config, or nil when none was
// imported or followed yet.
func (s *Store) Config(ctx context.Context) (*chain.ChainConfig, error) {
	var r configRow
	err := s.db.NewSelect().Model(&r).OrderExpr("mc_seqno DESC").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return r.toChain(), nil
}

// AddressFacts looks up the status, wallet flag, balance, interfaces and
// .ton name of each address in three indexed queries.
func (s *Store) AddressFacts(ctx context.Context, addrs []string) (map[string]chain.AddressFacts, error) {
	out := make(map[string]chain.AddressFacts, len(addrs))
	if len(addrs) == 0 {
		return out, nil
	}
	var accs []accountRow
	if err := s.db.NewSelect().Model(&accs).Column("address", "status", "is_wallet", "balance").
		Where("address IN (?)", bun.In(addrs)).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	for _, a := range accs {
		out[a.Address] = chain.AddressFacts{Known: true, Status: a.Status, IsWallet: a.IsWallet, Balance: uint64(a.Balance)}
	}
	var ifaces []interfacesRow
	if err := s.db.NewSelect().Model(&ifaces).Where("address IN (?)", bun.In(addrs)).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	for _, r := range ifaces {
		f := out[r.Address]
		f.Interfaces = strings.Fields(r.Interfaces)
		out[r.Address] = f
	}
	var names []dnsRow
	if err := s.db.NewSelect().Model(&names).Where("address IN (?)", bun.In(addrs)).
		OrderExpr("domain ASC").Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	for _, n := range names {
		f := out[n.Address]
		if f.Domain == "" { // several names: the first in order, so answers are stable
			f.Domain = n.Domain
			out[n.Address] = f
		}
	}
	return out, nil
}
