package webhooks

import (
	"context"
	"time"
)

// OnAttempt registers fn to be told of every delivery attempt this process
// makes (the test deliveries too), with its outcome as the log shows it
// (delivered, failed, expired, test) and how long the receiver took. It is
// how /metrics counts deliveries and their latency without this package
// knowing Prometheus; fn runs on the delivering goroutine and must not
// block.
func (s *Service) OnAttempt(fn func(outcome string, took time.Duration)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempted = append(s.attempted, fn)
}

func (s *Service) tell(outcome string, took time.Duration) {
	s.mu.Lock()
	fns := s.attempted
	s.mu.Unlock()
	for _, fn := range fns {
		fn(outcome, took)
	}
}

// Backlog is what the store holds for every process: the events queued and
// not yet taken by their receivers, and the hooks disabled. One read of
// two counts, made when /metrics is scraped.
func (s *Service) Backlog(ctx context.Context) (waiting, disabled int64, err error) {
	err = s.o.Store.DB().NewRaw(`SELECT (SELECT COUNT(*) FROM webhook_events) AS waiting,
		(SELECT COUNT(*) FROM webhooks WHERE disabled_at IS NOT NULL) AS disabled`).Scan(ctx, &waiting, &disabled)
	return waiting, disabled, err
}
