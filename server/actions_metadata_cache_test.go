package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// TestActionsMetadataCacheFollowsUpdates: the real tsTON master of the
// imported fee-replay block goes through three states, each written by
// the registry or the metadata worker of one server ("writer": address
// book facts cached as serve caches them, tokens kept rendered):
// handed over and not made yet; made by the worker (offline: what the
// chain holds, not valid); handed over anew with off-chain content at a
// local server and made from it. After each, the next page of tsTON's
// actions shows the new state on the writer, on a second server over the
// same database ("replica": its own token cache, facts read with each
// page, told nothing of the writes) and on a third with no cache at all
// ("uncached"), byte for byte the same page, its tsTON entry the one
// /api/v3/metadata gives. SQLite and Postgres.
func TestActionsMetadataCacheFollowsUpdates(t *testing.T) {
	replay := testenv.Fixture(t, tokenfixture.ReplayBlock)
	contents, err := tokenfixture.Contents(replay)
	require.NoError(t, err)
	var tsTON chain.TokenContent
	for _, tc := range contents {
		c, err := metadata.Parse(tc.Content)
		require.NoError(t, err)
		if c.Attrs["symbol"] == "tsTON" {
			tsTON = tc
		}
	}
	require.NotEmpty(t, tsTON.Address, "tsTON among the block's tokens")

	served := `{"name":"Tonstakers TON, served here","symbol":"tsTON","decimals":"9","description":"liquid staking","image":"https://img.test/tston.png"}`
	fetcher, port := localMetadataHost(t, served)

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			writer := importedFixtures(t, db, []string{replay})
			writer.CacheAddressFacts(5 * time.Second)
			replica := storetest.Open(t, db.URL)
			replica.CacheAddressFacts(0)
			uncached := storetest.Open(t, db.URL)
			uncached.CacheAddressFacts(0)
			uncached.CacheTokenEntries(0)
			handlers := map[string]http.Handler{}
			for name, st := range map[string]*store.Store{"writer": writer, "replica": replica, "uncached": uncached} {
				handlers[name] = newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			}
			page := "/api/v3/actions?limit=50&account=" + tsTON.Address

			// pages reads tsTON's page on each server, twice (the second
			// from whatever the first cached), checks they are one page,
			// and returns its tsTON entry.
			pages := func(stage string) map[string]any {
				t.Helper()
				var want []byte
				for _, name := range []string{"uncached", "writer", "replica", "writer", "replica"} {
					rec := doRequest(handlers[name], http.MethodGet, page, "")
					require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
					if want == nil {
						want = rec.Body.Bytes()
						continue
					}
					require.Equal(t, string(want), rec.Body.String(), "%s: %s's page is the uncached one", stage, name)
				}
				var p metadataPage
				require.NoError(t, json.Unmarshal(want, &p))
				require.Contains(t, p.Metadata, tsTON.Address, stage)
				var entry map[string]any
				require.NoError(t, json.Unmarshal(p.Metadata[tsTON.Address], &entry))
				code, one := getMetadata(t, handlers["uncached"], "address="+tsTON.Address)
				require.Equal(t, http.StatusOK, code)
				require.Equal(t, one[tsTON.Address], entry, "%s: as /api/v3/metadata gives it", stage)
				return entry["token_info"].([]any)[0].(map[string]any)
			}

			// Handed over, not made.
			_, err := writer.EnqueueTokenContent(ctx, []chain.TokenContent{tsTON})
			require.NoError(t, err)
			info := pages("pending")
			require.Equal(t, map[string]any{"type": "jetton_masters"}, info)

			// Made by the worker, offline: what the chain holds.
			runWorkerUntil(t, writer, fetcher, []string{tsTON.Address}, func(got map[string]chain.TokenMetadata) bool {
				return got[tsTON.Address].FetchedAt != nil
			})
			info = pages("made offline")
			require.Equal(t, "Tonstakers TON", info["name"])
			require.Equal(t, false, info["valid"])
			require.NotContains(t, info, "description")

			// The contract's content changes to a link to the local
			// server: pending again, then made from the served JSON.
			link, err := tokenfixture.Offchain("http://meta.test:" + port + "/tston.json")
			require.NoError(t, err)
			moved, err := metadata.NewTokenContent(tsTON.Address, tsTON.Kind, link)
			require.NoError(t, err)
			_, err = writer.EnqueueTokenContent(ctx, []chain.TokenContent{moved})
			require.NoError(t, err)
			require.Equal(t, map[string]any{"type": "jetton_masters"}, pages("handed over anew"))
			runWorkerUntil(t, writer, fetcher, []string{tsTON.Address}, func(got map[string]chain.TokenMetadata) bool {
				return got[tsTON.Address].Valid
			})
			info = pages("made from the served JSON")
			require.Equal(t, "Tonstakers TON, served here", info["name"])
			require.Equal(t, "liquid staking", info["description"])
			require.Equal(t, true, info["valid"])
		})
	}
}
