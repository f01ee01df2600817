package resolvers

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// BenchmarkActionsPageDescriptions: the hot account's page of 10 actions
// (generated data: 5,000 actions of the synth type mix, every account's
// facts and domains stored, every address of the page's book a jetton
// with a symbol and decimals), read and encoded as /api/v3/actions
// encodes it, with its titles and descriptions ("on") and without ("off"),
// alternating off/on/off/on in one sitting. The facts cache is on, as
// serve runs by default. docs/PERFORMANCE.md has the figures.
func BenchmarkActionsPageDescriptions(b *testing.B) {
	for _, db := range testenv.Databases(b) {
		ctx := context.Background()
		st := storetest.Open(b, db.URL)
		p := synth.Params{Seed: 7, Actions: 5000, Accounts: 500, HotAccounts: 1, HotActions: 300, StartUtime: 1_760_000_000}
		batch := &store.Batch{}
		if err := synth.Generate(p, func(a *chain.Action) error { batch.Actions = append(batch.Actions, *a); return nil }); err != nil {
			b.Fatal(err)
		}
		if err := synth.Directory(p, func(a chain.AccountState, d *chain.DNSName) error {
			batch.Accounts = append(batch.Accounts, a)
			if d != nil {
				batch.DNS = append(batch.DNS, *d)
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if err := st.SaveBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
		hot := synth.HotAccount(p.Seed, 0)
		page, err := st.ListActions(ctx, store.ActionFilter{Account: hot, Limit: 10}, store.BookOfValues)
		if err != nil {
			b.Fatal(err)
		}
		at := time.Now()
		for i, a := range page.Book {
			c := []byte(a)
			tc := chain.TokenContent{Address: a, Kind: chain.TokenJettonMaster, ContentHash: sha256.Sum256(c), Content: c}
			if _, err := st.EnqueueTokenContent(ctx, []chain.TokenContent{tc}); err != nil {
				b.Fatal(err)
			}
			sym, dec := fmt.Sprintf("TK%d", i), 9
			md := chain.TokenMetadata{Address: a, Kind: tc.Kind, ContentHash: tc.ContentHash, Valid: true, Symbol: &sym, Decimals: &dec,
				FetchedAt: &at, UpdatedAt: at}
			if _, err := st.SaveTokenMetadata(ctx, md); err != nil {
				b.Fatal(err)
			}
		}
		st.CacheAddressFacts(5 * time.Second)
		r := &Resolver{Store: st}
		limit := 10
		// The words alone: what "on" adds to the page, without the
		// database's noise.
		list, err := r.ListActions(ctx, &model.ActionFilter{Account: &hot}, &limit, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(db.Name+"/words-only", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, a := range list.Actions {
					a.Title, a.Description = "", ""
				}
				describe(list.Actions, list.AddressBook, list.Metadata)
			}
		})
		for _, on := range []bool{false, true, false, true} {
			name := fmt.Sprintf("%s/%s", db.Name, map[bool]string{false: "off", true: "on"}[on])
			b.Run(name, func(b *testing.B) {
				describing = on
				defer func() { describing = true }()
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					list, err := r.ListActions(ctx, &model.ActionFilter{Account: &hot}, &limit, nil, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := list.AppendJSON(nil); err != nil {
						b.Fatal(err)
					}
					if on == (list.Actions[0].Description == "") {
						b.Fatal("descriptions not as expected")
					}
				}
			})
		}
	}
}
