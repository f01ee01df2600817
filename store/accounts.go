package store

import (
	"context"
	"database/sql"
	"errors"

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
	err := s.read(func(db *bun.DB) error {
		return db.QueryRowContext(ctx, accountQuery, address).Scan(&r.Address, &r.Status, &r.CodeHash,
			&r.IsWallet, &r.Balance, &r.LastTxLt, &r.LastTxHash, &r.ShardAccountBOC, &r.ReadAtUtime)
	})
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
	err := s.read(func(db *bun.DB) error {
		return db.NewSelect().Model(&r).OrderExpr("mc_seqno DESC").Limit(1).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return r.toChain(), nil
}

// addressFactsQuery reads, in one round trip, what the address book needs
// from three tables, and the versions of the addresses that are tokens
// (rowToken; their metadata comes from resolveTokens): each row says which table it came from (k), the
// address, one text column (status, interfaces, a domain or the token's
// JSON) and the two columns only accounts have (the kinds are
// pageRowsSQL's). Domains come sorted so that an address with several
// names shows the same one every time. in selects the addresses:
// factsByList or factsByArray.
func addressFactsQuery(in string) string {
	return `SELECT 1 AS k, address, status AS t, is_wallet AS w, balance AS b FROM accounts WHERE address ` + in + `
UNION ALL SELECT 2, address, interfaces, FALSE, 0 FROM account_interfaces WHERE address ` + in + `
UNION ALL SELECT 3, address, domain, FALSE, 0 FROM dns_names WHERE address ` + in + `
UNION ALL SELECT 4, address, '', FALSE, version FROM token_metadata WHERE address ` + in + `
ORDER BY 1, 3`
}

// factsByList selects the addresses as bun's list of literals (SQLite, and
// the statement written out for EXPLAIN and pgbench: AddressFactsSQL).
const factsByList = "IN (?0)"

// factsByArray selects the addresses as one text[] parameter: on Postgres
// the address book's statement is the same for any number of addresses,
// and prepared (a lookup by key; the book of every page but the actions').
const factsByArray = "= ANY($1::text[])"

// AddressFacts looks up the status, wallet flag, balance, interfaces and
// .ton name of each address, in one query.
func (s *Store) AddressFacts(ctx context.Context, addrs []string) (map[string]chain.AddressFacts, error) {
	out := make(map[string]chain.AddressFacts, len(addrs))
	if len(addrs) == 0 {
		return out, nil
	}
	err := s.read(func(db *bun.DB) error {
		clear(out)
		return s.factsOf(ctx, db, addrs, out)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

func (s *Store) scanFacts(ctx context.Context, db *bun.DB, addrs []string, out map[string]chain.AddressFacts) error {
	var rows *sql.Rows
	var err error
	if s.IsPostgres() {
		rows, err = s.prepared(ctx, db, addressFactsQuery(factsByArray), []any{textArray(addrs)})
	} else {
		rows, err = db.QueryContext(ctx, addressFactsQuery(factsByList), bun.In(addrs))
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	var tokens tokenRefs
	for rows.Next() {
		var kind int
		var addr, text string
		var wallet bool
		var balance int64
		if err := rows.Scan(&kind, &addr, &text, &wallet, &balance); err != nil {
			return err
		}
		addFact(out, &tokens, kind, addr, text, wallet, balance)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return s.resolveTokens(ctx, db, &tokens, out)
}

// LastTransaction returns the newest stored transaction of an account
// (without messages), or nil when the store holds none: what the chain
// last said of an account whose state the store does not hold.
func (s *Store) LastTransaction(ctx context.Context, address string) (*chain.Transaction, error) {
	var rows []txRow
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).Where("account = ?", address).OrderExpr("lt DESC").Limit(1).Scan(ctx)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return rows[0].summary(), nil
}

// AccountBalance is a stored account's balance (nanotons) as of the state
// the store holds.
type AccountBalance struct {
	Address string // raw upper-case
	Balance int64
}

// TopAccountsByBalance is a page of the stored accounts by balance,
// largest first, address descending between equal balances (index
// accounts_balance read backward). Only accounts whose state the store
// holds are ranked.
func (s *Store) TopAccountsByBalance(ctx context.Context, limit, offset int) ([]AccountBalance, error) {
	var rows []accountRow
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).Column("address", "balance").
			OrderExpr("balance DESC, address DESC").Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]AccountBalance, len(rows))
	for i, r := range rows {
		out[i] = AccountBalance{Address: r.Address, Balance: r.Balance}
	}
	return out, nil
}
