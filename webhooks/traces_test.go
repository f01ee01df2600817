package webhooks_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/webhooks"
)

// A hook of type trace gets every trace stored complete in which one of
// its addresses took part, once each after dedup, in order, beside the
// other types it watches, through a receiver that fails every third
// request.
func TestTraceHook(t *testing.T) {
	files := blockFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st, _, rc, svc := newRig(t, db.URL)
			watched := someOfAll(t)
			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			traces := rc.create(svc, "/traces", watched, webhooks.EventTrace)
			both := rc.create(svc, "/both", watched, webhooks.EventTransactions, webhooks.EventTrace)
			rc.failEveryThird()

			importFiles(t, st, files)
			var traceSeqs, txSeqs []uint64
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM traces WHERE seq > ? AND EXISTS (SELECT 1 FROM transactions AS t
				WHERE t.trace_id = traces.id AND t.account IN (?)) ORDER BY seq`, int64(start), bun.In(watched)).Scan(ctx, &traceSeqs))
			require.NotEmpty(t, traceSeqs)
			require.NoError(t, st.DB().NewRaw(`SELECT seq FROM transactions WHERE seq > ? AND account IN (?) ORDER BY seq`,
				int64(start), bun.In(watched)).Scan(ctx, &txSeqs))
			wantBoth := slices.Sorted(slices.Values(append(slices.Clone(txSeqs), traceSeqs...)))

			got, repeats := awaitHook(t, 3*time.Minute, svc, rc, traces.Webhook.ID, len(traceSeqs))
			require.Equal(t, traceSeqs, got, "each trace once after dedup, in order")
			gotBoth, _ := awaitHook(t, 3*time.Minute, svc, rc, both.Webhook.ID, len(wantBoth))
			require.Equal(t, wantBoth, gotBoth, "transactions and traces in one order")
			require.Empty(t, rc.bad, "every delivery was signed")

			// Each trace's data carries its actions as /api/v3/actions?trace_id=
			// shows them, with the address book and metadata of their
			// addresses.
			res := &resolvers.Resolver{Store: st}
			withActions := 0
			for _, d := range rc.deliveries(traces.Webhook.ID) {
				var data struct {
					Traces []struct {
						TraceID string `json:"trace_id"`
					} `json:"traces"`
					Actions     []any          `json:"actions"`
					AddressBook map[string]any `json:"address_book"`
					Metadata    map[string]any `json:"metadata"`
				}
				require.NoError(t, json.Unmarshal(d.Data, &data))
				require.Len(t, data.Traces, 1)
				id := data.Traces[0].TraceID
				limit, asc := 1000, model.SortOrderAsc
				list, err := res.Query().Actions(ctx, &model.ActionFilter{TraceID: []string{id}}, &limit, nil, &asc)
				require.NoError(t, err)
				b, err := list.AppendJSON(nil)
				require.NoError(t, err)
				var page struct {
					Actions  []any          `json:"actions"`
					Metadata map[string]any `json:"metadata"`
				}
				require.NoError(t, json.Unmarshal(b, &page))
				require.NotNil(t, data.Actions, "actions is a list, empty or not")
				require.Equal(t, page.Actions, data.Actions, "trace %s's actions", id)
				for addr := range list.AddressBook {
					require.Contains(t, data.AddressBook, addr)
				}
				for k, m := range page.Metadata {
					require.Equal(t, m, data.Metadata[k], "metadata of %s", k)
				}
				withActions += min(len(page.Actions), 1)
			}
			require.Positive(t, withActions, "some watched traces have actions")
			t.Logf("%s: %d traces (%d with actions), %d repeats", db.Name, len(traceSeqs), withActions, repeats)
		})
	}
}
