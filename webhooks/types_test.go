package webhooks_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/webhooks"
)

// A hook that chooses transactions gets each transaction of its addresses
// committed after it was made, in commit order, exactly once after dedup,
// through a receiver that fails every fourth request; a hook of the same
// addresses choosing actions gets no transaction (its events are the
// actions' seqs only).
func TestTransactionsHook(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, _, rc, svc := newRig(t, db.URL)
			watched := someOfAll(t)
			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			txHook, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/tx"), Addresses: watched, EventTypes: []string{webhooks.EventTransactions}})
			require.NoError(t, err)
			actHook, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/act"), Addresses: watched})
			require.NoError(t, err)
			rc.mu.Lock()
			rc.secret[txHook.Webhook.ID], rc.secret[actHook.Webhook.ID] = txHook.Secret, actHook.Secret
			rc.behave = func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n%4 == 1 {
					http.Error(w, "receiver broken", http.StatusInternalServerError)
					return false
				}
				return true
			}
			rc.mu.Unlock()

			importFiles(t, st, files)
			var wantTx []uint64
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`,
				int64(start), bun.In(watched)).Scan(ctx, &wantTx))
			require.NotEmpty(t, wantTx)
			got, repeats := awaitHook(t, 3*time.Minute, svc, rc, txHook.Webhook.ID, len(wantTx))
			require.Equal(t, wantTx, got, "every transaction, in order, once after dedup")
			require.Empty(t, rc.bad, "every delivery was signed")
			wantActs := expectedSeqs(t, st, watched, start)
			gotActs, _ := awaitHook(t, 3*time.Minute, svc, rc, actHook.Webhook.ID, len(wantActs))
			require.Equal(t, wantActs, gotActs, "the actions hook: actions only")
			t.Logf("%s: %d transactions, %d repeats; %d actions", db.Name, len(wantTx), repeats, len(wantActs))
		})
	}
}
