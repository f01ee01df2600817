// Package ratelog keeps a failing dependency from flooding the log: the
// first occurrence of an error is logged at once, repeats of the same error
// at most once per interval, with how many were held back.
package ratelog

import (
	"log/slog"
	"sync"
	"time"
)

// Limiter is safe for concurrent use.
type Limiter struct {
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex
	seen map[string]*entry
}

type entry struct {
	at         time.Time
	suppressed int
}

// New logs through log (nil: slog.Default()) and repeats an identical
// message at most once per every.
func New(log *slog.Logger, every time.Duration) *Limiter {
	if log == nil {
		log = slog.Default()
	}
	return &Limiter{log: log, every: every, now: time.Now, seen: map[string]*entry{}}
}

// Warn logs msg with err unless the same msg and error text was logged less
// than the interval ago. It reports whether it logged.
func (l *Limiter) Warn(msg string, err error, attrs ...any) bool {
	key := msg + "\x00" + err.Error()
	now := l.now()
	l.mu.Lock()
	e := l.seen[key]
	if e != nil && now.Sub(e.at) < l.every {
		e.suppressed++
		l.mu.Unlock()
		return false
	}
	suppressed := 0
	if e != nil {
		suppressed = e.suppressed
	}
	if len(l.seen) > 256 { // many distinct errors: forget the old ones
		clear(l.seen)
	}
	l.seen[key] = &entry{at: now}
	l.mu.Unlock()
	attrs = append(attrs, "error", err.Error())
	if suppressed > 0 {
		attrs = append(attrs, "repeated", suppressed)
	}
	l.log.Warn(msg, attrs...)
	return true
}

// Forget resets the limiter after a recovery, so the next failure is
// reported at once.
func (l *Limiter) Forget() {
	l.mu.Lock()
	clear(l.seen)
	l.mu.Unlock()
}
