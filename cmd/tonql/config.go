package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// config is the effective configuration: defaults that need no
// infrastructure, overridden by environment variables, overridden by flags.
type config struct {
	ListenAddr  string
	DatabaseURL string
	RedisURL    string
	Network     string
}

// bindConfig registers the shared flags on fs with defaults taken from the
// environment.
func bindConfig(fs *flag.FlagSet, e *env) *config {
	c := &config{}
	fs.StringVar(&c.ListenAddr, "listen", envOr(e, "LISTEN_ADDR", "127.0.0.1:8080"), "address to listen on (LISTEN_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", envOr(e, "DATABASE_URL", "sqlite:./data/tonql.db"), "postgres://... or sqlite:PATH (DATABASE_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", envOr(e, "REDIS_URL", ""), "redis://... for the shared cache; empty = in-process (REDIS_URL)")
	fs.StringVar(&c.Network, "network", envOr(e, "NETWORK", "mainnet"), "mainnet or testnet (NETWORK)")
	return c
}

func (c *config) validate() error {
	if c.Network != "mainnet" && c.Network != "testnet" {
		return fmt.Errorf("NETWORK must be mainnet or testnet, not %q", c.Network)
	}
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is empty")
	}
	return nil
}

// print shows the effective configuration with passwords redacted.
func (c *config) print(w io.Writer) {
	fmt.Fprintf(w, "config:\n  LISTEN_ADDR=%s\n  DATABASE_URL=%s\n  REDIS_URL=%s\n  NETWORK=%s\n",
		c.ListenAddr, redact(c.DatabaseURL), orNone(redact(c.RedisURL)), c.Network)
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
