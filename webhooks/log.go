package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
)

// Deliveries returns the newest attempts of one of the owner's hooks,
// newest first, at most limit (1..cost.MaxRows).
func (s *Service) Deliveries(ctx context.Context, owner, id string, limit int) ([]*Delivery, error) {
	if limit < 1 || limit > cost.MaxRows {
		return nil, apperr.Field("limit", "must be between 1 and %d, not %d", cost.MaxRows, limit)
	}
	if _, err := s.row(ctx, owner, id); err != nil {
		return nil, err
	}
	db := s.o.Store.DB()
	rows, err := db.QueryContext(ctx, `SELECT event_id, attempt, outcome, status_code, latency_ms, error, at
		FROM webhook_deliveries WHERE hook_id = ? ORDER BY id DESC LIMIT ?`, id, limit)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	out := []*Delivery{}
	for rows.Next() {
		var d Delivery
		var status sql.NullInt64
		var errText string
		if err := rows.Scan(&d.EventID, &d.Attempt, &d.Outcome, &status, &d.LatencyMs, &errText, &d.At); err != nil {
			return nil, unavailable(err)
		}
		d.At /= 1000
		if status.Valid {
			c := int(status.Int64)
			d.StatusCode = &c
		}
		if errText != "" {
			d.Error = &errText
		}
		out = append(out, &d)
	}
	return out, unavailable(rows.Err())
}

// Test sends one of the owner's hooks a test event now (type "test", its
// own event id, signed like every delivery), outside the order of its
// events, logs it and returns the attempt.
func (s *Service) Test(ctx context.Context, owner, id string) (*Delivery, error) {
	r, err := s.row(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	ev := id + "-test-" + randomID("", 6)
	data, _ := json.Marshal(map[string]any{"message": "a test delivery of this webhook", "sent_at": time.Now().Unix()})
	body := append([]byte(`{"event_id":"`+ev+`","hook_id":"`+id+`","type":"test","seq":0,"data":`), data...)
	body = append(body, '}')
	res := s.send(ctx, r.URL, id, r.Secret, ev, body)
	s.tell("test", res.latency)
	d := &Delivery{EventID: ev, Attempt: 1, Outcome: "test", LatencyMs: res.latency.Milliseconds(), At: time.Now().Unix()}
	if res.status != 0 {
		d.StatusCode = &res.status
	}
	if res.err != "" {
		d.Error = &res.err
	}
	if err := s.log(ctx, s.o.Store.DB(), id, *d); err != nil {
		return nil, unavailable(err)
	}
	return d, nil
}
