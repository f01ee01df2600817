package lite

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/config"

	"github.com/tonql/tonql/internal/backoff"
)

// testKey is a valid ed25519 public key that no server here owns.
var testKey = func() string {
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 1
	return base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
}()

// badServer is a local TCP socket that misbehaves the way a lite server
// can: it never answers, or it answers a few bytes and hangs up.
type badServer struct {
	ln       net.Listener
	accepted atomic.Int32
	mu       sync.Mutex
	conns    []net.Conn
	wg       sync.WaitGroup
}

func startBad(t *testing.T, serve func(net.Conn)) *badServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	b := &badServer{ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.accepted.Add(1)
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
			b.wg.Add(1)
			go func() { defer b.wg.Done(); serve(c) }()
		}
	}()
	t.Cleanup(b.shutdown)
	return b
}

// shutdown closes the socket and its connections, which ends tongo's hung
// handshakes, so the client's abandoned dials finish. Idempotent.
func (b *badServer) shutdown() {
	b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *badServer) server() config.LiteServer {
	return config.LiteServer{Host: b.ln.Addr().String(), Key: testKey}
}

// hang accepts and never answers (a stuck or overloaded server).
func hang(c net.Conn) { _, _ = io.Copy(io.Discard, c) }

// closeMidAnswer reads the handshake, answers half a packet and hangs up.
func closeMidAnswer(c net.Conn) {
	buf := make([]byte, 256)
	_, _ = io.ReadFull(c, buf)
	_, _ = c.Write([]byte{0x44, 0x00, 0x00})
	c.Close()
}

// refusing returns an address nothing listens on.
func refusing(t *testing.T) config.LiteServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return config.LiteServer{Host: addr, Key: testKey}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeClock) add(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// newTestClient makes a client of the servers; when the test ends the bad
// servers shut down first, then the client must have no dial left.
func newTestClient(t *testing.T, bad []*badServer, servers ...config.LiteServer) (*Client, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := New(func(context.Context) ([]config.LiteServer, error) { return servers, nil }, Options{
		CallTimeout: 300 * time.Millisecond, DialTimeout: 300 * time.Millisecond,
		Backoff: backoff.Policy{Base: time.Second, Max: time.Minute},
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	c.now = clock.now
	t.Cleanup(func() {
		for _, b := range bad {
			b.shutdown()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, c.Close(ctx), "abandoned dials did not end")
	})
	return c, clock
}

func TestRefusedServerRestsThenIsRetried(t *testing.T) {
	srv := refusing(t)
	c, clock := newTestClient(t, nil, srv)
	_, err := c.Head(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "connection refused")
	require.ErrorContains(t, err, srv.Host)

	// Within its rest the server is not dialed again: the error says so.
	_, err = c.Head(context.Background())
	require.ErrorContains(t, err, "resting")
	require.Equal(t, 1, c.Status()[0].Failures)

	// After the backoff it is tried again, and the rest grows (the second
	// is 1s..2s with jitter, the first was 0.5s..1s).
	clock.add(time.Second + time.Millisecond)
	failedAt := clock.now()
	_, err = c.Head(context.Background())
	require.ErrorContains(t, err, "connection refused")
	require.Equal(t, 2, c.Status()[0].Failures)
	c.mu.Lock()
	rest := c.servers[0].retryAt.Sub(failedAt)
	c.mu.Unlock()
	require.GreaterOrEqual(t, rest, time.Second)
	require.LessOrEqual(t, rest, 2*time.Second)
}

func TestHangingServerTimesOutAndIsNotRedialed(t *testing.T) {
	bad := startBad(t, hang)
	c, clock := newTestClient(t, []*badServer{bad}, bad.server())
	_, err := c.Head(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "no handshake within 300ms")
	accepted := bad.accepted.Load()
	require.GreaterOrEqual(t, accepted, int32(2), "TCP probe and handshake connection")

	// Even after its rest, a server whose handshake still hangs is not
	// dialed a second time: tongo cannot cancel the first.
	clock.add(time.Hour)
	_, err = c.Head(context.Background())
	require.ErrorContains(t, err, "resting")
	require.Equal(t, accepted, bad.accepted.Load())
}

func TestServerClosingMidAnswer(t *testing.T) {
	bad := startBad(t, closeMidAnswer)
	c, _ := newTestClient(t, []*badServer{bad}, bad.server())
	_, err := c.Head(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "handshake or first request failed")
}

func TestFailoverTriesEveryServerAndNamesEach(t *testing.T) {
	hung := startBad(t, hang)
	closing := startBad(t, closeMidAnswer)
	servers := []config.LiteServer{refusing(t), hung.server(), closing.server()}
	c, _ := newTestClient(t, []*badServer{hung, closing}, servers...)
	_, err := c.LookupMaster(context.Background(), 1)
	require.ErrorIs(t, err, ErrUnavailable)
	for _, s := range servers {
		require.ErrorContains(t, err, s.Host)
	}
	require.Positive(t, hung.accepted.Load())
	require.Positive(t, closing.accepted.Load())
	for _, st := range c.Status() {
		require.Equal(t, 1, st.Failures, st.Host)
		require.False(t, st.Connected)
		require.NotEmpty(t, st.LastError)
	}
	require.Error(t, c.Ping(context.Background()))
}

func TestMissingServerListIsDegradedAndRetriedWithBackoff(t *testing.T) {
	var loads atomic.Int32
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := New(func(context.Context) ([]config.LiteServer, error) {
		loads.Add(1)
		return nil, errors.New("download https://ton.org/global.config.json: no route to host")
	}, Options{Backoff: backoff.Policy{Base: time.Second, Max: time.Minute}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	c.now = clock.now
	for range 5 {
		err := c.Ping(context.Background())
		require.ErrorIs(t, err, ErrUnavailable)
		require.ErrorContains(t, err, "no route to host")
	}
	require.EqualValues(t, 1, loads.Load(), "the list is not re-downloaded during its backoff")
	clock.add(2 * time.Second)
	require.Error(t, c.Ping(context.Background()))
	require.EqualValues(t, 2, loads.Load())
}

func TestSettingsLoad(t *testing.T) {
	ctx := context.Background()
	got, err := Settings{Servers: "127.0.0.1:1234:" + testKey + ",10.0.0.1:99:" + testKey}.Load(ctx)
	require.NoError(t, err)
	require.Equal(t, []config.LiteServer{{Host: "127.0.0.1:1234", Key: testKey}, {Host: "10.0.0.1:99", Key: testKey}}, got)
	_, err = Settings{Servers: "nonsense"}.Load(ctx)
	require.ErrorContains(t, err, "LITE_SERVERS")

	// A global config file, as ton.org publishes it (ip is a signed int32).
	global := fmt.Sprintf(`{"liteservers":[{"ip":2130706433,"port":4924,"id":{"@type":"pub.ed25519","key":%q}}]}`, testKey)
	path := filepath.Join(t.TempDir(), "global.config.json")
	require.NoError(t, os.WriteFile(path, []byte(global), 0o644))
	got, err = Settings{ConfigRef: path, Servers: "ignored"}.Load(ctx)
	require.NoError(t, err)
	require.Equal(t, []config.LiteServer{{Host: "127.0.0.1:4924", Key: testKey}}, got)

	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/global.config.json" {
			_, _ = io.WriteString(w, global)
			return
		}
		http.NotFound(w, r)
	}))
	defer hs.Close()
	got, err = Settings{ConfigRef: hs.URL + "/global.config.json"}.Load(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	_, err = Settings{ConfigRef: hs.URL + "/missing.json"}.Load(ctx)
	require.ErrorContains(t, err, "404")

	require.Contains(t, Settings{Network: "testnet"}.Describe(), TestnetConfigURL)
	require.Contains(t, Settings{}.Describe(), MainnetConfigURL)
}
