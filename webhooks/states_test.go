package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/webhooks"
)

// A hook choosing transactions and account_state_change gets, for each
// transaction of its addresses committed after it was made, the
// transaction and then its account's state at the place after it, in
// order, exactly once after dedup, through a receiver that fails every
// third request; a hook of account states alone gets only those places.
func TestAccountStateHook(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, _, rc, svc := newRig(t, db.URL)
			watched := someOfAll(t)
			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			both := rc.create(svc, "/both", watched, webhooks.EventTransactions, webhooks.EventAccountState)
			states := rc.create(svc, "/states", watched, webhooks.EventAccountState)
			rc.failEveryThird()

			importFiles(t, st, files)
			var txSeqs []uint64
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`,
				int64(start), bun.In(watched)).Scan(ctx, &txSeqs))
			require.NotEmpty(t, txSeqs)
			var wantBoth, wantStates []uint64
			for _, s := range txSeqs {
				wantBoth = append(wantBoth, s, s+store.TxSlotState)
				wantStates = append(wantStates, s+store.TxSlotState)
			}
			got, repeats := awaitHook(t, 3*time.Minute, svc, rc, both.Webhook.ID, len(wantBoth))
			require.Equal(t, wantBoth, got, "each transaction, then its state, in order, once after dedup")
			gotStates, _ := awaitHook(t, 3*time.Minute, svc, rc, states.Webhook.ID, len(wantStates))
			require.Equal(t, wantStates, gotStates, "the states hook: states only")
			require.Empty(t, rc.bad, "every delivery was signed")
			t.Logf("%s: %d transactions, %d repeats", db.Name, len(txSeqs), repeats)
		})
	}
}
