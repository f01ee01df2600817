package server_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// streamFilter is one subscription of the test, as a query string (SSE,
// /api/v3/actions) and, for some, as GraphQL variables.
type streamFilter struct {
	name    string
	query   url.Values
	graphql bool
}

// learnFilters decodes the fixtures in memory (as the import will) and
// picks, for every filter of /api/v3/actions, a value that finds something.
func learnFilters(t *testing.T, files []string) []streamFilter {
	t.Helper()
	im := ingest.New(nil) // Batch never touches the store
	var acts []chain.Action
	msgOf := map[string]string{} // tx hash -> the hash of its in-message
	for _, f := range files {
		p, err := ingest.ParseFile(f)
		require.NoError(t, err, f)
		b, _, err := im.Batch(context.Background(), p)
		require.NoError(t, err, f)
		acts = append(acts, b.Actions...)
		for _, tx := range b.Transactions {
			if tx.InMsg != nil {
				msgOf[tx.Hash.Base64()] = tx.InMsg.Hash.Base64()
			}
		}
	}
	// The filters are learned from what a client without
	// supported_action_types sees: top-level actions (nested steps hidden).
	acts = slices.DeleteFunc(acts, func(a chain.Action) bool { return a.ParentActionID != "" })
	count := func(key func(a *chain.Action) []string) string {
		n := map[string]int{}
		best := ""
		for i := range acts {
			for _, k := range key(&acts[i]) {
				n[k]++
				if n[k] > n[best] || n[k] == n[best] && k < best {
					best = k
				}
			}
		}
		require.NotEmpty(t, best)
		return best
	}
	account := count(func(a *chain.Action) []string { return a.Accounts })
	account2 := count(func(a *chain.Action) []string {
		if a.Type == "JettonTransfer" {
			return a.Accounts
		}
		return nil
	})
	traceID := count(func(a *chain.Action) []string { return []string{a.TraceID} })
	mc := count(func(a *chain.Action) []string {
		if a.McSeqno != nil {
			return []string{strconv.FormatUint(uint64(*a.McSeqno), 10)}
		}
		return nil
	})
	first := func(typ string) string {
		for _, a := range acts {
			if a.Type == typ {
				return a.ActionID
			}
		}
		t.Fatalf("no %s in the fixtures", typ)
		return ""
	}
	a := acts[len(acts)/3]
	txHash, txLt := a.Transactions[len(a.Transactions)-1], a.TxLts[len(a.TxLts)-1]
	var msgHash string
	for _, b := range acts[len(acts)/2:] {
		if m := msgOf[b.TxHash]; m != "" {
			msgHash = m
			break
		}
	}
	require.NotEmpty(t, msgHash)
	var startLt, endLt uint64 = math.MaxUint64, 0
	var startUtime, endUtime uint32 = math.MaxUint32, 0
	for _, a := range acts {
		if a.EndLt < 50_000_000_000_000 {
			startLt, endLt = min(startLt, a.StartLt), max(endLt, a.EndLt)
		}
		if a.StartUtime > 1_750_000_000 {
			startUtime, endUtime = min(startUtime, a.StartUtime), max(endUtime, a.EndUtime)
		}
	}
	h, err := chain.ParseHash(traceID)
	require.NoError(t, err)
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	return []streamFilter{
		{name: "all", query: url.Values{}, graphql: true},
		{name: "types", query: url.Values{"action_type": {"JettonTransfer,ton_transfer"}}, graphql: true},
		{name: "exclude+accounts", query: url.Values{"exclude_action_type": {"TonTransfer"}, "include_accounts": {"true"}}, graphql: true},
		{name: "account", query: url.Values{"account": {account}}, graphql: true},
		{name: "account+type", query: url.Values{"account": {account2}, "action_type": {"JettonTransfer"}}},
		{name: "utime", query: url.Values{"start_utime": {u(uint64(startUtime))}, "end_utime": {u(uint64(endUtime))}}},
		{name: "lt", query: url.Values{"start_lt": {u(startLt)}, "end_lt": {u(endLt)}}},
		{name: "ids", query: url.Values{"action_id": {first("JettonSwap"), first("NftItemTransfer")}}},
		{name: "trace-hex", query: url.Values{"trace_id": {strings.ToUpper(hex.EncodeToString(h[:]))}}},
		{name: "tx", query: url.Values{"tx_hash": {txHash}}},
		{name: "tx_lt", query: url.Values{"tx_lt": {u(txLt)}}, graphql: true},
		{name: "msg", query: url.Values{"msg_hash": {msgHash}}, graphql: true},
		{name: "mc", query: url.Values{"mc_seqno": {mc}}},
	}
}

// graphQLFilter is the query string as an ActionFilter input.
func graphQLFilter(q url.Values) map[string]any {
	f := map[string]any{}
	for k, vs := range q {
		switch k {
		case "account":
			f[k] = vs[0]
		case "include_accounts":
			f[k] = vs[0] == "true"
		case "tx_lt", "start_lt", "end_lt", "start_utime", "end_utime", "mc_seqno":
			n, _ := strconv.ParseUint(vs[0], 10, 64)
			f[k] = n
		default:
			f[k] = vs
		}
	}
	return f
}

func importFiles(t testing.TB, st *store.Store, files []string) {
	t.Helper()
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), files, func(path string, _ ingest.Stats, err error) {
		require.NoError(t, err, path)
	}))
}

// received is what one subscription got.
type received struct {
	cursors []string
	actions []map[string]any
	books   []map[string]map[string]any
}

// TestStreamsDeliverImportedActions subscribes with every filter, by SSE
// and (some) by GraphQL over a websocket, imports every mainnet fixture,
// and checks that each subscription got exactly the actions that
// /api/v3/actions then returns for its filter, each once, each equal to
// REST's, with the address book entries REST gives, in commit order.
func TestStreamsDeliverImportedActions(t *testing.T) {
	files := allFixtureFiles(t)
	filters := learnFilters(t, files)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			res := &resolvers.Resolver{Store: st}
			hub := startHub(t, st, res, notify.Options{Queue: 100_000, MaxStreamsPerAddress: 1000})
			srv := streamServer(t, server.Options{Resolver: res})
			sse := make([]*sseStream, len(filters))
			start := make([]string, len(filters))
			for i, f := range filters {
				s, refused := openSSE(t, srv.URL, "/api/v3/actions/stream?"+f.query.Encode(), "")
				require.Nil(t, refused, f.name)
				sse[i] = s
			}
			for i, s := range sse { // the position each stream started at
				require.Eventually(t, func() bool { start[i] = s.LastID(); return start[i] != "" }, loadedWait, time.Millisecond)
			}
			ws := dialGraphQL(t, srv.URL, "")
			gql := map[int]<-chan gqlMessage{}
			for i, f := range filters {
				if f.graphql {
					gql[i] = ws.subscribe(t, strconv.Itoa(i), subscribeActions, map[string]any{"f": graphQLFilter(f.query)})
				}
			}
			require.Eventually(t, func() bool { return hub.Stats().Streams == len(sse)+len(gql) }, loadedWait, 5*time.Millisecond)

			importFiles(t, st, files)

			order := seqOrder(t, st)
			total := 0
			for i, f := range filters {
				want, _, book := restActions(t, srv.URL, f.query.Encode())
				require.NotEmpty(t, want, "filter %s finds nothing: the test would prove nothing", f.name)
				total += len(want)
				got := collectSSE(t, sse[i], len(want))
				checkStream(t, "sse "+f.name, got, want, book, order, false)
				if ch, ok := gql[i]; ok {
					checkStream(t, "graphql "+f.name, collectGraphQL(t, ch, len(want)), want, book, order, false)
				}
				// The same stream replayed from its start, now that the store
				// knows all: entries equal REST's.
				// (Last-Event-ID wins over ?after=, as a browser's reconnect needs.)
				again, refused := openSSE(t, srv.URL, "/api/v3/actions/stream?after=c2VxOjk5OTk5OTk&"+f.query.Encode(), start[i])
				require.Nil(t, refused)
				checkStream(t, "sse replay "+f.name, collectSSE(t, again, len(want)), want, book, order, true)
				again.Close()
			}
			t.Logf("%d subscriptions (%d by GraphQL) got %d matching actions in total, each once and as REST shows it",
				len(sse)+len(gql), len(gql), total)
		})
	}
}

// seqOrder is every stored action id in stream (seq) order.
func seqOrder(t testing.TB, st *store.Store) map[string]int {
	t.Helper()
	var ids []string
	require.NoError(t, st.DB().NewRaw("SELECT action_id FROM actions ORDER BY seq").Scan(context.Background(), &ids))
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	return pos
}

func collectSSE(t testing.TB, s *sseStream, n int) received {
	t.Helper()
	var r received
	for len(r.actions) < n {
		ev, ok := s.next(t, loadedWait)
		require.True(t, ok, "stream closed after %d of %d events", len(r.actions), n)
		require.Empty(t, ev.Event, "unexpected %s event: %s", ev.Event, ev.Data)
		p := parseStreamed(t, ev.Data)
		r.cursors = append(r.cursors, ev.ID)
		r.actions = append(r.actions, p.Actions[0])
		r.books = append(r.books, p.AddressBook)
	}
	return r
}

func collectGraphQL(t testing.TB, ch <-chan gqlMessage, n int) received {
	t.Helper()
	var r received
	for len(r.actions) < n {
		select {
		case m, ok := <-ch:
			require.True(t, ok, "socket closed after %d of %d events", len(r.actions), n)
			require.Equal(t, "next", m.Type, string(m.Payload))
			var ev gqlEvent
			require.NoError(t, json.Unmarshal(m.Payload, &ev))
			require.Empty(t, ev.Errors, string(m.Payload))
			a := ev.Data.Actions
			if a.Action["accounts"] == nil {
				delete(a.Action, "accounts") // REST leaves it out unless asked for
			}
			r.cursors = append(r.cursors, a.Cursor)
			r.actions = append(r.actions, a.Action)
			r.books = append(r.books, a.AddressBook)
		case <-time.After(loadedWait):
			t.Fatalf("no event within %s after %d of %d", loadedWait, len(r.actions), n)
		}
	}
	return r
}

// checkStream compares what a subscription got with what REST returns.
//
// A live event's address book is what the store knew when the event was
// sent; a later file may teach more about an address (an interface, a
// domain), so its entries equal REST's now only for replayed events
// (exact), and otherwise must name exactly the action's addresses.
func checkStream(t testing.TB, name string, got received, want map[string]map[string]any, book map[string]map[string]any, order map[string]int, exact bool) {
	t.Helper()
	seen := map[string]bool{}
	var last uint64
	for i, a := range got.actions {
		id := a["action_id"].(string)
		require.False(t, seen[id], "%s: action %s delivered twice", name, id)
		seen[id] = true
		require.Contains(t, want, id, "%s: action %s does not match the filter", name, id)
		require.Equal(t, want[id], a, "%s: action %s differs from /api/v3/actions", name, id)
		seq := cursorSeq(t, got.cursors[i])
		require.Greater(t, seq, last, "%s: cursors must grow", name)
		last = seq
		if i > 0 {
			prev := got.actions[i-1]["action_id"].(string)
			require.Less(t, order[prev], order[id], "%s: out of commit order", name)
		}
		keys := make([]string, 0, len(got.books[i]))
		for addr, e := range got.books[i] {
			keys = append(keys, addr)
			back, err := chain.NormalizeAddress(e["user_friendly"].(string))
			require.NoError(t, err)
			require.Equal(t, addr, back, "%s: user_friendly of %s", name, addr)
			if exact {
				require.Equal(t, book[addr], e, "%s: address book entry %s", name, addr)
			}
		}
		slices.Sort(keys)
		require.Equal(t, bookKeys(a), keys, "%s: address book keys of action %s", name, id)
	}
	require.Len(t, seen, len(want), "%s: got %d of %d actions", name, len(seen), len(want))
}

// rawAddress is the form of addresses in values and accounts lists.
var rawAddress = regexp.MustCompile(`^-?[0-9]+:[0-9A-F]{64}$`)

// bookKeys are the addresses a book must name for an action: those in its
// value and its accounts when shown.
func bookKeys(a map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if rawAddress.MatchString(x) {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(a["value"])
	walk(a["accounts"])
	slices.Sort(out)
	return slices.Compact(out)
}

// TestStreamRequestErrors: bad input is a 422 in the v3 envelope naming
// the parameter, before any stream starts.
func TestStreamRequestErrors(t *testing.T) {
	db := testenv.Databases(t)[0]
	st := storetest.Open(t, db.URL)
	res := &resolvers.Resolver{Store: st}
	startHub(t, st, res, notify.Options{})
	srv := streamServer(t, server.Options{Resolver: res})
	for q, field := range map[string]string{
		"action_type=Nope":          "action_type",
		"account=xyz":               "account",
		"limit=5":                   "limit",
		"sort=asc":                  "sort",
		"after=bm90LWEtY3Vy":        "after",
		"start_utime=9&end_utime=1": "start_utime",
		"include_transactions=true": "include_transactions",
		"supported_action_types=v9": "supported_action_types",
	} {
		resp, err := http.Get(srv.URL + "/api/v3/actions/stream?" + q)
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, q)
		require.EqualValues(t, 422, body["code"], q)
		require.Contains(t, body["error"], field, q)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v3/actions/stream", nil)
	req.Header.Set("Last-Event-ID", "garbage")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	req, _ = http.NewRequest(http.MethodPut, srv.URL+"/api/v3/actions/stream", nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// TestStreamHeartbeat: an idle stream sends comments, and its id moves past
// commits with nothing for it, so a resume does not read them again.
func TestStreamHeartbeat(t *testing.T) {
	db := testenv.Databases(t)[0]
	st := storetest.Open(t, db.URL)
	res := &resolvers.Resolver{Store: st}
	startHub(t, st, res, notify.Options{})
	srv := streamServer(t, server.Options{Resolver: res, StreamHeartbeat: 50 * time.Millisecond})
	resp, err := http.Get(srv.URL + "/api/v3/actions/stream?action_id=no-such-action")
	require.NoError(t, err)
	defer resp.Body.Close()
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	importFiles(t, st, files)
	last, err := st.LastActionSeq(context.Background())
	require.NoError(t, err)
	sc := bufio.NewScanner(resp.Body)
	beats := 0
	for sc.Scan() {
		line := sc.Text()
		if line == ": heartbeat" {
			beats++
		}
		if id, ok := strings.CutPrefix(line, "id: "); ok && cursorSeq(t, id) >= last && beats > 0 {
			return
		}
		require.NotContains(t, line, "data:", "nothing matches the filter")
	}
	t.Fatalf("stream ended: %v", sc.Err())
}

// A subscription over HTTP POST is refused at once (it would hold the
// request until its first event, then drop the rest).
func TestSubscriptionNeedsWebsocket(t *testing.T) {
	db := testenv.Databases(t)[0]
	st := storetest.Open(t, db.URL)
	res := &resolvers.Resolver{Store: st}
	hub := startHub(t, st, res, notify.Options{})
	srv := streamServer(t, server.Options{Resolver: res})
	resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(`{"query":"subscription { actions { cursor } }"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	var body gqlEvent
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Len(t, body.Errors, 1)
	require.Equal(t, "BAD_REQUEST", body.Errors[0].Extensions["code"])
	require.Contains(t, body.Errors[0].Message, "websocket")
	require.Equal(t, 0, hub.Stats().Streams)
}
