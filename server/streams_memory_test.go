package server_test

import (
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
)

// inUse is the process's heap and stacks after a collection.
func inUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// openRaw opens n streams at path on raw connections that never read (the
// client's side is a socket each: no reader, no buffer).
func openRaw(t *testing.T, base, path string, n int) []net.Conn {
	conns := make([]net.Conn, n)
	for i := range conns {
		conns[i] = dialNotReading(t, base)
		_, err := fmt.Fprintf(conns[i], "GET %s HTTP/1.1\r\nHost: tonql\r\n\r\n", path)
		require.NoError(t, err)
	}
	return conns
}

// TestStreamMemory measures what an open stream costs the server: idle
// (live, nothing to send) and slow (resumed from the start of 1,430
// stored actions, reading nothing, before the stall cuts it). The figures
// go to docs/PERFORMANCE.md; the bounds asserted are loose multiples of
// what the buffers allow (StreamBuffer twice, a replay page, a goroutine
// or two), so a stream that held its backlog would fail them.
func TestStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 400 streams")
	}
	const n = 200
	_, hub, base := slowEnv(t, notify.Options{MaxStreamsPerAddress: 10 * n, Stall: time.Hour})
	settle := func(want int) {
		require.Eventually(t, func() bool { return hub.Stats().Streams == want }, time.Minute, 10*time.Millisecond)
		// Until the streams stop moving events.
		for prev := int64(-1); ; {
			time.Sleep(300 * time.Millisecond)
			d := hub.Stats().Delivered
			if d == prev {
				return
			}
			prev = d
		}
	}
	before := inUse()
	openRaw(t, base, "/api/v3/actions/stream", n)
	settle(n)
	idle := (inUse() - before) / n
	before = inUse()
	openRaw(t, base, "/api/v3/actions/stream?after="+resolvers.EncodeStreamCursor(0), n)
	settle(2 * n)
	slow := (inUse() - before) / n
	st := hub.Stats()
	t.Logf("per idle stream: %d KB; per slow stream: %d KB (%d events taken by %d slow streams, %d each)",
		idle>>10, slow>>10, st.Delivered, n, st.Delivered/n)
	require.Less(t, idle, int64(64<<10), "an idle stream's cost")
	require.Less(t, slow, int64(1<<20), "a slow stream's cost")
}
