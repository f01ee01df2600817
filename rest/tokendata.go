package rest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
)

// getTokenData in toncenter v2's shape (its tonlib client's get_token_data):
// one object by contract_type (jetton_master, jetton_wallet,
// nft_collection, nft_item) with the standard get method's values,
// integers as JSON numbers of any size, addresses user-friendly
// (bounceable, URL-safe) or null, content as {"type": "onchain", "data":
// {attribute: value}} or {"type": "offchain", "data": uri}, codes as
// base64 BOCs. Differences are in docs/API-NOTES.md.

func init() {
	rpcMethods["getTokenData"] = getTokenData
	v2Routes["getTokenData"] = http.MethodGet
}

func getTokenData(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	addr, err := p.str("address")
	if err != nil {
		return nil, err
	}
	recs, err := res.TokenData(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	return tokenDataOf(recs, res.Testnet), nil
}

// tokenDataOf renders the one record of recs.
func tokenDataOf(recs *chain.TokenRecords, testnet bool) map[string]any {
	friendly := func(raw string) any {
		if raw == "" {
			return nil
		}
		id, err := ton.ParseAccountID(raw)
		if err != nil {
			return nil
		}
		return id.ToHuman(true, testnet)
	}
	switch {
	case len(recs.JettonMasters) > 0:
		m := recs.JettonMasters[0]
		return map[string]any{"total_supply": json.Number(m.TotalSupply), "mintable": m.Mintable,
			"admin_address": friendly(m.Admin), "jetton_content": tokenContent(m.Content),
			"jetton_wallet_code": base64.StdEncoding.EncodeToString(m.WalletCode), "contract_type": "jetton_master"}
	case len(recs.JettonWallets) > 0:
		w := recs.JettonWallets[0]
		return map[string]any{"balance": json.Number(w.Balance), "owner": friendly(w.Owner), "jetton": friendly(w.Jetton),
			"jetton_wallet_code": base64.StdEncoding.EncodeToString(w.WalletCode), "contract_type": "jetton_wallet"}
	case len(recs.NftCollections) > 0:
		c := recs.NftCollections[0]
		return map[string]any{"next_item_index": json.Number(c.NextItemIndex), "collection_content": tokenContent(c.Content),
			"owner_address": friendly(c.Owner), "contract_type": "nft_collection"}
	default:
		it := recs.NftItems[0]
		return map[string]any{"init": it.Init, "index": json.Number(it.Index), "owner_address": friendly(it.Owner),
			"collection_address": friendly(it.Collection), "content": tokenContent(it.Content), "contract_type": "nft_item"}
	}
}

// tokenContent is a TEP-64 content cell as toncenter's v2 shows it; null
// when the content does not parse.
func tokenContent(b []byte) any {
	c, err := metadata.Parse(b)
	if err != nil {
		return nil
	}
	if c.Layout == chain.MetadataOffchain {
		return map[string]any{"type": "offchain", "data": c.URI}
	}
	data := make(map[string]string, len(c.Attrs)+len(c.Unknown)+1)
	for k, v := range c.Unknown {
		data[k] = v
	}
	for k, v := range c.Attrs {
		data[k] = v
	}
	if c.URI != "" {
		data["uri"] = c.URI // semi-chain: the uri is one of the attributes
	}
	return map[string]any{"type": "onchain", "data": data}
}
