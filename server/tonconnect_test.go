package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/internal/walletmsg"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// tonConnectBody is the TON Connect request (JSON) for what the block's
// signed message of the wallet at prefix sent.
func tonConnectBody(t *testing.T, r *feeReplay, prefix string, ver wallet.Version) (string, fees.ExternalMessage) {
	t.Helper()
	for _, m := range r.msgs {
		if strings.HasPrefix(m.Account.ToRaw(), prefix) {
			msgs, _, err := walletmsg.TonConnectOf(m.Message, ver)
			require.NoError(t, err)
			b, _ := json.Marshal(map[string]any{"from": m.Account.ToHuman(true, false),
				"valid_until": time.Now().Add(time.Hour).Unix(), "network": "-239", "messages": msgs})
			return string(b), m
		}
	}
	t.Fatalf("no message of %s", prefix)
	return "", fees.ExternalMessage{}
}

// tonConnectQuery is emulateTonConnect with the REST answer's fields.
const tonConnectQuery = `query($from: String!, $messages: [TonConnectMessageInput!]!, $valid_until: UInt32, $network: String) {
 emulateTonConnect(from: $from, messages: $messages, valid_until: $valid_until, network: $network) {` + previewSelection + `} }`

// TestTonConnectRoutes: on the block imported into each database, a TON
// Connect request for what a real v4R2 wallet (a STON.fi swap's jetton
// transfer is another wallet's; this one stakes TON) signed in the block is
// previewed through POST /api/v3/emulate, GraphQL's emulateTonConnect and
// toncenter's POST /api/emulate/v1/emulateTonConnect: the fees are what the
// chain charged, the answers agree, refusals are 422s naming the field.
func TestTonConnectRoutes(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := r.headHandler()
			body, m := tonConnectBody(t, r, "0:89f356bd", wallet.V4R2)
			rec := doRequest(h, http.MethodPost, "/api/v3/emulate", body)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var got struct {
				emulated
				Risk struct {
					Sender    string `json:"sender"`
					TonOut    string `json:"ton_out"`
					Fails     bool   `json:"fails"`
					TotalFees uint64 `json:"total_fees"`
				} `json:"risk"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			want := m.Charged
			want.Type = ""
			require.Equal(t, want, got.SourceFees, "the chain charged the signed message the same")
			require.True(t, got.Complete)
			require.Equal(t, m.Account.ToRaw(), strings.ToLower(got.Risk.Sender))
			require.False(t, got.Risk.Fails)
			require.NotEmpty(t, got.Risk.TonOut)

			// GraphQL: the same object
			var vars map[string]any
			require.NoError(t, json.Unmarshal([]byte(body), &vars))
			q, _ := json.Marshal(map[string]any{"query": tonConnectQuery, "variables": vars})
			gq := doRequest(h, http.MethodPost, "/graphql", string(q))
			require.Equal(t, http.StatusOK, gq.Code)
			var out struct {
				Data   struct{ EmulateTonConnect json.RawMessage } `json:"data"`
				Errors []any                                       `json:"errors"`
			}
			require.NoError(t, json.Unmarshal(gq.Body.Bytes(), &out))
			require.Empty(t, out.Errors, gq.Body.String())
			require.Equal(t, canonical(t, rec.Body.Bytes()), canonical(t, out.Data.EmulateTonConnect))

			// toncenter's emulation route: its shape, the same transactions
			vars["with_actions"], vars["include_address_book"], vars["include_metadata"] = true, true, true
			tcBody, _ := json.Marshal(vars)
			tc := doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTonConnect", string(tcBody))
			require.Equal(t, http.StatusOK, tc.Code, tc.Body.String())
			checkEmulateShape(t, tc.Body.Bytes(), len(got.Transactions), "actions", "address_book", "metadata")

			// a refusal of each kind, 422 naming the field
			from := m.Account.ToRaw()
			for _, c := range []struct{ body, says string }{
				{`{"from":"` + from + `","messages":[{"address":"` + from + `","amount":"1","payload":"%%%"}]}`, "messages[0].payload: not base64"},
				{`{"from":"` + from + `","messages":[]}`, "messages: required"},
				{`{"from":"` + from + `","valid_until":1,"messages":[{"address":"` + from + `","amount":"1"}]}`, "valid_until: expired"},
				{`{"from":"0:18aa8e2eed51747dae033c079b93883d941cad8f65459f2ee9cd7474b6b8ed5d","messages":[{"address":"` + from + `","amount":"1"}]}`, "from: the account's code is not a wallet"},
				{`{"from":5,"messages":[]}`, "from: must be a string"},
			} {
				for _, path := range []string{"/api/v3/emulate", "/api/emulate/v1/emulateTonConnect"} {
					checkV3Error(t, doRequest(h, http.MethodPost, path, c.body), 422, c.says)
				}
			}
		})
	}
}

// checkEmulateShape checks an answer of toncenter's emulation routes
// against the fields of its EmulateTraceResponse (facts of the shape):
// every field present, none other, and every transaction marked emulated.
func checkEmulateShape(t *testing.T, b []byte, txs int, asked ...string) {
	t.Helper()
	var out map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &out))
	keys := []string{"is_incomplete", "mc_block_seqno", "rand_seed", "trace", "transactions"}
	keys = append(keys, asked...)
	got := make([]string, 0, len(out))
	for k := range out {
		got = append(got, k)
	}
	slices.Sort(keys)
	slices.Sort(got)
	require.Equal(t, keys, got)
	var trs map[string]struct {
		Emulated bool   `json:"emulated"`
		Hash     string `json:"hash"`
	}
	require.NoError(t, json.Unmarshal(out["transactions"], &trs))
	require.Len(t, trs, txs)
	for h, tx := range trs {
		require.True(t, tx.Emulated)
		require.Equal(t, h, tx.Hash)
	}
	var root struct {
		TxHash   string            `json:"tx_hash"`
		Children []json.RawMessage `json:"children"`
	}
	require.NoError(t, json.Unmarshal(out["trace"], &root))
	require.Contains(t, trs, root.TxHash)
}

// TestEmulateTraceV1: toncenter's emulateTrace on every signed external
// message of the block: its shape, the chain's fee of the root
// transaction, and mc_block_seqno accepted only for the store's block.
func TestEmulateTraceV1(t *testing.T) {
	r := importFeeReplay(t, testenv.Databases(t)[0])
	h := r.headHandler()
	for _, m := range r.msgs {
		b, _ := json.Marshal(map[string]any{"boc": m.Message, "with_actions": true})
		rec := doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", string(b))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var out struct {
			McBlockSeqno uint32 `json:"mc_block_seqno"`
			Trace        struct {
				TxHash string `json:"tx_hash"`
			} `json:"trace"`
			Transactions map[string]struct {
				TotalFees string `json:"total_fees"`
			} `json:"transactions"`
			Actions []json.RawMessage `json:"actions"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		require.NotEmpty(t, out.Actions)
		require.NotZero(t, out.McBlockSeqno)
		root := out.Transactions[out.Trace.TxHash]
		c := m.Charged
		require.Equal(t, c.InFwdFee+c.StorageFee+c.GasFee+c.FwdFee > 0, root.TotalFees != "0")

		if m == r.msgs[0] {
			at, _ := json.Marshal(map[string]any{"boc": m.Message, "mc_block_seqno": out.McBlockSeqno})
			require.Equal(t, http.StatusOK, doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", string(at)).Code)
			past, _ := json.Marshal(map[string]any{"boc": m.Message, "mc_block_seqno": out.McBlockSeqno - 1})
			checkV3Error(t, doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", string(past)), 422, "mc_block_seqno: ")
			checkV3Error(t, doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", `{}`), 422, "boc: required")
			checkEmulateShape(t, rec.Body.Bytes(), len(out.Transactions), "actions")
		}
	}
}

// TestRiskNamesTheJetton: the block imported with the token registry on
// and its tokens made by the metadata worker (offline: what their
// contracts hold): the preview of every external message of the block
// names, in its risk, the master of each jetton wallet it sends from that
// the registry holds (the registry's, also where the trace does not show
// it: a swap's first hop), with the registry's symbol and decimals when
// the token is made (the block's tsTON burn: "tsTON", 9).
func TestRiskNamesTheJetton(t *testing.T) {
	db := testenv.Databases(t)[0]
	st := importedFile(t, db, testenv.Fixture(t, tokenfixture.ReplayBlock), true)
	real, err := tokenfixture.Contents(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	_, err = st.EnqueueTokenContent(context.Background(), real)
	require.NoError(t, err)
	f, err := metadata.NewFetcher(metadata.FetchOptions{AllowPrivate: true,
		LookupHost: func(_ context.Context, name string) ([]netip.Addr, error) {
			return nil, fmt.Errorf("offline test: %s", name)
		}})
	require.NoError(t, err)
	runWorkerUntilMade(t, st, f, real)
	raw, err := os.ReadFile(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	_, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)
	clock := fees.NewHeadClock(st.HeadTime, time.Second)
	est := fees.New(st, nil, fees.Options{Clock: clock.Now, ClockName: fees.ClockHead})
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st, Fees: est}})

	named := 0
	for _, m := range msgs {
		body, _ := json.Marshal(map[string]string{"boc": m.Message})
		rec := doRequest(h, http.MethodPost, "/api/v3/emulate", string(body))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var got struct {
			Risk struct {
				Jettons []struct {
					JettonWallet string  `json:"jetton_wallet"`
					JettonMaster *string `json:"jetton_master"`
					Symbol       *string `json:"symbol"`
					Decimals     *int    `json:"decimals"`
				} `json:"jettons"`
			} `json:"risk"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		for _, j := range got.Risk.Jettons {
			ws, err := st.JettonWallets(context.Background(), store.JettonWalletFilter{Addresses: []string{j.JettonWallet}, TokenPage: store.TokenPage{Limit: 1}})
			require.NoError(t, err)
			if len(ws) == 0 {
				continue // a wallet the registry does not hold
			}
			require.NotNil(t, j.JettonMaster, j.JettonWallet)
			require.Equal(t, ws[0].Jetton, *j.JettonMaster)
			md, err := st.TokenMetadata(context.Background(), []string{ws[0].Jetton})
			require.NoError(t, err)
			if tm, ok := md[ws[0].Jetton]; ok && tm.FetchedAt != nil && tm.Symbol != nil {
				require.NotNil(t, j.Symbol)
				require.Equal(t, *tm.Symbol, *j.Symbol)
				require.Equal(t, tm.Decimals, j.Decimals)
				named++
				t.Logf("%s sends %s (decimals %d)", m.Account.ToRaw()[:10], *j.Symbol, *j.Decimals)
			}
		}
	}
	require.Positive(t, named, "some swap of the block sends a jetton the registry names")
}
