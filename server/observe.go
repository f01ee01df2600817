package server

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/tonql/tonql/internal/reqid"
	"github.com/tonql/tonql/store"
)

// requestNote carries what inner middleware learns about a request (the
// key) out to the log line. It is written and read on the request's own
// goroutine.
type requestNote struct {
	keyID string
}

type noteKeyType struct{}

func noteKey(ctx context.Context, keyID string) {
	if n, ok := ctx.Value(noteKeyType{}).(*requestNote); ok {
		n.keyID = keyID
	}
}

// statusWriter remembers the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Hijack hands the connection to a websocket (its library asks the writer
// itself, not through http.ResponseController).
func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s.status = http.StatusSwitchingProtocols
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// StatusClientClosed is the status observe records for a request whose
// client closed the connection before the answer (nginx's 499); nothing
// is sent.
const StatusClientClosed = 499

// observe writes one structured log line per request (request id, method,
// path with the key redacted, status, duration, key id) and feeds the
// metrics. It runs inside requestID and outside everything else, so it
// sees panics already turned into 500s.
func observe(log *slog.Logger, al AccessLog, m *metrics, next http.Handler) http.Handler {
	var seen atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		note := &requestNote{}
		sw := &statusWriter{ResponseWriter: w}
		ctx := context.WithValue(r.Context(), noteKeyType{}, note)
		var qt *store.QueryTime
		if log.Enabled(ctx, al.Level) { // timed only where a line may be written
			ctx, qt = store.WithQueryTime(ctx)
		}
		next.ServeHTTP(sw, r.WithContext(ctx))
		if sw.status == 0 {
			sw.status = http.StatusOK // nothing written: net/http sends 200
		}
		if sw.status == http.StatusGatewayTimeout && errors.Is(r.Context().Err(), context.Canceled) {
			// The client went away: its request's context (not the
			// server's deadline, which is inside this) was cancelled and
			// the work stopped as a timeout nobody reads. Counted and
			// logged as nginx's 499, so 504s stay the server's own.
			sw.status = StatusClientClosed
		}
		took := time.Since(start)
		m.observe(r.URL.Path, sw.status, took)
		if !al.wants(r.Context(), log, sw.status, &seen) {
			return
		}
		attrs := []slog.Attr{
			slog.String("request_id", reqid.From(r.Context())),
			slog.String("method", r.Method),
			slog.String("path", logPath(r.URL.Path)),
			slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			slog.Int64("bytes", sw.bytes),
		}
		if note.keyID != "" {
			attrs = append(attrs, slog.String("key_id", note.keyID))
		}
		if n, took := qt.Totals(); n > 0 {
			attrs = append(attrs, slog.Int64("db_statements", n), slog.Float64("db_ms", float64(took.Microseconds())/1000))
		}
		if al.Sample > 1 {
			attrs = append(attrs, slog.Int("sample", al.Sample))
		}
		log.LogAttrs(r.Context(), al.Level, "request", attrs...)
	})
}

// AccessLog says how requests are logged: at which level (LOG_LEVEL above
// it silences them) and, under load, one in Sample answers below 400
// (ACCESS_LOG_SAMPLE). Errors are always logged: they are what an operator
// looks for, and sampling them would hide a key's failures.
type AccessLog struct {
	Level  slog.Level // zero: info
	Sample int        // 0 or 1: every request
}

func (al AccessLog) wants(ctx context.Context, log *slog.Logger, status int, seen *atomic.Uint64) bool {
	if !log.Enabled(ctx, al.Level) {
		return false // no attributes built for a line nobody reads
	}
	if status >= 400 || al.Sample <= 1 {
		return true
	}
	return seen.Add(1)%uint64(al.Sample) == 0
}
