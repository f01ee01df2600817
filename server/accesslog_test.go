package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/server"
)

// Access lines follow ACCESS_LOG's level and ACCESS_LOG_SAMPLE; answers of
// 400 and above are always logged.
func TestAccessLogLevelAndSampling(t *testing.T) {
	db := testenv.Databases(t)[0]
	e := newAccessEnv(t, db, accessConfig{})
	lines := func(al server.AccessLog, level slog.Level, ok, bad int) int {
		buf := &testenv.SyncBuffer{}
		h := server.New(server.Options{Resolver: e.res, AccessLog: al,
			Logger: slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level}))})
		for range ok {
			require.Equal(t, http.StatusOK, doRequest(h, http.MethodGet, "/healthz", "").Code)
		}
		for range bad {
			require.Equal(t, http.StatusNotFound, doRequest(h, http.MethodGet, "/nowhere", "").Code)
		}
		return strings.Count(buf.String(), `"msg":"request"`)
	}
	require.Equal(t, 12, lines(server.AccessLog{}, slog.LevelInfo, 10, 2))
	require.Equal(t, 0, lines(server.AccessLog{Level: slog.LevelDebug}, slog.LevelInfo, 10, 2), "debug lines under LOG_LEVEL=info")
	require.Equal(t, 12, lines(server.AccessLog{Level: slog.LevelDebug}, slog.LevelDebug, 10, 2))
	require.Equal(t, 3+2, lines(server.AccessLog{Sample: 3}, slog.LevelInfo, 10, 2), "one in 3 of the 200s, every 404")
}
