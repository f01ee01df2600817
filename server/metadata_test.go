package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// offchainToken is an NFT item whose content links uri.
func offchainToken(t *testing.T, i int, uri string) chain.TokenContent {
	t.Helper()
	b, err := tokenfixture.Offchain(uri)
	require.NoError(t, err)
	tc, err := metadata.NewTokenContent(fmt.Sprintf("0:%064X", i), chain.TokenNftItem, b)
	require.NoError(t, err)
	return tc
}

// runWorkerUntilMade runs a metadata worker until every token is made.
func runWorkerUntilMade(t *testing.T, st *store.Store, f *metadata.Fetcher, tokens []chain.TokenContent) {
	t.Helper()
	var addrs []string
	for _, tc := range tokens {
		addrs = append(addrs, tc.Address)
	}
	runWorkerUntil(t, st, f, addrs, func(got map[string]chain.TokenMetadata) bool {
		for _, a := range addrs {
			if got[a].FetchedAt == nil {
				return false
			}
		}
		return true
	})
}

// runWorkerUntil runs the metadata worker on st until the stored metadata
// of addrs satisfies done.
func runWorkerUntil(t *testing.T, st *store.Store, f *metadata.Fetcher, addrs []string, done func(map[string]chain.TokenMetadata) bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	w := metadata.NewWorker(st, f, metadata.WorkerOptions{Poll: 10 * time.Millisecond})
	go func() { stopped <- w.Run(ctx) }()
	defer func() { cancel(); <-stopped }()
	require.Eventually(t, func() bool {
		got, err := st.TokenMetadata(context.Background(), addrs)
		require.NoError(t, err)
		return done(got)
	}, time.Minute, 5*time.Millisecond)
}

func getMetadata(t *testing.T, h http.Handler, query string) (int, map[string]any) {
	t.Helper()
	rec := doRequest(h, http.MethodGet, "/api/v3/metadata?"+query, "")
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec.Code, body
}

// TestMetadataRoute: /api/v3/metadata in toncenter's shape over what the
// worker stored, on SQLite and Postgres: the fee-replay block's real
// tokens (offline here: their off-chain JSON cannot be fetched, so they
// show what their contract holds, not valid, with the reason), a token
// whose JSON a local server gives, one not made yet, and an address that
// is no token.
func TestMetadataRoute(t *testing.T) {
	real, err := tokenfixture.Contents(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			f, port := localMetadataHost(t, `{"name":"Local","description":"served here","image":"https://img/l.png","attributes":[{"trait_type":"a","value":"b"}]}`)
			var err error
			local := offchainToken(t, 1, "http://meta.test:"+port+"/item.json")
			tokens := append([]chain.TokenContent{local}, real...)
			_, err = st.EnqueueTokenContent(context.Background(), tokens)
			require.NoError(t, err)
			runWorkerUntilMade(t, st, f, tokens)
			pending := offchainToken(t, 2, "http://meta.test:"+port+"/later.json")
			_, err = st.EnqueueTokenContent(context.Background(), []chain.TokenContent{pending})
			require.NoError(t, err)

			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			q := url.Values{}
			for _, tc := range real {
				id := ton.MustParseAccountID(tc.Address)
				q.Add("address", id.ToHuman(true, false)) // any form: the answer is keyed by the raw one
			}
			q.Add("address", local.Address)
			q.Add("address", strings.ToLower(pending.Address))
			q.Add("address", "0:"+strings.Repeat("AB", 32)) // no token
			code, body := getMetadata(t, h, q.Encode())
			require.Equal(t, http.StatusOK, code, body)
			raw, _ := json.Marshal(body)
			t.Logf("answer: %s", raw)
			require.Len(t, body, len(real)+2, "tokens only")

			for _, tc := range real {
				c, err := metadata.Parse(tc.Content)
				require.NoError(t, err)
				want := map[string]any{"valid": false, "type": map[string]string{
					chain.TokenJettonMaster: "jetton_masters", chain.TokenNftCollection: "nft_collections"}[tc.Kind]}
				extra := map[string]any{"uri": c.URI, "_reason": metadata.ReasonDNS}
				for k, v := range c.Attrs { // what the contract holds, as the parser reads it
					if k == "decimals" {
						extra[k] = v
						continue
					}
					want[k] = v
				}
				want["extra"] = extra
				require.Equal(t, map[string]any{"is_indexed": true, "token_info": []any{jsonOf(t, want)}}, body[tc.Address], tc.Address)
			}
			require.Equal(t, jsonOf(t, map[string]any{"is_indexed": true, "token_info": []any{map[string]any{
				"valid": true, "type": "nft_items", "name": "Local", "description": "served here", "image": "https://img/l.png",
				"extra": map[string]any{"uri": "http://meta.test:" + port + "/item.json",
					"attributes": []any{map[string]any{"trait_type": "a", "value": "b"}}},
			}}}), body[local.Address])
			require.Equal(t, jsonOf(t, map[string]any{"is_indexed": false, "token_info": []any{map[string]any{"type": "nft_items"}}}),
				body[pending.Address])
		})
	}
}

func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func TestMetadataRouteErrors(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
	many := url.Values{}
	for i := range resolvers.MaxMetadataAddresses + 1 {
		many.Add("address", fmt.Sprintf("0:%064X", i))
	}
	for query, want := range map[string]string{
		"":                       "address: at least 1 address required",
		"address=":               "address: at least 1 address required",
		"address=EQnotanaddress": "address: ",
		"address=0:12":           "address: ",
		"address=" + fmt.Sprintf("0:%064X", 1) + "&limit=5": "limit: is not a parameter of this route",
		many.Encode(): "address: 1025 addresses given; at most 1024",
	} {
		code, body := getMetadata(t, h, query)
		require.Equal(t, http.StatusUnprocessableEntity, code, query)
		require.Contains(t, body["error"], want, query)
		require.EqualValues(t, 422, body["code"])
	}
	rec := doRequest(h, http.MethodPost, "/api/v3/metadata?address=0:"+strings.Repeat("0", 64), "")
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)

	// Comma-separated values are addresses too; one given twice is once.
	a := fmt.Sprintf("0:%064X", 7)
	code, body := getMetadata(t, h, "address="+a+","+a+"&address="+a)
	require.Equal(t, http.StatusOK, code)
	require.Empty(t, body)
}

// TestMetadataRouteNeverWaits: while the worker's fetch of a token hangs
// on a slow host, /api/v3/metadata answers at once with what the store
// holds (the token, not made yet); the host is let go only after the
// answer.
func TestMetadataRouteNeverWaits(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			arrived, let := make(chan struct{}, 1), make(chan struct{})
			slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				<-let
				fmt.Fprint(w, `{"name":"Slow"}`)
			}))
			defer slow.Close()
			f, err := metadata.NewFetcher(metadata.FetchOptions{AllowPrivate: true, Timeout: time.Minute})
			require.NoError(t, err)
			tok := offchainToken(t, 1, slow.URL+"/slow.json")
			_, err = st.EnqueueTokenContent(context.Background(), []chain.TokenContent{tok})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- metadata.NewWorker(st, f, metadata.WorkerOptions{Poll: 10 * time.Millisecond}).Run(ctx)
			}()
			defer func() { cancel(); <-done }()
			<-arrived

			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			code, body := getMetadata(t, h, "address="+tok.Address)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, jsonOf(t, map[string]any{"is_indexed": false, "token_info": []any{map[string]any{"type": "nft_items"}}}),
				body[tok.Address])
			close(let)
			require.Eventually(t, func() bool {
				_, body := getMetadata(t, h, "address="+tok.Address)
				return body[tok.Address].(map[string]any)["is_indexed"] == true
			}, time.Minute, 5*time.Millisecond)
		})
	}
}

// localMetadataHost serves body as every off-chain metadata file, on
// loopback for the test's life, and returns a fetcher that resolves
// meta.test to it (and nothing else: the test is offline) with the port
// to name in content URIs.
func localMetadataHost(t *testing.T, body string) (*metadata.Fetcher, string) {
	t.Helper()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	t.Cleanup(host.Close)
	f, err := metadata.NewFetcher(metadata.FetchOptions{AllowPrivate: true,
		LookupHost: func(_ context.Context, name string) ([]netip.Addr, error) {
			if name == "meta.test" {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, fmt.Errorf("offline test: %s", name)
		}})
	require.NoError(t, err)
	return f, host.URL[strings.LastIndexByte(host.URL, ':')+1:]
}
