package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
)

// A page read with its address book's facts (keys, then rows and facts in
// one statement on Postgres; page, then facts on SQLite) holds the very page read alone and, for every address of
// its book, what AddressFacts says of it: across filter shapes, both
// directions, offsets, both books, an address with two domains, and
// addresses the store knows nothing of.
func TestPageWithFactsAgreesWithSeparateReads(t *testing.T) {
	ctx := context.Background()
	onEachDatabase(t, func(t *testing.T, s *Store) {
		hot, shapes := savePageFixture(t, s)
		for name, f := range shapes {
			alone, err := s.ListActions(ctx, f, NoBook)
			require.NoError(t, err, name)
			require.Nil(t, alone.Facts, name)
			for _, book := range []Book{BookOfValues, BookOfValuesAndAccounts} {
				got, err := s.ListActions(ctx, f, book)
				require.NoError(t, err, name)
				require.Equal(t, alone.Actions, got.Actions, "%s: the page", name)
				addrs := bookAddresses(alone.Actions, book)
				want, err := s.AddressFacts(ctx, addrs)
				require.NoError(t, err)
				for _, a := range addrs {
					if _, ok := want[a]; !ok {
						want[a] = chain.AddressFacts{}
					}
				}
				require.Equal(t, want, got.Facts, "%s (book %d): the facts", name, book)
				require.Equal(t, addrs, got.Book, "%s (book %d): the book", name, book)
				if book == BookOfValues {
					var list chain.ActionList
					for _, a := range alone.Actions {
						c := *a
						c.Accounts = nil // as a page without include_accounts shows it
						list.Actions = append(list.Actions, &c)
					}
					require.Equal(t, list.BookAddresses(), got.Book, "%s: the book a page shows", name)
				}
				if name == "hot" {
					require.Equal(t, "aaa-hot.ton", got.Facts[hot].Domain, "the first domain in order")
					require.Contains(t, got.Facts, hot)
				}
			}
		}
	})
}

// savePageFixture stores 1,500 generated actions with a directory for half
// their accounts and two domains for the hot account, and returns the hot
// account and the filter shapes the page tests read.
func savePageFixture(t *testing.T, s *Store) (string, map[string]ActionFilter) {
	ctx := context.Background()
	p := synth.Params{Seed: 5, Actions: 1500, Accounts: 300, HotAccounts: 1, HotActions: 200, StartUtime: 1_760_000_000}
	b := &Batch{}
	require.NoError(t, synth.Generate(p, func(a *chain.Action) error {
		b.Actions = append(b.Actions, *a)
		return nil
	}))
	// Half the accounts get a directory entry, so that pages mix
	// known and unknown addresses.
	i := 0
	require.NoError(t, synth.Directory(p, func(a chain.AccountState, d *chain.DNSName) error {
		if i++; i%2 == 0 {
			b.Accounts = append(b.Accounts, a)
			if d != nil {
				b.DNS = append(b.DNS, *d)
			}
		}
		return nil
	}))
	hot := synth.HotAccount(p.Seed, 0)
	b.DNS = append(b.DNS, chain.DNSName{Address: hot, Domain: "zzz-hot.ton"}, chain.DNSName{Address: hot, Domain: "aaa-hot.ton"})
	require.NoError(t, s.SaveBatch(ctx, b))
	return hot, map[string]ActionFilter{
		"all":          {Limit: 25},
		"asc":          {Limit: 25, Asc: true},
		"hot":          {Account: hot, Limit: 40},
		"hot offset":   {Account: hot, Limit: 10, Offset: 150},
		"hot asc":      {Account: hot, Limit: 1000, Asc: true},
		"type":         {Types: []string{"JettonSwap"}, Limit: 30},
		"empty":        {Account: "0:" + "00000000000000000000000000000000000000000000000000000000000000AB", Limit: 10},
		"past the end": {Limit: 10, Offset: 5000},
	}
}
