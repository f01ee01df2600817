package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
)

// The stream applies the nested rule as pages do, live (in memory) and in
// a replay (in SQL): by default the steps of a purchase are not streamed,
// a v1 client gets them instead of the purchase, a client that shows
// purchases gets the purchase alone.
func TestStreamHidesNestedActions(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			h := start(t, st, notify.Options{})
			filters := map[string]store.ActionFilter{
				"default": {},
				"v1":      {Types: []string{"NftItemTransfer", "TonTransfer"}, Nested: store.NestedRule{Show: true}},
				"nft.v3":  {Nested: store.NestedRule{Show: true, HiddenUnder: []string{"NftPurchase"}}},
			}
			want := map[string][]string{
				"default": {storetest.TransferID, storetest.PurchaseID},
				"v1":      {storetest.TransferID, storetest.ItemID, storetest.PaymentID},
				"nft.v3":  {storetest.TransferID, storetest.PurchaseID},
			}
			subs := map[string]*notify.Subscription{}
			for name, f := range filters {
				s, err := h.Subscribe(ctx, notify.Request{Filter: f})
				require.NoError(t, err)
				defer s.Close()
				subs[name] = s
			}
			n := storetest.NestedBatch(0, 0)
			require.NoError(t, st.SaveBatch(ctx, n.Batch))
			read := func(s *notify.Subscription, count int) []string {
				var got []string
				deadline := time.After(10 * time.Second)
				for len(got) < count {
					e, err := s.Next(ctx)
					require.NoError(t, err)
					if e != nil {
						got = append(got, e.Action.ActionID)
						continue
					}
					select {
					case <-s.Ready():
					case <-deadline:
						t.Fatalf("got %v, want %d events", got, count)
					}
				}
				return got
			}
			for name, s := range subs {
				require.ElementsMatch(t, want[name], read(s, len(want[name])), "live: %s", name)
			}
			// Nothing more arrives on the default stream (the steps were skipped, not late).
			time.Sleep(50 * time.Millisecond)
			e, err := subs["default"].Next(ctx)
			require.NoError(t, err)
			require.Nil(t, e)
			for name, f := range filters {
				from := uint64(0)
				s, err := h.Subscribe(ctx, notify.Request{Filter: f, After: &from})
				require.NoError(t, err)
				defer s.Close()
				require.ElementsMatch(t, want[name], read(s, len(want[name])), "replayed: %s", name)
			}
		})
	}
}

// A trace event carries the trace's actions, nested ones too, and each
// subscriber on toncenter's protocol gets those its filter shows, as its
// action events: by default the purchase, a v1 client its steps instead,
// a client that shows purchases the purchase alone.
func TestTraceEventNestedActions(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			h := start(t, st, notify.Options{})
			filters := map[string]store.ActionFilter{
				"default":     {},
				"v1":          {Types: []string{"NftItemTransfer", "TonTransfer"}, Nested: store.NestedRule{Show: true}},
				"nft.v3":      {Nested: store.NestedRule{Show: true, HiddenUnder: []string{"NftPurchase"}}},
				"action_type": {Types: []string{"TonTransfer"}},
			}
			want := map[string][]string{
				"default":     {storetest.TransferID, storetest.PurchaseID},
				"v1":          {storetest.TransferID, storetest.ItemID, storetest.PaymentID},
				"nft.v3":      {storetest.TransferID, storetest.PurchaseID},
				"action_type": {storetest.TransferID},
			}
			subs := map[string]*notify.Subscription{}
			for name, f := range filters {
				s, err := h.Subscribe(ctx, notify.Request{Filter: f, Types: []string{notify.TypeTrace}})
				require.NoError(t, err)
				defer s.Close()
				subs[name] = s
			}
			n := storetest.NestedBatch(0, 0)
			require.NoError(t, st.SaveBatch(ctx, n.Batch))
			for name, s := range subs {
				got := map[string][]string{} // trace id -> action ids shown
				deadline := time.After(10 * time.Second)
			read:
				for {
					e, err := s.Next(ctx)
					require.NoError(t, err)
					if e == nil {
						select {
						case <-s.Ready():
						case <-time.After(300 * time.Millisecond):
							if len(got) > 0 {
								break read // the batch's traces came together
							}
						case <-deadline:
							t.Fatalf("%s: no trace event", name)
						}
						continue
					}
					require.NotNil(t, e.Trace, name)
					acts, err := s.ToncenterActions(e)
					require.NoError(t, err)
					got[e.Trace.Trace.ID] = []string{}
					for _, a := range acts {
						got[e.Trace.Trace.ID] = append(got[e.Trace.Trace.ID], a.ActionID)
					}
				}
				var all []string
				for _, ids := range got {
					all = append(all, ids...)
				}
				require.ElementsMatch(t, want[name], all, name)
			}
		})
	}
}
