package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/safedial"
)

// Hook is a webhook as its owner sees it (never its secret).
type Hook struct {
	ID         string   `json:"id"`
	URL        string   `json:"url"`
	Addresses  []string `json:"addresses"`
	EventTypes []string `json:"event_types"`
	// Status is active, failing (retrying) or disabled.
	Status    string `json:"status"`
	CreatedAt int64  `json:"created_at"` // unix seconds
	// Pending is how many events wait for the receiver.
	Pending        int     `json:"pending"`
	FailingSince   *int64  `json:"failing_since"`   // unix seconds of the first failure since the last success
	LastSuccessAt  *int64  `json:"last_success_at"` // unix seconds
	LastError      *string `json:"last_error"`
	DisabledAt     *int64  `json:"disabled_at"`
	DisabledReason *string `json:"disabled_reason"`
}

// Created is a new hook and its signing secret, shown only this once.
type Created struct {
	Webhook *Hook  `json:"webhook"`
	Secret  string `json:"secret"`
}

// Input is what a hook is made of.
type Input struct {
	URL        string   `json:"url"`
	Addresses  []string `json:"addresses"`
	EventTypes []string `json:"event_types"`
}

type hookRow struct {
	ID             string
	Owner          string
	URL            string
	Secret         string
	Addresses      string
	EventTypes     string
	StartSeq       int64
	CreatedAt      int64
	Attempts       int
	FailingSince   sql.NullInt64
	LastSuccessAt  sql.NullInt64
	LastError      string
	DisabledAt     sql.NullInt64
	DisabledReason string
}

const hookColumns = "id, owner, url, secret, addresses, event_types, start_seq, created_at, attempts, failing_since, last_success_at, last_error, disabled_at, disabled_reason"

func scanHook(sc interface{ Scan(...any) error }) (*hookRow, error) {
	var r hookRow
	err := sc.Scan(&r.ID, &r.Owner, &r.URL, &r.Secret, &r.Addresses, &r.EventTypes, &r.StartSeq, &r.CreatedAt, &r.Attempts,
		&r.FailingSince, &r.LastSuccessAt, &r.LastError, &r.DisabledAt, &r.DisabledReason)
	return &r, err
}

func secs(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	s := v.Int64 / 1000
	return &s
}

func (r *hookRow) public(pending int) *Hook {
	h := &Hook{ID: r.ID, URL: r.URL, CreatedAt: r.CreatedAt / 1000, Pending: pending,
		FailingSince: secs(r.FailingSince), LastSuccessAt: secs(r.LastSuccessAt), DisabledAt: secs(r.DisabledAt)}
	_ = json.Unmarshal([]byte(r.Addresses), &h.Addresses)
	_ = json.Unmarshal([]byte(r.EventTypes), &h.EventTypes)
	if r.LastError != "" {
		h.LastError = &r.LastError
	}
	switch {
	case r.DisabledAt.Valid:
		h.Status = "disabled"
		h.DisabledReason = &r.DisabledReason
	case r.FailingSince.Valid:
		h.Status = "failing"
	default:
		h.Status = "active"
	}
	return h
}

func errNoKey() error {
	return apperr.New(apperr.Unauthorized, "webhooks belong to an API key: call this route with one (X-API-Key, or /{api_key}/...)")
}

func errNotFound(id string) error {
	return apperr.New(apperr.NotFound, "no webhook %q of this key", apperr.Excerpt(id))
}

func unavailable(err error) error {
	if err == nil {
		return nil
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	return apperr.Wrap(apperr.Unavailable, err, "the database cannot answer now")
}

// check validates an input: the URL (http or https, public unless
// AllowPrivate, judged on what its host resolves to now; every dial is
// checked again), the address set and the event types.
func (s *Service) check(ctx context.Context, in Input) (Input, error) {
	var out Input
	u, err := url.Parse(strings.TrimSpace(in.URL))
	switch {
	case in.URL == "":
		return out, apperr.Field("url", "required")
	case len(in.URL) > maxURL:
		return out, apperr.Field("url", "longer than %d characters", maxURL)
	case err != nil:
		return out, apperr.Field("url", "not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return out, apperr.Field("url", "must be an http or https URL, not %q", apperr.Excerpt(u.Scheme))
	case u.Host == "" || u.Hostname() == "":
		return out, apperr.Field("url", "has no host")
	case u.User != nil:
		return out, apperr.Field("url", "must not carry credentials; verify deliveries by their signature instead")
	case u.Fragment != "":
		return out, apperr.Field("url", "must not have a fragment")
	}
	if !s.o.AllowPrivate {
		if err := s.checkHost(ctx, u); err != nil {
			return out, err
		}
	}
	out.URL = u.String()
	if len(in.Addresses) == 0 {
		return out, apperr.Field("addresses", "required: at least one address to watch")
	}
	if len(in.Addresses) > s.o.MaxAddresses {
		return out, apperr.Field("addresses", "%d addresses, over the limit of %d per webhook (WEBHOOK_MAX_ADDRESSES)", len(in.Addresses), s.o.MaxAddresses)
	}
	seen := make(map[string]bool, len(in.Addresses))
	for i, a := range in.Addresses {
		raw, err := chain.NormalizeAddress(strings.TrimSpace(a))
		if err != nil {
			return out, apperr.Field(fmt.Sprintf("addresses[%d]", i), "%q: %v", apperr.Excerpt(a), err)
		}
		if !seen[raw] {
			seen[raw] = true
			out.Addresses = append(out.Addresses, raw)
		}
	}
	slices.Sort(out.Addresses)
	if len(in.EventTypes) == 0 {
		in.EventTypes = []string{EventActions}
	}
	for _, t := range in.EventTypes {
		if !slices.Contains(EventTypes, t) {
			return out, apperr.Field("event_types", "unknown event type %q; one of: %s", apperr.Excerpt(t), strings.Join(EventTypes, ", "))
		}
		if !slices.Contains(out.EventTypes, t) {
			out.EventTypes = append(out.EventTypes, t)
		}
	}
	return out, nil
}

// checkHost refuses a URL whose host is, or resolves to, a non-public
// address: the owner learns at once what delivery would refuse anyway.
func (s *Service) checkHost(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		lookup := s.o.LookupHost
		if lookup == nil {
			lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			}
		}
		if ips, err = lookup(ctx, host); err != nil || len(ips) == 0 {
			return apperr.Field("url", "host %q does not resolve", apperr.Excerpt(host))
		}
	}
	for _, ip := range ips {
		if !safedial.PublicAddr(ip) && !slices.Contains(s.o.ExemptAddrs, net.JoinHostPort(ip.Unmap().String(), port)) {
			return apperr.Field("url", "host %q is %s, not a public address; webhooks deliver only to public addresses (WEBHOOK_ALLOW_PRIVATE)",
				apperr.Excerpt(host), ip)
		}
	}
	return nil
}

// Create makes a hook for the key owner; it is told the actions committed
// after it was made.
func (s *Service) Create(ctx context.Context, owner string, in Input) (*Created, error) {
	if owner == "" {
		return nil, errNoKey()
	}
	in, err := s.check(ctx, in)
	if err != nil {
		return nil, err
	}
	addrs, _ := json.Marshal(in.Addresses)
	types, _ := json.Marshal(in.EventTypes)
	r := &hookRow{ID: randomID("wh_", 12), Owner: owner, URL: in.URL, Secret: newSecret(), Addresses: string(addrs),
		EventTypes: string(types), CreatedAt: nowMs()}
	err = s.o.Store.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The state row first: it serializes this with the dispatcher's
		// batches, so the hook is matched against every action after
		// start_seq, and the count below against other creations.
		if _, err := tx.ExecContext(ctx, "UPDATE webhook_state SET version = version + 1 WHERE id = 1"); err != nil {
			return err
		}
		var n int
		if err := tx.NewRaw("SELECT COUNT(*) FROM webhooks WHERE owner = ?", owner).Scan(ctx, &n); err != nil {
			return err
		}
		if n >= s.o.MaxHooksPerKey {
			return apperr.New(apperr.RateLimited, "this key holds its limit of %d webhooks (WEBHOOK_MAX_PER_KEY); delete one first", s.o.MaxHooksPerKey)
		}
		if err := tx.NewRaw("SELECT last FROM action_seq WHERE id = 1").Scan(ctx, &r.StartSeq); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO webhooks (id, owner, url, secret, addresses, event_types, start_seq, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			r.ID, r.Owner, r.URL, r.Secret, r.Addresses, r.EventTypes, r.StartSeq, r.CreatedAt)
		return err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return &Created{Webhook: r.public(0), Secret: r.Secret}, nil
}

// List returns the owner's hooks, oldest first.
func (s *Service) List(ctx context.Context, owner string) ([]*Hook, error) {
	if owner == "" {
		return nil, errNoKey()
	}
	rows, err := s.o.Store.DB().QueryContext(ctx, "SELECT "+hookColumns+" FROM webhooks WHERE owner = ? ORDER BY created_at, id", owner)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var list []*hookRow
	for rows.Next() {
		r, err := scanHook(rows)
		if err != nil {
			return nil, unavailable(err)
		}
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	pending, err := s.pending(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make([]*Hook, 0, len(list))
	for _, r := range list {
		out = append(out, r.public(pending[r.ID]))
	}
	return out, nil
}

// Get returns one of the owner's hooks.
func (s *Service) Get(ctx context.Context, owner, id string) (*Hook, error) {
	r, err := s.row(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	pending, err := s.pending(ctx, []*hookRow{r})
	if err != nil {
		return nil, err
	}
	return r.public(pending[r.ID]), nil
}

func (s *Service) row(ctx context.Context, owner, id string) (*hookRow, error) {
	if owner == "" {
		return nil, errNoKey()
	}
	db := s.o.Store.DB()
	r, err := scanHook(db.QueryRowContext(ctx, "SELECT "+hookColumns+" FROM webhooks WHERE id = ? AND owner = ?", id, owner))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound(id)
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return r, nil
}

func (s *Service) pending(ctx context.Context, hooks []*hookRow) (map[string]int, error) {
	out := map[string]int{}
	if len(hooks) == 0 {
		return out, nil
	}
	ids := make([]string, len(hooks))
	for i, h := range hooks {
		ids[i] = h.ID
	}
	var rows []struct {
		HookID string `bun:"hook_id"`
		N      int    `bun:"n"`
	}
	if err := s.o.Store.DB().NewRaw("SELECT hook_id, COUNT(*) AS n FROM webhook_events WHERE hook_id IN (?) GROUP BY hook_id", bun.In(ids)).Scan(ctx, &rows); err != nil {
		return nil, unavailable(err)
	}
	for _, r := range rows {
		out[r.HookID] = r.N
	}
	return out, nil
}

// Delete removes one of the owner's hooks, its queued events and its log.
func (s *Service) Delete(ctx context.Context, owner, id string) error {
	if owner == "" {
		return errNoKey()
	}
	err := s.o.Store.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE webhook_state SET version = version + 1 WHERE id = 1"); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM webhooks WHERE id = ? AND owner = ?", id, owner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errNotFound(id)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM webhook_events WHERE hook_id = ?", id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE hook_id = ?", id)
		return err
	})
	return unavailable(err)
}

// Enable turns one of the owner's disabled hooks back on (a hook that is
// not disabled is left as it is). Its URL is checked again as when it was
// made. It is told what is committed from now on, after the events that
// were waiting when it was disabled; what was committed while it was
// disabled is not queued for it (read that from /api/v3/actions).
func (s *Service) Enable(ctx context.Context, owner, id string) (*Hook, error) {
	r, err := s.row(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	if !r.DisabledAt.Valid {
		return s.Get(ctx, owner, id)
	}
	var addrs, types []string
	_ = json.Unmarshal([]byte(r.Addresses), &addrs)
	_ = json.Unmarshal([]byte(r.EventTypes), &types)
	if _, err := s.check(ctx, Input{URL: r.URL, Addresses: addrs, EventTypes: types}); err != nil {
		return nil, err
	}
	err = s.o.Store.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The state row first, as Create: the dispatcher's batches and
		// this are serialized, so start_seq is exactly where it goes on.
		if _, err := tx.ExecContext(ctx, "UPDATE webhook_state SET version = version + 1 WHERE id = 1"); err != nil {
			return err
		}
		var start int64
		if err := tx.NewRaw("SELECT last FROM action_seq WHERE id = 1").Scan(ctx, &start); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE webhooks SET disabled_at = NULL, disabled_reason = '', attempts = 0, failing_since = NULL,
			last_error = '', next_attempt_at = 0, lease_owner = '', lease_until = 0, start_seq = ? WHERE id = ? AND owner = ?`, start, id, owner)
		return err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	s.poke()
	return s.Get(ctx, owner, id)
}
