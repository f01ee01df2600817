package rest

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/internal/reqid"
	"github.com/tonql/tonql/resolvers"
)

// The toncenter v2 objects of the wallet calls, as tonlib types them
// (@type values are exact: clients check them).

// masterShard is the masterchain's one shard as toncenter writes it.
const masterShard = "-9223372036854775808"

type blockIDExt struct {
	Type      string `json:"@type"`
	Workchain int32  `json:"workchain"`
	Shard     string `json:"shard"`
	Seqno     uint32 `json:"seqno"`
	RootHash  string `json:"root_hash"`
	FileHash  string `json:"file_hash"`
}

func masterBlock(b resolvers.Block) blockIDExt {
	return blockIDExt{Type: "ton.blockIdExt", Workchain: -1, Shard: masterShard, Seqno: b.Seqno,
		RootHash: b64(b.RootHash), FileHash: b64(b.FileHash)}
}

type transactionID struct {
	Type string `json:"@type"`
	Lt   string `json:"lt"`
	Hash string `json:"hash"`
}

func lastTransaction(i *accountinfo.Info) transactionID {
	return transactionID{Type: "internal.transactionId", Lt: strconv.FormatUint(i.LastTxLt, 10), Hash: i.LastTxHash.Base64()}
}

type extraCurrency struct {
	Type   string `json:"@type"`
	ID     uint32 `json:"id"`
	Amount string `json:"amount"`
}

func extraCurrencies(i *accountinfo.Info) []extraCurrency {
	out := []extraCurrency{}
	for id, amount := range i.ExtraCurrencies {
		out = append(out, extraCurrency{Type: "extraCurrency", ID: id, Amount: amount})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

func b64(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

// syncUtime is when the shown state was valid: its own time, or for an
// account with no state the newest data's.
func syncUtime(a *resolvers.Account, mc resolvers.Masterchain) uint32 {
	if a.Info.SyncUtime != 0 {
		return a.Info.SyncUtime
	}
	return mc.Utime
}

type addressInformation struct {
	Type              string          `json:"@type"`
	Balance           string          `json:"balance"`
	ExtraCurrencies   []extraCurrency `json:"extra_currencies"`
	Code              string          `json:"code"`
	Data              string          `json:"data"`
	LastTransactionID transactionID   `json:"last_transaction_id"`
	BlockID           blockIDExt      `json:"block_id"`
	FrozenHash        string          `json:"frozen_hash"`
	SyncUtime         uint32          `json:"sync_utime"`
	Extra             string          `json:"@extra"`
	State             string          `json:"state"`
}

func addressInfo(r *http.Request, a *resolvers.Account, mc resolvers.Masterchain) addressInformation {
	i := a.Info
	return addressInformation{Type: "raw.fullAccountState", Balance: strconv.FormatUint(i.Balance, 10),
		ExtraCurrencies: extraCurrencies(i), Code: b64(i.Code), Data: b64(i.Data), LastTransactionID: lastTransaction(i),
		BlockID: masterBlock(a.Block), FrozenHash: b64(i.FrozenHash), SyncUtime: syncUtime(a, mc),
		Extra: reqid.From(r.Context()), State: i.Status}
}

type walletInformation struct {
	Wallet             bool            `json:"wallet"`
	Balance            string          `json:"balance"`
	ExtraCurrencies    []extraCurrency `json:"extra_currencies"`
	AccountState       string          `json:"account_state"`
	WalletType         *string         `json:"wallet_type,omitempty"`
	Seqno              *int64          `json:"seqno,omitempty"`
	WalletID           *int64          `json:"wallet_id,omitempty"`
	IsSignatureAllowed *bool           `json:"is_signature_allowed,omitempty"`
	LastTransactionID  transactionID   `json:"last_transaction_id"`
}

func walletInfo(a *resolvers.Account) walletInformation {
	i := a.Info
	out := walletInformation{Balance: strconv.FormatUint(i.Balance, 10), ExtraCurrencies: extraCurrencies(i),
		AccountState: i.Status, LastTransactionID: lastTransaction(i)}
	if w := i.Wallet; w != nil {
		out.Wallet, out.WalletType, out.Seqno, out.WalletID, out.IsSignatureAllowed = true, &w.Type, w.Seqno, w.WalletID, w.IsSignatureAllowed
	}
	return out
}

type accountAddress struct {
	Type           string `json:"@type"`
	AccountAddress string `json:"account_address"`
}

type extendedInformation struct {
	Type              string          `json:"@type"`
	Address           accountAddress  `json:"address"`
	Balance           string          `json:"balance"`
	ExtraCurrencies   []extraCurrency `json:"extra_currencies"`
	LastTransactionID transactionID   `json:"last_transaction_id"`
	BlockID           blockIDExt      `json:"block_id"`
	SyncUtime         uint32          `json:"sync_utime"`
	AccountState      map[string]any  `json:"account_state"`
	Revision          int             `json:"revision"`
	Extra             string          `json:"@extra"`
}

// extendedInfo is tonlib's fullAccountState: the account state typed as
// tonlib knows it (wallets v3 and v4 by family, anything else raw).
func extendedInfo(r *http.Request, a *resolvers.Account, mc resolvers.Masterchain, testnet bool) extendedInformation {
	i := a.Info
	out := extendedInformation{Type: "fullAccountState",
		Address: accountAddress{Type: "accountAddress", AccountAddress: a.ID.ToHuman(true, testnet)},
		Balance: strconv.FormatUint(i.Balance, 10), ExtraCurrencies: extraCurrencies(i),
		LastTransactionID: lastTransaction(i), BlockID: masterBlock(a.Block), SyncUtime: syncUtime(a, mc),
		Extra: reqid.From(r.Context())}
	switch {
	case i.Status != accountinfo.StateActive:
		out.AccountState = map[string]any{"@type": "uninited.accountState", "frozen_hash": b64(i.FrozenHash)}
	case i.Wallet != nil && i.Wallet.WalletID != nil && i.Wallet.Seqno != nil && tonlibFamily(i.Wallet) != "":
		out.AccountState = map[string]any{"@type": tonlibFamily(i.Wallet), "wallet_id": strconv.FormatInt(*i.Wallet.WalletID, 10),
			"seqno": *i.Wallet.Seqno}
		out.Revision = i.Wallet.Revision
	default:
		out.AccountState = map[string]any{"@type": "raw.accountState", "code": b64(i.Code), "data": b64(i.Data), "frozen_hash": ""}
	}
	return out
}

// tonlibFamily is the account state type tonlib gives a wallet family.
func tonlibFamily(w *accountinfo.Wallet) string {
	switch {
	case strings.HasPrefix(w.Type, "wallet v3 "):
		return "wallet.v3.accountState"
	case strings.HasPrefix(w.Type, "wallet v4 "):
		return "wallet.v4.accountState"
	}
	return ""
}

type runResult struct {
	Type              string        `json:"@type"`
	GasUsed           int64         `json:"gas_used"`
	Stack             []any         `json:"stack"`
	ExitCode          int           `json:"exit_code"`
	BlockID           blockIDExt    `json:"block_id"`
	LastTransactionID transactionID `json:"last_transaction_id"`
	Extra             string        `json:"@extra"`
}

// method reads runGetMethod's method: a name, or a method id (a number).
func method(p params) (getmethod.Method, error) {
	v, ok := p["method"]
	if !ok || isNull(v) {
		return getmethod.Method{}, apperr.Field("method", "required (a get method's name or id)")
	}
	var name string
	if err := json.Unmarshal(v, &name); err == nil {
		name = strings.TrimSpace(name)
		if name == "" || len(name) > 128 {
			return getmethod.Method{}, apperr.Field("method", "must be a get method's name (1 to 128 characters) or id")
		}
		if id, err := strconv.ParseInt(name, 10, 32); err == nil {
			// GET query parameters are strings: "85143" is an id
			return getmethod.Method{ID: int(id)}, nil
		}
		return getmethod.Method{Name: name}, nil
	}
	var id float64
	if err := json.Unmarshal(v, &id); err != nil || id != math.Trunc(id) || id < math.MinInt32 || id > math.MaxInt32 {
		return getmethod.Method{}, apperr.Field("method", "must be a get method's name or a 32-bit id")
	}
	return getmethod.Method{ID: int(id)}, nil
}

type masterchainInfo struct {
	Type          string     `json:"@type"`
	Last          blockIDExt `json:"last"`
	StateRootHash string     `json:"state_root_hash"`
	Init          blockIDExt `json:"init"`
	Extra         string     `json:"@extra"`
}

type sentMessage struct {
	Type     string `json:"@type"`
	Hash     string `json:"hash,omitempty"`
	HashNorm string `json:"hash_norm,omitempty"`
	Extra    string `json:"@extra"`
}
