package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/webhooks"
)

func blockFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NotEmpty(t, files)
	sort.Strings(files)
	return files
}

func importFiles(t testing.TB, st *store.Store, files []string) {
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), files, func(p string, _ ingest.Stats, err error) {
		require.NoError(t, err, p)
	}))
}

func startHub(t testing.TB, st *store.Store) *notify.Hub {
	h, err := notify.Start(context.Background(), notify.Options{Store: st, Book: (&resolvers.Resolver{Store: st}).AddressBookAndMetadata,
		Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return h
}

// fastOptions are delivery settings short enough for tests; the receiver's
// listener is the one loopback address exempt from the public-address
// check (every other private address stays refused).
func fastOptions(st *store.Store, hub *notify.Hub, exempt ...string) webhooks.Options {
	return webhooks.Options{Store: st, Hub: hub, ExemptAddrs: exempt, Timeout: 200 * time.Millisecond,
		Backoff: backoff.Policy{Base: 10 * time.Millisecond, Max: 100 * time.Millisecond}, Poll: 50 * time.Millisecond,
		Lease: 2 * time.Second, MaxHooksPerKey: 1000}
}

// newRig is what most tests start with: a store copied from the migrated
// template, a hub over it, a receiver, and a service delivering to it
// with fastOptions.
func newRig(t testing.TB, dbURL string) (*store.Store, *notify.Hub, *receiver, *webhooks.Service) {
	st := storetest.Open(t, dbURL)
	hub := startHub(t, st)
	rc := newReceiver(t)
	return st, hub, rc, startService(t, fastOptions(st, hub, rc.addr))
}

func startService(t testing.TB, o webhooks.Options) *webhooks.Service {
	s := webhooks.New(o)
	s.Start(context.Background())
	t.Cleanup(s.Close)
	return s
}

var scratch struct {
	once sync.Once
	accs []string
	mid  []string
	err  error
}

// busiestOfAll is busiest of a store holding every fixture block: read
// once per test binary from a scratch SQLite import, so a test can watch
// them before it imports anything itself.
func busiestOfAll(t testing.TB, n int) []string {
	scratch.once.Do(func() {
		dir, err := os.MkdirTemp("", "webhooks-scratch")
		if err != nil {
			scratch.err = err
			return
		}
		defer os.RemoveAll(dir)
		ctx := context.Background()
		st, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "scratch.db"))
		if err != nil {
			scratch.err = err
			return
		}
		defer st.Close()
		if _, scratch.err = st.Migrate(ctx); scratch.err != nil {
			return
		}
		importFiles(t, st, blockFiles(t))
		scratch.accs = busiest(t, st, 100)
		// Accounts of a few dozen actions each, about 150 in all: enough
		// to see order, few enough to fail most of them several times.
		var rows []struct {
			Account string `bun:"account"`
			N       int    `bun:"n"`
		}
		scratch.err = st.DB().NewRaw(`SELECT aa.account, COUNT(*) AS n FROM action_accounts AS aa JOIN actions AS a ON a.action_id = aa.action_id
			WHERE a.ancestors = '' GROUP BY aa.account HAVING COUNT(*) BETWEEN 3 AND 40 ORDER BY COUNT(*) DESC, aa.account`).Scan(ctx, &rows)
		total := 0
		for _, r := range rows {
			if total >= 150 {
				break
			}
			scratch.mid, total = append(scratch.mid, r.Account), total+r.N
		}
	})
	require.NoError(t, scratch.err)
	return scratch.accs[:n]
}

// someOfAll are accounts with about 150 top-level actions between them
// over every fixture block.
func someOfAll(t testing.TB) []string {
	busiestOfAll(t, 1)
	require.NotEmpty(t, scratch.mid)
	return scratch.mid
}

// busiest returns the n accounts with the most top-level actions stored.
func busiest(t testing.TB, st *store.Store, n int) []string {
	var accs []string
	require.NoError(t, st.DB().NewRaw(`SELECT aa.account FROM action_accounts AS aa JOIN actions AS a ON a.action_id = aa.action_id
		WHERE a.ancestors = '' GROUP BY aa.account ORDER BY COUNT(*) DESC, aa.account LIMIT ?`, n).Scan(context.Background(), &accs))
	require.Len(t, accs, n)
	return accs
}

// expectedSeqs is what the store says a hook on addrs made after seq
// start must get: the top-level actions with a watched participant, in
// seq order (the SQL reading of what the dispatcher matches in memory).
func expectedSeqs(t testing.TB, st *store.Store, addrs []string, start uint64) []uint64 {
	var seqs []uint64
	q := `SELECT a.seq FROM actions AS a WHERE a.ancestors = '' AND a.seq > ? AND a.action_id IN
		(SELECT aa.action_id FROM action_accounts AS aa WHERE aa.account IN (?)) ORDER BY a.seq`
	require.NoError(t, st.DB().NewRaw(q, int64(start), bun.In(addrs)).Scan(context.Background(), &seqs))
	return seqs
}

// receiver is a real HTTP receiver on loopback. It checks every
// delivery's signature and records them; behave decides each answer.
type receiver struct {
	t      testing.TB
	secret map[string]string // hook id -> secret
	addr   string
	srv    *http.Server

	mu       sync.Mutex
	behave   func(n int, w http.ResponseWriter, r *http.Request) bool // false: answered (a failure)
	requests int
	got      map[string][]delivered // hook id -> deliveries taken (2xx), in arrival order
	bad      []string
}

type delivered struct {
	EventID string
	Seq     uint64
	At      time.Time       // arrival
	Data    json.RawMessage // the event's data
}

func newReceiver(t testing.TB) *receiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rc := &receiver{t: t, secret: map[string]string{}, addr: ln.Addr().String(), got: map[string][]delivered{}}
	rc.serve(ln)
	t.Cleanup(rc.stop)
	return rc
}

func (rc *receiver) url(path string) string { return "http://" + rc.addr + path }

// create makes a hook of key1 delivering to path of rc, and tells rc its
// secret so its deliveries' signatures are checked.
func (rc *receiver) create(svc *webhooks.Service, path string, addresses []string, types ...string) *webhooks.Created {
	rc.t.Helper()
	made, err := svc.Create(context.Background(), "key1", webhooks.Input{URL: rc.url(path), Addresses: addresses, EventTypes: types})
	require.NoError(rc.t, err)
	rc.mu.Lock()
	rc.secret[made.Webhook.ID] = made.Secret
	rc.mu.Unlock()
	return made
}

// failEveryThird makes rc answer 500 to every third request, so each
// hook's deliveries are retried.
func (rc *receiver) failEveryThird() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.behave = func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n%3 == 1 {
			http.Error(w, "receiver broken", http.StatusInternalServerError)
			return false
		}
		return true
	}
}

func (rc *receiver) serve(ln net.Listener) {
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.handle)}
	go func() { _ = rc.srv.Serve(ln) }()
}

func (rc *receiver) stop() { _ = rc.srv.Close() }

// downWhile closes the listener while f runs, then listens on the same
// address again.
func (rc *receiver) downWhile(f func()) {
	rc.stop()
	f()
	var ln net.Listener
	require.Eventually(rc.t, func() bool {
		var err error
		ln, err = net.Listen("tcp", rc.addr)
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	rc.serve(ln)
}

func (rc *receiver) handle(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	hook := r.Header.Get(webhooks.HeaderHookID)
	rc.mu.Lock()
	rc.requests++
	n, behave, secret := rc.requests, rc.behave, rc.secret[hook]
	rc.mu.Unlock()
	if behave != nil && !behave(n, w, r) {
		return
	}
	var ev struct {
		EventID string          `json:"event_id"`
		HookID  string          `json:"hook_id"`
		Type    string          `json:"type"`
		Seq     uint64          `json:"seq"`
		Data    json.RawMessage `json:"data"`
	}
	err := webhooks.Verify(secret, r.Header.Get(webhooks.HeaderTimestamp), r.Header.Get(webhooks.HeaderSignature), body, time.Now(), 5*time.Minute)
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil || ev.EventID != r.Header.Get(webhooks.HeaderEventID) || ev.HookID != hook {
		rc.bad = append(rc.bad, hook+": "+strings.TrimSpace(r.Header.Get(webhooks.HeaderEventID)))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.got[hook] = append(rc.got[hook], delivered{EventID: ev.EventID, Seq: ev.Seq, At: at, Data: ev.Data})
	w.WriteHeader(http.StatusNoContent)
}

// unique is a hook's deliveries after dedup by event id, in order of
// first arrival, and how many repeats were dropped.
func (rc *receiver) unique(hook string) (seqs []uint64, repeats int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	seen := map[string]bool{}
	for _, d := range rc.got[hook] {
		if seen[d.EventID] {
			repeats++
			continue
		}
		seen[d.EventID] = true
		seqs = append(seqs, d.Seq)
	}
	return seqs, repeats
}

// deliveries are a hook's deliveries after dedup by event id, in order of
// first arrival.
func (rc *receiver) deliveries(hook string) []delivered {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	seen := map[string]bool{}
	var out []delivered
	for _, d := range rc.got[hook] {
		if !seen[d.EventID] {
			seen[d.EventID] = true
			out = append(out, d)
		}
	}
	return out
}

// awaitHook waits until rc has n distinct events of hook (failing after d
// with the hook's state) and returns them in order of first arrival, and
// how many repeats came.
func awaitHook(t testing.TB, d time.Duration, svc *webhooks.Service, rc *receiver, hook string, n int) ([]uint64, int) {
	t.Helper()
	waitFor(t, d, func() bool {
		got, _ := rc.unique(hook)
		return len(got) >= n
	}, func() string {
		got, _ := rc.unique(hook)
		return debugHook(context.Background(), svc, hook, len(got), n)
	})
	return rc.unique(hook)
}

// loadedWait bounds a wait for what a test caused (a hook disabled,
// events delivered): a deadline, not a delay, as waitFor returns when its
// condition holds. Generous: a shared 2-core machine at load 15 under
// -race is many times slower than a quiet one.
const loadedWait = 10 * time.Minute

// TestMain runs the tests with storetest's templates (each store a copy
// of one migrated once per run).
func TestMain(m *testing.M) {
	os.Exit(storetest.RunWithTemplates(m))
}

// waitFor waits until cond holds, or fails with what state says.
func waitFor(t testing.TB, d time.Duration, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not done after %s: %s", d, state())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func debugHook(ctx context.Context, svc *webhooks.Service, hook string, got, want int) string {
	h, err := svc.Get(ctx, "key1", hook)
	out := fmt.Sprintf("got %d of %d; hook %+v %v", got, want, h, err)
	log, _ := svc.Deliveries(ctx, "key1", hook, 10)
	for _, d := range log {
		e := ""
		if d.Error != nil {
			e = *d.Error
		}
		out += fmt.Sprintf("\n  %s attempt %d %s %s", d.EventID, d.Attempt, d.Outcome, e)
	}
	return out
}
