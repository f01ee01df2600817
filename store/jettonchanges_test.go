package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// Which registry writes are jettons_change events: a wallet's first state
// and each later one, once; not the same state again (a re-import), not an
// older one, not a row without the transaction it was read at; a state read
// at the lt MarkTokensBehind had recorded without a balance. Each takes the
// next number of the streams' counter in its own commit (numbers it did
// not use are given back), and JettonChangesAfter reads them by wallet, by
// owner, after a position and up to a limit.
func TestJettonChanges(t *testing.T) {
	const (
		a, b          = "0:" + "AA00000000000000000000000000000000000000000000000000000000000000", "0:" + "BB00000000000000000000000000000000000000000000000000000000000000"
		ownerA        = "0:" + "A100000000000000000000000000000000000000000000000000000000000000"
		ownerB        = "0:" + "B100000000000000000000000000000000000000000000000000000000000000"
		master        = "0:" + "C000000000000000000000000000000000000000000000000000000000000000"
		lt1, lt2, lt3 = 1000, 2000, 3000
	)
	hash := func(n byte) chain.Hash { var h chain.Hash; h[0] = n; return h }
	wallet := func(addr, owner, balance string, lt uint64, tx chain.Hash) chain.JettonWallet {
		return chain.JettonWallet{Address: addr, Owner: owner, Jetton: master, Balance: balance, CodeHash: hash(9), DataHash: hash(byte(lt / 1000)),
			LastTxLt: lt, LastTxHash: tx}
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := t.Context()
			st := storetest.Open(t, db.URL)
			save := func(ws ...chain.JettonWallet) []store.SeqJettonChange {
				t.Helper()
				before, err := st.LastActionSeq(ctx)
				require.NoError(t, err)
				require.NoError(t, st.SaveTokens(ctx, &chain.TokenRecords{JettonWallets: ws}))
				got, err := st.JettonChangesAfter(ctx, nil, before, 100)
				require.NoError(t, err)
				last, err := st.LastActionSeq(ctx)
				require.NoError(t, err)
				require.Equal(t, before+uint64(len(got)), last, "one number per change, the rest given back")
				return got
			}

			got := save(wallet(a, ownerA, "5", lt1, hash(1)), wallet(b, ownerB, "7", lt2, hash(2)))
			require.Len(t, got, 2)
			require.Equal(t, a, got[0].Address, "in lt order")
			require.Equal(t, "5", got[0].Balance)
			require.Equal(t, ownerA, got[0].Owner)
			require.Equal(t, master, got[0].Jetton)
			require.Equal(t, uint64(lt1), got[0].LastTxLt)
			require.Equal(t, hash(1), got[0].LastTxHash)
			require.Equal(t, hash(1), got[0].DataHash)
			require.Equal(t, got[0].Seq+1, got[1].Seq)

			require.Empty(t, save(wallet(a, ownerA, "5", lt1, hash(1))), "the same state again")
			require.Empty(t, save(wallet(b, ownerB, "6", lt1, hash(1))), "an older state")
			require.Empty(t, save(wallet(a, ownerA, "8", lt2, chain.Hash{})), "no transaction named")
			rows, err := st.JettonWallets(ctx, store.JettonWalletFilter{Addresses: []string{a}, TokenPage: store.TokenPage{Limit: 10}})
			require.NoError(t, err)
			require.Equal(t, "8", rows[0].Balance, "the registry row is written all the same")

			// A transaction without its state makes the balance unknown at
			// its lt; the state read at that lt later is a change.
			require.NoError(t, st.MarkTokensBehind(ctx, map[string]uint64{b: lt3}))
			require.Empty(t, save(wallet(b, ownerB, "", lt3, hash(3))), "still no balance")
			got = save(wallet(b, ownerB, "11", lt3, hash(3)))
			require.Len(t, got, 1)
			require.Equal(t, "11", got[0].Balance)

			all, err := st.JettonChangesAfter(ctx, nil, 0, 100)
			require.NoError(t, err)
			require.Len(t, all, 3)
			for _, q := range []struct {
				accounts []string
				after    uint64
				limit    int
				want     []uint64
			}{
				{[]string{a}, 0, 100, []uint64{all[0].Seq}},
				{[]string{ownerB}, 0, 100, []uint64{all[1].Seq, all[2].Seq}},
				{[]string{ownerA, b}, 0, 100, []uint64{all[0].Seq, all[1].Seq, all[2].Seq}},
				{[]string{ownerB}, all[1].Seq, 100, []uint64{all[2].Seq}},
				{nil, 0, 2, []uint64{all[0].Seq, all[1].Seq}},
				{[]string{master}, 0, 100, nil},
			} {
				got, err := st.JettonChangesAfter(ctx, q.accounts, q.after, q.limit)
				require.NoError(t, err)
				var seqs []uint64
				for _, g := range got {
					seqs = append(seqs, g.Seq)
				}
				require.Equal(t, q.want, seqs, "%v after %d limit %d", q.accounts, q.after, q.limit)
			}
		})
	}
}
