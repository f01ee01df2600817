package rest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// The token registry's routes in toncenter v3's shapes (its models
// JettonMaster, JettonWallet, NFTCollection, NFTItem and their *Response
// lists, with address_book and metadata). Addresses are raw upper-case,
// hashes base64, lts strings, as toncenter writes them. Differences are in
// docs/API-NOTES.md.

type tcJettonMaster struct {
	Address              string          `json:"address"`
	TotalSupply          string          `json:"total_supply"`
	Mintable             bool            `json:"mintable"`
	AdminAddress         *string         `json:"admin_address"`
	JettonContent        json.RawMessage `json:"jetton_content"`
	JettonWalletCodeHash string          `json:"jetton_wallet_code_hash"`
	CodeHash             string          `json:"code_hash"`
	DataHash             string          `json:"data_hash"`
	LastTransactionLt    string          `json:"last_transaction_lt"`
}

// tcJettonWallet is toncenter's JettonWallet, as the stream's
// JettonsNotification carries it too.
type tcJettonWallet = toncenter.JettonWallet

type tcNftCollection struct {
	Address           string          `json:"address"`
	OwnerAddress      *string         `json:"owner_address"`
	LastTransactionLt string          `json:"last_transaction_lt"`
	NextItemIndex     string          `json:"next_item_index"`
	CollectionContent json.RawMessage `json:"collection_content"`
	DataHash          string          `json:"data_hash"`
	CodeHash          string          `json:"code_hash"`
}

type tcNftItem struct {
	Address             string           `json:"address"`
	Init                bool             `json:"init"`
	Index               string           `json:"index"`
	CollectionAddress   *string          `json:"collection_address"`
	OwnerAddress        *string          `json:"owner_address"`
	Content             json.RawMessage  `json:"content"`
	LastTransactionLt   string           `json:"last_transaction_lt"`
	CodeHash            string           `json:"code_hash"`
	DataHash            string           `json:"data_hash"`
	Collection          *tcNftCollection `json:"collection"`
	OnSale              bool             `json:"on_sale"`
	SaleContractAddress *string          `json:"sale_contract_address,omitempty"`
	RealOwner           *string          `json:"real_owner,omitempty"`
}

// TokenList is a registry route's answer: the list under its toncenter
// name, with the address book and metadata of the addresses it names.
type TokenList struct {
	Key         string
	List        any
	AddressBook chain.AddressBook
	Metadata    chain.Metadata
	NoMetadata  bool // leave the metadata member out
}

func (l TokenList) MarshalJSON() ([]byte, error) { return l.AppendJSON(nil) }

// AppendJSON appends the answer as json.Marshal writes it as a map (keys
// sorted). Written by hand because through json.Marshal the address
// book's and metadata's own JSON was scanned and compacted again, a third
// of a page's CPU (docs/PERFORMANCE.md, issue 30, fourth sitting).
func (l TokenList) AppendJSON(b []byte) ([]byte, error) {
	list, err := json.Marshal(l.List)
	if err != nil {
		return b, err
	}
	parts := []jsonMember{
		{l.Key, func(b []byte) []byte { return append(b, list...) }},
		{"address_book", l.AddressBook.AppendJSON},
	}
	if !l.NoMetadata {
		parts = append(parts, jsonMember{"metadata", l.Metadata.AppendJSON})
	}
	slices.SortFunc(parts, func(x, y jsonMember) int { return strings.Compare(x.key, y.key) })
	b = append(b, '{')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, p.key) // keys are plain ASCII names
		b = p.value(append(b, ':'))
	}
	return append(b, '}'), nil
}

// jsonMember is one member of an object written by hand: its key, and
// what appends its value.
type jsonMember struct {
	key   string
	value func([]byte) []byte
}

// optional is s, or nil (JSON null or omitted) when it is empty: an
// address or amount the store does not know.
var optional = chain.Optional

func contentObject(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

func lt(n uint64) string { return strconv.FormatUint(n, 10) }

// JettonMastersOf renders masters in toncenter's shape.
func JettonMastersOf(in []chain.JettonMaster) []tcJettonMaster {
	out := make([]tcJettonMaster, len(in))
	for i, m := range in {
		out[i] = tcJettonMaster{Address: m.Address, TotalSupply: m.TotalSupply, Mintable: m.Mintable,
			AdminAddress: optional(m.Admin), JettonContent: contentObject(m.ContentJSON),
			JettonWalletCodeHash: m.WalletCodeHash.Base64(), CodeHash: m.CodeHash.Base64(), DataHash: m.DataHash.Base64(),
			LastTransactionLt: lt(m.LastTxLt)}
	}
	return out
}

// JettonWalletsOf renders wallets in toncenter's shape.
func JettonWalletsOf(in []chain.JettonWallet) []tcJettonWallet {
	out := make([]tcJettonWallet, len(in))
	for i := range in {
		out[i] = toncenter.RenderJettonWallet(&in[i])
	}
	return out
}

func nftCollectionOf(c chain.NftCollection) tcNftCollection {
	return tcNftCollection{Address: c.Address, OwnerAddress: optional(c.Owner), LastTransactionLt: lt(c.LastTxLt),
		NextItemIndex: c.NextItemIndex, CollectionContent: contentObject(c.ContentJSON),
		DataHash: c.DataHash.Base64(), CodeHash: c.CodeHash.Base64()}
}

// NftCollectionsOf renders collections in toncenter's shape.
func NftCollectionsOf(in []chain.NftCollection) []tcNftCollection {
	out := make([]tcNftCollection, len(in))
	for i, c := range in {
		out[i] = nftCollectionOf(c)
	}
	return out
}

// NftItemsOf renders items in toncenter's shape, each with its collection
// when the registry holds it.
func NftItemsOf(in []chain.NftItem, collections map[string]chain.NftCollection) []tcNftItem {
	out := make([]tcNftItem, len(in))
	for i, it := range in {
		o := tcNftItem{Address: it.Address, Init: it.Init, Index: it.Index, CollectionAddress: optional(it.Collection),
			OwnerAddress: optional(it.Owner), Content: contentObject(it.ContentJSON), LastTransactionLt: lt(it.LastTxLt),
			CodeHash: it.CodeHash.Base64(), DataHash: it.DataHash.Base64(), OnSale: it.SaleContract != "",
			SaleContractAddress: optional(it.SaleContract)}
		if it.SaleContract != "" {
			o.RealOwner = optional(it.RealOwner)
		}
		if c, ok := collections[it.Collection]; ok {
			cc := nftCollectionOf(c)
			o.Collection = &cc
		}
		out[i] = o
	}
	return out
}

// tokenRoute serves one registry route: GET only, known parameters only,
// then list (which also names the addresses of the book and of metadata).
func tokenRoute(res *resolvers.Resolver, key string, params map[string]bool,
	list func(r *http.Request, q url.Values) (any, []string, []string, error)) http.HandlerFunc {
	params["limit"], params["offset"] = true, true
	return listRoute(res, key, params, true, list)
}

// listRoute is tokenRoute with the parameters as given, and the metadata
// object only when withMetadata (toncenter's answers of contracts other
// than tokens have none).
func listRoute(res *resolvers.Resolver, key string, params map[string]bool, withMetadata bool,
	list func(r *http.Request, q url.Values) (any, []string, []string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		q := r.URL.Query()
		if err := onlyParams(q, params); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		items, book, tokens, err := list(r, q)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		// The book names every address shown; the metadata object the
		// tokens among them.
		ab, md, err := res.AddressBookAndMetadata(r.Context(), uniq(append(book, tokens...)))
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		writeBounded(w, r, V3, TokenList{Key: key, List: items, AddressBook: ab, Metadata: md, NoMetadata: !withMetadata})
	}
}

func uniq(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// listArgs reads limit and offset.
func listArgs(q url.Values) (resolvers.TokenListArgs, error) {
	var a resolvers.TokenListArgs
	var err error
	if a.Limit, err = intParam(q, "limit"); err != nil {
		return a, err
	}
	a.Offset, err = intParam(q, "offset")
	return a, err
}

func flag(q url.Values, name string) (bool, error) {
	b, err := boolParam(q, name)
	if b == nil || err != nil {
		return false, err
	}
	return *b, nil
}

// JettonMastersRoute serves GET /api/v3/jetton/masters.
func JettonMastersRoute(res *resolvers.Resolver) http.HandlerFunc {
	return tokenRoute(res, "jetton_masters", map[string]bool{"address": true, "admin_address": true},
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.JettonMastersArgs{Address: splitList(q["address"]), AdminAddress: splitList(q["admin_address"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.JettonMasters(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var book, tokens []string
			for _, m := range list {
				book = append(book, m.Address, m.Admin)
				tokens = append(tokens, m.Address)
			}
			return JettonMastersOf(list), book, tokens, nil
		})
}

// JettonWalletsRoute serves GET /api/v3/jetton/wallets.
func JettonWalletsRoute(res *resolvers.Resolver) http.HandlerFunc {
	return tokenRoute(res, "jetton_wallets",
		map[string]bool{"address": true, "owner_address": true, "jetton_address": true, "exclude_zero_balance": true, "sort": true},
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.JettonWalletsArgs{Address: splitList(q["address"]), OwnerAddress: splitList(q["owner_address"]),
				JettonAddress: splitList(q["jetton_address"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			if a.ExcludeZeroBalance, err = flag(q, "exclude_zero_balance"); err != nil {
				return nil, nil, nil, err
			}
			if a.Sort, err = single(q, "sort"); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.JettonWallets(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var book, tokens []string
			for _, w := range list {
				book = append(book, w.Address, w.Owner, w.Jetton)
				tokens = append(tokens, w.Jetton)
			}
			return JettonWalletsOf(list), book, tokens, nil
		})
}

// NftCollectionsRoute serves GET /api/v3/nft/collections.
func NftCollectionsRoute(res *resolvers.Resolver) http.HandlerFunc {
	return tokenRoute(res, "nft_collections", map[string]bool{"collection_address": true, "owner_address": true},
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.NftCollectionsArgs{CollectionAddress: splitList(q["collection_address"]),
				OwnerAddress: splitList(q["owner_address"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.NftCollections(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var book, tokens []string
			for _, c := range list {
				book = append(book, c.Address, c.Owner)
				tokens = append(tokens, c.Address)
			}
			return NftCollectionsOf(list), book, tokens, nil
		})
}

// NftItemsRoute serves GET /api/v3/nft/items.
func NftItemsRoute(res *resolvers.Resolver) http.HandlerFunc {
	return tokenRoute(res, "nft_items",
		map[string]bool{"address": true, "owner_address": true, "collection_address": true, "index": true, "include_on_sale": true,
			"sort_by_last_transaction_lt": true},
		func(r *http.Request, q url.Values) (any, []string, []string, error) {
			a := resolvers.NftItemsArgs{Address: splitList(q["address"]), OwnerAddress: splitList(q["owner_address"]),
				CollectionAddress: splitList(q["collection_address"]), Index: splitList(q["index"])}
			var err error
			if a.TokenListArgs, err = listArgs(q); err != nil {
				return nil, nil, nil, err
			}
			if a.IncludeOnSale, err = flag(q, "include_on_sale"); err != nil {
				return nil, nil, nil, err
			}
			if a.SortByLastTransactionLt, err = flag(q, "sort_by_last_transaction_lt"); err != nil {
				return nil, nil, nil, err
			}
			list, err := res.NftItems(r.Context(), a)
			if err != nil {
				return nil, nil, nil, err
			}
			var book, tokens, colls []string
			for _, it := range list {
				book = append(book, it.Address, it.Collection, it.Owner, it.SaleContract, it.RealOwner)
				tokens = append(tokens, it.Address, it.Collection)
				colls = append(colls, it.Collection)
			}
			collections, err := res.NftCollectionsByAddress(r.Context(), uniq(colls))
			if err != nil {
				return nil, nil, nil, err
			}
			return NftItemsOf(list, collections), book, tokens, nil
		})
}
