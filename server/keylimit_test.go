package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/store"
)

// A limit changed in the store (`tonql keys limit`) reaches a running
// server when its cached key lookup expires, and not before: unlimited,
// then back to the server default. Two fake clocks keep the lookup cache's
// expiry apart from bucket refills, so no token comes from waiting.
func TestKeyLimitChangeReachesRunningServer(t *testing.T) {
	bucketNow := time.Unix(1_800_000_000, 0)
	lookupNow := bucketNow
	e := newAccessEnv(t, testenv.Databases(t)[0], accessConfig{require: true,
		limit: ratelimit.Limit{Rate: 10, Burst: 20}, now: func() time.Time { return bucketNow }})
	e.access.Keys = apikey.NewLookup(e.st, apikey.LookupOptions{Now: func() time.Time { return lookupNow }})
	key, _ := e.newKey(t, "bot", ratelimit.Limit{Rate: 1, Burst: 1})
	h := e.handler(nil)
	path := "/" + key + "/api/v3/actions?limit=1"
	status := func() (int, string) {
		rec := doRequest(h, http.MethodGet, path, "")
		return rec.Code, rec.Body.String()
	}
	setRate := func(rate float64) {
		_, err := e.st.SetKeyLimit(context.Background(), apikey.Hash(key), store.KeyLimit{Rate: &rate})
		require.NoError(t, err)
	}

	code, _ := status()
	require.Equal(t, http.StatusOK, code)
	code, body := status()
	require.Equal(t, http.StatusTooManyRequests, code)
	require.Contains(t, body, "1 requests/s, burst 1")

	setRate(-1)
	code, _ = status()
	require.Equal(t, http.StatusTooManyRequests, code, "the cached key keeps its old limit")
	lookupNow = lookupNow.Add(5 * time.Second)
	for range 5 {
		code, body = status()
		require.Equal(t, http.StatusOK, code, body)
	}

	setRate(0) // the key keeps its own burst of 1 with the server's rate
	lookupNow = lookupNow.Add(5 * time.Second)
	code, body = status()
	require.Equal(t, http.StatusTooManyRequests, code)
	require.Contains(t, body, "10 requests/s, burst 1")
}
