package resolvers

import (
	"context"
	"encoding/base64"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// holdingsPage reads first and after of Account.jettons and Account.nfts:
// a keyset page in address order after the cursor's address.
func holdingsPage(first *int, after *string) (store.TokenPage, error) {
	p := store.TokenPage{Limit: DefaultTokenLimit, ByAddress: true}
	if first != nil {
		if *first < 1 || *first > MaxTokenLimit {
			return p, apperr.Field("first", "must be from 1 to %d", MaxTokenLimit)
		}
		p.Limit = *first
	}
	if after != nil && *after != "" {
		b, err := base64.RawURLEncoding.DecodeString(*after)
		if err != nil {
			return p, apperr.Field("after", "not a cursor of this list")
		}
		raw, err := chain.NormalizeAddress(string(b))
		if err != nil {
			return p, apperr.Field("after", "not a cursor of this list")
		}
		p.After = raw
	}
	p.Limit++ // one more tells whether there is a next page
	return p, nil
}

func holdingCursor(addr string) string { return base64.RawURLEncoding.EncodeToString([]byte(addr)) }

// pageInfo trims the extra row and says where the page ends.
func pageInfo(n, limit int, last func(i int) string) (int, *model.PageInfo) {
	pi := &model.PageInfo{HasNextPage: n >= limit}
	if pi.HasNextPage {
		n = limit - 1
	}
	if n > 0 {
		c := holdingCursor(last(n - 1))
		pi.EndCursor = &c
	}
	return n, pi
}

// AccountJettons is Account.jettons: the account's jetton wallets, each
// with its jetton's token.
func (r *Resolver) AccountJettons(ctx context.Context, obj *model.Account, first *int, after *string, excludeZero *bool) (*model.JettonHoldingConnection, error) {
	page, err := holdingsPage(first, after)
	if err != nil {
		return nil, err
	}
	f := store.JettonWalletFilter{Owners: []string{obj.Address}, TokenPage: page}
	f.ExcludeZero = excludeZero != nil && *excludeZero
	list, err := r.Store.JettonWallets(ctx, f)
	if err != nil {
		return nil, err
	}
	n, pi := pageInfo(len(list), page.Limit, func(i int) string { return list[i].Address })
	list = list[:n]
	masters := make([]string, 0, n)
	for _, w := range list {
		masters = append(masters, w.Jetton)
	}
	tokens, err := r.Tokens(ctx, masters, chain.TokenJettonMaster)
	if err != nil {
		return nil, err
	}
	out := &model.JettonHoldingConnection{Edges: make([]*model.JettonHoldingEdge, n), PageInfo: pi}
	for i, w := range list {
		h := &model.JettonHolding{Wallet: w.Address, Jetton: w.Jetton, Token: tokens[w.Jetton], Balance: optionalBig(w.Balance),
			LastTransactionLt: w.LastTxLt}
		out.Edges[i] = &model.JettonHoldingEdge{Cursor: holdingCursor(w.Address), Node: h}
	}
	return out, nil
}

// AccountNfts is Account.nfts: the NFT items the account owns (and, with
// includeOnSale, those its sale contracts hold for it), each with its
// token, its collection's and its sale.
func (r *Resolver) AccountNfts(ctx context.Context, obj *model.Account, first *int, after *string, includeOnSale bool) (*model.NftHoldingConnection, error) {
	page, err := holdingsPage(first, after)
	if err != nil {
		return nil, err
	}
	list, err := r.Store.NftItems(ctx, store.NftItemFilter{Owners: []string{obj.Address}, IncludeOnSale: includeOnSale, TokenPage: page})
	if err != nil {
		return nil, err
	}
	n, pi := pageInfo(len(list), page.Limit, func(i int) string { return list[i].Address })
	list = list[:n]
	var items, colls, saleAddrs []string
	for _, it := range list {
		items = append(items, it.Address)
		if it.Collection != "" {
			colls = append(colls, it.Collection)
		}
		if it.SaleContract != "" {
			saleAddrs = append(saleAddrs, it.SaleContract)
		}
	}
	sales, err := r.salesByAddress(ctx, saleAddrs)
	if err != nil {
		return nil, err
	}
	itemTokens, err := r.Tokens(ctx, items, chain.TokenNftItem)
	if err != nil {
		return nil, err
	}
	collTokens, err := r.Tokens(ctx, colls, chain.TokenNftCollection)
	if err != nil {
		return nil, err
	}
	out := &model.NftHoldingConnection{Edges: make([]*model.NftHoldingEdge, n), PageInfo: pi}
	for i, it := range list {
		h := &model.NftHolding{Address: it.Address, Index: it.Index, Token: itemTokens[it.Address],
			OnSale: it.SaleContract != "", Sale: sales[it.SaleContract], LastTransactionLt: it.LastTxLt}
		if it.Collection != "" {
			c := it.Collection
			h.Collection, h.CollectionToken = &c, collTokens[c]
		}
		out.Edges[i] = &model.NftHoldingEdge{Cursor: holdingCursor(it.Address), Node: h}
	}
	return out, nil
}

// TokenKey names a token: its raw address and what the caller knows it
// to be (chain.TokenJettonMaster, ...).
type TokenKey struct{ Address, Kind string }

func (k TokenKey) id() string { return k.Kind + " " + k.Address }

// TokenOf is the Token an action's details name at addr (raw; kind as
// Tokens takes it); nil when the details do not know the address. Every
// detail field of one response goes through the operation's token loader,
// so a page of actions reads its tokens together.
func (r *Resolver) TokenOf(ctx context.Context, addr actions.Address, kind string) (*model.Token, error) {
	if addr == "" {
		return nil, nil
	}
	return r.loaders(ctx).tokensLoader().Load(ctx, TokenKey{Address: string(addr), Kind: kind})
}

// Tokens makes the Token of each address (raw) of one kind, by address.
func (r *Resolver) Tokens(ctx context.Context, addrs []string, kind string) (map[string]*model.Token, error) {
	keys := make([]TokenKey, len(addrs))
	for i, a := range addrs {
		keys[i] = TokenKey{Address: a, Kind: kind}
	}
	byKey, err := r.TokensOf(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*model.Token, len(byKey))
	for _, k := range keys {
		out[k.Address] = byKey[k.id()]
	}
	return out, nil
}

// TokensOf makes the Token of each key (by TokenKey.id): its stored
// metadata and, for a jetton master, its registry row, read in two
// statements for all of them whatever their kinds. A token with no
// metadata stored is not valid, reason "unknown".
func (r *Resolver) TokensOf(ctx context.Context, keys []TokenKey) (map[string]*model.Token, error) {
	out := make(map[string]*model.Token, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	addrs := make([]string, 0, len(keys))
	var masterAddrs []string
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if !seen[k.Address] {
			seen[k.Address] = true
			addrs = append(addrs, k.Address)
		}
		if k.Kind == chain.TokenJettonMaster {
			masterAddrs = append(masterAddrs, k.Address)
		}
	}
	md, err := r.Store.TokenMetadata(ctx, addrs)
	if err != nil {
		return nil, err
	}
	masters := map[string]chain.JettonMaster{}
	if len(masterAddrs) > 0 {
		list, err := r.Store.JettonMasters(ctx, store.JettonMasterFilter{Addresses: masterAddrs,
			TokenPage: store.TokenPage{Limit: len(masterAddrs)}})
		if err != nil {
			return nil, err
		}
		for _, m := range list {
			masters[m.Address] = m
		}
	}
	for _, k := range keys {
		a := k.Address
		t := &model.Token{Address: a, Kind: k.Kind}
		if m, ok := md[a]; ok {
			t.Kind, t.Valid = m.Kind, m.Valid
			t.Name, t.Symbol, t.Decimals, t.Image, t.Description = m.Name, m.Symbol, m.Decimals, m.Image, m.Description
			if !m.Valid {
				reason := m.Reason
				t.Reason = &reason
			}
		} else {
			reason := "unknown"
			t.Reason = &reason
		}
		if m, ok := masters[a]; ok && k.Kind == chain.TokenJettonMaster {
			supply := actions.BigInt(m.TotalSupply)
			mintable := m.Mintable
			t.TotalSupply, t.Mintable = &supply, &mintable
			if m.Admin != "" {
				admin := m.Admin
				t.Admin = &admin
			}
		}
		out[k.id()] = t
	}
	return out, nil
}
