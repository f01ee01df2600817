package explorer_test

import (
	"context"
	"encoding/json"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/openapi"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// The explorer as a person uses it: Chromium opens the page, bare and
// under a key on a server that requires keys, clicks run on the default
// query and reads the newest action from the result pane; under the key
// it also subscribes and sees an action that an import stores afterwards.
// The page may load nothing from any host but ours.
func TestExplorerInABrowser(t *testing.T) {
	chrome := testenv.Chromium(t)
	traces, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.GreaterOrEqual(t, len(traces), 20, "toncenter traces in the fixtures")
	before, after := traces[:len(traces)-10], traces[len(traces)-10:]

	// SQLite: what is tested is the page; the stores have tests of their own.
	st := storetest.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "tonql.db"))
	importFiles(t, st, before)
	res := &resolvers.Resolver{Store: st}
	hub, err := notify.Start(context.Background(), notify.Options{Store: st, Book: res.AddressBookAndMetadata})
	require.NoError(t, err)
	t.Cleanup(hub.Close)
	res.Notify = hub

	bare := httptest.NewServer(server.New(server.Options{Resolver: res}))
	t.Cleanup(bare.Close)
	key, id := apikey.Generate()
	_, err = st.CreateKey(context.Background(), store.APIKey{ID: id, Hash: apikey.Hash(key), Name: "explorer"})
	require.NoError(t, err)
	keyed := httptest.NewServer(server.New(server.Options{Resolver: res, Access: &server.Access{
		Keys: apikey.NewLookup(st, apikey.LookupOptions{}), RequireKey: true}}))
	t.Cleanup(keyed.Close)

	newest := newestAction(t, bare.URL)
	browser := newBrowser(t, chrome)

	t.Run("bare", func(t *testing.T) {
		p := openPage(t, browser, bare.URL+"/")
		got := p.runQuery(t)
		requireNewest(t, got, newest)
		p.requireRequested(t, "POST", bare.URL+"/graphql")
		p.requireOnlyLoopback(t)
		p.screenshot(t)
	})

	t.Run("API docs", func(t *testing.T) {
		// /api/docs renders the OpenAPI document offline: one section per
		// operation it describes, nothing loaded from elsewhere.
		var doc struct {
			Paths map[string]map[string]json.RawMessage
		}
		require.NoError(t, json.Unmarshal(openapi.JSON, &doc))
		ops := 0
		for _, item := range doc.Paths {
			for method := range item {
				switch method {
				case "get", "post", "put", "delete", "patch", "options", "head":
					ops++
				}
			}
		}
		p := openPageUntil(t, browser, keyed.URL+"/api/docs", "section.op")
		var shown int
		require.NoError(t, chromedp.Run(p.ctx, chromedp.Evaluate(`document.querySelectorAll('section.op[id^="op-"]').length`, &shown)))
		require.Equal(t, ops, shown, "one section per documented operation")
		p.requireOnlyLoopback(t)
	})

	t.Run("key in the query", func(t *testing.T) {
		// /?api_key=KEY, the way toncenter's users pass a key: the page
		// sends it on with every query.
		p := openPage(t, browser, keyed.URL+"/?api_key="+key)
		got := p.runQuery(t)
		requireNewest(t, got, newest)
		p.requireRequested(t, "POST", keyed.URL+"/graphql?api_key="+key)
		p.requireEditorHides(t, key)
		p.requireOnlyLoopback(t)
	})

	t.Run("under a key", func(t *testing.T) {
		// Bare routes answer 401 here: the page only works if it queries
		// /KEY/graphql, and its assets load without a key.
		resp, err := http.Get(keyed.URL + "/graphql?query={__typename}")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

		p := openPage(t, browser, keyed.URL+"/"+key+"/")
		got := p.runQuery(t)
		requireNewest(t, got, newest)
		p.requireRequested(t, "POST", keyed.URL+"/"+key+"/graphql")
		p.requireEditorHides(t, key)

		// A subscription goes over the websocket beside the endpoint and
		// shows an action stored after it started.
		p.setQuery(t, `subscription { actions { cursor action { action_id type } } }`)
		p.run(t)
		wsURL := "ws" + strings.TrimPrefix(keyed.URL, "http") + "/" + key + "/graphql"
		p.waitSocket(t, wsURL)
		importFiles(t, st, after)
		var event struct {
			Data struct {
				Actions struct {
					Cursor string
					Action struct {
						ActionID string `json:"action_id"`
						Type     string
					}
				}
			}
		}
		p.waitResult(t, &event, func() bool { return event.Data.Actions.Action.ActionID != "" })
		require.NotEmpty(t, event.Data.Actions.Cursor)
		require.NotEqual(t, newest.ActionID, event.Data.Actions.Action.ActionID)
		require.True(t, actionExists(t, bare.URL, event.Data.Actions.Action.ActionID), "the event's action is stored")
		p.requireOnlyLoopback(t)
	})

}

type actionRef struct {
	ActionID    string `json:"action_id"`
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// newestAction asks the REST route, not the page, what the page must show.
func newestAction(t *testing.T, base string) actionRef {
	t.Helper()
	var list struct{ Actions []actionRef }
	getJSON(t, base+"/api/v3/actions?limit=1", &list)
	require.Len(t, list.Actions, 1)
	return list.Actions[0]
}

func actionExists(t *testing.T, base, id string) bool {
	t.Helper()
	var list struct{ Actions []actionRef }
	getJSON(t, base+"/api/v3/actions?"+url.Values{"action_id": {id}}.Encode(), &list)
	return len(list.Actions) == 1
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, u)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

func importFiles(t *testing.T, st *store.Store, files []string) {
	t.Helper()
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), files, func(path string, _ ingest.Stats, err error) {
		require.NoError(t, err, path)
	}))
}

// defaultResult is the default query's answer, as far as the test reads it.
type defaultResult struct {
	Data struct {
		Actions struct {
			Actions            []actionRef
			AddressBookEntries []struct {
				Address      string
				UserFriendly string `json:"user_friendly"`
			} `json:"address_book_entries"`
		}
	}
	Errors []any
}

func requireNewest(t *testing.T, got defaultResult, newest actionRef) {
	t.Helper()
	require.Empty(t, got.Errors)
	require.Len(t, got.Data.Actions.Actions, 10, "the default query asks for the 10 newest actions")
	require.Equal(t, newest, got.Data.Actions.Actions[0], "the same words as REST's")
	for _, a := range got.Data.Actions.Actions {
		require.NotEmpty(t, a.Title, a.ActionID)
		require.NotEmpty(t, a.Description, "the default query shows every action's description")
	}
	require.NotEmpty(t, got.Data.Actions.AddressBookEntries)
	require.NotEmpty(t, got.Data.Actions.AddressBookEntries[0].UserFriendly)
}

// newBrowser starts one headless Chromium for the test.
func newBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(1400, 900),
		chromedp.Flag("no-proxy-server", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithErrorf(func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		// A Chromium newer than chromedp's protocol types sends enum
		// values they lack (IPAddressSpace "Loopback"); those events are
		// ones this test does not read.
		if strings.Contains(msg, "could not unmarshal event") && strings.Contains(msg, "unknown") {
			return
		}
		stdlog.Print("chromedp: " + msg)
	}))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Run(ctx), "start chromium at %s", path)
	return ctx
}

// page is one tab on the explorer, with what it requested and reported.
type page struct {
	ctx context.Context

	mu       sync.Mutex
	requests []string // "METHOD URL"
	sockets  map[string]int64
	problems []string // exceptions and CSP or other console errors
}

func openPage(t *testing.T, browser context.Context, u string) *page {
	t.Helper()
	return openPageUntil(t, browser, u, ".graphiql-execute-button")
}

// openPageUntil opens u in a new tab and waits until ready (a CSS
// selector) is visible, recording requests, sockets and errors.
func openPageUntil(t *testing.T, browser context.Context, u, ready string) *page {
	t.Helper()
	tab, cancelTab := chromedp.NewContext(browser)
	// A bound for a page that never finishes loading, not a measurement.
	ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
	t.Cleanup(func() { cancel(); cancelTab() })
	p := &page{ctx: ctx, sockets: map[string]int64{}}
	sockets := map[network.RequestID]string{}
	chromedp.ListenTarget(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			if strings.HasPrefix(u, "data:") {
				u = u[:min(len(u), 40)] // the stylesheet's fonts
			}
			p.requests = append(p.requests, ev.Request.Method+" "+u)
		case *network.EventWebSocketCreated:
			sockets[ev.RequestID] = ev.URL
			p.requests = append(p.requests, "WS "+ev.URL)
		case *network.EventWebSocketHandshakeResponseReceived:
			p.sockets[sockets[ev.RequestID]] = ev.Response.Status
		case *runtime.EventExceptionThrown:
			p.problems = append(p.problems, "exception: "+ev.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError {
				p.problems = append(p.problems, string(ev.Entry.Source)+": "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	require.NoError(t, chromedp.Run(ctx,
		network.Enable(), log.Enable(), runtime.Enable(),
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(u),
		chromedp.WaitVisible(ready, chromedp.ByQuery),
	), "open %s", u)
	return p
}

const (
	queryEditor = `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror`
	// The response editor's whole text (the pane shows only what fits).
	responseText = `(() => { const e = document.querySelector('.graphiql-response .CodeMirror');` +
		` return e ? e.CodeMirror.getValue() : ''; })()`
)

func (p *page) run(t *testing.T) {
	t.Helper()
	require.NoError(t, chromedp.Run(p.ctx, chromedp.Click(".graphiql-execute-button", chromedp.ByQuery)))
}

func (p *page) setQuery(t *testing.T, q string) {
	t.Helper()
	b, _ := json.Marshal(q)
	// GraphiQL parses the editor's text after a change; run sends the
	// parsed document (a subscription goes over the websocket only once it
	// is parsed as one), so wait for it.
	parsed := `(() => { const d = ` + queryEditor + `.documentAST; return !!d && d.loc.source.body === ` + string(b) + `; })()`
	require.NoError(t, chromedp.Run(p.ctx,
		chromedp.Evaluate(queryEditor+".setValue("+string(b)+")", nil),
		chromedp.Poll(parsed, nil, chromedp.WithPollingInterval(50*time.Millisecond))))
}

// requireEditorHides checks that the editor's text does not show key: it
// is kept in the browser's storage and shows in screenshots.
func (p *page) requireEditorHides(t *testing.T, key string) {
	t.Helper()
	var q string
	require.NoError(t, chromedp.Run(p.ctx, chromedp.Evaluate(queryEditor+".getValue()", &q)))
	require.NotContains(t, strings.ToLower(q), strings.ToLower(key))
	require.Contains(t, q, "{api_key}")
}

// runQuery clicks run on the query in the editor (the default one) and
// returns the result pane's JSON.
func (p *page) runQuery(t *testing.T) defaultResult {
	t.Helper()
	var q string
	require.NoError(t, chromedp.Run(p.ctx, chromedp.Evaluate(queryEditor+".getValue()", &q)))
	require.Contains(t, q, "actions(limit: 10)", "the default query is in the editor")
	p.run(t)
	var got defaultResult
	p.waitResult(t, &got, func() bool { return len(got.Data.Actions.Actions) > 0 || len(got.Errors) > 0 })
	require.Empty(t, got.Errors, "the result pane shows errors")
	// What a person sees: the newest action's id in the visible pane.
	var visible string
	require.NoError(t, chromedp.Run(p.ctx, chromedp.Text(".graphiql-response", &visible, chromedp.ByQuery)))
	require.Contains(t, visible, got.Data.Actions.Actions[0].ActionID)
	return got
}

// waitResult polls the result pane until it holds JSON for which done
// is true.
func (p *page) waitResult(t *testing.T, v any, done func() bool) {
	t.Helper()
	for {
		var text string
		require.NoError(t, chromedp.Run(p.ctx, chromedp.Evaluate(responseText, &text)), "read the result pane")
		if text != "" && json.Unmarshal([]byte(text), v) == nil && done() {
			return
		}
		select {
		case <-p.ctx.Done():
			t.Fatalf("no result in the page; pane: %q; problems: %v", text, p.problems)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *page) waitSocket(t *testing.T, u string) {
	t.Helper()
	for {
		p.mu.Lock()
		status, ok := p.sockets[u]
		p.mu.Unlock()
		if ok {
			require.EqualValues(t, http.StatusSwitchingProtocols, status, "websocket handshake at %s", u)
			return
		}
		select {
		case <-p.ctx.Done():
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Fatalf("no websocket to %s; requests: %v", u, p.requests)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *page) requireRequested(t *testing.T, method, u string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Contains(t, p.requests, method+" "+u)
}

// requireOnlyLoopback: everything the page loaded came from this machine
// (data: URLs are the stylesheet's embedded fonts), and nothing failed.
func (p *page) requireOnlyLoopback(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.requests)
	for _, r := range p.requests {
		_, raw, _ := strings.Cut(r, " ")
		u, err := url.Parse(raw)
		require.NoError(t, err, r)
		if u.Scheme == "data" {
			continue
		}
		ip := net.ParseIP(u.Hostname())
		require.True(t, ip != nil && ip.IsLoopback() || u.Hostname() == "localhost", "the page requested %s", r)
	}
	require.Empty(t, p.problems, "errors in the page")
}

// screenshot saves the page to $EXPLORER_SCREENSHOT (relative to the
// repository root) when set: docs/explorer.png is made this way.
func (p *page) screenshot(t *testing.T) {
	t.Helper()
	dst := os.Getenv("EXPLORER_SCREENSHOT")
	if dst == "" {
		return
	}
	if !filepath.IsAbs(dst) {
		dst = filepath.Join("..", dst)
	}
	var png []byte
	require.NoError(t, chromedp.Run(p.ctx, chromedp.CaptureScreenshot(&png)))
	require.NoError(t, os.WriteFile(dst, png, 0o644))
	t.Logf("screenshot: %s", dst)
}
