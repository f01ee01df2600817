package explorer_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
)

// The page's script, run in Node with the few browser objects it touches:
// under a key (in the path or as ?api_key=) GraphiQL is pointed at the
// keyed endpoint, and the editor's default text never holds the key.
// The browser test (TestExplorerInABrowser) checks the same in Chromium.
func TestExplorerScriptHidesKey(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("TEST_REQUIRE_SERVICES") == "1" {
			t.Fatal("node not installed (required by TEST_REQUIRE_SERVICES=1)")
		}
		t.Skip("node not installed: the explorer's script test skipped")
	}
	script, err := os.ReadFile("explorer.js")
	require.NoError(t, err)
	key, _ := apikey.Generate()
	harness := `
const captured = {};
globalThis.window = { location: { href: process.argv[1] } };
globalThis.document = { getElementById: () => ({}) };
globalThis.GraphiQL = { createFetcher: (o) => { captured.fetcher = o; return () => {}; } };
globalThis.React = { createElement: (c, props) => { captured.props = props; return {}; } };
globalThis.ReactDOM = { createRoot: () => ({ render: () => {} }) };
` + string(script) + `
console.log(JSON.stringify({ url: captured.fetcher.url, subscriptionUrl: captured.fetcher.subscriptionUrl, query: captured.props.defaultQuery }));
`
	for _, c := range []struct{ page, endpoint string }{
		{"http://127.0.0.1:8080/" + key + "/", "http://127.0.0.1:8080/" + key + "/graphql"},
		{"http://127.0.0.1:8080/" + strings.ToUpper(key) + "/", "http://127.0.0.1:8080/" + strings.ToUpper(key) + "/graphql"},
		{"http://127.0.0.1:8080/?api_key=" + key, "http://127.0.0.1:8080/graphql?api_key=" + key},
		{"https://api.example/?api_key=" + key + "#x", "https://api.example/graphql?api_key=" + key},
	} {
		out, err := exec.Command(node, "-e", harness, c.page).CombinedOutput()
		require.NoError(t, err, string(out))
		var got struct{ URL, SubscriptionURL, Query string }
		require.NoError(t, json.Unmarshal(out, &got), string(out))
		require.Equal(t, c.endpoint, got.URL, "queries still carry the key")
		require.Equal(t, "ws"+strings.TrimPrefix(c.endpoint, "http"), got.SubscriptionURL)
		require.NotContains(t, strings.ToLower(got.Query), key, c.page)
		require.Contains(t, got.Query, "{api_key}", "the editor says where the key goes")
		require.Contains(t, got.Query, "actions(limit: 10)")
		require.Contains(t, got.Query, "      description\n", "the default query shows descriptions")
	}
}
