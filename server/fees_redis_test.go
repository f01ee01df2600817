package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
)

// TestEstimateFeeSurvivesRedisStop wires the cache the way serve does
// (cache.New with a REDIS_URL), fills Redis through the route, kills the
// private redis-server and keeps posting: every request still succeeds
// with the same answer. Once with the defaults, where the process's own
// copies of Redis entries answer repeats, and once without those copies,
// so that every request after the kill really meets the dead Redis.
func TestEstimateFeeSurvivesRedisStop(t *testing.T) {
	r := importFeeReplay(t, testenv.Databases(t)[0])
	for name, opts := range map[string]fees.Options{
		"defaults":      {},
		"no-local-copy": {LocalCacheTTL: -1},
	} {
		t.Run(name, func(t *testing.T) { redisStopRun(t, r, opts) })
	}
}

func redisStopRun(t *testing.T, r *feeReplay, opts fees.Options) {
	srv := cachetest.StartRedis(t)
	c, err := cache.New("redis://"+srv.Addr+"/0", 1000)
	require.NoError(t, err)
	h := r.handlerWith(c, opts)

	post := func(round string) []*fees.Result {
		out := make([]*fees.Result, len(r.msgs))
		for i, m := range r.msgs {
			params := fmt.Sprintf(`{"address":%q,"body":%q}`, m.Account.ToRaw(), m.Body)
			path, body := "/api/v2/estimateFee", params
			if i%2 == 1 {
				path, body = "/api/v2/jsonRPC", rpcCall(fmt.Sprint(i), "estimateFee", params)
			}
			rec := doRequest(h, http.MethodPost, path, body)
			require.Equal(t, http.StatusOK, rec.Code, "%s %d: %s", round, i, rec.Body)
			out[i] = decodeV2(t, rec.Body.Bytes()).Result
		}
		return out
	}

	first := post("cold")
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	n, err := rdb.DBSize(context.Background()).Result()
	rdb.Close()
	require.NoError(t, err)
	require.Positive(t, n, "estimates were cached in Redis")
	for i, res := range post("from Redis") {
		sameFees(t, first[i], res, fmt.Sprintf("from Redis %d", i))
	}

	srv.Stop()
	for round := 0; round < 3; round++ {
		for i, res := range post(fmt.Sprintf("redis down %d", round)) {
			sameFees(t, first[i], res, fmt.Sprintf("redis down, round %d, message %d", round, i))
		}
	}
}
