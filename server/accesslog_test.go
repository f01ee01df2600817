package server_test

import (
	"encoding/json"
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
		h := newServer(t, server.Options{Resolver: e.res, AccessLog: al,
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

// The request line says how many statements the request ran on Postgres
// and how long they held a connection; a request that ran none says
// nothing about the database.
func TestAccessLogTimesStatements(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			e := newAccessEnv(t, db, accessConfig{})
			buf := &testenv.SyncBuffer{}
			h := newServer(t, server.Options{Resolver: e.res,
				Logger: slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))})
			require.Equal(t, http.StatusOK, doRequest(h, http.MethodGet, "/api/v3/actions?limit=5", "").Code)
			require.Equal(t, http.StatusOK, doRequest(h, http.MethodGet, "/healthz", "").Code)
			var got []map[string]any
			for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &m), l)
				if m["msg"] == "request" {
					got = append(got, m)
				}
			}
			require.Len(t, got, 2)
			page, health := got[0], got[1]
			require.Equal(t, "/api/v3/actions", page["path"])
			if db.Name == "sqlite" { // SQLite's statements are not timed
				require.NotContains(t, page, "db_statements")
				return
			}
			require.GreaterOrEqual(t, page["db_statements"], 1.0)
			require.Greater(t, page["db_ms"], 0.0)
			require.LessOrEqual(t, page["db_ms"], page["duration_ms"])
			require.NotContains(t, health, "db_statements")
			require.NotContains(t, health, "db_ms")
		})
	}
}
