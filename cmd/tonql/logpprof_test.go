package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// PPROF_ADDR serves the profiler on its own address only; the API's
// listener never has it.
func TestPprofOnItsOwnAddress(t *testing.T) {
	base, out := startServe(t, map[string]string{"DATABASE_URL": "sqlite:" + t.TempDir() + "/t.db", "PPROF_ADDR": "127.0.0.1:0"})
	re := regexp.MustCompile(`"msg":"profiler","url":"([^"]+)"`)
	var prof string
	for i := 0; i < 100 && prof == ""; i++ {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			prof = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NotEmpty(t, prof, out.String())
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get(prof + "goroutine?debug=1")
	require.Equal(t, 200, code)
	require.Contains(t, body, "goroutine profile")
	// The heap profile has samples: memory sampling is on with the profiler
	// (and off without it, where nothing could read it).
	code, body = get(prof + "heap?debug=1&gc=1")
	require.Equal(t, 200, code)
	require.Regexp(t, `^heap profile: [1-9]\d*: [1-9]`, body)
	require.NotZero(t, runtime.MemProfileRate)
	code, body = get(base + "/debug/pprof/goroutine?debug=1")
	require.Equal(t, 404, code) // no route there (and "debug" is not read as a key)
	require.NotContains(t, body, "goroutine profile")
}

// Log settings that do not parse stop the server at start, naming the variable.
func TestLogConfig(t *testing.T) {
	for k, v := range map[string]string{"LOG_LEVEL": "loud", "ACCESS_LOG": "warn", "ACCESS_LOG_SAMPLE": "0"} {
		var errb bytes.Buffer
		e := &env{stdout: io.Discard, stderr: &errb, getenv: func(key string) string {
			if key == k {
				return v
			}
			return ""
		}}
		require.Equal(t, 1, run(context.Background(), []string{"serve"}, e), k)
		require.Contains(t, errb.String(), k)
	}
}

// Without PPROF_ADDR the runtime does not sample allocations for a heap
// profile nobody can read (sampleMemory).
func TestNoMemorySamplingWithoutProfiler(t *testing.T) {
	t.Cleanup(func() { sampleMemory(true) }) // the test binary's -memprofile needs it back
	startServe(t, map[string]string{"DATABASE_URL": "sqlite:" + t.TempDir() + "/t.db"})
	require.Zero(t, runtime.MemProfileRate)
}
