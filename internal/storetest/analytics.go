package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/store"
)

// AnalyticsRows is every row of the token analytics tables, in key order,
// as text: what two ways of keeping them must agree on.
func AnalyticsRows(t testing.TB, st *store.Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, order := range map[string]string{
		"analytics_trades":  "action_id, hop",
		"analytics_moves":   "action_id",
		"analytics_candles": "jetton, quote, interval_s, bucket",
		"analytics_volumes": "jetton, interval_s, bucket",
	} {
		var rows []map[string]any
		require.NoError(t, st.DB().NewSelect().TableExpr(table).OrderExpr(order).Scan(context.Background(), &rows))
		for _, r := range rows {
			keys := make([]string, 0, len(r))
			for k := range r {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			line := ""
			for _, k := range keys {
				v := r[k]
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				line += fmt.Sprintf("%s=%v ", k, v)
			}
			out[table] = append(out[table], line)
		}
	}
	return out
}
