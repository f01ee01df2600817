package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// SetKeyLimit changes only the fields it is given, also on a revoked key,
// and names an unknown key as such, on both databases.
func TestSetKeyLimit(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			ctx := context.Background()
			if _, err := st.CreateKey(ctx, store.APIKey{ID: "k1", Hash: "h1", Name: "a", RateLimit: 5, RateBurst: 7}); err != nil {
				t.Fatal(err)
			}
			rate, burst, unlimited, serverDefault := 50.0, 100, -1.0, 0.0
			steps := []struct {
				change    store.KeyLimit
				wantRate  float64
				wantBurst int
			}{
				{store.KeyLimit{}, 5, 7},
				{store.KeyLimit{Rate: &rate}, 50, 7},
				{store.KeyLimit{Burst: &burst}, 50, 100},
				{store.KeyLimit{Rate: &unlimited}, -1, 100},
				{store.KeyLimit{Rate: &serverDefault}, 0, 100},
			}
			for i, s := range steps {
				k, err := st.SetKeyLimit(ctx, "h1", s.change)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if k.RateLimit != s.wantRate || k.RateBurst != s.wantBurst || k.Name != "a" {
					t.Fatalf("step %d: got %+v, want rate %v burst %d", i, k, s.wantRate, s.wantBurst)
				}
			}
			if _, err := st.RevokeKey(ctx, "h1"); err != nil {
				t.Fatal(err)
			}
			k, err := st.SetKeyLimit(ctx, "h1", store.KeyLimit{Rate: &rate})
			if err != nil || k.RateLimit != 50 || k.Active() {
				t.Fatalf("revoked key: %+v, %v", k, err)
			}
			if _, err := st.SetKeyLimit(ctx, "nope", store.KeyLimit{Rate: &rate}); !errors.Is(err, store.ErrKeyNotFound) {
				t.Fatalf("unknown key: %v", err)
			}
		})
	}
}
