package rest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/resolvers"
)

// Token moves in toncenter v3's shapes (its models JettonTransfer,
// JettonBurn and NFTTransfer, listed under jetton_transfers, jetton_burns
// and nft_transfers with address_book and metadata): one per transaction
// that took a transfer or burn request. Differences are in
// docs/API-NOTES.md.

type tcJettonTransfer struct {
	QueryID               string           `json:"query_id"`
	Source                string           `json:"source"`
	Destination           string           `json:"destination"`
	Amount                string           `json:"amount"`
	SourceWallet          string           `json:"source_wallet"`
	JettonMaster          string           `json:"jetton_master"`
	TransactionHash       string           `json:"transaction_hash"`
	TransactionLt         string           `json:"transaction_lt"`
	TransactionNow        uint32           `json:"transaction_now"`
	TransactionAborted    bool             `json:"transaction_aborted"`
	ResponseDestination   *string          `json:"response_destination"`
	CustomPayload         *string          `json:"custom_payload"`
	DecodedCustomPayload  *json.RawMessage `json:"decoded_custom_payload"`
	ForwardTonAmount      *string          `json:"forward_ton_amount"`
	ForwardPayload        *string          `json:"forward_payload"`
	DecodedForwardPayload *json.RawMessage `json:"decoded_forward_payload"`
	TraceID               *string          `json:"trace_id"`
}

type tcJettonBurn struct {
	QueryID              string           `json:"query_id"`
	Owner                string           `json:"owner"`
	JettonWallet         string           `json:"jetton_wallet"`
	JettonMaster         string           `json:"jetton_master"`
	TransactionHash      string           `json:"transaction_hash"`
	TransactionLt        string           `json:"transaction_lt"`
	TransactionNow       uint32           `json:"transaction_now"`
	TransactionAborted   bool             `json:"transaction_aborted"`
	Amount               string           `json:"amount"`
	ResponseDestination  *string          `json:"response_destination"`
	CustomPayload        *string          `json:"custom_payload"`
	DecodedCustomPayload *json.RawMessage `json:"decoded_custom_payload"`
	TraceID              *string          `json:"trace_id"`
}

type tcNftTransfer struct {
	QueryID               string           `json:"query_id"`
	NftAddress            string           `json:"nft_address"`
	NftCollection         string           `json:"nft_collection"`
	TransactionHash       string           `json:"transaction_hash"`
	TransactionLt         string           `json:"transaction_lt"`
	TransactionNow        uint32           `json:"transaction_now"`
	TransactionAborted    bool             `json:"transaction_aborted"`
	OldOwner              string           `json:"old_owner"`
	NewOwner              string           `json:"new_owner"`
	ResponseDestination   *string          `json:"response_destination"`
	CustomPayload         *string          `json:"custom_payload"`
	DecodedCustomPayload  *json.RawMessage `json:"decoded_custom_payload"`
	ForwardAmount         *string          `json:"forward_amount"`
	ForwardPayload        *string          `json:"forward_payload"`
	DecodedForwardPayload *json.RawMessage `json:"decoded_forward_payload"`
	TraceID               *string          `json:"trace_id"`
}

// decodedPayload is toncenter's decoded_forward_payload or
// decoded_custom_payload of a payload (base64 BOC): a text comment in the
// shape toncenter keeps for it ({"@type","comment","type"}); null for any
// other payload (toncenter decodes those with its own TL-B schema service,
// whose shapes this server does not reproduce; docs/API-NOTES.md) and
// when there is none.
func decodedPayload(b64 string) *json.RawMessage {
	if b64 == "" {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil
	}
	text, ok := actions.TextComment(raw)
	if !ok {
		return nil
	}
	b, err := json.Marshal(struct {
		AtType  string `json:"@type"`
		Comment string `json:"comment"`
		Type    string `json:"type"`
	}{"text_comment", text, "text_comment"})
	if err != nil {
		return nil
	}
	m := json.RawMessage(b)
	return &m
}

// opt is a string field toncenter writes null when empty.
func opt(s string) *string { return optional(s) }

// orZero is a decimal toncenter always writes: 0 when none.
func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// JettonTransfersOf renders jetton transfers in toncenter's shape, with
// the addresses they name.
func JettonTransfersOf(in []chain.TokenMove) ([]tcJettonTransfer, []string) {
	out := make([]tcJettonTransfer, len(in))
	var book []string
	for i, m := range in {
		trace := m.TraceID
		out[i] = tcJettonTransfer{QueryID: orZero(m.QueryID), Source: m.Source, Destination: m.Destination,
			Amount: orZero(m.Amount), SourceWallet: m.Contract, JettonMaster: m.Master, TransactionHash: m.TxHash,
			TransactionLt: lt(m.TxLt), TransactionNow: m.TxUtime, ResponseDestination: opt(m.ResponseDestination),
			CustomPayload: opt(m.CustomPayload), ForwardTonAmount: opt(m.ForwardAmount),
			ForwardPayload: opt(m.ForwardPayload), TraceID: &trace,
			DecodedCustomPayload: decodedPayload(m.CustomPayload), DecodedForwardPayload: decodedPayload(m.ForwardPayload)}
		book = append(book, m.Source, m.Destination, m.Contract, m.Master, m.ResponseDestination)
	}
	return out, book
}

// JettonBurnsOf renders jetton burns in toncenter's shape, with the
// addresses they name.
func JettonBurnsOf(in []chain.TokenMove) ([]tcJettonBurn, []string) {
	out := make([]tcJettonBurn, len(in))
	var book []string
	for i, m := range in {
		trace := m.TraceID
		out[i] = tcJettonBurn{QueryID: orZero(m.QueryID), Owner: m.Source, JettonWallet: m.Contract,
			JettonMaster: m.Master, TransactionHash: m.TxHash, TransactionLt: lt(m.TxLt), TransactionNow: m.TxUtime,
			Amount: orZero(m.Amount), ResponseDestination: opt(m.ResponseDestination),
			CustomPayload: opt(m.CustomPayload), TraceID: &trace, DecodedCustomPayload: decodedPayload(m.CustomPayload)}
		book = append(book, m.Source, m.Contract, m.Master, m.ResponseDestination)
	}
	return out, book
}

// NftTransfersOf renders NFT transfers in toncenter's shape, with the
// addresses they name.
func NftTransfersOf(in []chain.TokenMove) ([]tcNftTransfer, []string) {
	out := make([]tcNftTransfer, len(in))
	var book []string
	for i, m := range in {
		trace := m.TraceID
		out[i] = tcNftTransfer{QueryID: orZero(m.QueryID), NftAddress: m.Contract, NftCollection: m.Master,
			TransactionHash: m.TxHash, TransactionLt: lt(m.TxLt), TransactionNow: m.TxUtime,
			OldOwner: m.Source, NewOwner: m.Destination, ResponseDestination: opt(m.ResponseDestination),
			CustomPayload: opt(m.CustomPayload), ForwardAmount: opt(m.ForwardAmount),
			ForwardPayload: opt(m.ForwardPayload), TraceID: &trace,
			DecodedCustomPayload: decodedPayload(m.CustomPayload), DecodedForwardPayload: decodedPayload(m.ForwardPayload)}
		book = append(book, m.Contract, m.Master, m.Source, m.Destination, m.ResponseDestination)
	}
	return out, book
}

// moveParams are the parameters every move route takes beside its own.
var moveParams = []string{"address", "owner_address", "start_utime", "end_utime", "start_lt", "end_lt", "sort"}

// moveArgs reads the bounds, paging and order, and the owners: toncenter
// reads address as owner_address when that is not given.
func moveArgs(q url.Values) (resolvers.MoveArgs, []string, error) {
	var a resolvers.MoveArgs
	var err error
	if a.TokenListArgs, err = listArgs(q); err != nil {
		return a, nil, err
	}
	for _, p := range []struct {
		name string
		dst  **uint64
		bits int
	}{{"start_utime", &a.StartUtime, 32}, {"end_utime", &a.EndUtime, 32}, {"start_lt", &a.StartLt, 63}, {"end_lt", &a.EndLt, 63}} {
		if *p.dst, err = uintParam(q, p.name, p.bits); err != nil {
			return a, nil, err
		}
	}
	if a.Sort, err = single(q, "sort"); err != nil {
		return a, nil, err
	}
	owners := splitList(q["owner_address"])
	if _, given := q["owner_address"]; !given {
		owners = splitList(q["address"])
	}
	return a, owners, nil
}

// moveRoute is tokenRoute for a move list, with the shared parameters.
func moveRoute(res *resolvers.Resolver, key string, own []string,
	list func(r *http.Request, q url.Values, a resolvers.MoveArgs, owners []string) (any, []string, error)) http.HandlerFunc {
	params := map[string]bool{}
	for _, p := range append(own, moveParams...) {
		params[p] = true
	}
	return tokenRoute(res, key, params, func(r *http.Request, q url.Values) (any, []string, []string, error) {
		a, owners, err := moveArgs(q)
		if err != nil {
			return nil, nil, nil, err
		}
		items, book, err := list(r, q, a, owners)
		return items, book, nil, err
	})
}

// JettonTransfersRoute serves GET /api/v3/jetton/transfers.
func JettonTransfersRoute(res *resolvers.Resolver) http.HandlerFunc {
	return moveRoute(res, "jetton_transfers", []string{"jetton_wallet", "jetton_master", "direction"},
		func(r *http.Request, q url.Values, a resolvers.MoveArgs, owners []string) (any, []string, error) {
			ta := resolvers.JettonTransfersArgs{OwnerAddress: owners, JettonWallet: splitList(q["jetton_wallet"]), MoveArgs: a}
			var err error
			if ta.JettonMaster, err = single(q, "jetton_master"); err != nil {
				return nil, nil, err
			}
			if ta.Direction, err = single(q, "direction"); err != nil {
				return nil, nil, err
			}
			list, err := res.JettonTransfers(r.Context(), ta)
			if err != nil {
				return nil, nil, err
			}
			out, book := JettonTransfersOf(list)
			return out, book, nil
		})
}

// JettonBurnsRoute serves GET /api/v3/jetton/burns.
func JettonBurnsRoute(res *resolvers.Resolver) http.HandlerFunc {
	return moveRoute(res, "jetton_burns", []string{"jetton_wallet", "jetton_master"},
		func(r *http.Request, q url.Values, a resolvers.MoveArgs, owners []string) (any, []string, error) {
			ba := resolvers.JettonBurnsArgs{OwnerAddress: owners, JettonWallet: splitList(q["jetton_wallet"]), MoveArgs: a}
			var err error
			if ba.JettonMaster, err = single(q, "jetton_master"); err != nil {
				return nil, nil, err
			}
			list, err := res.JettonBurns(r.Context(), ba)
			if err != nil {
				return nil, nil, err
			}
			out, book := JettonBurnsOf(list)
			return out, book, nil
		})
}

// NftTransfersRoute serves GET /api/v3/nft/transfers.
func NftTransfersRoute(res *resolvers.Resolver) http.HandlerFunc {
	return moveRoute(res, "nft_transfers", []string{"item_address", "collection_address", "direction"},
		func(r *http.Request, q url.Values, a resolvers.MoveArgs, owners []string) (any, []string, error) {
			na := resolvers.NftTransfersArgs{OwnerAddress: owners, ItemAddress: splitList(q["item_address"]), MoveArgs: a}
			var err error
			if na.CollectionAddress, err = single(q, "collection_address"); err != nil {
				return nil, nil, err
			}
			if na.Direction, err = single(q, "direction"); err != nil {
				return nil, nil, err
			}
			list, err := res.NftTransfers(r.Context(), na)
			if err != nil {
				return nil, nil, err
			}
			out, book := NftTransfersOf(list)
			return out, book, nil
		})
}
