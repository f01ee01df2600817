package notify_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
)

func blockFiles(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	require.NotEmpty(t, files)
	return files
}

func start(t *testing.T, st *store.Store, o notify.Options) *notify.Hub {
	o.Store, o.Book = st, (&resolvers.Resolver{Store: st}).AddressBookAndMetadata
	h, err := notify.Start(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return h
}

func importAll(t *testing.T, st *store.Store, files []string) {
	require.NoError(t, ingest.New(st).ImportFiles(context.Background(), files, func(p string, _ ingest.Stats, err error) {
		require.NoError(t, err, p)
	}))
}

// A subscriber that does not read is cut off when its queue is full: its
// queue is dropped (memory stays bounded), it learns why, and its position
// is what it had read, so a resume loses nothing.
func TestSlowSubscriberIsCutOff(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			h := start(t, st, notify.Options{Queue: 10})
			ctx := context.Background()
			slow, err := h.Subscribe(ctx, notify.Request{})
			require.NoError(t, err)
			defer slow.Close()
			first, err := slow.Next(ctx)
			require.NoError(t, err)
			require.Nil(t, first, "nothing committed yet")
			start := slow.Position()

			importAll(t, st, blockFiles(t))
			require.Eventually(t, func() bool { return h.Stats().CutSlow == 1 }, time.Minute, time.Millisecond)
			_, err = slow.Next(ctx)
			require.Error(t, err)
			require.Equal(t, apperr.Unavailable, apperr.From(err).Kind)
			require.Contains(t, err.Error(), "too slowly")
			require.Equal(t, start, slow.Position(), "the position is what was delivered")
			require.Equal(t, 0, h.Stats().Streams, "the slow subscriber's place is free")

			// Resuming from its position replays everything from the store.
			last, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			resumed, err := h.Subscribe(ctx, notify.Request{After: &start})
			require.NoError(t, err)
			defer resumed.Close()
			n := 0
			for {
				e, err := resumed.Next(ctx)
				require.NoError(t, err)
				if e == nil {
					break
				}
				n++
			}
			var stored int
			// The stream, unfiltered, hides nested actions as a page does.
			require.NoError(t, st.DB().NewRaw("SELECT count(*) FROM actions WHERE ancestors = ''").Scan(ctx, &stored))
			require.Equal(t, stored, n)
			require.GreaterOrEqual(t, resumed.Position(), last)
		})
	}
}

// Closing the hub ends every stream with a message that says to resume.
func TestCloseEndsStreams(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	h := start(t, st, notify.Options{})
	s, err := h.Subscribe(context.Background(), notify.Request{})
	require.NoError(t, err)
	h.Close()
	select {
	case <-s.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("not woken")
	}
	_, err = s.Next(context.Background())
	require.ErrorContains(t, err, "shutting down")
	_, err = h.Subscribe(context.Background(), notify.Request{})
	require.ErrorContains(t, err, "shutting down")
}

// A subscriber inside the server (the webhook dispatcher) is not a
// client's stream: tonql_streams_open and MaxStreams count clients only.
// Before, the dispatcher's subscription read as one open stream on an idle
// server (the e2e stream test waited for "1" and saw its own stream as 2).
func TestInternalSubscriptionIsNotAStream(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	h := start(t, st, notify.Options{MaxStreams: 1})
	in, err := h.Subscribe(context.Background(), notify.Request{Internal: true})
	require.NoError(t, err)
	require.Equal(t, 0, h.Stats().Streams)
	client, err := h.Subscribe(context.Background(), notify.Request{})
	require.NoError(t, err, "the internal subscriber takes no place of MaxStreams")
	require.Equal(t, 1, h.Stats().Streams)
	_, err = h.Subscribe(context.Background(), notify.Request{})
	require.ErrorContains(t, err, "limit of 1 streams")
	client.Close()
	in.Close()
	require.Equal(t, 0, h.Stats().Streams)
}
