package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/metering"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// access is what serve needs for personal endpoints: the key check, rate
// limits and metering, plus their readiness checks and metrics.
type access struct {
	access  *server.Access
	meter   *metering.Meter
	ready   []server.ReadyCheck
	metrics server.MetricsSources
	rdb     *redis.Client // nil without REDIS_URL
}

func openAccess(cfg *config, st *store.Store, c cache.Cache) (*access, error) {
	// With read replicas, a primary that is down leaves reads served: the
	// server is degraded (writes fail), not out.
	replicas := st.Replicas()
	a := &access{ready: []server.ReadyCheck{{Name: "database", Check: st.Ping, Optional: len(replicas) > 0}}}
	if len(replicas) > 0 {
		a.ready = append(a.ready, server.ReadyCheck{Name: "reads", Check: st.PingReads})
	}
	for _, r := range replicas {
		name := r.Name
		a.ready = append(a.ready, server.ReadyCheck{Name: "replica " + name, Optional: true,
			Check: func(context.Context) error { return st.ReplicaError(name) }})
	}
	if cfg.RedisURL != "" {
		rdb, err := metering.DialRedis(cfg.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		a.rdb = rdb
		a.ready = append(a.ready, server.ReadyCheck{Name: "redis", Check: func(ctx context.Context) error {
			return rdb.Ping(ctx).Err()
		}})
	}
	a.meter = newMeter(st, a.rdb)
	// With Redis, a key's limit holds across all servers on it.
	limiter := ratelimit.New(nil)
	if a.rdb != nil {
		limiter = ratelimit.NewShared(ratelimit.SharedOptions{Redis: a.rdb})
	}
	a.access = &server.Access{
		Keys:       apikey.NewLookup(st, apikey.LookupOptions{}),
		Limiter:    limiter,
		Meter:      a.meter,
		Default:    ratelimit.Limit{Rate: cfg.RateLimit, Burst: cfg.RateBurst},
		RequireKey: cfg.RequireAPIKey,
	}
	a.metrics = server.MetricsSources{Units: a.meter.Counted, RedisErrors: a.meter.RedisErrors}
	if rc, ok := c.(*cache.Redis); ok {
		a.metrics.Cache = func() (int64, int64) {
			hits, misses, _ := rc.Stats()
			return hits, misses
		}
	}
	return a, nil
}

func (a *access) close() {
	if a.rdb != nil {
		a.rdb.Close()
	}
}

func newMeter(st *store.Store, rdb *redis.Client) *metering.Meter {
	return metering.New(metering.Options{Store: st, Redis: rdb})
}

// keysCommands are the `tonql keys` subcommands: their usage line and the
// settings each reads.
type keysCommand struct {
	name, usage, about string
	groups             group
}

var keysCommands = []keysCommand{
	{"create", "tonql keys create --name NAME [--rate R] [--burst B] [flags]",
		"Makes an API key; the key is printed once, on the last line (only its hash is stored).\nCreates a SQLite database when missing (a Postgres one must exist).", groupDatabase},
	{"list", "tonql keys list [flags]",
		"Lists the keys with their limits and request units (units still in Redis are stored first).", groupDatabase | groupRedis},
	{"revoke", "tonql keys revoke KEY [flags]", "Revokes a key; running servers refuse it within seconds.", groupDatabase},
	{"usage", "tonql keys usage KEY [flags]",
		"Prints a key's request units, the number last (units still in Redis are stored first).", groupDatabase | groupRedis},
	{"limit", "tonql keys limit KEY [--rate R] [--burst B] [flags]",
		"Changes a key's own rate limit; running servers apply it within 5 s.", groupDatabase},
}

func keysUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: tonql keys <command> [flags]\n\ncommands:")
	for _, c := range keysCommands {
		fmt.Fprintf(w, "  %s\n", strings.TrimPrefix(c.usage, "tonql keys "))
	}
	fmt.Fprintln(w, "\nRun 'tonql keys <command> -h' for the flags of a command.")
}

// runKeys is `tonql keys create|list|revoke|usage|limit`. Only create makes
// a database; the others need one tonql made, and say which they looked for.
func runKeys(ctx context.Context, args []string, e *env) error {
	if len(args) == 0 {
		keysUsage(e.stderr)
		return usageError{err: errors.New("give a keys command"), printed: true}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		keysUsage(e.stdout)
		return errHelp
	}
	i := slices.IndexFunc(keysCommands, func(c keysCommand) bool { return c.name == args[0] })
	if i < 0 {
		keysUsage(e.stderr)
		return usageError{err: fmt.Errorf("unknown keys command %q", args[0])}
	}
	sub := keysCommands[i]
	fs := newFlags(e, "keys "+sub.name, sub.usage, sub.about)
	cfg := bindConfig(fs, e, sub.groups)
	var name *string
	var rate *float64
	var burst *int
	if sub.name == "create" {
		name = fs.String("name", "", "label of the new key (required)")
	}
	if sub.name == "create" || sub.name == "limit" {
		rate = fs.Float64("rate", 0, "the key's own requests per second; 0 = RATE_LIMIT of the server, -1 = unlimited")
		burst = fs.Int("burst", 0, "the key's own burst; 0 = RATE_BURST of the server")
	}
	keyArgs, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	if rate != nil {
		if err := validLimit(*rate, *burst); err != nil {
			return err
		}
	}
	switch {
	case sub.name == "create" || sub.name == "list":
		if len(keyArgs) > 0 {
			return usageError{err: fmt.Errorf("keys %s: unexpected argument %q", sub.name, keyArgs[0])}
		}
	case len(keyArgs) != 1:
		return usageError{err: fmt.Errorf("keys %s: give exactly one key", sub.name)}
	}
	if sub.name == "create" && *name == "" {
		return usageError{err: errors.New("keys create: --name is required")}
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	var st *store.Store
	if sub.name == "create" {
		st, err = openStore(ctx, cfg, &env{stdout: e.stderr, stderr: e.stderr, getenv: e.getenv})
	} else {
		st, err = openExisting(ctx, cfg)
	}
	if err != nil {
		return err
	}
	defer st.Close()

	switch sub.name {
	case "create":
		key, id := apikey.Generate()
		k, err := st.CreateKey(ctx, store.APIKey{ID: id, Hash: apikey.Hash(key), Name: *name, RateLimit: *rate, RateBurst: *burst})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "created key %s (%s), limit %s\n", k.ID, k.Name, describeLimit(k))
		fmt.Fprintln(e.stdout, "the key is shown once; only its hash is stored:")
		fmt.Fprintln(e.stdout, key)
		return nil
	case "list":
		if err := persistUnits(ctx, cfg, st); err != nil {
			return err
		}
		keys, err := st.Keys(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tCREATED\tSTATUS\tLIMIT\tUNITS")
		for _, k := range keys {
			status := "active"
			if !k.Active() {
				status = "revoked " + k.RevokedAt.Format(time.DateOnly)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", k.ID, k.Name, k.CreatedAt.Format(time.DateOnly), status, describeLimit(k), k.Units)
		}
		return tw.Flush()
	case "limit":
		return setLimit(ctx, st, fs.FlagSet, keyArgs, e)
	case "revoke":
		k, err := st.RevokeKey(ctx, apikey.Hash(keyArgs[0]))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "revoked key %s (%s); servers refuse it within seconds\n", k.ID, k.Name)
		return nil
	}
	// usage
	if err := persistUnits(ctx, cfg, st); err != nil {
		return err
	}
	k, err := st.KeyByHash(ctx, apikey.Hash(keyArgs[0]))
	if err != nil {
		return err
	}
	if k == nil {
		return store.ErrKeyNotFound
	}
	fmt.Fprintf(e.stdout, "key %s (%s)\nunits %d\n", k.ID, k.Name, k.Units)
	return nil
}

// parseInterspersed parses flags before and after the key (`keys limit KEY
// --rate 5`); the flag package alone stops at the first non-flag argument.
func parseInterspersed(fs *flags, args []string) (positional []string, err error) {
	for {
		if err := fs.parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// setLimit is `keys limit KEY`: only the flags given change, so
// `--burst 50` keeps the key's rate.
func setLimit(ctx context.Context, st *store.Store, fs *flag.FlagSet, keys []string, e *env) error {
	if len(keys) != 1 {
		return errors.New("keys limit: give exactly one key")
	}
	var l store.KeyLimit
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "rate":
			v := f.Value.(flag.Getter).Get().(float64)
			l.Rate = &v
		case "burst":
			v := f.Value.(flag.Getter).Get().(int)
			l.Burst = &v
		}
	})
	if l.Rate == nil && l.Burst == nil {
		return errors.New("keys limit: give --rate, --burst or both")
	}
	k, err := st.SetKeyLimit(ctx, apikey.Hash(keys[0]), l)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "key %s (%s): limit %s; servers apply it within seconds\n", k.ID, k.Name, describeLimit(k))
	return nil
}

// validLimit refuses values that have no meaning, rather than storing a
// rate such as -5 that would silently read as unlimited.
func validLimit(rate float64, burst int) error {
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 && rate != -1 {
		return fmt.Errorf("--rate %v: give requests per second, 0 (server default) or -1 (unlimited)", rate)
	}
	if burst < 0 {
		return fmt.Errorf("--burst %d: give a positive size or 0 (server default)", burst)
	}
	return nil
}

// persistUnits moves units still waiting in Redis into the store, so usage
// and list show every unit counted so far. It is safe beside running
// servers: batches are applied once, whoever moves them.
func persistUnits(ctx context.Context, cfg *config, st *store.Store) error {
	if cfg.RedisURL == "" {
		return nil
	}
	rdb, err := metering.DialRedis(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	defer rdb.Close()
	if err := newMeter(st, rdb).Flush(ctx); err != nil {
		return fmt.Errorf("units in Redis: %w", err)
	}
	return nil
}

func describeLimit(k *store.APIKey) string {
	if k.RateLimit < 0 {
		return "unlimited"
	}
	// A key may keep the server's rate with a burst of its own.
	s := "server default"
	if k.RateLimit > 0 {
		s = strconv.FormatFloat(k.RateLimit, 'f', -1, 64) + "/s"
	}
	if k.RateBurst > 0 {
		s += " burst " + strconv.Itoa(k.RateBurst)
	}
	return s
}
