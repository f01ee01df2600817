package lite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/tonkeeper/tongo/config"
	"github.com/tonkeeper/tongo/liteapi"
	"github.com/tonkeeper/tongo/liteclient"

	"github.com/tonql/tonql/internal/backoff"
	"github.com/tonql/tonql/internal/ratelog"
)

// ErrUnavailable wraps every failure to reach a lite server (as opposed to
// a server's answer that something does not exist).
var ErrUnavailable = errors.New("lite servers unavailable")

// Options tune a Client; zero values take the defaults.
type Options struct {
	CallTimeout time.Duration  // one request to one server; default 10s
	DialTimeout time.Duration  // TCP connect plus ADNL handshake; default 5s
	Backoff     backoff.Policy // how long a failing server (or config source) rests; zero = backoff.Network()
	Logger      *slog.Logger   // nil = slog.Default()
}

// Client spreads calls over lite servers: the last server that answered
// first, then the others; a server that failed rests for a backoff with
// jitter before it is tried again. Safe for concurrent use.
//
// tongo's liteapi client cannot be closed and its connection runs
// goroutines for the life of the process, so each server gets one liteapi
// client, made on first use and kept (tongo reconnects it by itself). A
// handshake that hangs cannot be cancelled either: such a dial is abandoned
// by the caller after DialTimeout and no second dial to that server starts
// until it ends.
type Client struct {
	load  func(ctx context.Context) ([]config.LiteServer, error)
	opt   Options
	log   *slog.Logger
	warn  *ratelog.Limiter
	now   func() time.Time
	dials sync.WaitGroup

	loadMu sync.Mutex // one config load at a time

	mu           sync.Mutex
	servers      []*server // nil until the list loaded
	loadErr      error
	loadFailures int
	loadRetryAt  time.Time
	preferred    int
	lastOK       time.Time
}

type server struct {
	cfg      config.LiteServer
	api      *liteapi.Client // nil until connected
	dialing  bool
	failures int
	retryAt  time.Time
	lastErr  error
}

// New makes a client that gets its server list from load (retried with
// backoff while it fails: the server starts degraded, not dead).
func New(load func(ctx context.Context) ([]config.LiteServer, error), opt Options) *Client {
	if opt.CallTimeout <= 0 {
		opt.CallTimeout = 10 * time.Second
	}
	if opt.DialTimeout <= 0 {
		opt.DialTimeout = 5 * time.Second
	}
	if opt.Backoff == (backoff.Policy{}) {
		opt.Backoff = backoff.Network()
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "lite")
	return &Client{load: load, opt: opt, log: log, warn: ratelog.New(log, time.Minute), now: time.Now}
}

// Close waits for abandoned dials to end, until ctx does. Connections that
// tongo made stay with the process (see Client).
func (c *Client) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() { c.dials.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do runs fn on one server after another until one answers. An error the
// server answered with (liteclient.LiteServerErrorC: block not found, ...)
// is returned as is: the server is fine, asking another will not help.
func (c *Client) do(ctx context.Context, what string, fn func(ctx context.Context, api *liteapi.Client) error) error {
	if err := c.ensureServers(ctx); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, what, err)
	}
	var failed []string
	for _, s := range c.candidates() {
		api, err := c.connect(ctx, s)
		if err == nil {
			cctx, cancel := context.WithTimeout(ctx, c.opt.CallTimeout)
			err = fn(cctx, api)
			cancel()
			var answered liteclient.LiteServerErrorC
			if err == nil || errors.As(err, &answered) {
				c.succeeded(s)
				return err
			}
			if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
				err = fmt.Errorf("no answer within %v", c.opt.CallTimeout)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.failed(s, err)
		failed = append(failed, s.cfg.Host+": "+err.Error())
	}
	if len(failed) == 0 {
		return fmt.Errorf("%w: %s: every server is resting after failures (%s)", ErrUnavailable, what, c.reason())
	}
	return fmt.Errorf("%w: %s: %s", ErrUnavailable, what, strings.Join(failed, "; "))
}

// ensureServers loads the server list once; while it fails, it is retried
// no more often than the backoff allows.
func (c *Client) ensureServers(ctx context.Context) error {
	c.mu.Lock()
	if c.servers != nil {
		c.mu.Unlock()
		return nil
	}
	if c.now().Before(c.loadRetryAt) {
		err := c.loadErr
		c.mu.Unlock()
		return err
	}
	c.mu.Unlock()

	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	c.mu.Lock()
	loaded := c.servers != nil
	c.mu.Unlock()
	if loaded {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, 3*c.opt.CallTimeout)
	list, err := c.load(lctx)
	cancel()
	if err == nil && len(list) == 0 {
		err = errors.New("the lite-server list is empty")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.loadFailures++
		c.loadErr = err
		c.loadRetryAt = c.now().Add(c.opt.Backoff.Delay(c.loadFailures, nil))
		c.warn.Warn("lite-server list unavailable; running degraded", err)
		return err
	}
	for _, cfg := range list {
		c.servers = append(c.servers, &server{cfg: cfg})
	}
	c.loadErr = nil
	c.log.Info("lite servers configured", "servers", len(list))
	return nil
}

// candidates lists the servers to try now: the preferred one first, then
// the rest in order, leaving out those resting or still dialing.
func (c *Client) candidates() []*server {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	out := make([]*server, 0, len(c.servers))
	for k := range c.servers {
		s := c.servers[(c.preferred+k)%len(c.servers)]
		if s.dialing || now.Before(s.retryAt) {
			continue
		}
		out = append(out, s)
	}
	return out
}

type dialResult struct {
	api *liteapi.Client
	err error
}

// connect returns the server's client, dialing it first when needed.
func (c *Client) connect(ctx context.Context, s *server) (*liteapi.Client, error) {
	c.mu.Lock()
	if s.api != nil {
		api := s.api
		c.mu.Unlock()
		return api, nil
	}
	s.dialing = true
	c.mu.Unlock()

	res := make(chan dialResult, 1)
	c.dials.Add(1)
	go func() {
		defer c.dials.Done()
		api, err := c.dial(s.cfg)
		c.mu.Lock()
		s.dialing = false
		if err == nil {
			s.api = api
		}
		c.mu.Unlock()
		res <- dialResult{api, err}
	}()
	t := time.NewTimer(c.opt.DialTimeout)
	defer t.Stop()
	select {
	case r := <-res:
		return r.api, r.err
	case <-t.C:
		return nil, fmt.Errorf("connect: no handshake within %v", c.opt.DialTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// dial probes TCP first, because tongo reports any failed connection as
// "all liteservers are unavailable" and the reason (refused, unroutable)
// is what an operator needs to read.
func (c *Client) dial(cfg config.LiteServer) (*liteapi.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opt.DialTimeout)
	defer cancel()
	var d net.Dialer
	probe, err := d.DialContext(ctx, "tcp", cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	probe.Close()
	api, err := liteapi.NewClient(liteapi.WithLiteServers([]config.LiteServer{cfg}),
		liteapi.WithTimeout(c.opt.CallTimeout), liteapi.WithInitializationContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("connect: handshake or first request failed: %w", err)
	}
	return api, nil
}

func (c *Client) failed(s *server, err error) {
	c.mu.Lock()
	s.failures++
	s.lastErr = err
	wait := c.opt.Backoff.Delay(s.failures, nil)
	s.retryAt = c.now().Add(wait)
	failures := s.failures
	c.mu.Unlock()
	c.warn.Warn("lite server failed", err, "server", s.cfg.Host, "failures", failures, "rest", wait.Round(time.Millisecond).String())
}

func (c *Client) succeeded(s *server) {
	c.mu.Lock()
	recovered := s.failures > 0
	s.failures, s.lastErr, s.retryAt = 0, nil, time.Time{}
	for i, x := range c.servers {
		if x == s {
			c.preferred = i
		}
	}
	c.lastOK = c.now()
	c.mu.Unlock()
	if recovered {
		c.log.Info("lite server recovered", "server", s.cfg.Host)
		c.warn.Forget()
	}
}

// reason summarizes what is wrong, for errors and the health check.
func (c *Client) reason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.servers == nil {
		if c.loadErr != nil {
			return "no lite-server list: " + c.loadErr.Error()
		}
		return "lite-server list not loaded yet"
	}
	var parts []string
	for _, s := range c.servers {
		if s.lastErr != nil {
			parts = append(parts, s.cfg.Host+": "+s.lastErr.Error())
		}
	}
	if len(parts) == 0 {
		return "no server answered yet"
	}
	return strings.Join(parts, "; ")
}

// Ping is the health check for /readyz: nil when a server answered within
// the last 30 seconds or answers now, else an error saying why the server
// runs degraded (it still answers from the store).
func (c *Client) Ping(ctx context.Context) error {
	c.mu.Lock()
	fresh := !c.lastOK.IsZero() && c.now().Sub(c.lastOK) < 30*time.Second
	c.mu.Unlock()
	if fresh {
		return nil
	}
	_, err := c.Head(ctx)
	return err
}

// ServerStatus is one server's state, for metrics and diagnostics.
type ServerStatus struct {
	Host      string
	Connected bool
	Failures  int
	LastError string
}

// Status lists the configured servers (none while the list is not loaded).
func (c *Client) Status() []ServerStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ServerStatus, 0, len(c.servers))
	for _, s := range c.servers {
		st := ServerStatus{Host: s.cfg.Host, Connected: s.api != nil, Failures: s.failures}
		if s.lastErr != nil {
			st.LastError = s.lastErr.Error()
		}
		out = append(out, st)
	}
	return out
}
