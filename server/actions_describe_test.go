package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// describedAction is what the test reads of an action.
type describedAction struct {
	ActionID    string          `json:"action_id"`
	Type        string          `json:"type"`
	Status      string          `json:"status"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Value       json.RawMessage `json:"value"`
}

// TestActionsDescriptionsOnImportedBlock: every action of /api/v3/actions
// on the imported fee-replay block carries its type's title and a
// sentence; a jetton amount of a master with no metadata is said raw with
// the master's address, and once the store holds the master's symbol and
// decimals (stored through the metadata worker's own path, SaveTokenMetadata
// over the token's real content) the same action says the amount in them,
// with no other change to the page. GraphQL's title and description are
// REST's, whether its page reads the book or not (then the action's own
// facts are read through the loader). SQLite and Postgres.
func TestActionsDescriptionsOnImportedBlock(t *testing.T) {
	replay := testenv.Fixture(t, tokenfixture.ReplayBlock)
	tokens, err := tokenfixture.Contents(replay)
	require.NoError(t, err)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := importedFixtures(t, db, []string{replay})
			f := &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})}
			page := func() []describedAction {
				code, body := f.get(t, "limit=1000")
				require.Equal(t, http.StatusOK, code, string(body))
				var p struct{ Actions []describedAction }
				require.NoError(t, json.Unmarshal(body, &p))
				return p.Actions
			}
			before := page()
			require.NotEmpty(t, before)
			for _, a := range before {
				typ, ok := actions.Lookup(a.Type)
				require.True(t, ok, a.Type)
				require.Equal(t, typ.Title, a.Title, a.ActionID)
				require.NotEmpty(t, a.Description, a.ActionID)
				require.Equal(t, a.Status == "failed", strings.HasPrefix(a.Description, "Failed: "), a.Description)
				require.NotContains(t, a.Description, `of "`, "no token has metadata yet")
			}

			// The block's tokens made by the worker (offline: their
			// off-chain part fails), then a name, symbol and decimals stored
			// over the same content, as the worker stores what it fetched.
			fetcher, err := metadata.NewFetcher(metadata.FetchOptions{LookupHost: func(_ context.Context, name string) ([]netip.Addr, error) {
				return nil, fmt.Errorf("offline test: %s", name)
			}})
			require.NoError(t, err)
			_, err = st.EnqueueTokenContent(ctx, tokens)
			require.NoError(t, err)
			runWorkerUntilMade(t, st, fetcher, tokens)
			addrs := make([]string, len(tokens))
			for i, tc := range tokens {
				addrs[i] = tc.Address
			}
			got, err := st.TokenMetadata(ctx, addrs)
			require.NoError(t, err)
			for _, a := range addrs {
				md := got[a]
				name, sym, dec, now := "Test "+md.Kind, "TEST", 9, time.Now()
				md.Name, md.Symbol, md.Decimals, md.Valid, md.FetchedAt = &name, &sym, &dec, true, &now
				saved, err := st.SaveTokenMetadata(ctx, md)
				require.NoError(t, err)
				require.True(t, saved)
			}

			// Only the words change, and only where a value names a token:
			// the Telemint item's transfer now names its collection.
			after := page()
			require.Len(t, after, len(before))
			changed := 0
			for i, a := range after {
				require.Equal(t, before[i].Value, a.Value)
				if a.Description == before[i].Description {
					continue
				}
				changed++
				names := false
				for _, addr := range addrs {
					names = names || strings.Contains(string(a.Value), addr)
				}
				require.True(t, names, "%s changed but names no token: %s", a.Type, a.Description)
				t.Logf("%s: %q -> %q", a.Type, before[i].Description, a.Description)
				if a.Type == "NftItemTransfer" {
					require.Equal(t, strings.Replace(before[i].Description, " to ", ` of "Test `+chain.TokenNftCollection+`" to `, 1), a.Description)
				}
			}
			require.NotZero(t, changed, "some action names a token of the block")

			// GraphQL: with the book selected and without it, the same words.
			for _, q := range []string{
				`query($f: ActionFilter) { actions(filter: $f, limit: 1000) { actions { action_id title description } address_book } }`,
				`query($f: ActionFilter) { actions(filter: $f, limit: 1000) { actions { action_id title description } } }`,
			} {
				var gq struct {
					Data struct {
						Actions struct{ Actions []describedAction }
					}
					Errors []any
				}
				require.NoError(t, json.Unmarshal(f.graphql(t, q, graphqlVars(url.Values{})), &gq))
				require.Empty(t, gq.Errors)
				require.Len(t, gq.Data.Actions.Actions, len(after))
				for i, a := range gq.Data.Actions.Actions {
					require.Equal(t, after[i].ActionID, a.ActionID)
					require.Equal(t, after[i].Title, a.Title)
					require.Equal(t, after[i].Description, a.Description)
				}
			}
		})
	}
}

// decimal9 writes nanounits with 9 decimals, trailing zeros dropped (an
// independent spelling of what the template must say).
func decimal9(n string) string {
	for len(n) < 10 {
		n = "0" + n
	}
	whole, frac := n[:len(n)-9], strings.TrimRight(n[len(n)-9:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
