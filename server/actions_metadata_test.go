package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// metadataPage is what the test reads of an actions page.
type metadataPage struct {
	Actions     []json.RawMessage          `json:"actions"`
	AddressBook map[string]json.RawMessage `json:"address_book"`
	Metadata    map[string]json.RawMessage `json:"metadata"`
}

// TestActionsMetadataOnImportedBlock: /api/v3/actions answers every page
// of the imported fee-replay block with toncenter's metadata object: an
// entry for each address of the page's address book that is a token the
// store holds (the block's real jetton masters and NFT collection, found
// by their get methods on the block's states), the very entry
// /api/v3/metadata gives for it, a token not made yet as not indexed, and
// no other address; GraphQL's page is the same. Before any token is
// stored, every page's metadata is {}. SQLite and Postgres.
func TestActionsMetadataOnImportedBlock(t *testing.T) {
	replay := testenv.Fixture(t, tokenfixture.ReplayBlock)
	tokens, err := tokenfixture.Contents(replay)
	require.NoError(t, err)
	require.NotEmpty(t, tokens)
	isToken := map[string]bool{}
	for _, tc := range tokens {
		isToken[tc.Address] = true
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := importedFixtures(t, db, []string{replay})
			f := &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})}

			// No token stored yet: {} on every page; and which tokens the
			// pages name.
			var named []string
			for _, p := range metadataPages(t, f, "false") {
				require.Empty(t, p.Metadata)
				for a := range p.AddressBook {
					if isToken[a] && !slices.Contains(named, a) {
						named = append(named, a)
					}
				}
			}
			require.NotEmpty(t, named, "the block's actions name some of its tokens")

			// Every token made (offline: their off-chain part fails) but
			// one the pages name, which stays pending.
			slices.Sort(named)
			var made []chain.TokenContent
			var pending chain.TokenContent
			for _, tc := range tokens {
				if tc.Address == named[0] {
					pending = tc
					continue
				}
				made = append(made, tc)
			}
			fetcher, err := metadata.NewFetcher(metadata.FetchOptions{LookupHost: func(_ context.Context, name string) ([]netip.Addr, error) {
				return nil, fmt.Errorf("offline test: %s", name)
			}})
			require.NoError(t, err)
			_, err = st.EnqueueTokenContent(ctx, made)
			require.NoError(t, err)
			runWorkerUntilMade(t, st, fetcher, made)
			_, err = st.EnqueueTokenContent(ctx, []chain.TokenContent{pending})
			require.NoError(t, err)

			shown := map[string]bool{}
			for _, accounts := range []string{"false", "true"} {
				for _, p := range metadataPages(t, f, accounts) {
					var want []string
					for a := range p.AddressBook {
						if isToken[a] {
							want = append(want, a)
						}
					}
					got := make([]string, 0, len(p.Metadata))
					for a := range p.Metadata {
						got = append(got, a)
						shown[a] = true
					}
					require.ElementsMatch(t, want, got, "an entry for each token of the book, and no other")
					if len(want) == 0 {
						continue
					}
					q := url.Values{"address": want}
					code, one := getMetadata(t, f.h, q.Encode())
					require.Equal(t, http.StatusOK, code)
					for _, a := range want {
						var entry map[string]any
						require.NoError(t, json.Unmarshal(p.Metadata[a], &entry))
						require.Equal(t, one[a], entry, "%s: as /api/v3/metadata gives it", a)
						require.Equal(t, a != pending.Address, entry["is_indexed"], a)
					}
				}
			}
			require.ElementsMatch(t, named, keys(shown), "every named token shown")

			// GraphQL's page with its metadata is REST's.
			for _, a := range named {
				v := url.Values{"account": {a}, "limit": {"100"}}
				code, body := f.get(t, v.Encode())
				require.Equal(t, http.StatusOK, code, string(body))
				var gq struct {
					Data struct {
						Actions json.RawMessage `json:"actions"`
					} `json:"data"`
					Errors []any `json:"errors"`
				}
				require.NoError(t, json.Unmarshal(f.graphql(t, allFields, graphqlVars(v)), &gq))
				require.Empty(t, gq.Errors)
				require.Equal(t, canonical(t, body), canonical(t, gq.Data.Actions), "REST and GraphQL differ")
				var p metadataPage
				require.NoError(t, json.Unmarshal(body, &p))
				require.Contains(t, p.Metadata, a, "the token's own page names it")
			}
		})
	}
}

// metadataPages reads every page of /api/v3/actions, 50 at a time.
func metadataPages(t *testing.T, f *fixture, includeAccounts string) []metadataPage {
	t.Helper()
	var out []metadataPage
	for offset := 0; ; offset += 50 {
		code, body := f.get(t, "include_accounts="+includeAccounts+"&limit=50&offset="+strconv.Itoa(offset))
		require.Equal(t, http.StatusOK, code, string(body))
		var p metadataPage
		require.NoError(t, json.Unmarshal(body, &p))
		require.NotNil(t, p.Metadata, "metadata is always there")
		out = append(out, p)
		if len(p.Actions) < 50 {
			return out
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
