// Package redislog sends go-redis's own log lines (a pool that cannot
// dial, a connection closed under it) through the server's JSON logger,
// each distinct line at most once a minute: left alone, go-redis prints
// plain-text lines to stderr, one per attempt, 38 in a 20 s outage.
package redislog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tonql/tonql/internal/ratelog"
)

type logger struct{ rl *ratelog.Limiter }

func (l logger) Printf(_ context.Context, format string, v ...any) {
	l.rl.Warn("redis client", errors.New(strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")))
}

// Install makes go-redis log through log. go-redis keeps one logger per
// process, so this is for main, once.
func Install(log *slog.Logger) {
	redis.SetLogger(logger{rl: ratelog.New(log, time.Minute)})
}
