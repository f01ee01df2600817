package server_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/config"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/lite"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// Wallets of the fee-replay block, on their states before it.
const (
	v4Wallet = "0:89F356BD10B3C8609187C5ABCD7BB1D5840C7F8A88E73DEBFF8E64FFD8F12010"
	v5Wallet = "0:BC91B30E0AFE5CB6DB47B1F2127C83B63F75207102FC3499A6A7B8182C85115E"
	tsTON    = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
	nobody   = "0:0102030000000000000000000000000000000000000000000000000000000000"
	// the block's masterchain block
	replayMcSeqno = 66519406
)

// rpc calls a JSON-RPC method and returns its result (the call must succeed).
func rpc(t *testing.T, h http.Handler, method string, params any) json.RawMessage {
	t.Helper()
	p, _ := json.Marshal(params)
	rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(`1`, method, string(p)))
	require.Equal(t, http.StatusOK, rec.Code, "%s: %s", method, rec.Body)
	var out struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.True(t, out.OK)
	return out.Result
}

// sameAsREST checks that /api/v2/<method> answers what JSON-RPC answered
// (but for @extra, which is each request's id).
func sameAsREST(t *testing.T, h http.Handler, method string, viaRPC json.RawMessage, query url.Values) {
	t.Helper()
	rec := doRequest(h, http.MethodGet, "/api/v2/"+method+"?"+query.Encode(), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.True(t, out.OK)
	require.Equal(t, withoutExtra(t, viaRPC), withoutExtra(t, out.Result), method)
}

func withoutExtra(t *testing.T, b json.RawMessage) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	if m, ok := v.(map[string]any); ok {
		delete(m, "@extra")
	}
	out, _ := json.Marshal(v)
	return string(out)
}

type fullState struct {
	Type              string `json:"@type"`
	Balance           string `json:"balance"`
	Code, Data, State string
	FrozenHash        string `json:"frozen_hash"`
	LastTransactionID struct {
		Type     string `json:"@type"`
		Lt, Hash string
	} `json:"last_transaction_id"`
	BlockID struct {
		Type      string `json:"@type"`
		Workchain int32
		Shard     string
		Seqno     uint32
	} `json:"block_id"`
	SyncUtime uint32 `json:"sync_utime"`
}

func checkWalletCalls(t *testing.T, r *feeReplay) {
	h := r.headHandler()
	ctx := context.Background()

	// getAddressInformation: the stored state, in tonlib's types
	raw := rpc(t, h, "getAddressInformation", map[string]string{"address": v4Wallet})
	var info fullState
	require.NoError(t, json.Unmarshal(raw, &info))
	st, err := r.st.Account(ctx, v4Wallet)
	require.NoError(t, err)
	require.Equal(t, "raw.fullAccountState", info.Type)
	require.Equal(t, "active", info.State)
	require.Equal(t, fmt.Sprint(st.Balance), info.Balance)
	require.NotEmpty(t, info.Code)
	require.NotEmpty(t, info.Data)
	require.Equal(t, fmt.Sprint(st.LastTxLt), info.LastTransactionID.Lt)
	require.Equal(t, st.LastTxHash.Base64(), info.LastTransactionID.Hash)
	require.Equal(t, "internal.transactionId", info.LastTransactionID.Type)
	require.Equal(t, "ton.blockIdExt", info.BlockID.Type)
	require.Equal(t, int32(-1), info.BlockID.Workchain)
	require.Equal(t, "-9223372036854775808", info.BlockID.Shard)
	require.Equal(t, uint32(replayMcSeqno), info.BlockID.Seqno)
	require.Equal(t, uint32(r.now.Unix()), info.SyncUtime)
	sameAsREST(t, h, "getAddressInformation", raw, url.Values{"address": {v4Wallet}})

	// an account the server holds no state of: not "uninitialized" (a
	// claim about the chain), but a 404 saying so and how to get one, in
	// toncenter's error shape, through JSON-RPC and REST alike
	for _, method := range []string{"getAddressInformation", "getExtendedAddressInformation", "getWalletInformation", "getAddressBalance", "getAddressState"} {
		noStateAnswer(t, doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(`1`, method, fmt.Sprintf(`{"address":%q}`, nobody))))
		noStateAnswer(t, doRequest(h, http.MethodGet, "/api/v2/"+method+"?address="+nobody, ""))
	}
	noStateAnswer(t, doRequest(h, http.MethodPost, "/api/v2/runGetMethod", fmt.Sprintf(`{"address":%q,"method":"seqno","stack":[]}`, nobody)))

	// getWalletInformation: type, seqno and wallet id from the data;
	// the seqno is what the get method answers
	var w4, w5 struct {
		Wallet             bool
		Balance            string
		AccountState       string `json:"account_state"`
		WalletType         string `json:"wallet_type"`
		Seqno              int64
		WalletID           int64 `json:"wallet_id"`
		IsSignatureAllowed *bool `json:"is_signature_allowed"`
	}
	require.NoError(t, json.Unmarshal(rpc(t, h, "getWalletInformation", map[string]string{"address": v4Wallet}), &w4))
	require.True(t, w4.Wallet)
	require.Equal(t, "wallet v4 r2", w4.WalletType)
	require.Equal(t, "active", w4.AccountState)
	require.Equal(t, int64(698983191), w4.WalletID)
	require.Nil(t, w4.IsSignatureAllowed)
	require.Equal(t, fmt.Sprintf("0x%x", w4.Seqno), seqnoByMethod(t, h, v4Wallet))
	require.NoError(t, json.Unmarshal(rpc(t, h, "getWalletInformation", map[string]string{"address": v5Wallet}), &w5))
	require.Equal(t, "wallet v5 r1", w5.WalletType)
	require.NotNil(t, w5.IsSignatureAllowed)
	require.True(t, *w5.IsSignatureAllowed)
	require.Equal(t, fmt.Sprintf("0x%x", w5.Seqno), seqnoByMethod(t, h, v5Wallet))
	var notWallet map[string]any
	require.NoError(t, json.Unmarshal(rpc(t, h, "getWalletInformation", map[string]string{"address": tsTON}), &notWallet))
	require.Equal(t, false, notWallet["wallet"])
	require.NotContains(t, notWallet, "seqno")

	// getExtendedAddressInformation: tonlib's typed account state
	var ext4, ext5 struct {
		Type         string         `json:"@type"`
		Address      map[string]any `json:"address"`
		AccountState map[string]any `json:"account_state"`
		Revision     int
	}
	require.NoError(t, json.Unmarshal(rpc(t, h, "getExtendedAddressInformation", map[string]string{"address": v4Wallet}), &ext4))
	require.Equal(t, "fullAccountState", ext4.Type)
	require.Equal(t, "wallet.v4.accountState", ext4.AccountState["@type"])
	require.Equal(t, "698983191", ext4.AccountState["wallet_id"])
	require.Equal(t, float64(w4.Seqno), ext4.AccountState["seqno"])
	require.Equal(t, 2, ext4.Revision)
	require.Equal(t, "accountAddress", ext4.Address["@type"])
	require.NoError(t, json.Unmarshal(rpc(t, h, "getExtendedAddressInformation", map[string]string{"address": v5Wallet}), &ext5))
	require.Equal(t, "raw.accountState", ext5.AccountState["@type"])

	// getAddressBalance, getAddressState: plain strings
	require.JSONEq(t, fmt.Sprintf("%q", fmt.Sprint(st.Balance)), string(rpc(t, h, "getAddressBalance", map[string]string{"address": v4Wallet})))
	require.JSONEq(t, `"active"`, string(rpc(t, h, "getAddressState", map[string]string{"address": v4Wallet})))
	sameAsREST(t, h, "getAddressBalance", rpc(t, h, "getAddressBalance", map[string]string{"address": v4Wallet}), url.Values{"address": {v4Wallet}})

	// runGetMethod by id is the same call
	byID := rpc(t, h, "runGetMethod", map[string]any{"address": v4Wallet, "method": 85143, "stack": []any{}})
	var run struct {
		Type     string `json:"@type"`
		GasUsed  int64  `json:"gas_used"`
		ExitCode int    `json:"exit_code"`
		Stack    [][]any
	}
	require.NoError(t, json.Unmarshal(byID, &run))
	require.Equal(t, "smc.runResult", run.Type)
	require.Positive(t, run.GasUsed)
	require.Equal(t, fmt.Sprintf("0x%x", w4.Seqno), run.Stack[0][1])
	rest := doRequest(h, http.MethodPost, "/api/v2/runGetMethod", fmt.Sprintf(`{"address":%q,"method":"seqno","stack":[]}`, v4Wallet))
	require.Equal(t, http.StatusOK, rest.Code, rest.Body.String())

	// getMasterchainInfo: the block the store's newest data came in
	var mc struct {
		Type string `json:"@type"`
		Last struct {
			Seqno     uint32
			Workchain int32
		}
		Init struct {
			RootHash string `json:"root_hash"`
			FileHash string `json:"file_hash"`
		}
		StateRootHash string `json:"state_root_hash"`
	}
	mcRaw := rpc(t, h, "getMasterchainInfo", map[string]any{})
	require.NoError(t, json.Unmarshal(mcRaw, &mc))
	require.Equal(t, "blocks.masterchainInfo", mc.Type)
	require.Equal(t, uint32(replayMcSeqno), mc.Last.Seqno)
	require.Equal(t, int32(-1), mc.Last.Workchain)
	require.Equal(t, "F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=", mc.Init.RootHash, "mainnet's zero state")
	sameAsREST(t, h, "getMasterchainInfo", mcRaw, url.Values{})

	// sendBoc without lite servers: a valid message, clearly refused
	m := r.msgs[0]
	for method, params := range map[string]string{
		"sendBoc":           fmt.Sprintf(`{"boc":%q}`, m.Message),
		"sendBocReturnHash": fmt.Sprintf(`{"boc":%q}`, m.Message),
		"sendBocUnsafe":     fmt.Sprintf(`{"boc":%q}`, m.Message),
		"sendCellSimple":    `{"cell":` + cellObjectJSON(t, m.Message) + `}`, // the message as a cell object
	} {
		rec := doRequest(h, http.MethodPost, "/api/v2/jsonRPC", rpcCall(`1`, method, params))
		checkV2Error(t, rec, http.StatusServiceUnavailable, "no lite server is configured", json.RawMessage(`1`))
		rec = doRequest(h, http.MethodPost, "/api/v2/"+method, params)
		checkV2Error(t, rec, http.StatusServiceUnavailable, "set LITE_SERVERS or LITE_SERVERS_CONFIG", nil)
	}
}

// seqnoByMethod runs the wallet's seqno get method and returns the number
// as toncenter writes it.
func seqnoByMethod(t *testing.T, h http.Handler, addr string) string {
	t.Helper()
	var run struct {
		ExitCode int `json:"exit_code"`
		Stack    [][]any
	}
	require.NoError(t, json.Unmarshal(rpc(t, h, "runGetMethod", map[string]any{"address": addr, "method": "seqno", "stack": []any{}}), &run))
	require.Equal(t, 0, run.ExitCode)
	require.Len(t, run.Stack, 1)
	require.Equal(t, "num", run.Stack[0][0])
	return run.Stack[0][1].(string)
}

// TestSendBocLiteDown: with lite servers configured but unreachable, a
// message is not sent and the answer says so (503), never a success; the
// masterchain head falls back to the store.
func checkSendBocLiteDown(t *testing.T, r *feeReplay) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	key := base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey))
	lc := lite.New(func(context.Context) ([]config.LiteServer, error) {
		return []config.LiteServer{{Host: addr, Key: key}}, nil
	}, lite.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	est := fees.New(r.st, nil, fees.Options{})
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: r.st, Fees: est, Lite: lc},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	rec := doRequest(h, http.MethodPost, "/api/v2/sendBocReturnHash", fmt.Sprintf(`{"boc":%q}`, r.msgs[0].Message))
	checkV2Error(t, rec, http.StatusServiceUnavailable, "lite servers are unavailable; the message was not sent", nil)
	var mc struct{ Last struct{ Seqno uint32 } }
	require.NoError(t, json.Unmarshal(rpc(t, h, "getMasterchainInfo", nil), &mc))
	require.Equal(t, uint32(replayMcSeqno), mc.Last.Seqno)
}

// checkJettonWalletAddressByGetMethod asks the tsTON master for a holder's
// wallet with an address slice on the stack, as wallets ask it.
func checkJettonWalletAddressByGetMethod(t *testing.T, r *feeReplay) {
	h := r.handler(nil)
	owner := boc.NewCell()
	id := ton.MustParseAccountID(v4Wallet)
	require.NoError(t, tlb.Marshal(owner, id.ToMsgAddress()))
	b, _ := owner.ToBocBase64()
	var run struct {
		ExitCode int `json:"exit_code"`
		Stack    [][]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(rpc(t, h, "runGetMethod", map[string]any{"address": tsTON, "method": "get_wallet_address",
		"stack": [][]string{{"tvm.Slice", b}}}), &run))
	require.Equal(t, 0, run.ExitCode)
	require.JSONEq(t, `"cell"`, string(run.Stack[0][0]))
	var cell struct {
		Bytes  string `json:"bytes"`
		Object struct {
			Data struct{ Len int } `json:"data"`
		} `json:"object"`
	}
	require.NoError(t, json.Unmarshal(run.Stack[0][1], &cell))
	c, err := boc.DeserializeBocBase64(cell.Bytes)
	require.NoError(t, err)
	var got tlb.MsgAddress
	require.NoError(t, tlb.Unmarshal(c[0], &got))
	wallet, err := ton.AccountIDFromTlb(got)
	require.NoError(t, err)
	require.Equal(t, "0:5ce2c350cb2d47e9bc727c7066e8fafafd5a2bc7d361701bee44a9eccf818528", wallet.ToRaw())
	require.Equal(t, 267, cell.Object.Data.Len, "tonlib's object form of the cell")
}

// TestImportedBlockRoutes runs the route checks that only read the
// imported block over one import of it.
func TestImportedBlockRoutes(t *testing.T) {
	r := importFeeReplay(t, testenv.Databases(t)[0])
	for name, check := range map[string]func(*testing.T, *feeReplay){
		"FeesAndActionsInOneRequest":     checkFeesAndActionsInOneRequest,
		"EstimateFeeV3":                  checkEstimateFeeV3,
		"SendBocLiteDown":                checkSendBocLiteDown,
		"JettonWalletAddressByGetMethod": checkJettonWalletAddressByGetMethod,
		"RunGetMethodV3":                 checkRunGetMethodV3,
		"WalletCallsMalformed":           checkWalletCallsMalformed,
		"NewRoutesTransportErrors":       checkNewRoutesTransportErrors,
	} {
		t.Run(name, func(t *testing.T) { check(t, r) })
	}
}

// TestPreviewAndWalletCallsOnBothDatabases runs the preview routes and the
// wallet calls over the block imported into SQLite and into Postgres.
func TestPreviewAndWalletCallsOnBothDatabases(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			t.Run("PreviewRoutes", func(t *testing.T) { checkPreviewRoutes(t, r) })
			t.Run("WalletCalls", func(t *testing.T) { checkWalletCalls(t, r) })
			t.Run("V3AccountRoutes", func(t *testing.T) { checkV3AccountRoutes(t, r) })
		})
	}
}

// noStateAnswer checks a toncenter error answer for an account the server
// holds no state of.
func noStateAnswer(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	var out struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
		Code  int    `json:"code"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	require.False(t, out.OK)
	require.Equal(t, http.StatusNotFound, out.Code)
	require.Contains(t, out.Error, "holds no state of account "+nobody)
	require.Contains(t, out.Error, "LITE_SERVERS")
}
