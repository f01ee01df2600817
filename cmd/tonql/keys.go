package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
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
	a := &access{ready: []server.ReadyCheck{{Name: "database", Check: st.Ping}}}
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
	a.access = &server.Access{
		Keys:       apikey.NewLookup(st, apikey.LookupOptions{}),
		Limiter:    ratelimit.New(nil),
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

// runKeys is `tonql keys create|list|revoke|usage`.
func runKeys(ctx context.Context, args []string, e *env) error {
	const usage = "usage: tonql keys create --name NAME [--rate R --burst B] | list | revoke KEY | usage KEY"
	if len(args) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	cfg := bindConfig(fs, e)
	name := fs.String("name", "", "label of the new key (create)")
	rate := fs.Float64("rate", 0, "the key's own requests per second; 0 = RATE_LIMIT of the server, -1 = unlimited (create)")
	burst := fs.Int("burst", 0, "the key's own burst; 0 = RATE_BURST of the server (create)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	st, err := openStore(ctx, cfg, &env{stdout: e.stderr, stderr: e.stderr, getenv: e.getenv})
	if err != nil {
		return err
	}
	defer st.Close()

	switch args[0] {
	case "create":
		if *name == "" {
			return errors.New("keys create: --name is required")
		}
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
	case "revoke", "usage":
		if fs.NArg() != 1 {
			return fmt.Errorf("keys %s: give exactly one key", args[0])
		}
		if args[0] == "revoke" {
			k, err := st.RevokeKey(ctx, apikey.Hash(fs.Arg(0)))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "revoked key %s (%s); servers refuse it within seconds\n", k.ID, k.Name)
			return nil
		}
		if err := persistUnits(ctx, cfg, st); err != nil {
			return err
		}
		k, err := st.KeyByHash(ctx, apikey.Hash(fs.Arg(0)))
		if err != nil {
			return err
		}
		if k == nil {
			return store.ErrKeyNotFound
		}
		fmt.Fprintf(e.stdout, "key %s (%s)\nunits %d\n", k.ID, k.Name, k.Units)
		return nil
	}
	return errors.New(usage)
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
	switch {
	case k.RateLimit < 0:
		return "unlimited"
	case k.RateLimit == 0:
		return "server default"
	}
	s := strconv.FormatFloat(k.RateLimit, 'f', -1, 64) + "/s"
	if k.RateBurst > 0 {
		s += " burst " + strconv.Itoa(k.RateBurst)
	}
	return s
}
