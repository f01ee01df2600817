package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/webhooks"
)

// webhookConfig are the WEBHOOK_* settings of serve.
type webhookConfig struct {
	AllowPrivate bool
	Workers      int
	Timeout      time.Duration
	MaxPerKey    int
	MaxAddresses int
	RetryFor     time.Duration
	DisableAfter time.Duration
}

// bindWebhooks registers the settings with bindConfig's binders.
func bindWebhooks(c *webhookConfig,
	integer func(p *int, name, key string, def int, usage string),
	dur func(p *time.Duration, name, key string, def time.Duration, usage string),
	boolean func(p *bool, name, key, usage string)) {
	boolean(&c.AllowPrivate, "webhook-allow-private", "WEBHOOK_ALLOW_PRIVATE",
		"let webhooks deliver to loopback, private and link-local addresses")
	integer(&c.Workers, "webhook-workers", "WEBHOOK_WORKERS", webhooks.DefaultWorkers,
		"webhooks this process delivers to at once (a slow receiver holds one); 0 = this process delivers none")
	dur(&c.Timeout, "webhook-timeout", "WEBHOOK_TIMEOUT", webhooks.DefaultTimeout, "time limit of one delivery attempt")
	integer(&c.MaxPerKey, "webhook-max-per-key", "WEBHOOK_MAX_PER_KEY", webhooks.DefaultMaxHooksPerKey, "webhooks one API key may have")
	integer(&c.MaxAddresses, "webhook-max-addresses", "WEBHOOK_MAX_ADDRESSES", webhooks.DefaultMaxAddresses, "addresses one webhook may watch")
	dur(&c.RetryFor, "webhook-retry-for", "WEBHOOK_RETRY_FOR", webhooks.DefaultRetryFor,
		"how long an event is retried (exponential backoff up to an hour) before it is given up")
	dur(&c.DisableAfter, "webhook-disable-after", "WEBHOOK_DISABLE_AFTER", webhooks.DefaultDisableAfter,
		"a webhook with no successful delivery for this long is disabled")
}

func (c *webhookConfig) validate() error {
	if c.Workers < 0 || c.Workers > 10_000 {
		return errors.New("WEBHOOK_WORKERS must be between 0 and 10000")
	}
	if c.Timeout <= 0 || c.RetryFor <= 0 || c.DisableAfter <= 0 {
		return errors.New("WEBHOOK_TIMEOUT, WEBHOOK_RETRY_FOR and WEBHOOK_DISABLE_AFTER must be positive")
	}
	if c.MaxPerKey < 1 || c.MaxAddresses < 1 {
		return errors.New("WEBHOOK_MAX_PER_KEY and WEBHOOK_MAX_ADDRESSES must be at least 1")
	}
	return nil
}

// each hands the settings to the config line.
func (c *webhookConfig) each(f func(key string, v any)) {
	f("WEBHOOK_ALLOW_PRIVATE", c.AllowPrivate)
	f("WEBHOOK_WORKERS", c.Workers)
	f("WEBHOOK_TIMEOUT", c.Timeout)
	f("WEBHOOK_MAX_PER_KEY", c.MaxPerKey)
	f("WEBHOOK_MAX_ADDRESSES", c.MaxAddresses)
	f("WEBHOOK_RETRY_FOR", c.RetryFor)
	f("WEBHOOK_DISABLE_AFTER", c.DisableAfter)
}

// startWebhooks makes the webhook service of the API and, unless
// WEBHOOK_WORKERS=0, starts delivering in the background; servers sharing
// a database share the deliveries. stop is called before the hub closes.
func startWebhooks(ctx context.Context, c webhookConfig, st *store.Store, hub *notify.Hub, log *slog.Logger) (s *webhooks.Service, stop func()) {
	s = webhooks.New(webhooks.Options{Store: st, Hub: hub, AllowPrivate: c.AllowPrivate, Workers: c.Workers, Timeout: c.Timeout,
		MaxHooksPerKey: c.MaxPerKey, MaxAddresses: c.MaxAddresses, RetryFor: c.RetryFor, DisableAfter: c.DisableAfter, Logger: log})
	if c.Workers == 0 {
		return s, func() {}
	}
	s.Start(ctx)
	return s, s.Close
}
