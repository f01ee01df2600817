package store

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// The token registry's tables (migration 20261201000011): rows are
// written by package tokens from account states, and read by the jetton
// and NFT routes.

type jettonMasterRow struct {
	bun.BaseModel `bun:"table:jetton_masters,alias:jetton_masters"`

	Address        string  `bun:"address,pk"`
	TotalSupply    string  `bun:"total_supply,notnull"`
	Mintable       bool    `bun:"mintable,notnull"`
	Admin          *string `bun:"admin"`
	Content        []byte  `bun:"content"`
	ContentJSON    *string `bun:"content_json"`
	WalletCodeHash string  `bun:"wallet_code_hash,notnull"`
	CodeHash       string  `bun:"code_hash,notnull"`
	DataHash       string  `bun:"data_hash,notnull"`
	LastTxLt       int64   `bun:"last_tx_lt,notnull"`
}

type jettonWalletRow struct {
	bun.BaseModel `bun:"table:jetton_wallets,alias:jetton_wallets"`

	Address  string  `bun:"address,pk"`
	Owner    string  `bun:"owner,notnull"`
	Jetton   string  `bun:"jetton,notnull"`
	Balance  *string `bun:"balance"` // padded (amountKey); NULL unknown
	CodeHash string  `bun:"code_hash,notnull"`
	DataHash string  `bun:"data_hash,notnull"`
	LastTxLt int64   `bun:"last_tx_lt,notnull"`
}

type nftCollectionRow struct {
	bun.BaseModel `bun:"table:nft_collections,alias:nft_collections"`

	Address       string  `bun:"address,pk"`
	Owner         *string `bun:"owner"`
	NextItemIndex string  `bun:"next_item_index,notnull"`
	Content       []byte  `bun:"content"`
	ContentJSON   *string `bun:"content_json"`
	CodeHash      string  `bun:"code_hash,notnull"`
	DataHash      string  `bun:"data_hash,notnull"`
	LastTxLt      int64   `bun:"last_tx_lt,notnull"`
}

type nftItemRow struct {
	bun.BaseModel `bun:"table:nft_items,alias:nft_items"`

	Address      string  `bun:"address,pk"`
	Init         bool    `bun:"init,notnull"`
	Idx          string  `bun:"idx,notnull"`
	IdxKey       string  `bun:"idx_key,notnull"`
	Collection   string  `bun:"collection,notnull"`
	Owner        *string `bun:"owner"`
	Content      []byte  `bun:"content"`
	ContentJSON  *string `bun:"content_json"`
	SaleContract *string `bun:"sale_contract"`
	RealOwner    *string `bun:"real_owner"`
	CodeHash     string  `bun:"code_hash,notnull"`
	DataHash     string  `bun:"data_hash,notnull"`
	LastTxLt     int64   `bun:"last_tx_lt,notnull"`
}

// Widths of the padded decimal keys: jetton amounts are below 2^120
// (VarUInteger 16), NFT indexes below 2^256.
const (
	amountDigits = 40
	indexDigits  = 78
)

// padDecimal is a non-negative decimal left-padded with zeros to width, so
// that text order is numeric order; ok false for anything else.
func padDecimal(s string, width int) (string, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 {
		return "", false
	}
	d := n.String()
	if len(d) > width {
		return "", false
	}
	return strings.Repeat("0", width-len(d)) + d, true
}

// unpad is the decimal of a padded key.
func unpad(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return "0"
	}
	return t
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func textOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func rawText(b json.RawMessage) *string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	return &s
}

func rawJSON(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

func hashOf(s string) chain.Hash {
	h, _ := chain.ParseHash(s)
	return h
}

// newer is the upsert condition of every registry table: a row read from
// an older transaction of the account never replaces a newer one.
func newerThan(table string) string {
	return table + ".last_tx_lt <= EXCLUDED.last_tx_lt"
}

// SaveTokens writes registry rows, each replacing the stored row of its
// address unless that one was read at a later transaction, and logs the
// jetton wallets' new states as jettons_change events (jettonchanges.go).
// Rows of an unusable shape (a balance or index that is no number) are an
// error of the caller and skipped.
func (s *Store) SaveTokens(ctx context.Context, t *chain.TokenRecords) error {
	if t.Empty() {
		return nil
	}
	var told uint64 // the highest seq of the jettons_change events logged
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if rows := jettonWalletRows(t.JettonWallets); len(rows) > 0 {
			// First: it takes the streams' counter (jettonchanges.go).
			var err error
			if told, err = logJettonChanges(ctx, tx, rows, t.JettonWallets); err != nil {
				return err
			}
		}
		if rows := jettonMasterRows(t.JettonMasters); len(rows) > 0 {
			if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
				Set("total_supply = EXCLUDED.total_supply, mintable = EXCLUDED.mintable, admin = EXCLUDED.admin").
				Set("content = EXCLUDED.content, content_json = EXCLUDED.content_json, wallet_code_hash = EXCLUDED.wallet_code_hash").
				Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
				Where(newerThan("jetton_masters")).Exec(ctx); err != nil {
				return err
			}
		}
		if rows := jettonWalletRows(t.JettonWallets); len(rows) > 0 {
			if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
				Set("owner = EXCLUDED.owner, jetton = EXCLUDED.jetton, balance = EXCLUDED.balance").
				Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
				Where(newerThan("jetton_wallets")).Exec(ctx); err != nil {
				return err
			}
		}
		if rows := nftCollectionRows(t.NftCollections); len(rows) > 0 {
			if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
				Set("owner = EXCLUDED.owner, next_item_index = EXCLUDED.next_item_index, content = EXCLUDED.content").
				Set("content_json = EXCLUDED.content_json").
				Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
				Where(newerThan("nft_collections")).Exec(ctx); err != nil {
				return err
			}
		}
		if rows := nftItemRows(t.NftItems); len(rows) > 0 {
			if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
				Set("init = EXCLUDED.init, idx = EXCLUDED.idx, idx_key = EXCLUDED.idx_key, collection = EXCLUDED.collection").
				Set("owner = EXCLUDED.owner, content = EXCLUDED.content, content_json = EXCLUDED.content_json, sale_contract = EXCLUDED.sale_contract").
				Set("real_owner = EXCLUDED.real_owner, code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash").
				Set("last_tx_lt = EXCLUDED.last_tx_lt").
				Where(newerThan("nft_items")).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && told > 0 {
		s.actionsCommitted(told)
	}
	return err
}

// MarkTokensBehind records that accounts had transactions (lt by raw
// address) after the states their registry rows were read from, when no
// newer state is at hand: a jetton wallet's balance and an NFT item's
// owner become unknown (NULL) at that lt, never an older value shown as
// current. Masters and collections keep their values (their supply and
// content change rarely, and the next state read replaces them), but the
// newer lt is not recorded for them, so a later state is still taken.
func (s *Store) MarkTokensBehind(ctx context.Context, lts map[string]uint64) error {
	return s.markBehind(ctx, lts, []behindSet{
		{"jetton_wallets", "balance = NULL"},
		{"nft_items", "owner = NULL, real_owner = NULL, sale_contract = NULL"},
	})
}

// behindSet is a registry table and what becomes unknown in a row of it
// when its account had a transaction after the state the row was read
// from.
type behindSet struct{ table, set string }

// markBehind applies each set to the rows of addresses in lts whose
// last_tx_lt is older than the account's newest transaction, and records
// that lt: one read per table and batch of addresses finds the few rows
// concerned (most touched accounts are in none of the tables).
func (s *Store) markBehind(ctx context.Context, lts map[string]uint64, sets []behindSet) error {
	if len(lts) == 0 {
		return nil
	}
	addrs := make([]string, 0, len(lts))
	for a := range lts {
		addrs = append(addrs, a)
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range sets {
			for start := 0; start < len(addrs); start += tokenEnqueueBatch {
				part := addrs[start:min(start+tokenEnqueueBatch, len(addrs))]
				var behind []struct {
					Address  string `bun:"address"`
					LastTxLt int64  `bun:"last_tx_lt"`
				}
				if err := tx.NewSelect().Table(q.table).Column("address", "last_tx_lt").
					Where("address IN (?)", bun.In(part)).Scan(ctx, &behind); err != nil {
					return err
				}
				for _, b := range behind {
					lt := int64(lts[b.Address])
					if b.LastTxLt >= lt {
						continue
					}
					if _, err := tx.NewUpdate().Table(q.table).Set(q.set).Set("last_tx_lt = ?", lt).
						Where("address = ? AND last_tx_lt < ?", b.Address, lt).Exec(ctx); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func jettonMasterRows(in []chain.JettonMaster) []jettonMasterRow {
	rows := make([]jettonMasterRow, 0, len(in))
	for _, m := range in {
		rows = append(rows, jettonMasterRow{Address: m.Address, TotalSupply: m.TotalSupply, Mintable: m.Mintable,
			Admin: optText(m.Admin), Content: m.Content, ContentJSON: rawText(m.ContentJSON), WalletCodeHash: m.WalletCodeHash.Base64(),
			CodeHash: m.CodeHash.Base64(), DataHash: m.DataHash.Base64(), LastTxLt: int64(m.LastTxLt)})
	}
	return dedupe(rows, func(r *jettonMasterRow) string { return r.Address },
		func(a, b *jettonMasterRow) bool { return a.LastTxLt >= b.LastTxLt })
}

func jettonWalletRows(in []chain.JettonWallet) []jettonWalletRow {
	rows := make([]jettonWalletRow, 0, len(in))
	for _, w := range in {
		r := jettonWalletRow{Address: w.Address, Owner: w.Owner, Jetton: w.Jetton,
			CodeHash: w.CodeHash.Base64(), DataHash: w.DataHash.Base64(), LastTxLt: int64(w.LastTxLt)}
		if w.Balance != "" {
			b, ok := padDecimal(w.Balance, amountDigits)
			if !ok {
				continue
			}
			r.Balance = &b
		}
		rows = append(rows, r)
	}
	return dedupe(rows, func(r *jettonWalletRow) string { return r.Address },
		func(a, b *jettonWalletRow) bool { return a.LastTxLt >= b.LastTxLt })
}

func nftCollectionRows(in []chain.NftCollection) []nftCollectionRow {
	rows := make([]nftCollectionRow, 0, len(in))
	for _, c := range in {
		rows = append(rows, nftCollectionRow{Address: c.Address, Owner: optText(c.Owner), NextItemIndex: c.NextItemIndex,
			Content: c.Content, ContentJSON: rawText(c.ContentJSON), CodeHash: c.CodeHash.Base64(), DataHash: c.DataHash.Base64(), LastTxLt: int64(c.LastTxLt)})
	}
	return dedupe(rows, func(r *nftCollectionRow) string { return r.Address },
		func(a, b *nftCollectionRow) bool { return a.LastTxLt >= b.LastTxLt })
}

func nftItemRows(in []chain.NftItem) []nftItemRow {
	rows := make([]nftItemRow, 0, len(in))
	for _, it := range in {
		key, ok := padDecimal(it.Index, indexDigits)
		if !ok {
			continue
		}
		r := nftItemRow{Address: it.Address, Init: it.Init, Idx: unpad(key), IdxKey: key, Collection: it.Collection,
			Content: it.Content, ContentJSON: rawText(it.ContentJSON), CodeHash: it.CodeHash.Base64(), DataHash: it.DataHash.Base64(), LastTxLt: int64(it.LastTxLt)}
		if it.OwnerKnown {
			r.Owner, r.SaleContract = optText(it.Owner), optText(it.SaleContract)
			r.RealOwner = optText(it.Owner)
			if it.SaleContract != "" {
				r.RealOwner = optText(it.RealOwner)
			}
		}
		rows = append(rows, r)
	}
	return dedupe(rows, func(r *nftItemRow) string { return r.Address },
		func(a, b *nftItemRow) bool { return a.LastTxLt >= b.LastTxLt })
}

func (r *jettonMasterRow) toChain() chain.JettonMaster {
	return chain.JettonMaster{Address: r.Address, TotalSupply: r.TotalSupply, Mintable: r.Mintable, Admin: textOr(r.Admin),
		Content: r.Content, ContentJSON: rawJSON(r.ContentJSON), WalletCodeHash: hashOf(r.WalletCodeHash), CodeHash: hashOf(r.CodeHash),
		DataHash: hashOf(r.DataHash), LastTxLt: uint64(r.LastTxLt)}
}

func (r *jettonWalletRow) toChain() chain.JettonWallet {
	w := chain.JettonWallet{Address: r.Address, Owner: r.Owner, Jetton: r.Jetton, CodeHash: hashOf(r.CodeHash),
		DataHash: hashOf(r.DataHash), LastTxLt: uint64(r.LastTxLt)}
	if r.Balance != nil {
		w.Balance = unpad(*r.Balance)
	}
	return w
}

func (r *nftCollectionRow) toChain() chain.NftCollection {
	return chain.NftCollection{Address: r.Address, Owner: textOr(r.Owner), NextItemIndex: r.NextItemIndex,
		Content: r.Content, ContentJSON: rawJSON(r.ContentJSON), CodeHash: hashOf(r.CodeHash), DataHash: hashOf(r.DataHash),
		LastTxLt: uint64(r.LastTxLt)}
}

func (r *nftItemRow) toChain() chain.NftItem {
	return chain.NftItem{Address: r.Address, Init: r.Init, Index: r.Idx, Collection: r.Collection,
		Owner: textOr(r.Owner), OwnerKnown: r.Owner != nil || r.RealOwner != nil, Content: r.Content,
		ContentJSON:  rawJSON(r.ContentJSON),
		SaleContract: textOr(r.SaleContract), RealOwner: textOr(r.RealOwner), CodeHash: hashOf(r.CodeHash),
		DataHash: hashOf(r.DataHash), LastTxLt: uint64(r.LastTxLt)}
}
