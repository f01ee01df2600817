package redislog_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/redislog"
	"github.com/tonql/tonql/internal/testenv"
)

// go-redis's own lines during an outage come out as JSON, once.
func TestGoRedisLogsThroughOurLogger(t *testing.T) {
	srv := cachetest.StartRedis(t)
	buf := &testenv.SyncBuffer{}
	redislog.Install(slog.New(slog.NewJSONHandler(buf, nil)))
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	defer rdb.Close()
	srv.Stop()
	for range 5 {
		_ = rdb.Ping(context.Background()).Err()
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line for the outage, got %d:\n%s", len(lines), buf.String())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatalf("not JSON: %q", lines[0])
	}
	if m["msg"] != "redis client" || !strings.Contains(m["error"].(string), "dial") {
		t.Fatalf("unexpected line %v", m)
	}
}
