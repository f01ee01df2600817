package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// shownToken is what a page shows of a token's stored metadata (the
// fields tokenFactColumns reads).
func shownToken(md chain.TokenMetadata) *chain.TokenMetadata {
	return &chain.TokenMetadata{Address: md.Address, Kind: md.Kind, Valid: md.Valid, Reason: md.Reason,
		Name: md.Name, Symbol: md.Symbol, Decimals: md.Decimals, Image: md.Image, Description: md.Description,
		URI: md.URI, Extra: md.Extra, FetchedAt: md.FetchedAt}
}

// A page's facts carry the stored metadata of the tokens among its book's
// addresses (one made and valid with every field, one made and invalid,
// one pending), equal to what TokenMetadata reads; addresses that are no
// token carry none. Cold and warm (the facts cache on), and a save by this
// process shows on the next warm page at once. SQLite and Postgres.
func TestPageFactsCarryTokens(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		hot, shapes := savePageFixture(t, s)
		f := shapes["hot"]
		first, err := s.ListActions(ctx, f, BookOfValues)
		require.NoError(t, err)
		var others []string
		for _, a := range first.Book {
			if a != hot {
				others = append(others, a)
			}
		}
		require.GreaterOrEqual(t, len(others), 3)
		var contents []chain.TokenContent
		for i, kind := range []string{chain.TokenJettonMaster, chain.TokenNftItem, chain.TokenNftCollection} {
			c := []byte{byte(i)}
			contents = append(contents, chain.TokenContent{Address: others[i], Kind: kind, ContentHash: sha256.Sum256(c), Content: c})
		}
		_, err = s.EnqueueTokenContent(ctx, contents)
		require.NoError(t, err)
		at := time.Now().Truncate(time.Millisecond).UTC()
		made := []chain.TokenMetadata{
			{Address: contents[0].Address, Kind: contents[0].Kind, ContentHash: contents[0].ContentHash, Valid: true,
				Name: ptrTo(`Tonstakers "TON"`), Symbol: ptrTo("tsTON"), Decimals: ptrTo(6), Image: ptrTo("https://i/x.png"),
				Description: ptrTo("ü <b>"), URI: ptrTo("https://u"), Extra: json.RawMessage(`{"social":["x"],"n":1}`),
				Source: chain.MetadataSemichain, FetchedAt: &at, UpdatedAt: at},
			{Address: contents[1].Address, Kind: contents[1].Kind, ContentHash: contents[1].ContentHash,
				Reason: "timeout", Name: ptrTo("kept"), Source: chain.MetadataSemichain, FetchedAt: &at, UpdatedAt: at},
		}
		for _, md := range made {
			ok, err := s.SaveTokenMetadata(ctx, md)
			require.NoError(t, err)
			require.True(t, ok)
		}

		check := func(stage string) {
			t.Helper()
			page, err := s.ListActions(ctx, f, BookOfValues)
			require.NoError(t, err, stage)
			stored, err := s.TokenMetadata(ctx, page.Book)
			require.NoError(t, err)
			require.Len(t, stored, 3, stage)
			for _, a := range page.Book {
				md, ok := stored[a]
				if !ok {
					require.Nil(t, page.Facts[a].Token, "%s: %s is no token", stage, a)
					continue
				}
				// With its entry: the bytes kept are those of its fields.
				require.Equal(t, shownToken(md).WithEntry(), page.Facts[a].Token, "%s: %s", stage, a)
			}
			facts, err := s.AddressFacts(ctx, page.Book)
			require.NoError(t, err)
			for _, a := range page.Book {
				require.Equal(t, page.Facts[a].Token, facts[a].Token, "%s: AddressFacts agrees on %s", stage, a)
			}
		}
		s.CacheTokenEntries(0)
		check("no token kept")
		s.CacheTokenEntries(DefaultTokenCacheBytes)
		check("uncached")
		check("tokens kept")
		s.CacheAddressFacts(time.Minute)
		check("cold")
		check("warm")
		later := at.Add(time.Second)
		renamed := made[0]
		renamed.Name, renamed.FetchedAt = ptrTo("renamed"), &later
		ok, err := s.SaveTokenMetadata(ctx, renamed)
		require.NoError(t, err)
		require.True(t, ok)
		check("after a save")
		page, err := s.ListActions(ctx, f, BookOfValues)
		require.NoError(t, err)
		require.Equal(t, "renamed", *page.Facts[renamed.Address].Token.Name)
	})
}
