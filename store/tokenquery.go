package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// TokenPage is the paging every registry list takes: toncenter's limit and
// offset, checked by the caller; or, with ByAddress, a keyset page in
// address order after the address After (GraphQL's cursors: a deep page
// costs what the first one costs).
type TokenPage struct {
	Limit, Offset int
	ByAddress     bool
	After         string
}

func (p TokenPage) apply(q *bun.SelectQuery) *bun.SelectQuery {
	q = p.keyset(q, inlineParams(q.DB())).Limit(int64(p.Limit))
	if p.ByAddress {
		return q
	}
	return q.Offset(int64(p.Offset))
}

// keyset adds a keyset page's bound and order (ByAddress), its value
// through v.
func (p TokenPage) keyset(q *bun.SelectQuery, v *params) *bun.SelectQuery {
	if !p.ByAddress {
		return q
	}
	if p.After != "" {
		q = q.Where("address > ?", v.add(p.After))
	}
	return q.Order("address")
}

// bounds is the page's LIMIT (and OFFSET) clause, its values through v.
func (p TokenPage) bounds(v *params) string {
	b := " LIMIT " + string(v.add(int64(p.Limit)))
	if !p.ByAddress {
		b += " OFFSET " + string(v.add(int64(p.Offset)))
	}
	return b
}

// ordered adds the route's order unless the page is in address order.
func (p TokenPage) ordered(q *bun.SelectQuery, cols ...string) *bun.SelectQuery {
	if p.ByAddress {
		return q
	}
	return q.Order(cols...)
}

// whereIn narrows q to rows whose col is one of vals (through v); no
// vals, no filter.
func whereIn(q *bun.SelectQuery, v *params, col string, vals []string) *bun.SelectQuery {
	if len(vals) == 0 {
		return q
	}
	return q.Where("? IN (?)", bun.Ident(col), v.list(vals))
}

// readTokens reads one page of a registry table (R its row, T the chain
// type a row converts to); query adds the route's filters, order and bounds.
func readTokens[R any, PR interface {
	*R
	toChain() T
}, T any](ctx context.Context, s *Store, query func(*bun.SelectQuery) *bun.SelectQuery) ([]T, error) {
	return readRows[R, PR](s, func(db *bun.DB, rows *[]R) error {
		return query(db.NewSelect().Model(rows)).Scan(ctx)
	})
}

// readList reads one page of a registry list; build adds the filters and
// the order, their values through v. A list that names its rows by key
// (keyed: addresses, owners, admins) is read through a statement the store
// keeps prepared: Postgres plans such a lookup alike for every value, and
// planning it anew was three quarters of the database's time for an
// owner's NFT page (docs/PERFORMANCE.md, seventeenth session). The others
// (a jetton's wallets by balance, a collection's items) are planned for
// their values, as the action pages' keys are (pgPage).
func readList[R any, PR interface {
	*R
	toChain() T
}, T any](ctx context.Context, s *Store, page TokenPage, keyed bool, build func(q *bun.SelectQuery, v *params) *bun.SelectQuery) ([]T, error) {
	if !keyed {
		return readTokens[R, PR](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
			return page.apply(build(q, inlineParams(q.DB())))
		})
	}
	return readRows[R, PR](s, func(db *bun.DB, rows *[]R) error {
		v := newParams(db)
		q := page.keyset(build(db.NewSelect().Model(rows), v), v)
		text, err := sqlText(db, q)
		if err != nil {
			return err
		}
		return s.scanPrepared(ctx, db, text+page.bounds(v), v.vals, rows)
	})
}

// readRows reads rows with scan (on a replica, or the primary when none
// answers) and converts them.
func readRows[R any, PR interface {
	*R
	toChain() T
}, T any](s *Store, scan func(db *bun.DB, rows *[]R) error) ([]T, error) {
	var rows []R
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return scan(db, &rows)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]T, len(rows))
	for i := range rows {
		out[i] = PR(&rows[i]).toChain()
	}
	return out, nil
}

// JettonMasterFilter selects jetton masters (toncenter's
// /api/v3/jetton/masters): by address, by admin; raw addresses.
type JettonMasterFilter struct {
	Addresses, Admins []string
	TokenPage
}

// JettonMasters lists masters in address order.
func (s *Store) JettonMasters(ctx context.Context, f JettonMasterFilter) ([]chain.JettonMaster, error) {
	keyed := len(f.Addresses) > 0 || len(f.Admins) > 0
	return readList[jettonMasterRow, *jettonMasterRow](ctx, s, f.TokenPage, keyed, func(q *bun.SelectQuery, v *params) *bun.SelectQuery {
		q = whereIn(q, v, "address", f.Addresses)
		q = whereIn(q, v, "admin", f.Admins)
		return f.ordered(q, "address")
	})
}

// JettonWalletFilter selects jetton wallets (toncenter's
// /api/v3/jetton/wallets).
type JettonWalletFilter struct {
	Addresses, Owners, Jettons []string
	// ExcludeZero leaves out wallets whose balance is known to be 0.
	ExcludeZero bool
	// SortBalance orders by balance ("asc" or "desc"; "" none). Wallets
	// whose balance is unknown come last either way.
	SortBalance string
	TokenPage
}

// zeroAmount is 0 as a padded balance.
var zeroAmount, _ = padDecimal("0", amountDigits)

// JettonWallets lists wallets. The order follows toncenter's: by address
// when addresses are given, else by owner (when owners are given) or by
// master (when one is given), then by balance when asked, then address.
func (s *Store) JettonWallets(ctx context.Context, f JettonWalletFilter) ([]chain.JettonWallet, error) {
	keyed := len(f.Addresses) > 0 || len(f.Owners) > 0
	return readList[jettonWalletRow, *jettonWalletRow](ctx, s, f.TokenPage, keyed, func(q *bun.SelectQuery, v *params) *bun.SelectQuery {
		q = whereIn(q, v, "address", f.Addresses)
		q = whereIn(q, v, "owner", f.Owners)
		q = whereIn(q, v, "jetton", f.Jettons)
		if f.ExcludeZero {
			q = q.Where("(balance IS NULL OR balance <> ?)", zeroAmount)
		}
		if !f.ByAddress {
			switch {
			case len(f.Addresses) > 0:
			case len(f.Owners) > 0:
				q = q.Order("owner")
			case len(f.Jettons) == 1:
				q = q.Order("jetton")
			}
			switch f.SortBalance {
			case "asc":
				q = q.OrderExpr("balance IS NULL, balance ASC")
			case "desc":
				q = q.OrderExpr("balance IS NULL, balance DESC")
			}
		}
		return f.ordered(q, "address")
	})
}

// NftCollectionFilter selects NFT collections (toncenter's
// /api/v3/nft/collections).
type NftCollectionFilter struct {
	Addresses, Owners []string
	TokenPage
}

// NftCollections lists collections in address order.
func (s *Store) NftCollections(ctx context.Context, f NftCollectionFilter) ([]chain.NftCollection, error) {
	keyed := len(f.Addresses) > 0 || len(f.Owners) > 0
	return readList[nftCollectionRow, *nftCollectionRow](ctx, s, f.TokenPage, keyed, func(q *bun.SelectQuery, v *params) *bun.SelectQuery {
		q = whereIn(q, v, "address", f.Addresses)
		q = whereIn(q, v, "owner", f.Owners)
		return f.ordered(q, "address")
	})
}

// NftItemFilter selects NFT items (toncenter's /api/v3/nft/items).
type NftItemFilter struct {
	Addresses, Owners, Collections []string
	// Indexes are decimal item indexes (with one or more Collections).
	Indexes []string
	// IncludeOnSale: Owners also match items their sale contracts hold for
	// them (the real owner).
	IncludeOnSale bool
	// ByLastTxLt orders by the items' last transaction lt, newest first,
	// instead (toncenter's sort_by_last_transaction_lt); not with
	// ByAddress.
	ByLastTxLt bool
	TokenPage
}

// NftItems lists items: by owner, collection and index when owners are
// given, by collection and index when one collection is, else by address.
func (s *Store) NftItems(ctx context.Context, f NftItemFilter) ([]chain.NftItem, error) {
	keys := make([]string, 0, len(f.Indexes))
	for _, ix := range f.Indexes {
		k, ok := padDecimal(ix, indexDigits)
		if ok {
			keys = append(keys, k)
		}
	}
	if len(f.Indexes) > 0 && len(keys) == 0 {
		return nil, nil
	}
	ordered := f.ordered
	if f.ByLastTxLt && !f.ByAddress {
		ordered = func(q *bun.SelectQuery, _ ...string) *bun.SelectQuery { return q }
	}
	keyed := len(f.Addresses) > 0 || len(f.Owners) > 0
	return readList[nftItemRow, *nftItemRow](ctx, s, f.TokenPage, keyed, func(q *bun.SelectQuery, v *params) *bun.SelectQuery {
		q = whereIn(q, v, "address", f.Addresses)
		if len(f.Owners) > 0 {
			col := "owner"
			if f.IncludeOnSale {
				col = "real_owner"
			}
			q = ordered(whereIn(q, v, col, f.Owners), col, "collection", "idx_key")
		}
		if len(f.Collections) > 0 {
			q = whereIn(q, v, "collection", f.Collections)
			if len(f.Owners) == 0 && len(f.Collections) == 1 {
				q = ordered(q, "collection", "idx_key")
			}
		}
		if len(keys) > 0 {
			q = whereIn(q, v, "idx_key", keys)
		}
		if f.ByLastTxLt && !f.ByAddress {
			// Ties (items of one transaction) in address order, so pages
			// of one state of the table do not overlap.
			q = q.OrderExpr("last_tx_lt DESC")
		}
		return f.ordered(q, "address")
	})
}
