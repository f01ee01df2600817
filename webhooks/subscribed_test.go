package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/webhooks"
)

// The dispatcher subscribes to the types its live hooks watch, no more:
// with action hooks only, the hub reads no transaction for it; a hook made
// later for transactions gets every transaction of its addresses after it
// was made, once and in order (the dispatcher subscribed again from its
// stored cursor), and once it is deleted the hub stops reading them.
func TestDispatchSubscribesToTheHooksTypes(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, hub, rc, svc := newRig(t, db.URL)
			watched := someOfAll(t)
			actHook, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/act"), Addresses: watched})
			require.NoError(t, err)
			rc.mu.Lock()
			rc.secret[actHook.Webhook.ID] = actHook.Secret
			rc.mu.Unlock()

			third := len(files) / 3
			importFiles(t, st, files[:third])
			want := expectedSeqs(t, st, watched, 0)
			require.NotEmpty(t, want)
			awaitHook(t, 2*time.Minute, svc, rc, actHook.Webhook.ID, len(want))
			require.Zero(t, hub.Stats().TxReaders, "no hook wants transactions: the hub reads none")

			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			txHook, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/tx"), Addresses: watched, EventTypes: []string{webhooks.EventTransactions}})
			require.NoError(t, err)
			rc.mu.Lock()
			rc.secret[txHook.Webhook.ID] = txHook.Secret
			rc.mu.Unlock()
			importFiles(t, st, files[third:2*third])
			var wantTx []uint64
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`,
				int64(start), bun.In(watched)).Scan(ctx, &wantTx))
			require.NotEmpty(t, wantTx)
			got, repeats := awaitHook(t, 2*time.Minute, svc, rc, txHook.Webhook.ID, len(wantTx))
			require.Equal(t, wantTx, got, "every transaction after the hook was made, in order")
			require.Zero(t, repeats)
			// Live once its replay from the stored cursor caught up.
			require.Eventually(t, func() bool { return hub.Stats().TxReaders == 1 }, 30*time.Second, 20*time.Millisecond,
				"a hook wants transactions: the hub reads them")

			require.NoError(t, svc.Delete(ctx, "key1", txHook.Webhook.ID))
			importFiles(t, st, files[2*third:])
			want = expectedSeqs(t, st, watched, 0)
			got, repeats = awaitHook(t, 2*time.Minute, svc, rc, actHook.Webhook.ID, len(want))
			require.Equal(t, want, got, "the actions hook lost nothing to the subscriptions made again")
			require.Zero(t, repeats)
			require.Eventually(t, func() bool { return hub.Stats().TxReaders == 0 }, 30*time.Second, 20*time.Millisecond,
				"the transactions hook deleted: the hub reads no more")
		})
	}
}
