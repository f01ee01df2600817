package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

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

		var none map[string]any
		require.Equal(t, 200, v3get(t, h, path+"?address="+nobody, &none))
		require.Equal(t, "uninit", none["status"])
		require.Equal(t, "0", none["balance"])
		require.Equal(t, "0", none["last_transaction_lt"])
		require.Equal(t, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", none["last_transaction_hash"])
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
	for path, field := range map[string]string{
		"/api/v3/addressInformation":                             "address",
		"/api/v3/addressInformation?address=xyz":                 "address",
		"/api/v3/account?address=" + v4Wallet + "&adress=1":      "adress",
		"/api/v3/wallet?address=" + v4Wallet + "&use_v2=perhaps": "use_v2",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, path)
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
		require.Contains(t, e.Error, field, path)
	}
}
