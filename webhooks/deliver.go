package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/safedial"
)

// Delivery is one attempt in a hook's log.
type Delivery struct {
	EventID string `json:"event_id"`
	// Attempt counts the attempts of this event, from 1.
	Attempt int `json:"attempt"`
	// Outcome is delivered (2xx), failed (to be retried), expired (the
	// last attempt of an event retried for WEBHOOK_RETRY_FOR: given up),
	// or test (POST .../test: a delivery outside the event order).
	Outcome    string  `json:"outcome"`
	StatusCode *int    `json:"status_code"`
	LatencyMs  int64   `json:"latency_ms"`
	Error      *string `json:"error"`
	At         int64   `json:"at"` // unix seconds
}

// Signature headers of every delivery.
const (
	HeaderEventID   = "X-Tonql-Event-Id"
	HeaderHookID    = "X-Tonql-Webhook-Id"
	HeaderTimestamp = "X-Tonql-Timestamp"
	HeaderSignature = "X-Tonql-Signature"
)

// newClient makes the delivery client: every dial through the public
// address guard (unless AllowPrivate), no proxy (a proxy would dial for
// us and the guard would see only it), no redirect followed (a redirect is
// the receiver's failure, retried like any other), a bounded answer.
func newClient(o Options) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy: nil,
			DialContext: safedial.DialContext(safedial.Options{AllowPrivate: o.AllowPrivate, ConnectTimeout: o.Timeout,
				LookupHost: o.LookupHost, ExemptAddrs: o.ExemptAddrs}),
			TLSHandshakeTimeout:    o.Timeout,
			ResponseHeaderTimeout:  o.Timeout,
			MaxResponseHeaderBytes: 16 << 10,
			MaxIdleConns:           256,
			MaxIdleConnsPerHost:    4,
			IdleConnTimeout:        60 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// result is what one attempt came to.
type result struct {
	status  int // 0: no answer
	latency time.Duration
	err     string // "" on success
}

// send POSTs body to url, signed with secret.
func (s *Service) send(ctx context.Context, url, hookID, secret, eventID string, body []byte) result {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return result{err: "bad url: " + err.Error()}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "tonql-webhooks/1")
	h.Set(HeaderEventID, eventID)
	h.Set(HeaderHookID, hookID)
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, Sign(secret, ts, body))
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return result{latency: time.Since(start), err: s.describe(ctx, err)}
	}
	defer resp.Body.Close()
	// Read (a bounded part of) the answer so the connection is reused.
	got, rerr := io.ReadAll(io.LimitReader(resp.Body, s.o.MaxRead))
	r := result{status: resp.StatusCode, latency: time.Since(start)}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.err = fmt.Sprintf("HTTP %d: redirect to %q not followed; give the webhook its final URL", resp.StatusCode, excerpt(resp.Header.Get("Location")))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		r.err = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, excerpt(string(got)))
	case rerr != nil && ctx.Err() != nil:
		r.err = "timed out reading the answer after " + s.o.Timeout.String()
	}
	return r
}

// describe names a transport failure for the log.
func (s *Service) describe(ctx context.Context, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, safedial.ErrPrivate):
		return "refused: the URL's host is not a public address (WEBHOOK_ALLOW_PRIVATE)"
	case errors.Is(err, safedial.ErrDNS):
		return "the URL's host does not resolve"
	case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
		return "timed out after " + s.o.Timeout.String()
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return "connection failed: " + excerpt(oe.Err.Error())
	}
	return excerpt(err.Error())
}

func excerpt(s string) string {
	const max = 200
	s = strings.TrimSpace(s)
	if len(s) > max {
		s = s[:max]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	return s
}

// deliverLoop claims hooks with due events, as many as there are free
// workers, and runs a worker for each; every Poll, and when the
// dispatcher queued something or a worker finished.
func (s *Service) deliverLoop(ctx context.Context) {
	sem := make(chan struct{}, s.o.Workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	prune := time.NewTicker(time.Minute)
	defer prune.Stop()
	for {
		if free := s.o.Workers - len(sem); free > 0 {
			token := s.owner + "." + strconv.FormatUint(s.claims.Add(1), 10)
			ids, err := s.claim(ctx, free, token, s.working())
			if err != nil && ctx.Err() == nil {
				s.o.Logger.Warn("webhooks: claiming hooks failed", "error", err.Error())
			}
			for _, id := range ids {
				sem <- struct{}{}
				s.setWorking(id, true)
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.work(ctx, lease{id: id, token: token})
					s.setWorking(id, false)
					<-sem
					s.poke()
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick.C:
		case <-prune.C:
			s.maintain(ctx)
		}
	}
}

// maintain drops old log entries and disables the hooks of revoked keys
// (claim skips them at once; disabled, no more events are queued for them).
func (s *Service) maintain(ctx context.Context) {
	db := s.o.Store.DB()
	_, _ = db.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE at < ?", nowMs()-s.o.LogKeep.Milliseconds())
	_ = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET disabled_at = ?, disabled_reason = 'the API key that owns it was revoked'
			WHERE disabled_at IS NULL AND owner IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL)`, nowMs())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			_, err = tx.ExecContext(ctx, "UPDATE webhook_state SET version = version + 1 WHERE id = 1")
		}
		return err
	})
}

// claim leases up to n hooks that have events due and no live lease (and
// whose key was not revoked) to token, leaving out the hooks this process
// works on already: a worker whose lease ran out while it waited for a
// write (SQLite's one write lock, held by an import for longer than a
// lease) still owns its hook here, and a second worker on it would send
// its events again beside the first.
// Postgres skips rows another process is claiming (SKIP LOCKED); SQLite
// serializes writers anyway.
func (s *Service) claim(ctx context.Context, n int, token string, busy []string) ([]string, error) {
	now := nowMs()
	lock := ""
	if s.o.Store.IsPostgres() {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	skip := ""
	if len(busy) > 0 {
		skip = " AND w.id NOT IN (?)"
	} else {
		busy = nil
	}
	args := []any{token, now + s.o.Lease.Milliseconds(), now, now}
	if busy != nil {
		args = append(args, bun.In(busy))
	}
	args = append(args, n, now)
	var ids []string
	err := s.o.Store.DB().NewRaw(`UPDATE webhooks SET lease_owner = ?, lease_until = ? WHERE id IN (
		SELECT w.id FROM webhooks AS w WHERE w.disabled_at IS NULL AND w.next_attempt_at <= ? AND w.lease_until < ?`+skip+`
		AND EXISTS (SELECT 1 FROM webhook_events AS e WHERE e.hook_id = w.id)
		AND NOT EXISTS (SELECT 1 FROM api_keys AS k WHERE k.id = w.owner AND k.revoked_at IS NOT NULL)
		ORDER BY w.next_attempt_at LIMIT ?`+lock+`) AND lease_until < ? RETURNING id`, args...).Scan(ctx, &ids)
	return ids, err
}

// lease is a claimed hook and the token it was claimed under: each claim
// has its own, so a worker whose lease another process took over finds so
// at its next renewal and stops, rather than go on beside the new owner.
type lease struct{ id, token string }

// working lists the hooks this process's workers hold.
func (s *Service) working() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.busy))
	for id := range s.busy {
		out = append(out, id)
	}
	return out
}

func (s *Service) setWorking(id string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.busy[id] = true
	} else {
		delete(s.busy, id)
	}
}

// head is a hook's next event with what sending it needs.
type head struct {
	hook     *hookRow
	seq      int64
	payload  []byte
	created  int64
	attempts int
}

// prefetch is how many of a hook's events one read brings: a burst is sent
// with one read per that many events, not one per event.
const prefetch = 32

// work delivers a leased hook's events in order until none is left, one
// fails, or the lease is lost; then gives the lease back. The lease is
// renewed (and the hook read again) with each read of events, and before
// an attempt that could outlast it, so no other process takes the hook
// while an attempt may still be under way.
func (s *Service) work(ctx context.Context, l lease) {
	id := l.id
	for ctx.Err() == nil {
		batch, until, err := s.next(ctx, l)
		if err != nil || len(batch) == 0 {
			if err != nil && ctx.Err() == nil {
				s.o.Logger.Warn("webhooks: reading a hook's next events failed", "hook", id, "error", err.Error())
			}
			s.release(ctx, l)
			return
		}
		for _, h := range batch {
			if time.Now().Add(s.o.Timeout + 2*time.Second).After(until) {
				if until, err = s.renew(ctx, l); err != nil || until.IsZero() {
					return // lost (deleted, disabled, taken over) or the database failed: the next claim retries
				}
			}
			r := s.send(ctx, h.hook.URL, id, h.hook.Secret, eventID(id, uint64(h.seq)), h.payload)
			if ctx.Err() != nil {
				return // shutting down: the event is sent again by whoever takes the hook
			}
			ok, err := s.record(ctx, h, r)
			if err != nil || !ok {
				if err != nil {
					s.o.Logger.Warn("webhooks: recording a delivery failed", "hook", id, "error", err.Error())
				}
				return
			}
		}
	}
}

// renew extends the lease; zero when it was lost.
func (s *Service) renew(ctx context.Context, l lease) (time.Time, error) {
	until := time.Now().Add(s.o.Lease)
	res, err := s.o.Store.DB().ExecContext(ctx, "UPDATE webhooks SET lease_until = ? WHERE id = ? AND lease_owner = ? AND disabled_at IS NULL",
		until.UnixMilli(), l.id, l.token)
	if err != nil {
		return time.Time{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return time.Time{}, nil
	}
	return until, nil
}

// next renews the lease, reading the hook in the same statement, and
// reads its oldest events; none when there are none or the lease was lost.
func (s *Service) next(ctx context.Context, l lease) ([]*head, time.Time, error) {
	id := l.id
	db := s.o.Store.DB()
	until := time.Now().Add(s.o.Lease)
	r, err := scanHook(db.QueryRowContext(ctx, "UPDATE webhooks SET lease_until = ? WHERE id = ? AND lease_owner = ? AND disabled_at IS NULL RETURNING "+hookColumns,
		until.UnixMilli(), id, l.token))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, until, nil // the lease was lost, or the hook deleted or disabled
	}
	if err != nil {
		return nil, until, err
	}
	rows, err := db.QueryContext(ctx, "SELECT seq, payload, created_at, attempts FROM webhook_events WHERE hook_id = ? ORDER BY seq LIMIT ?", id, prefetch)
	if err != nil {
		return nil, until, err
	}
	defer rows.Close()
	var out []*head
	for rows.Next() {
		h := &head{hook: r}
		var payload string
		if err := rows.Scan(&h.seq, &payload, &h.created, &h.attempts); err != nil {
			return nil, until, err
		}
		h.payload = []byte(payload)
		out = append(out, h)
	}
	return out, until, rows.Err()
}

// record logs an attempt and moves the hook on: past the event when it
// was delivered (or expired), to a later attempt when it failed, to
// disabled when it failed for DisableAfter. It reports whether the worker
// goes on to the next event.
func (s *Service) record(ctx context.Context, h *head, r result) (bool, error) {
	now := nowMs()
	id := h.hook.ID
	d := Delivery{EventID: eventID(id, uint64(h.seq)), Attempt: h.attempts + 1, LatencyMs: r.latency.Milliseconds(), At: now / 1000}
	defer func() { s.tell(d.Outcome, r.latency) }()
	if r.status != 0 {
		d.StatusCode = &r.status
	}
	if r.err == "" {
		// No transaction: the event goes first, then the log line; a crash
		// between them loses a log line, never resends an event.
		d.Outcome = "delivered"
		db := s.o.Store.DB()
		if _, err := db.ExecContext(ctx, "DELETE FROM webhook_events WHERE hook_id = ? AND seq = ?", id, h.seq); err != nil {
			return false, err
		}
		// A healthy hook's row is written at most once a second: under a
		// burst it would otherwise be one more write per delivery.
		hk := h.hook
		if hk.Attempts != 0 || hk.FailingSince.Valid || !hk.LastSuccessAt.Valid || now-hk.LastSuccessAt.Int64 >= 1000 {
			if _, err := db.ExecContext(ctx, "UPDATE webhooks SET attempts = 0, failing_since = NULL, last_success_at = ?, last_error = '' WHERE id = ?", now, id); err != nil {
				return false, err
			}
			hk.Attempts, hk.FailingSince, hk.LastSuccessAt = 0, sql.NullInt64{}, sql.NullInt64{Int64: now, Valid: true}
		}
		return true, s.log(ctx, db, id, d)
	}
	err := s.o.Store.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		d.Error = &r.err
		d.Outcome = "failed"
		failing := now
		if h.hook.FailingSince.Valid {
			failing = h.hook.FailingSince.Int64
		}
		attempts := h.hook.Attempts + 1
		if now-h.created >= s.o.RetryFor.Milliseconds() {
			d.Outcome = "expired"
			if _, err := tx.ExecContext(ctx, "DELETE FROM webhook_events WHERE hook_id = ? AND seq = ?", id, h.seq); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, "UPDATE webhook_events SET attempts = attempts + 1 WHERE hook_id = ? AND seq = ?", id, h.seq); err != nil {
			return err
		}
		if err := s.log(ctx, tx, id, d); err != nil {
			return err
		}
		if now-failing >= s.o.DisableAfter.Milliseconds() {
			reason := fmt.Sprintf("no delivery succeeded since %s (WEBHOOK_DISABLE_AFTER=%s); last error: %s",
				time.UnixMilli(failing).UTC().Format(time.RFC3339), s.o.DisableAfter, r.err)
			if _, err := tx.ExecContext(ctx, "UPDATE webhook_state SET version = version + 1 WHERE id = 1"); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE webhooks SET attempts = ?, failing_since = ?, last_error = ?, disabled_at = ?, disabled_reason = ?,
				lease_owner = '', lease_until = 0 WHERE id = ?`, attempts, failing, r.err, now, reason, id)
			return err
		}
		next := now + s.o.Backoff.Delay(attempts, nil).Milliseconds()
		_, err := tx.ExecContext(ctx, `UPDATE webhooks SET attempts = ?, failing_since = ?, last_error = ?, next_attempt_at = ?,
			lease_owner = '', lease_until = 0 WHERE id = ?`, attempts, failing, r.err, next, id)
		return err
	})
	return false, err
}

func (s *Service) log(ctx context.Context, tx bun.IDB, hookID string, d Delivery) error {
	errText := ""
	if d.Error != nil {
		errText = *d.Error
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO webhook_deliveries (hook_id, event_id, attempt, outcome, status_code, latency_ms, error, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		hookID, d.EventID, d.Attempt, d.Outcome, d.StatusCode, d.LatencyMs, errText, nowMs())
	return err
}

// release gives a hook's lease back.
func (s *Service) release(ctx context.Context, l lease) {
	_, _ = s.o.Store.DB().ExecContext(context.WithoutCancel(ctx), "UPDATE webhooks SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?", l.id, l.token)
}
