package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// shardAccountHashes are the Account cell's hash and the code's hash of a
// stored ShardAccount, decoded here with tongo.
func shardAccountHashes(t *testing.T, b []byte) (account, code string) {
	t.Helper()
	cells, err := boc.DeserializeBoc(b)
	require.NoError(t, err)
	var sa tlb.ShardAccount
	require.NoError(t, tlb.Unmarshal(cells[0], &sa))
	ref := cells[0].Refs()[0]
	h, err := ref.Hash()
	require.NoError(t, err)
	c := sa.Account.Account.Storage.State.AccountActive.StateInit.Code.Value.Value
	ch, err := c.Hash()
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(h), base64.StdEncoding.EncodeToString(ch)
}

// checkV3AccountRoutes reads the fee-replay block's accounts through
// toncenter's v3 account routes: balance, last transaction and code as
// stored, the wallet's seqno as its get method answers, an account never
// seen as toncenter shows one, and 422 for bad or unknown parameters.
func checkV3AccountRoutes(t *testing.T, r *feeReplay) {
	h := r.headHandler()
	st, err := r.st.Account(context.Background(), v4Wallet)
	require.NoError(t, err)
	for _, path := range []string{"/api/v3/addressInformation", "/api/v3/account"} {
		var info struct {
			Balance             string
			Code, Data          *string
			LastTransactionLt   *string `json:"last_transaction_lt"`
			LastTransactionHash *string `json:"last_transaction_hash"`
			FrozenHash          *string `json:"frozen_hash"`
			Status              string
		}
		require.Equal(t, 200, v3get(t, h, path+"?address="+v4Wallet+"&use_v2=false", &info))
		require.Equal(t, fmt.Sprint(st.Balance), info.Balance)
		require.Equal(t, "active", info.Status)
		require.NotNil(t, info.Code)
		require.NotNil(t, info.Data)
		require.Nil(t, info.FrozenHash)
		require.Equal(t, fmt.Sprint(st.LastTxLt), *info.LastTransactionLt)
		require.Equal(t, st.LastTxHash.Base64(), *info.LastTransactionHash)

		// no state held: a 404 saying so, not "uninit" (a claim about the chain)
		var none map[string]any
		require.Equal(t, 404, v3get(t, h, path+"?address="+nobody, &none))
	}
	for _, path := range []string{"/api/v3/walletInformation", "/api/v3/wallet"} {
		var w struct {
			Balance    string
			WalletType string `json:"wallet_type"`
			Seqno      int64
			WalletID   int64 `json:"wallet_id"`
			Status     string
			LastLt     string `json:"last_transaction_lt"`
		}
		require.Equal(t, 200, v3get(t, h, path+"?address="+v4Wallet, &w))
		require.Equal(t, "wallet v4 r2", w.WalletType)
		require.Equal(t, int64(698983191), w.WalletID)
		require.Equal(t, fmt.Sprintf("0x%x", w.Seqno), seqnoByMethod(t, h, v4Wallet))
		require.Equal(t, fmt.Sprint(st.LastTxLt), w.LastLt)
		var other map[string]any
		require.Equal(t, 200, v3get(t, h, path+"?address="+tsTON, &other))
		require.NotContains(t, other, "seqno")
		require.NotContains(t, other, "wallet_type")
	}
	// accountStates: each stored account once (the unknown one absent),
	// hashes as tongo computes them from the stored ShardAccount.
	var states struct {
		Accounts []struct {
			Address    string
			Hash       string  `json:"account_state_hash"`
			Balance    string  `json:"balance"`
			Status     string  `json:"status"`
			CodeHash   string  `json:"code_hash"`
			CodeBoc    *string `json:"code_boc"`
			Interfaces []string
		}
		AddressBook map[string]any `json:"address_book"`
	}
	q := "/api/v3/accountStates?address=" + v4Wallet + "&address=" + nobody + "," + tsTON
	require.Equal(t, 200, v3get(t, h, q, &states))
	require.Len(t, states.Accounts, 2)
	require.Len(t, states.AddressBook, 3)
	wantAcc, wantCode := shardAccountHashes(t, st.ShardAccountBOC)
	got := states.Accounts[0]
	if got.Address != v4Wallet {
		got = states.Accounts[1]
	}
	require.Equal(t, v4Wallet, got.Address)
	require.Equal(t, wantAcc, got.Hash)
	require.Equal(t, wantCode, got.CodeHash)
	require.Equal(t, fmt.Sprint(st.Balance), got.Balance)
	require.Equal(t, "active", got.Status)
	require.NotNil(t, got.CodeBoc)
	var noBOC struct {
		Accounts []map[string]any
	}
	require.Equal(t, 200, v3get(t, h, "/api/v3/accountStates?include_boc=false&address="+v4Wallet, &noBOC))
	require.Len(t, noBOC.Accounts, 1)
	require.NotContains(t, noBOC.Accounts[0], "code_boc")
	require.Contains(t, noBOC.Accounts[0], "code_hash")

	var wallets struct {
		Wallets []struct {
			Address  string
			IsWallet bool   `json:"is_wallet"`
			Type     string `json:"wallet_type"`
			Seqno    int64
		}
	}
	require.Equal(t, 200, v3get(t, h, "/api/v3/walletStates?address="+v4Wallet+"&address="+tsTON, &wallets))
	require.Len(t, wallets.Wallets, 2)
	for _, w := range wallets.Wallets {
		if w.Address == v4Wallet {
			require.True(t, w.IsWallet)
			require.Equal(t, "wallet v4 r2", w.Type)
			require.Equal(t, fmt.Sprintf("0x%x", w.Seqno), seqnoByMethod(t, h, v4Wallet))
		} else {
			require.False(t, w.IsWallet)
		}
	}

	for path, field := range map[string]string{
		"/api/v3/accountStates": "address",
		"/api/v3/accountStates?address=" + v4Wallet + "&code_hash=x":   "code_hash",
		"/api/v3/walletStates?address=0:zz":                            "address",
		"/api/v3/accountStates?address=" + v4Wallet + "&include_boc=2": "include_boc",
		"/api/v3/addressInformation":                                   "address",
		"/api/v3/addressInformation?address=xyz":                       "address",
		"/api/v3/account?address=" + v4Wallet + "&adress=1":            "adress",
		"/api/v3/wallet?address=" + v4Wallet + "&use_v2=perhaps":       "use_v2",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, path)
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
		require.Contains(t, e.Error, field, path)
	}
}

func postV3(t *testing.T, h http.Handler, path, body string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// checkRunGetMethodV3: toncenter v3's runGetMethod answers what the v2
// method answers, in v3's {type, value} stack: the wallet's seqno, and a
// jetton master's wallet address for an owner given as a slice.
func checkRunGetMethodV3(t *testing.T, r *feeReplay) {
	h := r.handler(nil)
	type result struct {
		GasUsed  int64 `json:"gas_used"`
		ExitCode int64 `json:"exit_code"`
		Stack    []struct {
			Type  string
			Value json.RawMessage
		}
	}
	code, body := postV3(t, h, "/api/v3/runGetMethod", `{"address":"`+v4Wallet+`","method":"seqno","stack":[]}`)
	require.Equal(t, 200, code, string(body))
	var run result
	require.NoError(t, json.Unmarshal(body, &run))
	require.Equal(t, int64(0), run.ExitCode)
	require.Greater(t, run.GasUsed, int64(0))
	require.Len(t, run.Stack, 1)
	require.Equal(t, "num", run.Stack[0].Type)
	require.JSONEq(t, `"`+seqnoByMethod(t, h, v4Wallet)+`"`, string(run.Stack[0].Value))

	owner := boc.NewCell()
	id := ton.MustParseAccountID(v4Wallet)
	require.NoError(t, tlb.Marshal(owner, id.ToMsgAddress()))
	b, _ := owner.ToBocBase64()
	code, body = postV3(t, h, "/api/v3/runGetMethod", `{"address":"`+tsTON+`","method":"get_wallet_address","stack":[{"type":"slice","value":"`+b+`"}]}`)
	require.Equal(t, 200, code, string(body))
	run = result{}
	require.NoError(t, json.Unmarshal(body, &run))
	require.Equal(t, "cell", run.Stack[0].Type)
	var cellB64 string
	require.NoError(t, json.Unmarshal(run.Stack[0].Value, &cellB64))
	c, err := boc.DeserializeBocBase64(cellB64)
	require.NoError(t, err)
	var got tlb.MsgAddress
	require.NoError(t, tlb.Unmarshal(c[0], &got))
	wallet, err := ton.AccountIDFromTlb(got)
	require.NoError(t, err)
	// the same wallet the v2 call finds (checkJettonWalletAddressByGetMethod)
	require.Equal(t, "0:5ce2c350cb2d47e9bc727c7066e8fafafd5a2bc7d361701bee44a9eccf818528", wallet.ToRaw())

	for body, field := range map[string]string{
		`{"address":"` + v4Wallet + `","method":"seqno","stak":[]}`:                             "stak",
		`{"address":"` + v4Wallet + `","method":"seqno","stack":[{"type":"tuple","value":[]}]}`: "stack",
		`{"address":"` + v4Wallet + `"}`:                                                        "method",
		`{"address":"nope","method":"seqno"}`:                                                   "address",
	} {
		code, resp := postV3(t, h, "/api/v3/runGetMethod", body)
		require.Equal(t, http.StatusUnprocessableEntity, code, body)
		require.Contains(t, string(resp), field, body)
	}
}
