package resolvers

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// Say what we know: an account the server holds no state of is not
// "uninitialized" (an active mainnet wallet would read as new), but an
// error saying the server holds none and how to get one. Uninitialized is
// answered when the chain says so: a stored state, or the account's last
// stored transaction leaving it nonexistent. One that left it
// uninitialized (balance unknown) or active (state unknown) is said as
// such in the error. Accounts and their statuses are read from the
// imported fixtures (raw blocks, toncenter traces, the fee-replay
// block's states), on SQLite and Postgres.
func TestAccountStateSaysWhatTheServerKnows(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	files = append(append(files, filepath.Join(dir, "fee-replay", "tvm_replay_fat_block_66519406.json")), traces...)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			im := ingest.New(st)
			require.NoError(t, im.ImportFiles(ctx, files, func(path string, _ ingest.Stats, err error) { require.NoError(t, err, path) }))
			r := &Resolver{Store: st, Fees: fees.New(st, nil, fees.Options{Emulators: 1})}

			// One account of each kind, found by SQL over what was imported.
			pick := func(q string) string {
				var addr string
				require.NoError(t, st.DB().QueryRowContext(ctx, q).Scan(&addr), q)
				return addr
			}
			lastLeft := func(status string) string {
				return pick(`SELECT t.account FROM transactions t WHERE t.end_status = '` + status + `'
					AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.address = t.account)
					AND t.lt = (SELECT max(x.lt) FROM transactions x WHERE x.account = t.account) ORDER BY t.account LIMIT 1`)
			}
			withState := pick(`SELECT address FROM accounts WHERE status = 'active' AND shard_account_boc IS NOT NULL ORDER BY address LIMIT 1`)
			gone, uninit, active := lastLeft("nonexist"), lastLeft("uninit"), lastLeft("active")
			const nobody = "0:0102030000000000000000000000000000000000000000000000000000000000"

			a, err := r.AccountState(ctx, withState)
			require.NoError(t, err)
			require.Equal(t, accountinfo.StateActive, a.Info.Status)

			a, err = r.AccountState(ctx, gone)
			require.NoError(t, err)
			require.Equal(t, accountinfo.StateUninitialized, a.Info.Status)
			last, err := st.LastTransaction(ctx, gone)
			require.NoError(t, err)
			require.Equal(t, last.Lt, a.Info.LastTxLt, "the transaction that says so")
			require.Equal(t, last.Hash, a.Info.LastTxHash)
			require.Zero(t, a.Info.Balance)

			for addr, says := range map[string]string{nobody: "", uninit: "left it uninit", active: "left it active"} {
				_, err := r.AccountState(ctx, addr)
				noState(t, err, addr, says)
				_, err = r.RunGetMethod(ctx, addr, getmethod.Method{Name: "seqno"}, tlb.VmStack{})
				noState(t, err, addr, says)
			}
		})
	}
}

func noState(t *testing.T, err error, addr, says string) {
	t.Helper()
	require.Error(t, err, addr)
	e := apperr.From(err)
	require.Equal(t, apperr.NotFound, e.Kind, "%s: %v", addr, err)
	require.Contains(t, e.Public(), "holds no state of account "+addr)
	require.Contains(t, e.Public(), "LITE_SERVERS")
	require.Contains(t, e.Public(), "tonql import")
	require.NotContains(t, e.Public(), "uninitialized")
	require.Contains(t, e.Public(), says)
}
