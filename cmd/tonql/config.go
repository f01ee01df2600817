package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// maxDatabaseConns bounds DATABASE_MAX_CONNS: a pool past it is a typo,
// far beyond any Postgres max_connections.
const maxDatabaseConns = 10000

// config is the effective configuration: defaults that need no
// infrastructure, overridden by environment variables, overridden by flags.
type config struct {
	ListenAddr  string
	DatabaseURL string
	// DatabaseMaxConns caps the connections to each Postgres database
	// (store.LimitConnections).
	DatabaseMaxConns int
	RedisURL         string
	// Read replicas of a Postgres DATABASE_URL (docs/OPERATIONS.md).
	DatabaseReplicas string // comma-separated postgres:// URLs
	ReplicaMaxLag    time.Duration
	Network          string

	// Personal endpoints and hardening (docs/OPERATIONS.md).
	RequireAPIKey  bool
	RateLimit      float64 // requests per second per key; 0 = unlimited
	RateBurst      int
	RequestTimeout time.Duration
	// The cost model (cost package, docs/OPERATIONS.md).
	RequestWork  time.Duration // heavy work one request may do; 0 = none
	GetMethodGas int           // gas one get method may use
	CORSOrigins  string        // comma-separated browser origins; "*" = any

	// Logs and profiling (docs/OPERATIONS.md).
	LogLevel        string // debug, info, warn, error
	AccessLog       string // the level of the per-request line: info or debug
	AccessLogSample int    // log one in N answers below 400
	PprofAddr       string // net/http/pprof on its own listener; empty = off

	// AddressBookTTL is how long a server keeps an address's facts for the
	// address book (store.CacheAddressFacts); 0 = read with every page.
	AddressBookTTL time.Duration
	// TokenCacheBytes is the memory a server keeps rendered tokens in
	// (store.CacheTokenEntries); 0 = read them whole with every page.
	TokenCacheBytes int

	// Action streams (docs/OPERATIONS.md).
	MaxStreams        int
	MaxStreamsPerKey  int
	MaxStreamWatch    int
	PendingTimeout    time.Duration
	MaxWatchedPerKey  int
	MaxStreamsPerAddr int

	// Live chain (docs/LIVE.md).
	LiteServersConfig string        // path or URL of a TON global config JSON
	LiteServers       string        // tongo's "ip:port:key,..."
	Follow            bool          // serve also follows the chain
	StateMaxAge       time.Duration // older stored states are refreshed from lite servers for fees

	// FeeClock is the chain time estimates run at: "wall", or "head" (the
	// newest block the database holds: for a server of an imported snapshot).
	FeeClock string

	// Token metadata (TEP-64): the background worker and its off-chain
	// fetches (package metadata).
	IPFSGateway          string
	MetadataAllowPrivate bool
	MetadataFetchTimeout time.Duration
	MetadataMaxBytes     int
	MetadataWorkers      int // 0 = no worker in this process

	// Webhooks (package webhooks; cmd/tonql/webhooks.go).
	Webhooks webhookConfig

	groups  group   // the settings bound to flags; only these are validated and printed
	envErrs []error // environment values that did not parse
}

// group is a set of settings some commands use: each command binds the
// groups it reads, so its help lists only flags that change what it does.
type group uint16

const (
	groupDatabase group = 1 << iota // DATABASE_URL
	groupReplicas                   // DATABASE_REPLICAS, REPLICA_MAX_LAG (serve's reads)
	groupRedis                      // REDIS_URL: the shared cache and request units
	groupNetwork                    // NETWORK
	groupServer                     // LISTEN_ADDR, REQUIRE_API_KEY, RATE_*, REQUEST_TIMEOUT, MAX_STREAMS*
	groupLite                       // LITE_SERVERS, LITE_SERVERS_CONFIG: the live chain
	groupFollow                     // FOLLOW: serve also follows the chain
	groupFees                       // STATE_MAX_AGE, FEE_CLOCK
	groupMetadata                   // IPFS_GATEWAY, METADATA_*: the token metadata worker
	groupWebhooks                   // WEBHOOK_*: webhook limits and delivery (webhooks.go)

	groupAll = groupDatabase | groupReplicas | groupRedis | groupNetwork | groupServer | groupLite | groupFollow | groupFees | groupMetadata | groupWebhooks
)

// bindConfig registers the flags of the given groups on f, with defaults
// taken from the environment. Settings of other groups keep their zero
// values and are neither validated nor printed.
func bindConfig(f *flags, e *env, groups group) *config {
	c := &config{groups: groups}
	str := func(p *string, name, key, def, usage string) {
		f.fromEnv(name, key, def)
		f.StringVar(p, name, envOr(e, key, def), usage)
	}
	dur := func(p *time.Duration, name, key string, def time.Duration, usage string) {
		f.fromEnv(name, key, def.String())
		f.DurationVar(p, name, envParse(c, e, key, def, time.ParseDuration), usage)
	}
	boolean := func(p *bool, name, key, usage string) {
		f.fromEnv(name, key, "false")
		f.BoolVar(p, name, envParse(c, e, key, false, strconv.ParseBool), usage)
	}
	integer := func(p *int, name, key string, def int, usage string) {
		f.fromEnv(name, key, strconv.Itoa(def))
		f.IntVar(p, name, envParse(c, e, key, def, strconv.Atoi), usage)
	}
	if groups&groupServer != 0 {
		str(&c.ListenAddr, "listen", "LISTEN_ADDR", "127.0.0.1:8080", "address to listen on")
	}
	if groups&groupDatabase != 0 {
		str(&c.DatabaseURL, "database-url", "DATABASE_URL", "sqlite:./data/tonql.db", "postgres://... or sqlite:PATH")
		integer(&c.DatabaseMaxConns, "database-max-conns", "DATABASE_MAX_CONNS", store.DefaultMaxConns,
			"Postgres: connections this process keeps to the primary and to each replica")
	}
	if groups&groupRedis != 0 {
		str(&c.RedisURL, "redis-url", "REDIS_URL", "", "redis://... for the shared cache and request units; empty = in-process")
	}
	if groups&groupReplicas != 0 {
		str(&c.DatabaseReplicas, "database-replicas", "DATABASE_REPLICAS", "",
			"comma-separated postgres:// URLs of streaming replicas that serve reads")
		dur(&c.ReplicaMaxLag, "replica-max-lag", "REPLICA_MAX_LAG", 5*time.Second, "a replica whose replay lags more is skipped")
	}
	if groups&groupNetwork != 0 {
		str(&c.Network, "network", "NETWORK", "mainnet", "mainnet or testnet")
	}
	if groups&groupServer != 0 {
		boolean(&c.RequireAPIKey, "require-api-key", "REQUIRE_API_KEY", "serve every API route only under /{api_key}/")
		f.fromEnv("rate-limit", "RATE_LIMIT", "10")
		f.Float64Var(&c.RateLimit, "rate-limit", envParse(c, e, "RATE_LIMIT", 10, parseFloat),
			"requests per second per API key unless the key has its own; 0 = unlimited")
		integer(&c.RateBurst, "rate-burst", "RATE_BURST", 20, "requests a key may send at once before RATE_LIMIT applies")
		dur(&c.RequestTimeout, "request-timeout", "REQUEST_TIMEOUT", 20*time.Second, "time limit of one request; 0 = none")
		dur(&c.RequestWork, "request-work-budget", "REQUEST_WORK_BUDGET", cost.DefaultWork,
			"time of emulation and get methods one request (a whole batch) may take; calls past it are not run; 0 = none")
		str(&c.CORSOrigins, "cors-origins", "CORS_ORIGINS", "*",
			"browser origins allowed to call the API and open subscription sockets, comma-separated; * = any")
		str(&c.LogLevel, "log-level", "LOG_LEVEL", "info", "debug, info, warn or error")
		str(&c.AccessLog, "access-log", "ACCESS_LOG", "info",
			"level of the one line per request: info, or debug to hide it unless LOG_LEVEL=debug")
		integer(&c.AccessLogSample, "access-log-sample", "ACCESS_LOG_SAMPLE", 1,
			"log one request line in N for answers below 400; errors always")
		str(&c.PprofAddr, "pprof-addr", "PPROF_ADDR", "", "serve Go's profiler (/debug/pprof/) on this separate address; empty = off")
		dur(&c.AddressBookTTL, "address-book-ttl", "ADDRESS_BOOK_TTL", 5*time.Second,
			"how long a server keeps an address's facts (status, interfaces, domain) for address books; 0 = read them with every page")
		integer(&c.TokenCacheBytes, "token-cache-bytes", "TOKEN_CACHE_BYTES", store.DefaultTokenCacheBytes,
			"memory a server keeps tokens' metadata in, rendered, for pages' metadata objects (least recently shown out first); 0 = read them whole with every page")
		integer(&c.MaxStreams, "max-streams", "MAX_STREAMS", notify.DefaultMaxStreams,
			"open action streams (SSE and GraphQL subscriptions) one server holds")
		integer(&c.MaxStreamsPerKey, "max-streams-per-key", "MAX_STREAMS_PER_KEY", notify.DefaultMaxStreamsPerKey,
			"open action streams one API key may hold on one server")
		integer(&c.MaxStreamsPerAddr, "max-streams-per-address", "MAX_STREAMS_PER_ADDRESS", notify.DefaultMaxStreamsPerAddress,
			"open action streams one client address (IP; IPv6 /64) may hold on one server without a key")
		dur(&c.PendingTimeout, "stream-pending-timeout", "STREAM_PENDING_TIMEOUT", notify.DefaultPendingTimeout,
			"how long a pending trace (a message sent through this server, told to min_finality=pending streams) waits for its stored trace before it is invalidated")
		integer(&c.MaxStreamWatch, "max-stream-addresses", "MAX_STREAM_ADDRESSES", notify.DefaultMaxWatch,
			"addresses and external hashes one stream may watch")
		integer(&c.MaxWatchedPerKey, "max-watched-per-key", "MAX_WATCHED_PER_KEY", notify.DefaultMaxWatchPerKey,
			"addresses and external hashes one API key's streams may watch together on one server")
	}
	if groups&groupLite != 0 {
		str(&c.LiteServersConfig, "lite-servers-config", "LITE_SERVERS_CONFIG", "",
			"path or URL of a TON global config JSON with lite servers; with neither this nor -lite-servers, the public config of NETWORK")
		str(&c.LiteServers, "lite-servers", "LITE_SERVERS", "", "lite servers as ip:port:base64key,...")
	}
	if groups&groupFollow != 0 {
		boolean(&c.Follow, "follow", "FOLLOW", "also follow the chain from lite servers into the database")
	}
	if groups&groupFees != 0 {
		dur(&c.StateMaxAge, "state-max-age", "STATE_MAX_AGE", 30*time.Second,
			"fee estimates refresh stored account states older than this from lite servers")
		str(&c.FeeClock, "fee-clock", "FEE_CLOCK", "wall", "wall, or head: estimates run at the time of the newest block the database holds")
		integer(&c.GetMethodGas, "get-method-gas-limit", "GET_METHOD_GAS_LIMIT", cost.DefaultGetMethodGas,
			"gas one get method may use (exit code -14 past it, as on a lite server)")
	}
	if groups&groupMetadata != 0 {
		integer(&c.MetadataWorkers, "metadata-workers", "METADATA_WORKERS", metadata.DefaultWorkers,
			"off-chain token metadata fetched at once by this process's background worker; 0 = no worker")
		str(&c.IPFSGateway, "ipfs-gateway", "IPFS_GATEWAY", metadata.DefaultIPFSGateway, "HTTP gateway that serves ipfs:// metadata links")
		dur(&c.MetadataFetchTimeout, "metadata-fetch-timeout", "METADATA_FETCH_TIMEOUT", metadata.DefaultFetchTimeout,
			"time limit of one off-chain metadata fetch, redirects and body included")
		integer(&c.MetadataMaxBytes, "metadata-max-bytes", "METADATA_MAX_BYTES", metadata.DefaultMaxBytes,
			"largest off-chain metadata JSON fetched")
		boolean(&c.MetadataAllowPrivate, "metadata-allow-private", "METADATA_ALLOW_PRIVATE",
			"let metadata fetches reach loopback, private and link-local addresses")
	}
	if groups&groupWebhooks != 0 {
		bindWebhooks(&c.Webhooks, integer, dur, boolean)
	}
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
	if err := errors.Join(c.envErrs...); err != nil {
		return err
	}
	if c.groups&groupNetwork != 0 && c.Network != "mainnet" && c.Network != "testnet" {
		return fmt.Errorf("NETWORK must be mainnet or testnet, not %q", c.Network)
	}
	if c.groups&groupDatabase != 0 && c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is empty")
	}
	if c.groups&groupDatabase != 0 && (c.DatabaseMaxConns < 1 || c.DatabaseMaxConns > maxDatabaseConns) {
		return fmt.Errorf("DATABASE_MAX_CONNS must be between 1 and %d, not %d", maxDatabaseConns, c.DatabaseMaxConns)
	}
	if c.groups&groupFees != 0 && c.GetMethodGas < 1 {
		return errors.New("GET_METHOD_GAS_LIMIT must be at least 1")
	}
	if c.groups&groupFees != 0 && c.FeeClock != "wall" && c.FeeClock != "head" {
		return fmt.Errorf("FEE_CLOCK must be wall or head, not %q", c.FeeClock)
	}
	if c.groups&groupMetadata != 0 {
		if err := c.validMetadata(); err != nil {
			return err
		}
	}
	if c.groups&groupWebhooks != 0 {
		if err := c.Webhooks.validate(); err != nil {
			return err
		}
	}
	if c.groups&groupServer != 0 {
		if c.RateLimit < 0 || c.RateBurst < 0 || c.RequestTimeout < 0 || c.RequestWork < 0 {
			return errors.New("RATE_LIMIT, RATE_BURST, REQUEST_TIMEOUT and REQUEST_WORK_BUDGET must not be negative")
		}
		if c.AddressBookTTL < 0 {
			return errors.New("ADDRESS_BOOK_TTL must not be negative (0 turns the cache off)")
		}
		if c.TokenCacheBytes < 0 {
			return errors.New("TOKEN_CACHE_BYTES must not be negative (0 turns the cache off)")
		}
		if c.MaxStreams < 1 || c.MaxStreamsPerKey < 1 || c.MaxStreamsPerAddr < 1 {
			return errors.New("MAX_STREAMS, MAX_STREAMS_PER_KEY and MAX_STREAMS_PER_ADDRESS must be at least 1")
		}
		if c.PendingTimeout <= 0 {
			return errors.New("STREAM_PENDING_TIMEOUT must be positive")
		}
		if c.MaxStreamWatch < 1 || c.MaxStreamWatch > notify.MaxWatchLimit || c.MaxWatchedPerKey < 1 {
			return fmt.Errorf("MAX_STREAM_ADDRESSES must be between 1 and %d (a replay sends the set as one SQL list) and MAX_WATCHED_PER_KEY at least 1", notify.MaxWatchLimit)
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
	}
	return nil
}

// costLimits are the cost model's settings (REQUEST_WORK_BUDGET 0 = none).
func (c *config) costLimits() cost.Limits {
	if c.RequestWork == 0 {
		return cost.Limits{Work: -1}
	}
	return cost.Limits{Work: c.RequestWork}
}

// log writes the effective configuration of the bound groups, passwords
// redacted, as one structured line ("msg":"config", one attribute per
// setting), like every other line the process logs.
func (c *config) log(l *slog.Logger) {
	var attrs []slog.Attr
	line := func(g group, key string, v any) {
		if c.groups&g != 0 {
			attrs = append(attrs, slog.String(key, fmt.Sprint(v)))
		}
	}
	line(groupServer, "LISTEN_ADDR", c.ListenAddr)
	line(groupDatabase, "DATABASE_URL", redact(c.DatabaseURL))
	line(groupDatabase, "DATABASE_MAX_CONNS", c.DatabaseMaxConns)
	line(groupRedis, "REDIS_URL", orNone(redact(c.RedisURL), "in-process cache"))
	line(groupNetwork, "NETWORK", c.Network)
	line(groupServer, "REQUIRE_API_KEY", c.RequireAPIKey)
	line(groupServer, "RATE_LIMIT", strconv.FormatFloat(c.RateLimit, 'g', -1, 64))
	line(groupServer, "RATE_BURST", c.RateBurst)
	line(groupServer, "REQUEST_TIMEOUT", c.RequestTimeout)
	line(groupServer, "REQUEST_WORK_BUDGET", c.RequestWork)
	line(groupServer, "CORS_ORIGINS", c.CORSOrigins)
	line(groupServer, "LOG_LEVEL", c.LogLevel)
	line(groupServer, "ACCESS_LOG", c.AccessLog)
	line(groupServer, "ACCESS_LOG_SAMPLE", c.AccessLogSample)
	line(groupServer, "PPROF_ADDR", orNone(c.PprofAddr, "profiler off"))
	line(groupServer, "ADDRESS_BOOK_TTL", c.AddressBookTTL)
	line(groupServer, "TOKEN_CACHE_BYTES", c.TokenCacheBytes)
	line(groupServer, "MAX_STREAMS", c.MaxStreams)
	line(groupServer, "MAX_STREAMS_PER_KEY", c.MaxStreamsPerKey)
	line(groupServer, "MAX_STREAMS_PER_ADDRESS", c.MaxStreamsPerAddr)
	line(groupServer, "MAX_STREAM_ADDRESSES", c.MaxStreamWatch)
	line(groupServer, "STREAM_PENDING_TIMEOUT", c.PendingTimeout)
	line(groupServer, "MAX_WATCHED_PER_KEY", c.MaxWatchedPerKey)
	line(groupLite, "LITE_SERVERS", c.liteDescription())
	line(groupFollow, "FOLLOW", c.Follow)
	line(groupFees, "STATE_MAX_AGE", c.StateMaxAge)
	line(groupFees, "FEE_CLOCK", c.FeeClock)
	line(groupFees, "GET_METHOD_GAS_LIMIT", c.GetMethodGas)
	line(groupMetadata, "METADATA_WORKERS", c.MetadataWorkers)
	line(groupMetadata, "IPFS_GATEWAY", c.IPFSGateway)
	line(groupMetadata, "METADATA_FETCH_TIMEOUT", c.MetadataFetchTimeout)
	line(groupMetadata, "METADATA_MAX_BYTES", c.MetadataMaxBytes)
	line(groupMetadata, "METADATA_ALLOW_PRIVATE", c.MetadataAllowPrivate)
	c.Webhooks.each(func(key string, v any) { line(groupWebhooks, key, v) })
	var replicas []string
	for _, r := range c.replicaURLs() {
		replicas = append(replicas, redact(r))
	}
	if len(replicas) == 0 {
		replicas = []string{"(none)"}
	}
	line(groupReplicas, "DATABASE_REPLICAS", strings.Join(replicas, ","))
	line(groupReplicas, "REPLICA_MAX_LAG", c.ReplicaMaxLag)
	l.LogAttrs(context.Background(), slog.LevelInfo, "config", attrs...)
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

// orNone shows an empty setting as what leaving it empty means.
func orNone(s, meaning string) string {
	if s == "" {
		return "(none: " + meaning + ")"
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
