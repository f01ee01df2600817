package main

import (
	"errors"
	"log/slog"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/server"
)

// config is the effective configuration: defaults that need no
// infrastructure, overridden by environment variables, overridden by flags.
type config struct {
	ListenAddr  string
	DatabaseURL string
	RedisURL    string
	// Read replicas of a Postgres DATABASE_URL (docs/OPERATIONS.md).
	DatabaseReplicas string // comma-separated postgres:// URLs
	ReplicaMaxLag    time.Duration
	Network          string

	// Personal endpoints and hardening (docs/OPERATIONS.md).
	RequireAPIKey  bool
	RateLimit      float64 // requests per second per key; 0 = unlimited
	RateBurst      int
	RequestTimeout time.Duration
	CORSOrigins    string // comma-separated browser origins; "*" = any

	// Logs and profiling (docs/OPERATIONS.md).
	LogLevel        string // debug, info, warn, error
	AccessLog       string // the level of the per-request line: info or debug
	AccessLogSample int    // log one in N answers below 400
	PprofAddr       string // net/http/pprof on its own listener; empty = off

	// Action streams (docs/OPERATIONS.md).
	MaxStreams       int
	MaxStreamsPerKey int

	// Live chain (docs/LIVE.md).
	LiteServersConfig string        // path or URL of a TON global config JSON
	LiteServers       string        // tongo's "ip:port:key,..."
	Follow            bool          // serve also follows the chain
	StateMaxAge       time.Duration // older stored states are refreshed from lite servers for fees

	// FeeClock is the chain time estimates run at: "wall", or "head" (the
	// newest block the database holds: for a server of an imported snapshot).
	FeeClock string

	envErrs []error // environment values that did not parse
}

// bindConfig registers the shared flags on fs with defaults taken from the
// environment.
func bindConfig(fs *flag.FlagSet, e *env) *config {
	c := &config{}
	fs.StringVar(&c.ListenAddr, "listen", envOr(e, "LISTEN_ADDR", "127.0.0.1:8080"), "address to listen on (LISTEN_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", envOr(e, "DATABASE_URL", "sqlite:./data/tonql.db"), "postgres://... or sqlite:PATH (DATABASE_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", envOr(e, "REDIS_URL", ""), "redis://... for the shared cache; empty = in-process (REDIS_URL)")
	fs.StringVar(&c.DatabaseReplicas, "database-replicas", envOr(e, "DATABASE_REPLICAS", ""),
		"comma-separated postgres:// URLs of streaming replicas that serve reads (DATABASE_REPLICAS)")
	fs.DurationVar(&c.ReplicaMaxLag, "replica-max-lag", envParse(c, e, "REPLICA_MAX_LAG", 5*time.Second, time.ParseDuration),
		"a replica whose replay lags more is skipped (REPLICA_MAX_LAG)")
	fs.StringVar(&c.Network, "network", envOr(e, "NETWORK", "mainnet"), "mainnet or testnet (NETWORK)")
	fs.BoolVar(&c.RequireAPIKey, "require-api-key", envParse(c, e, "REQUIRE_API_KEY", false, strconv.ParseBool),
		"serve every API route only under /{api_key}/ (REQUIRE_API_KEY)")
	fs.Float64Var(&c.RateLimit, "rate-limit", envParse(c, e, "RATE_LIMIT", 10, parseFloat),
		"requests per second per API key unless the key has its own; 0 = unlimited (RATE_LIMIT)")
	fs.IntVar(&c.RateBurst, "rate-burst", envParse(c, e, "RATE_BURST", 20, strconv.Atoi),
		"requests a key may send at once before RATE_LIMIT applies (RATE_BURST)")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", envParse(c, e, "REQUEST_TIMEOUT", 20*time.Second, time.ParseDuration),
		"time limit of one request; 0 = none (REQUEST_TIMEOUT)")
	fs.StringVar(&c.LogLevel, "log-level", envOr(e, "LOG_LEVEL", "info"), "debug, info, warn or error (LOG_LEVEL)")
	fs.StringVar(&c.AccessLog, "access-log", envOr(e, "ACCESS_LOG", "info"),
		"level of the one line per request: info, or debug to hide it unless LOG_LEVEL=debug (ACCESS_LOG)")
	fs.IntVar(&c.AccessLogSample, "access-log-sample", envParse(c, e, "ACCESS_LOG_SAMPLE", 1, strconv.Atoi),
		"log one request line in N for answers below 400; errors always (ACCESS_LOG_SAMPLE)")
	fs.StringVar(&c.PprofAddr, "pprof-addr", envOr(e, "PPROF_ADDR", ""),
		"serve Go's profiler (/debug/pprof/) on this separate address; empty = off (PPROF_ADDR)")
	fs.StringVar(&c.CORSOrigins, "cors-origins", envOr(e, "CORS_ORIGINS", "*"),
		"browser origins allowed to call the API, comma-separated; * = any (CORS_ORIGINS)")
	fs.IntVar(&c.MaxStreams, "max-streams", envParse(c, e, "MAX_STREAMS", notify.DefaultMaxStreams, strconv.Atoi),
		"open action streams (SSE and GraphQL subscriptions) one server holds (MAX_STREAMS)")
	fs.IntVar(&c.MaxStreamsPerKey, "max-streams-per-key", envParse(c, e, "MAX_STREAMS_PER_KEY", notify.DefaultMaxStreamsPerKey, strconv.Atoi),
		"open action streams one API key may hold on one server (MAX_STREAMS_PER_KEY)")
	fs.StringVar(&c.LiteServersConfig, "lite-servers-config", envOr(e, "LITE_SERVERS_CONFIG", ""),
		"path or URL of a TON global config JSON with lite servers (LITE_SERVERS_CONFIG)")
	fs.StringVar(&c.LiteServers, "lite-servers", envOr(e, "LITE_SERVERS", ""),
		"lite servers as ip:port:base64key,... (LITE_SERVERS)")
	fs.BoolVar(&c.Follow, "follow", envParse(c, e, "FOLLOW", false, strconv.ParseBool),
		"serve: also follow the chain from lite servers (FOLLOW)")
	fs.DurationVar(&c.StateMaxAge, "state-max-age", envParse(c, e, "STATE_MAX_AGE", 30*time.Second, time.ParseDuration),
		"fee estimates refresh stored account states older than this from lite servers (STATE_MAX_AGE)")
	fs.StringVar(&c.FeeClock, "fee-clock", envOr(e, "FEE_CLOCK", "wall"),
		"wall, or head: estimates run at the time of the newest block the database holds (FEE_CLOCK)")
	return c
}

// envParse reads a typed default from the environment; a value that does
// not parse is reported by validate instead of silently ignored.
func envParse[T any](c *config, e *env, key string, def T, parse func(string) (T, error)) T {
	v := e.getenv(key)
	if v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		c.envErrs = append(c.envErrs, fmt.Errorf("%s: cannot use %q", key, v))
		return def
	}
	return x
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func (c *config) validate() error {
	if c.Network != "mainnet" && c.Network != "testnet" {
		return fmt.Errorf("NETWORK must be mainnet or testnet, not %q", c.Network)
	}
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is empty")
	}
	if err := errors.Join(c.envErrs...); err != nil {
		return err
	}
	if c.FeeClock != "wall" && c.FeeClock != "head" {
		return fmt.Errorf("FEE_CLOCK must be wall or head, not %q", c.FeeClock)
	}
	if c.RateLimit < 0 || c.RateBurst < 0 || c.RequestTimeout < 0 {
		return errors.New("RATE_LIMIT, RATE_BURST and REQUEST_TIMEOUT must not be negative")
	}
	if _, err := parseLevel("LOG_LEVEL", c.LogLevel); err != nil {
		return err
	}
	if c.AccessLog != "info" && c.AccessLog != "debug" {
		return fmt.Errorf("ACCESS_LOG must be info or debug, not %q", c.AccessLog)
	}
	if c.AccessLogSample < 1 {
		return errors.New("ACCESS_LOG_SAMPLE must be at least 1")
	}
	if err := validOrigins(c.CORSOrigins); err != nil {
		return err
	}
	if c.MaxStreams < 1 || c.MaxStreamsPerKey < 1 {
		return errors.New("MAX_STREAMS and MAX_STREAMS_PER_KEY must be at least 1")
	}
	return nil
}

// print shows the effective configuration with passwords redacted.
func (c *config) print(w io.Writer) {
	fmt.Fprintf(w, "config:\n  LISTEN_ADDR=%s\n  DATABASE_URL=%s\n  REDIS_URL=%s\n  NETWORK=%s\n",
		c.ListenAddr, redact(c.DatabaseURL), orNone(redact(c.RedisURL)), c.Network)
	fmt.Fprintf(w, "  REQUIRE_API_KEY=%t\n  RATE_LIMIT=%g\n  RATE_BURST=%d\n  REQUEST_TIMEOUT=%s\n",
		c.RequireAPIKey, c.RateLimit, c.RateBurst, c.RequestTimeout)
	fmt.Fprintf(w, "  CORS_ORIGINS=%s\n", c.CORSOrigins)
	fmt.Fprintf(w, "  LOG_LEVEL=%s\n  ACCESS_LOG=%s\n  ACCESS_LOG_SAMPLE=%d\n  PPROF_ADDR=%s\n",
		c.LogLevel, c.AccessLog, c.AccessLogSample, orNone(c.PprofAddr))
	fmt.Fprintf(w, "  MAX_STREAMS=%d\n  MAX_STREAMS_PER_KEY=%d\n", c.MaxStreams, c.MaxStreamsPerKey)
	fmt.Fprintf(w, "  LITE_SERVERS=%s\n  FOLLOW=%t\n  STATE_MAX_AGE=%s\n  FEE_CLOCK=%s\n", c.liteDescription(), c.Follow, c.StateMaxAge, c.FeeClock)
	var replicas []string
	for _, r := range c.replicaURLs() {
		replicas = append(replicas, redact(r))
	}
	fmt.Fprintf(w, "  DATABASE_REPLICAS=%s\n  REPLICA_MAX_LAG=%s\n", orNone(strings.Join(replicas, ",")), c.ReplicaMaxLag)
}

// replicaURLs splits DATABASE_REPLICAS.
func (c *config) replicaURLs() []string {
	var out []string
	for _, u := range strings.Split(c.DatabaseReplicas, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

func envOr(e *env, key, def string) string {
	if v := e.getenv(key); v != "" {
		return v
	}
	return def
}

func orNone(s string) string {
	if s == "" {
		return "(none: in-process cache)"
	}
	return s
}

// redact hides the password of a URL; anything unparsable is hidden whole
// rather than risk printing a secret.
func redact(s string) string {
	if s == "" || strings.HasPrefix(s, "sqlite:") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable, hidden)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// validOrigins checks CORS_ORIGINS: "*" or origins as browsers send them
// (scheme://host[:port], no path), so a typo fails at start instead of
// silently blocking a frontend.
func validOrigins(list string) error {
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "" || o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
			return fmt.Errorf("CORS_ORIGINS: %q is not an origin such as https://app.example.com", o)
		}
	}
	return nil
}

// parseLevel reads a slog level by its name.
func parseLevel(name, v string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		return 0, fmt.Errorf("%s must be debug, info, warn or error, not %q", name, v)
	}
	return l, nil
}

// accessLog is the server's access-line setting.
func (c *config) accessLog() server.AccessLog {
	l, _ := parseLevel("ACCESS_LOG", c.AccessLog) // validated
	return server.AccessLog{Level: l, Sample: c.AccessLogSample}
}

// logger is the process's JSON logger at LOG_LEVEL.
func (c *config) logger(w io.Writer) *slog.Logger {
	l, _ := parseLevel("LOG_LEVEL", c.LogLevel) // validated
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}
