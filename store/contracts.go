package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// The contracts tables (migration 20261201000151): NFT sales and vesting
// wallets as package contracts reads them from their states (DNS items:
// dns.go).

// contractStateRow is the columns every contract table has for the state
// its row was read from (chain.ContractState); bun reads and writes an
// embedded struct's fields as the row's own.
type contractStateRow struct {
	Known    bool   `bun:"known,notnull"`
	CodeHash string `bun:"code_hash,notnull"`
	DataHash string `bun:"data_hash,notnull"`
	LastTxLt int64  `bun:"last_tx_lt,notnull"`
}

func stateRow(s chain.ContractState) contractStateRow {
	return contractStateRow{Known: s.Known, CodeHash: s.CodeHash.Base64(), DataHash: s.DataHash.Base64(), LastTxLt: int64(s.LastTxLt)}
}

func (r *contractStateRow) toState() chain.ContractState {
	return chain.ContractState{Known: r.Known, CodeHash: hashOf(r.CodeHash), DataHash: hashOf(r.DataHash), LastTxLt: uint64(r.LastTxLt)}
}

type nftSaleRow struct {
	bun.BaseModel `bun:"table:nft_sales,alias:nft_sales"`

	Address        string  `bun:"address,pk"`
	Nft            string  `bun:"nft,notnull"`
	Seller         *string `bun:"seller"`
	Marketplace    *string `bun:"marketplace"`
	FullPrice      *string `bun:"full_price"`
	MarketplaceFee *string `bun:"marketplace_fee"`
	RoyaltyAddress *string `bun:"royalty_address"`
	RoyaltyAmount  *string `bun:"royalty_amount"`
	contractStateRow
}

func (r *nftSaleRow) toChain() chain.NftSale {
	return chain.NftSale{Address: r.Address, Nft: r.Nft, Seller: textOr(r.Seller), Marketplace: textOr(r.Marketplace),
		FullPrice: textOr(r.FullPrice), MarketplaceFee: textOr(r.MarketplaceFee), RoyaltyAddress: textOr(r.RoyaltyAddress),
		RoyaltyAmount: textOr(r.RoyaltyAmount), ContractState: r.toState()}
}

type vestingRow struct {
	bun.BaseModel `bun:"table:vesting_contracts,alias:vesting_contracts"`

	Address       string  `bun:"address,pk"`
	StartTime     int64   `bun:"start_time,notnull"`
	TotalDuration int64   `bun:"total_duration,notnull"`
	UnlockPeriod  int64   `bun:"unlock_period,notnull"`
	CliffDuration int64   `bun:"cliff_duration,notnull"`
	TotalAmount   string  `bun:"total_amount,notnull"`
	Sender        *string `bun:"sender"`
	Owner         *string `bun:"owner"`
	contractStateRow
}

func (r *vestingRow) toChain() chain.Vesting {
	return chain.Vesting{Address: r.Address, StartTime: r.StartTime, TotalDuration: r.TotalDuration,
		UnlockPeriod: r.UnlockPeriod, Cliff: r.CliffDuration, TotalAmount: r.TotalAmount, Sender: textOr(r.Sender),
		Owner: textOr(r.Owner), ContractState: r.toState()}
}

type vestingWhitelistRow struct {
	bun.BaseModel `bun:"table:vesting_whitelist,alias:vesting_whitelist"`

	Contract string `bun:"contract,pk"`
	Wallet   string `bun:"wallet,pk"`
}

// SaveContracts writes sale, vesting, DNS, multisig and order rows, each replacing the stored
// row of its address unless that one was read at a later transaction. A
// sale's NFT, when the registry holds it owned by the sale, is marked on
// sale with the sale's seller as its real owner (the item may have been
// read before the sale).
func (s *Store) SaveContracts(ctx context.Context, c *chain.ContractRecords) error {
	if c.Empty() {
		return nil
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if rows := saleRows(c.Sales); len(rows) > 0 {
			if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
				Set("nft = EXCLUDED.nft, seller = EXCLUDED.seller, marketplace = EXCLUDED.marketplace").
				Set("full_price = EXCLUDED.full_price, marketplace_fee = EXCLUDED.marketplace_fee").
				Set("royalty_address = EXCLUDED.royalty_address, royalty_amount = EXCLUDED.royalty_amount, known = EXCLUDED.known").
				Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
				Where(newerThan("nft_sales")).Exec(ctx); err != nil {
				return err
			}
			for _, r := range rows {
				if _, err := tx.NewUpdate().Table("nft_items").Set("sale_contract = owner, real_owner = ?", r.Seller).
					Where("address = ? AND owner = ?", r.Nft, r.Address).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if rows := vestingRows(c.Vestings); len(rows) > 0 {
			if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
				Set("start_time = EXCLUDED.start_time, total_duration = EXCLUDED.total_duration").
				Set("unlock_period = EXCLUDED.unlock_period, cliff_duration = EXCLUDED.cliff_duration").
				Set("total_amount = EXCLUDED.total_amount, sender = EXCLUDED.sender, owner = EXCLUDED.owner, known = EXCLUDED.known").
				Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
				Where(newerThan("vesting_contracts")).Exec(ctx); err != nil {
				return err
			}
			for _, v := range c.Vestings {
				if err := saveWhitelist(ctx, tx, v); err != nil {
					return err
				}
			}
		}
		if err := saveDNS(ctx, tx, c.DNS); err != nil {
			return err
		}
		if err := saveMultisigs(ctx, tx, c.Multisigs); err != nil {
			return err
		}
		return saveOrders(ctx, tx, c.Orders)
	})
}

// saveWhitelist replaces a contract's whitelist when v is its newest
// reading (the row just written carries v's lt).
func saveWhitelist(ctx context.Context, tx bun.Tx, v chain.Vesting) error {
	n, err := tx.NewSelect().Table("vesting_contracts").Where("address = ? AND last_tx_lt = ?", v.Address, int64(v.LastTxLt)).Count(ctx)
	if err != nil || n == 0 {
		return err
	}
	if _, err := tx.NewDelete().Table("vesting_whitelist").Where("contract = ?", v.Address).Exec(ctx); err != nil {
		return err
	}
	rows := make([]vestingWhitelistRow, 0, len(v.Whitelist))
	for _, w := range v.Whitelist {
		rows = append(rows, vestingWhitelistRow{Contract: v.Address, Wallet: w})
	}
	rows = dedupe(rows, func(r *vestingWhitelistRow) string { return r.Wallet }, func(a, b *vestingWhitelistRow) bool { return true })
	if len(rows) == 0 {
		return nil
	}
	_, err = tx.NewInsert().Model(&rows).Exec(ctx)
	return err
}

func saleRows(in []chain.NftSale) []nftSaleRow {
	rows := make([]nftSaleRow, 0, len(in))
	for _, s := range in {
		rows = append(rows, nftSaleRow{Address: s.Address, Nft: s.Nft, Seller: optText(s.Seller), Marketplace: optText(s.Marketplace),
			FullPrice: optText(s.FullPrice), MarketplaceFee: optText(s.MarketplaceFee), RoyaltyAddress: optText(s.RoyaltyAddress),
			RoyaltyAmount: optText(s.RoyaltyAmount), contractStateRow: stateRow(s.ContractState)})
	}
	return dedupe(rows, func(r *nftSaleRow) string { return r.Address }, func(a, b *nftSaleRow) bool { return a.LastTxLt >= b.LastTxLt })
}

func vestingRows(in []chain.Vesting) []vestingRow {
	rows := make([]vestingRow, 0, len(in))
	for _, v := range in {
		rows = append(rows, vestingRow{Address: v.Address, StartTime: v.StartTime, TotalDuration: v.TotalDuration,
			UnlockPeriod: v.UnlockPeriod, CliffDuration: v.Cliff, TotalAmount: v.TotalAmount, Sender: optText(v.Sender),
			Owner: optText(v.Owner), contractStateRow: stateRow(v.ContractState)})
	}
	return dedupe(rows, func(r *vestingRow) string { return r.Address }, func(a, b *vestingRow) bool { return a.LastTxLt >= b.LastTxLt })
}

// MarkContractsBehind records that accounts had transactions (lt by raw
// address) after the states their rows were read from: a sale's seller
// and prices, a vesting wallet's whitelist and a DNS item's owner and
// records become unknown at that lt (markBehind, as for the token
// registry).
func (s *Store) MarkContractsBehind(ctx context.Context, lts map[string]uint64) error {
	return s.markBehind(ctx, lts, []behindSet{
		{"nft_sales", "known = FALSE, seller = NULL, full_price = NULL, marketplace_fee = NULL, royalty_amount = NULL"},
		{"vesting_contracts", "known = FALSE"},
		dnsBehind,
		multisigBehind,
		orderBehind,
	})
}

// NftSales are the sales of addrs (raw), in address order.
func (s *Store) NftSales(ctx context.Context, addrs []string) ([]chain.NftSale, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	return readTokens[nftSaleRow, *nftSaleRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("address IN (?)", bun.In(addrs)).Order("address")
	})
}

// SaleSellers tells which of addrs are sale contracts the store holds,
// with their sellers ("" unknown).
func (s *Store) SaleSellers(ctx context.Context, addrs []string) (map[string]string, error) {
	sales, err := s.NftSales(ctx, addrs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(sales))
	for _, sl := range sales {
		out[sl.Address] = sl.Seller
	}
	return out, nil
}

// VestingFilter selects vesting wallets (toncenter's /api/v3/vesting): by
// address, or by wallets that are their sender or owner (or, with
// Whitelisted, on their whitelist).
type VestingFilter struct {
	Addresses, Wallets []string
	Whitelisted        bool
	TokenPage
}

// Vestings lists vesting wallets in address order, each with its
// whitelist (nil when unknown).
func (s *Store) Vestings(ctx context.Context, f VestingFilter) ([]chain.Vesting, error) {
	list, err := readTokens[vestingRow, *vestingRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		q = whereIn(q, inlineParams(q.DB()), "address", f.Addresses)
		if len(f.Wallets) > 0 {
			q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				q = q.Where("sender IN (?)", bun.In(f.Wallets)).WhereOr("owner IN (?)", bun.In(f.Wallets))
				if f.Whitelisted {
					q = q.WhereOr("known AND address IN (SELECT contract FROM vesting_whitelist WHERE wallet IN (?))", bun.In(f.Wallets))
				}
				return q
			})
		}
		return f.apply(q.Order("address"))
	})
	if err != nil || len(list) == 0 {
		return list, err
	}
	addrs := make([]string, len(list))
	for i, v := range list {
		addrs[i] = v.Address
	}
	var rows []vestingWhitelistRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).Where("contract IN (?)", bun.In(addrs)).Order("contract", "wallet").Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	byContract := map[string][]string{}
	for _, r := range rows {
		byContract[r.Contract] = append(byContract[r.Contract], r.Wallet)
	}
	for i := range list {
		if list[i].Known {
			list[i].Whitelist = append([]string{}, byContract[list[i].Address]...)
		}
	}
	return list, nil
}
