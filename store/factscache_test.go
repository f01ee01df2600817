package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// With the facts cache on, every page holds the facts the store holds,
// whether it was read cold (facts in the page's statement, then cached),
// warm (facts from the cache) or between (some cached, the rest read): the
// same answers as with the cache off, page after page and across shapes
// that share addresses.
func TestFactsCacheAnswersAsTheStore(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		_, shapes := savePageFixture(t, s)
		want := map[string]Page{}
		for name, f := range shapes {
			for _, book := range []Book{BookOfValues, BookOfValuesAndAccounts} {
				p, err := s.ListActions(ctx, f, book)
				require.NoError(t, err)
				want[name+string(rune('0'+book))] = p
			}
		}
		s.CacheAddressFacts(time.Hour)
		for round := range 3 {
			for name, f := range shapes {
				for _, book := range []Book{BookOfValues, BookOfValuesAndAccounts} {
					got, err := s.ListActions(ctx, f, book)
					require.NoError(t, err)
					require.Equal(t, want[name+string(rune('0'+book))], got, "round %d, %s, book %d", round, name, book)
				}
			}
		}
		addrs := want["hot1"].Book
		facts, err := s.AddressFacts(ctx, addrs)
		require.NoError(t, err)
		require.Equal(t, want["hot1"].Facts, facts, "AddressFacts through the cache")
	})
}

// A warm page reads no facts table: with the three tables renamed away it
// still answers, from the cache, while a page with an address never shown
// fails (its facts are read). Facts this store writes show at once.
func TestFactsCacheReadsOnlyWhatItLacks(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		hot, shapes := savePageFixture(t, s)
		s.CacheAddressFacts(time.Hour)
		f := shapes["hot"]
		var first Page
		for range 3 { // cold, then warm
			p, err := s.ListActions(ctx, f, BookOfValues)
			require.NoError(t, err)
			first = p
		}
		require.Equal(t, "aaa-hot.ton", first.Facts[hot].Domain)

		tables := []string{"accounts", "account_interfaces", "dns_names"}
		for _, tb := range tables {
			_, err := s.db.ExecContext(ctx, "ALTER TABLE "+tb+" RENAME TO "+tb+"_away")
			require.NoError(t, err)
		}
		got, err := s.ListActions(ctx, f, BookOfValues)
		require.NoError(t, err, "a warm page reads no facts table")
		require.Equal(t, first, got)
		_, err = s.ListActions(ctx, shapes["asc"], BookOfValues)
		require.Error(t, err, "addresses never shown are read")
		for _, tb := range tables {
			_, err := s.db.ExecContext(ctx, "ALTER TABLE "+tb+"_away RENAME TO "+tb)
			require.NoError(t, err)
		}

		// A domain this store writes shows on the next page.
		require.NoError(t, s.SaveBatch(ctx, &Batch{DNS: []chain.DNSName{{Address: hot, Domain: "aa-first.ton"}}}))
		got, err = s.ListActions(ctx, f, BookOfValues)
		require.NoError(t, err)
		require.Equal(t, "aa-first.ton", got.Facts[hot].Domain)
	})
}

// Facts another process writes show once the TTL has passed (until then
// the cache answers what it read).
func TestFactsCacheExpires(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		hot, shapes := savePageFixture(t, s)
		const ttl = 200 * time.Millisecond
		s.CacheAddressFacts(ttl)
		p, err := s.ListActions(ctx, shapes["hot"], BookOfValues)
		require.NoError(t, err)
		require.Equal(t, "aaa-hot.ton", p.Facts[hot].Domain)

		other, err := Open(ctx, s.url)
		require.NoError(t, err)
		defer other.Close()
		require.NoError(t, other.SaveBatch(ctx, &Batch{DNS: []chain.DNSName{{Address: hot, Domain: "aa-other.ton"}}}))
		time.Sleep(2 * ttl)
		p, err = s.ListActions(ctx, shapes["hot"], BookOfValues)
		require.NoError(t, err)
		require.Equal(t, "aa-other.ton", p.Facts[hot].Domain)
	})
}

// A read that began before a write's forget does not put its (older)
// facts back; one that began after does.
func TestFactsCacheFillAfterForget(t *testing.T) {
	c := newFactsCache(time.Hour)
	addr := []string{"0:AA"}
	read := map[string]chain.AddressFacts{"0:AA": {Domain: "old.ton"}}
	gen := c.gen.Load()
	c.forget(addr)
	c.fill(gen, addr, read)
	out := map[string]chain.AddressFacts{}
	require.Equal(t, addr, c.lookup(addr, out), "the stale read was not cached")
	c.fill(c.gen.Load(), addr, read)
	require.Empty(t, c.lookup(addr, out))
	require.Equal(t, "old.ton", out["0:AA"].Domain)
	require.True(t, c.has(addr))
}

// Warmth is per account filter: a crawl through new accounts is read
// cold (facts in the page's statement) while a page served again is warm.
func TestFactsCacheWarmthPerAccount(t *testing.T) {
	c := newFactsCache(time.Hour)
	require.False(t, c.isWarm("0:AA"))
	c.warm.Add("0:AA", true)
	c.warm.Add("", false)
	require.True(t, c.isWarm("0:AA"))
	require.False(t, c.isWarm("0:BB"), "another account")
	require.False(t, c.isWarm(""), "pages of no account")
}
