package metadata

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/store"
)

// onEachStore runs fn with a migrated store on SQLite and, when the test
// environment has it, on Postgres.
func onEachStore(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			s, err := store.Open(context.Background(), db.URL)
			require.NoError(t, err)
			t.Cleanup(func() { s.Close() })
			_, err = s.Migrate(context.Background())
			require.NoError(t, err)
			fn(t, s)
		})
	}
}

// offchainContent is TEP-64 off-chain content linking uri, encoded by
// tongo.
func offchainContent(t *testing.T, uri string) []byte {
	t.Helper()
	b, err := tokenfixture.Offchain(uri)
	require.NoError(t, err)
	return b
}

func tokenAt(t *testing.T, i int, kind string, content []byte) chain.TokenContent {
	t.Helper()
	tc, err := NewTokenContent(fmt.Sprintf("0:%064X", i), kind, content)
	require.NoError(t, err)
	return tc
}

// startWorker runs a worker until stop is called or the test ends; stop
// waits for Run to return and gives its error.
func startWorker(t *testing.T, s Store, f *Fetcher, opt WorkerOptions) (w *Worker, stop func() error) {
	t.Helper()
	if opt.Poll == 0 {
		opt.Poll = 10 * time.Millisecond
	}
	w = NewWorker(s, f, opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return w, stop
}

// waitFor polls the store until cond holds for the token (the worker runs
// in the background; the test only waits for it, it asserts no time).
func waitFor(t *testing.T, s *store.Store, address string, cond func(chain.TokenMetadata) bool) chain.TokenMetadata {
	t.Helper()
	var last chain.TokenMetadata
	require.Eventually(t, func() bool {
		got, err := s.TokenMetadata(context.Background(), []string{address})
		require.NoError(t, err)
		last = got[address]
		return cond(last)
	}, 60*time.Second, 5*time.Millisecond, "token %s never got there; last %+v", address, &last)
	return last
}

func made(md chain.TokenMetadata) bool { return md.FetchedAt != nil }

// TestWorkerStoresEachOutcome is issue 30's list: off-chain metadata from
// a local server, success and each failure stored with its reason, on
// SQLite and Postgres. It runs with METADATA_ALLOW_PRIVATE off: only the
// test server's own listener is exempt (see TestFetchRefusesPrivateAddresses).
func TestWorkerStoresEachOutcome(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		ms := newMetadataServer(t)
		private := newMetadataServer(t)
		f, err := NewFetcher(FetchOptions{Timeout: 500 * time.Millisecond, MaxBytes: maxTestBytes,
			ExemptAddrs: []string{ms.Listener.Addr().String()}})
		require.NoError(t, err)
		cases := []struct{ path, reason string }{
			{"/ok.json", ""},
			{"/missing.json", ReasonNotFound},
			{"/slow.json", ReasonTimeout},
			{"/big.json", ReasonTooLarge},
			{"/loop", ReasonRedirectLoop},
			{"/to?u=" + private.URL + "/ok.json", ReasonPrivateAddress},
			{"/invalid.json", ReasonInvalidJSON},
			{"/latin1.json", ReasonNotUTF8},
		}
		var contents []chain.TokenContent
		for i, c := range cases {
			contents = append(contents, tokenAt(t, i+1, chain.TokenJettonMaster, offchainContent(t, ms.URL+c.path)))
		}
		_, err = s.EnqueueTokenContent(context.Background(), contents)
		require.NoError(t, err)
		before := time.Now()
		// No retry within the test: the backoff is long.
		startWorker(t, s, f, WorkerOptions{Backoff: backoff.Policy{Base: time.Hour, Max: time.Hour}})

		for i, c := range cases {
			md := waitFor(t, s, contents[i].Address, made)
			require.Equal(t, chain.MetadataOffchain, md.Source, c.path)
			require.Equal(t, ms.URL+c.path, *md.URI, c.path)
			if c.reason == "" {
				require.True(t, md.Valid, c.path)
				require.Empty(t, md.Reason)
				require.Equal(t, "Off Chain", *md.Name)
				require.Equal(t, "OFF", *md.Symbol)
				require.Equal(t, 6, *md.Decimals)
				require.Equal(t, "https://img/1.png", *md.Image)
				require.JSONEq(t, `{"social":["https://t.me/x"]}`, string(md.Extra))
				require.Zero(t, md.Attempts)
				require.True(t, md.NextAttemptAt.After(before.Add(DefaultRefresh/2)), "fetched again after Refresh")
				continue
			}
			require.False(t, md.Valid, c.path)
			require.Equal(t, c.reason, md.Reason, c.path)
			require.Equal(t, c.reason, md.LastError, c.path)
			require.Equal(t, 1, md.Attempts, c.path)
			require.Nil(t, md.Name, c.path)
			require.Nil(t, md.Decimals, "%s: the JSON that may state decimals is missing: no default", c.path)
			require.NotNil(t, md.NextAttemptAt, c.path)
			require.True(t, md.NextAttemptAt.After(before.Add(30*time.Minute)), "%s: retried after the backoff", c.path)
		}
		require.Zero(t, private.hits.Load())
	})
}

// TestWorkerRealContents runs the worker on every token content of the
// fee-replay block. Nothing here reaches the internet: the fetcher's
// resolver knows no names, so the off-chain parts fail with dns_error and
// what the chain itself holds is stored (tsTON's name, symbol and stated
// decimals), not valid, with the reason.
func TestWorkerRealContents(t *testing.T) {
	contents := fixtureContents(t)
	onEachStore(t, func(t *testing.T, s *store.Store) {
		f, err := NewFetcher(FetchOptions{LookupHost: func(context.Context, string) ([]netip.Addr, error) {
			return nil, fmt.Errorf("offline test")
		}})
		require.NoError(t, err)
		_, err = s.EnqueueTokenContent(context.Background(), contents)
		require.NoError(t, err)
		startWorker(t, s, f, WorkerOptions{})
		for _, c := range contents {
			md := waitFor(t, s, c.Address, made)
			require.False(t, md.Valid, c.Address)
			require.Equal(t, ReasonDNS, md.Reason, c.Address)
			require.Equal(t, c.ContentHash, md.ContentHash)
			parsed, err := Parse(c.Content)
			require.NoError(t, err)
			require.Equal(t, parsed.Layout, md.Source)
			require.Equal(t, parsed.URI, *md.URI)
			if c.Address == tsTONMaster {
				require.Equal(t, "tsTON", *md.Symbol)
				require.Equal(t, "Tonstakers TON", *md.Name)
				require.Equal(t, 9, *md.Decimals, "stated on chain")
			}
		}
	})
}

// TestWorkerMergesSemichain: on-chain attributes win over the off-chain
// JSON's, the JSON completes the rest (TEP-64's semi-chain rule).
func TestWorkerMergesSemichain(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		ms := newMetadataServer(t)
		f := testFetcher(t, ms, FetchOptions{})
		semi := toBoc(t, onchainCell(t, map[string]string{"uri": ms.URL + "/ok.json", "symbol": "CHAIN"}))
		onchain := toBoc(t, onchainCell(t, map[string]string{"name": "Only On Chain", "decimals": " 12 "}))
		bad := toBoc(t, onchainCell(t, map[string]string{"symbol": "BAD", "decimals": "256"}))
		nft := toBoc(t, onchainCell(t, map[string]string{"name": "Item #1\x00\x00", "decimals": "x", "attributes": "[]\x00"}))
		toks := []chain.TokenContent{
			tokenAt(t, 1, chain.TokenJettonMaster, semi),
			tokenAt(t, 2, chain.TokenJettonMaster, onchain),
			tokenAt(t, 3, chain.TokenJettonMaster, bad),
			tokenAt(t, 4, chain.TokenNftItem, nft),
		}
		_, err := s.EnqueueTokenContent(context.Background(), toks)
		require.NoError(t, err)
		startWorker(t, s, f, WorkerOptions{})

		md := waitFor(t, s, toks[0].Address, made)
		require.True(t, md.Valid)
		require.Equal(t, chain.MetadataSemichain, md.Source)
		require.Equal(t, "CHAIN", *md.Symbol, "on chain wins")
		require.Equal(t, "Off Chain", *md.Name, "off chain completes")
		require.Equal(t, 6, *md.Decimals)

		md = waitFor(t, s, toks[1].Address, made)
		require.True(t, md.Valid)
		require.Equal(t, chain.MetadataOnchain, md.Source)
		require.Equal(t, 12, *md.Decimals, "spaces around the number are ignored")
		require.Nil(t, md.URI)
		require.Nil(t, md.NextAttemptAt, "on-chain metadata changes only with its content")

		md = waitFor(t, s, toks[2].Address, made)
		require.False(t, md.Valid)
		require.Equal(t, ReasonInvalidDecimals, md.Reason)
		require.Nil(t, md.Decimals)
		require.Equal(t, "BAD", *md.Symbol)
		require.JSONEq(t, `{"decimals":"256"}`, string(md.Extra), "the stated value is kept to show")

		md = waitFor(t, s, toks[3].Address, made)
		require.True(t, md.Valid, "decimals mean nothing to an NFT")
		require.Nil(t, md.Decimals)
		require.Equal(t, "Item #1", *md.Name, "NUL padding is not kept in text (Postgres cannot hold it)")
		require.JSONEq(t, `{"decimals":"x","attributes":"[]\u0000"}`, string(md.Extra))
	})
}

func TestWorkerBadContent(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		f := testFetcher(t, newMetadataServer(t), FetchOptions{})
		c := boc.NewCell()
		require.NoError(t, c.WriteUint(0x07, 8)) // no such layout
		tok := tokenAt(t, 1, chain.TokenNftItem, toBoc(t, c))
		_, err := s.EnqueueTokenContent(context.Background(), []chain.TokenContent{tok})
		require.NoError(t, err)
		startWorker(t, s, f, WorkerOptions{})
		md := waitFor(t, s, tok.Address, made)
		require.False(t, md.Valid)
		require.Equal(t, ReasonBadContent, md.Reason)
		require.Nil(t, md.NextAttemptAt, "the content decides: no retry until it changes")
	})
}

// TestWorkerRequestNeverWaits: while the worker's fetch hangs on a slow
// server, reading the token's metadata answers at once with what the
// store holds (pending). The read happens while the server still holds
// the request; only then is the server let go.
func TestWorkerRequestNeverWaits(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		arrived := make(chan struct{}, 1)
		let := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived <- struct{}{}
			<-let
			fmt.Fprint(w, `{"name":"Slow"}`)
		}))
		defer srv.Close()
		f, err := NewFetcher(FetchOptions{AllowPrivate: true, Timeout: time.Minute})
		require.NoError(t, err)
		tok := tokenAt(t, 1, chain.TokenNftItem, offchainContent(t, srv.URL+"/slow.json"))
		_, err = s.EnqueueTokenContent(context.Background(), []chain.TokenContent{tok})
		require.NoError(t, err)
		startWorker(t, s, f, WorkerOptions{})
		<-arrived // the worker is inside the fetch

		got, err := s.TokenMetadata(context.Background(), []string{tok.Address})
		require.NoError(t, err)
		require.Equal(t, ReasonPending, got[tok.Address].Reason)
		require.Nil(t, got[tok.Address].FetchedAt)
		select {
		case <-let:
			t.Fatal("released before the read")
		default:
		}
		close(let)
		md := waitFor(t, s, tok.Address, made)
		require.True(t, md.Valid)
		require.Equal(t, "Slow", *md.Name)
	})
}

// TestWorkerRetriesThenRechecks: failures are retried with backoff; a
// success clears them; after MaxAttempts failures the token waits for
// the long re-check.
func TestWorkerRetriesThenRechecks(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := calls.Add(1)
			if r.URL.Path == "/flaky" && n > 2 {
				fmt.Fprint(w, `{"name":"Third time"}`)
				return
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		defer srv.Close()
		f, err := NewFetcher(FetchOptions{AllowPrivate: true})
		require.NoError(t, err)
		flaky := tokenAt(t, 1, chain.TokenNftItem, offchainContent(t, srv.URL+"/flaky"))
		_, err = s.EnqueueTokenContent(context.Background(), []chain.TokenContent{flaky})
		require.NoError(t, err)
		start := time.Now()
		_, stop := startWorker(t, s, f, WorkerOptions{MaxAttempts: 3, Recheck: time.Hour,
			Backoff: backoff.Policy{Base: time.Millisecond, Max: 2 * time.Millisecond}})
		md := waitFor(t, s, flaky.Address, func(md chain.TokenMetadata) bool { return md.Valid })
		require.Equal(t, "Third time", *md.Name)
		require.Zero(t, md.Attempts)
		require.Empty(t, md.LastError)
		require.EqualValues(t, 3, calls.Load())
		require.NoError(t, stop())

		calls.Store(-100) // fails from now on
		down := tokenAt(t, 2, chain.TokenNftItem, offchainContent(t, srv.URL+"/down"))
		_, err = s.EnqueueTokenContent(context.Background(), []chain.TokenContent{down})
		require.NoError(t, err)
		startWorker(t, s, f, WorkerOptions{MaxAttempts: 3, Recheck: time.Hour,
			Backoff: backoff.Policy{Base: time.Millisecond, Max: 2 * time.Millisecond}})
		md = waitFor(t, s, down.Address, func(md chain.TokenMetadata) bool { return md.Attempts == 3 })
		require.False(t, md.Valid)
		require.Equal(t, "http_status_503", md.Reason)
		require.True(t, md.NextAttemptAt.After(start.Add(30*time.Minute)), "after MaxAttempts, the long re-check")
	})
}

// TestWorkerRefreshKeepsWhatItHas: a refresh on demand fetches again; if
// that fails, the metadata fetched before stays valid and the failure is
// noted beside it.
func TestWorkerRefreshKeepsWhatItHas(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		var failing atomic.Bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			fmt.Fprint(w, `{"name":"Kept"}`)
		}))
		defer srv.Close()
		f, err := NewFetcher(FetchOptions{AllowPrivate: true})
		require.NoError(t, err)
		tok := tokenAt(t, 1, chain.TokenNftCollection, offchainContent(t, srv.URL+"/c.json"))
		_, err = s.EnqueueTokenContent(context.Background(), []chain.TokenContent{tok})
		require.NoError(t, err)
		w, _ := startWorker(t, s, f, WorkerOptions{Poll: time.Hour}) // only Wake and Refresh move it
		w.Wake()
		waitFor(t, s, tok.Address, func(md chain.TokenMetadata) bool { return md.Valid })

		failing.Store(true)
		n, err := w.Refresh(context.Background(), tok.Address, "0:"+fmt.Sprintf("%064X", 99))
		require.NoError(t, err)
		require.Equal(t, 1, n)
		md := waitFor(t, s, tok.Address, func(md chain.TokenMetadata) bool { return md.LastError != "" })
		require.True(t, md.Valid)
		require.Equal(t, "Kept", *md.Name)
		require.Equal(t, ReasonNotFound, md.LastError)
		require.Equal(t, 1, md.Attempts)
	})
}

// TestWorkerStopsAndHandsBack: stopping the worker mid-fetch stores
// nothing for that token and makes it due again at once (not after the
// lease).
func TestWorkerStopsAndHandsBack(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		arrived := make(chan struct{}, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived <- struct{}{}
			<-r.Context().Done()
		}))
		defer srv.Close()
		f, err := NewFetcher(FetchOptions{AllowPrivate: true, Timeout: time.Minute})
		require.NoError(t, err)
		tok := tokenAt(t, 1, chain.TokenNftItem, offchainContent(t, srv.URL+"/hang"))
		_, err = s.EnqueueTokenContent(context.Background(), []chain.TokenContent{tok})
		require.NoError(t, err)
		_, stop := startWorker(t, s, f, WorkerOptions{})
		<-arrived
		require.NoError(t, stop())

		got, err := s.TokenMetadata(context.Background(), []string{tok.Address})
		require.NoError(t, err)
		md := got[tok.Address]
		require.Nil(t, md.FetchedAt, "nothing stored for an interrupted fetch")
		require.Equal(t, ReasonPending, md.Reason)
		jobs, err := s.ClaimTokenJobs(context.Background(), time.Now(), time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, jobs, 1, "handed back: due now, not after the lease")
	})
}

// TestWorkerPerHostAndTotalBounds: fetches to one host never exceed
// PerHost at once, and all fetches never exceed Workers, while another
// host's tokens are fetched beside the busy one.
func TestWorkerPerHostAndTotalBounds(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *store.Store) {
		var mu sync.Mutex
		now, peak, total, totalPeak := map[string]int{}, map[string]int{}, 0, 0
		handler := func(name string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				now[name]++
				total++
				peak[name] = max(peak[name], now[name])
				totalPeak = max(totalPeak, total)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond) // hold the slot so that fetches overlap
				mu.Lock()
				now[name]--
				total--
				mu.Unlock()
				fmt.Fprint(w, `{"name":"x"}`)
			})
		}
		a := httptest.NewServer(handler("a"))
		defer a.Close()
		b := httptest.NewServer(handler("b"))
		defer b.Close()
		f, err := NewFetcher(FetchOptions{AllowPrivate: true})
		require.NoError(t, err)
		var toks []chain.TokenContent
		for i := range 24 {
			host := a.URL
			if i%4 == 0 {
				host = b.URL
			}
			toks = append(toks, tokenAt(t, i+1, chain.TokenNftItem, offchainContent(t, fmt.Sprintf("%s/%d.json", host, i))))
		}
		_, err = s.EnqueueTokenContent(context.Background(), toks)
		require.NoError(t, err)
		startWorker(t, s, f, WorkerOptions{Workers: 3, PerHost: 2})
		for _, tok := range toks {
			waitFor(t, s, tok.Address, func(md chain.TokenMetadata) bool { return md.Valid })
		}
		mu.Lock()
		defer mu.Unlock()
		require.LessOrEqual(t, peak["a"], 2)
		require.LessOrEqual(t, peak["b"], 2)
		require.LessOrEqual(t, totalPeak, 3)
		t.Logf("peaks: a %d, b %d, all %d", peak["a"], peak["b"], totalPeak)
	})
}
