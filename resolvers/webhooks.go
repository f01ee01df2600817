package resolvers

import (
	"context"

	"github.com/tonql/tonql/apikey"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/webhooks"
)

// Webhooks are the request's API key's (apikey.KeyID); the REST routes
// under /api/v3/webhooks and the GraphQL fields both call these.

func (r *Resolver) hooks() (*webhooks.Service, error) {
	if r.Webhooks == nil {
		return nil, apperr.New(apperr.Unavailable, "webhooks are not enabled on this server")
	}
	return r.Webhooks, nil
}

// CreateWebhook makes a webhook of the request's key.
func (r *Resolver) CreateWebhook(ctx context.Context, in webhooks.Input) (*webhooks.Created, error) {
	s, err := r.hooks()
	if err != nil {
		return nil, err
	}
	return s.Create(ctx, apikey.KeyID(ctx), in)
}

// ListWebhooks lists the request's key's webhooks.
func (r *Resolver) ListWebhooks(ctx context.Context) ([]*webhooks.Hook, error) {
	s, err := r.hooks()
	if err != nil {
		return nil, err
	}
	return s.List(ctx, apikey.KeyID(ctx))
}

// GetWebhook returns one webhook of the request's key.
func (r *Resolver) GetWebhook(ctx context.Context, id string) (*webhooks.Hook, error) {
	s, err := r.hooks()
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, apikey.KeyID(ctx), id)
}

// DeleteWebhook deletes one webhook of the request's key.
func (r *Resolver) DeleteWebhook(ctx context.Context, id string) error {
	s, err := r.hooks()
	if err != nil {
		return err
	}
	return s.Delete(ctx, apikey.KeyID(ctx), id)
}

// TestWebhook sends one webhook of the request's key a test event.
func (r *Resolver) TestWebhook(ctx context.Context, id string) (*webhooks.Delivery, error) {
	s, err := r.hooks()
	if err != nil {
		return nil, err
	}
	return s.Test(ctx, apikey.KeyID(ctx), id)
}

// WebhookDeliveries returns the newest delivery attempts of one webhook of
// the request's key.
func (r *Resolver) WebhookDeliveries(ctx context.Context, id string, limit int) ([]*webhooks.Delivery, error) {
	s, err := r.hooks()
	if err != nil {
		return nil, err
	}
	return s.Deliveries(ctx, apikey.KeyID(ctx), id, limit)
}

// EnableWebhook turns a disabled webhook of the request's key back on.
func (r *Resolver) EnableWebhook(ctx context.Context, id string) (*webhooks.Hook, error) {
	s, err := r.hooks()
	if err != nil {
		return nil, err
	}
	return s.Enable(ctx, apikey.KeyID(ctx), id)
}
