package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/webhooks"
)

func dispatchCursor(t *testing.T, st *store.Store) int64 {
	var c int64
	require.NoError(t, st.DB().NewRaw("SELECT cursor FROM webhook_state WHERE id = 1").Scan(context.Background(), &c))
	return c
}

// A server started on a store that already holds actions (a bulk load, an
// import before the first start) does not read them all again for hooks
// that cannot take them: with no hook the cursor goes straight to the
// newest action; with one, to where that hook starts, and the hook still
// gets every event after its creation, once.
func TestDispatchSkipsWhatNoHookCanTake(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importFiles(t, st, files[:2])
			first, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Positive(t, first)
			require.Zero(t, dispatchCursor(t, st))

			// No hook: the cursor moves to the newest action at start.
			hub := startHub(t, st)
			rc := newReceiver(t)
			o := fastOptions(st, hub, rc.addr)
			svc := startService(t, o)
			require.Eventually(t, func() bool { return dispatchCursor(t, st) == int64(first) },
				30*time.Second, 20*time.Millisecond, "cursor at the newest action")
			svc.Close()

			// A hook made while no server runs, then more actions: the next
			// server starts from the hook's start, not from the newest.
			stopped := webhooks.New(o)
			watched := someOfAll(t)
			made, err := stopped.Create(ctx, "key1", webhooks.Input{URL: rc.url("/hook"), Addresses: watched})
			require.NoError(t, err)
			rc.mu.Lock()
			rc.secret[made.Webhook.ID] = made.Secret
			rc.mu.Unlock()
			importFiles(t, st, files[2:])
			last, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			require.Greater(t, last, first)

			svc = startService(t, o)
			want := expectedSeqs(t, st, watched, first)
			require.NotEmpty(t, want)
			got, repeats := awaitHook(t, 2*time.Minute, svc, rc, made.Webhook.ID, len(want))
			require.Equal(t, want, got, "every event after the hook was made, in order")
			require.Zero(t, repeats)
			require.Eventually(t, func() bool { return dispatchCursor(t, st) == int64(last) },
				30*time.Second, 20*time.Millisecond)
		})
	}
}
