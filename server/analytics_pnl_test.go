package server_test

import (
	"context"
	"encoding/json"
	"math/big"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// refResult is the reference's average-cost account of one pair: the
// average price of what is held, not the held cost (the resolver's
// formulation), so the two are written differently.
type refResult struct {
	held, sold, unmatched *big.Int
	avg, realized         *big.Rat // quote units per jetton unit; quote units
	trades                int
}

// TestTradeResultsEqualTheActions: every trader's Account.trade_results
// over the load generator's swaps (buys, sells, USD₮ pairs, two-pool
// routes, dust) equal the average-cost results computed here from the
// swaps /api/v3/actions lists.
func TestTradeResultsEqualTheActions(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			var b store.Batch
			require.NoError(t, synth.Generate(synth.Params{Seed: 5, Actions: 3000, Accounts: 30, StartUtime: 1_760_000_000}, func(a *chain.Action) error {
				b.Actions = append(b.Actions, *a)
				if len(b.Actions) == 200 {
					err := st.SaveBatch(ctx, &b)
					b = store.Batch{}
					return err
				}
				return nil
			}))
			require.NoError(t, st.SaveBatch(ctx, &b))
			var stored int
			require.NoError(t, st.DB().NewSelect().TableExpr("actions").ColumnExpr("count(*)").
				Where("type IN ('JettonSwap','JettonTransfer','JettonMint','JettonBurn')").Scan(ctx, &stored))
			f := &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})}
			acts := jettonActions(t, f)
			require.Len(t, acts, stored)

			var trades []refTrade
			for _, a := range acts {
				trades = append(trades, refTrades(a)...)
			}
			sort.Slice(trades, func(i, j int) bool { return trades[i].order < trades[j].order })
			want := map[string]map[[2]string]*refResult{}
			for _, tr := range trades {
				if want[tr.trader] == nil {
					want[tr.trader] = map[[2]string]*refResult{}
				}
				k := [2]string{tr.jetton, tr.quote}
				r := want[tr.trader][k]
				if r == nil {
					r = &refResult{held: new(big.Int), sold: new(big.Int), unmatched: new(big.Int), avg: new(big.Rat), realized: new(big.Rat)}
					want[tr.trader][k] = r
				}
				r.trades++
				if tr.buy {
					// New average: (avg*held + paid) / (held + bought).
					total := new(big.Rat).Mul(r.avg, new(big.Rat).SetInt(r.held))
					total.Add(total, new(big.Rat).SetInt(tr.amt))
					r.held.Add(r.held, tr.base)
					r.avg = total.Quo(total, new(big.Rat).SetInt(r.held))
					continue
				}
				r.sold.Add(r.sold, tr.base)
				m := new(big.Int).Set(tr.base)
				if m.Cmp(r.held) > 0 {
					m.Set(r.held)
				}
				r.unmatched.Add(r.unmatched, new(big.Int).Sub(tr.base, m))
				// matched * (sell price - average price)
				gain := new(big.Rat).Sub(new(big.Rat).SetFrac(tr.amt, tr.base), r.avg)
				r.realized.Add(r.realized, gain.Mul(gain, new(big.Rat).SetInt(m)))
				r.held.Sub(r.held, m)
			}
			require.Greater(t, len(want), 3, "several traders")

			gains, losses, unmatched := 0, 0, 0
			for trader, pairs := range want {
				body := f.graphql(t, `query($a:String!){account(address:$a){trade_results{jetton quote trades sold held realized unmatched}}}`,
					map[string]any{"a": trader})
				var got struct {
					Data struct {
						Account struct {
							Results []struct {
								Jetton, Quote         string
								Trades                int
								Sold, Held, Unmatched string
								Realized              string
							} `json:"trade_results"`
						}
					}
				}
				require.NoError(t, json.Unmarshal(body, &got), string(body))
				require.Len(t, got.Data.Account.Results, len(pairs), string(body))
				for _, g := range got.Data.Account.Results {
					w := pairs[[2]string{g.Jetton, g.Quote}]
					require.NotNil(t, w, "%s %s: %s", g.Jetton, g.Quote, body)
					require.Equal(t, w.trades, g.Trades)
					require.Equal(t, w.sold.String(), g.Sold)
					require.Equal(t, w.held.String(), g.Held)
					require.Equal(t, w.unmatched.String(), g.Unmatched)
					qd := int64(9)
					if g.Quote == "USDT" {
						qd = 6
					}
					whole := new(big.Rat).Quo(w.realized, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(qd), nil)))
					ratNear(t, whole, g.Realized, trader+" "+g.Jetton+" realized")
					switch w.realized.Sign() {
					case 1:
						gains++
					case -1:
						losses++
					}
					if w.unmatched.Sign() > 0 {
						unmatched++
					}
				}
			}
			t.Logf("%d results with a gain, %d with a loss, %d with sells beyond the counted buys", gains, losses, unmatched)
			require.Positive(t, gains, "some trader sold above its average cost")
			require.Positive(t, losses, "some trader sold below its average cost")
			require.Positive(t, unmatched, "some trader sold more than its counted buys")
		})
	}
}
