package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/resolvers"
)

// DefaultHeartbeat is how often an idle stream sends a comment, so proxies
// and load balancers (which commonly close connections idle for 60 s) keep
// it open.
const DefaultHeartbeat = 15 * time.Second

// streamWriteWait bounds one write to a stream: a client that stops
// reading is dropped after it, and its queue (notify.Options.Queue) bounds
// what waits for it meanwhile.
const streamWriteWait = 20 * time.Second

// streamOnlyParams are /api/v3/actions parameters that mean nothing for a
// stream, which sends every matching action once, in commit order.
var streamOnlyParams = []string{"limit", "offset", "sort"}

// ActionsStreamer opens action streams (resolvers.Resolver).
type ActionsStreamer interface {
	SubscribeActions(ctx context.Context, in *model.ActionFilter, after *string, field string) (*resolvers.ActionStream, error)
}

// ActionsStream serves GET /api/v3/actions/stream: Server-Sent Events, one
// event per new action matching the /api/v3/actions filters, its data a
// /api/v3/actions response of that one action, its id a cursor. A client
// that reconnects with Last-Event-ID (browsers do it by themselves) or
// ?after=CURSOR first gets what it missed, from the store. Errors before
// the stream starts are answered in the v3 envelope; a stream that ends
// sends a last "end" event with the error and the cursor to resume from.
func ActionsStream(s ActionsStreamer, heartbeat time.Duration) http.HandlerFunc {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		q := r.URL.Query()
		for _, p := range streamOnlyParams {
			if q.Has(p) {
				WriteError(w, r, V3, apperr.Field(p, "not used by the stream, which sends every matching action once, in commit order"))
				return
			}
		}
		// Last-Event-ID wins: a browser reconnects to the URL it was given,
		// ?after= included, and sends the id it got last.
		after, field := lastEventID(r)
		if after == nil {
			var err error
			if after, err = single(q, "after"); err != nil {
				WriteError(w, r, V3, err)
				return
			}
			field = "after"
		}
		q.Del("after")
		filter, _, _, _, err := parseActionsQuery(q)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		st, err := s.SubscribeActions(r.Context(), filter, after, field)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		defer st.Close()
		serveStream(w, r, st, heartbeat)
	}
}

func lastEventID(r *http.Request) (*string, string) {
	if vals, ok := r.Header["Last-Event-Id"]; ok && len(vals) > 0 && vals[0] != "" {
		return &vals[0], "Last-Event-ID"
	}
	return nil, ""
}

// serveStream writes events until the client leaves or the stream ends.
func serveStream(w http.ResponseWriter, r *http.Request, st *resolvers.ActionStream, heartbeat time.Duration) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	// The server's ReadTimeout would end the request (its context) mid-stream.
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: rc}
	// The first id is the starting position, so a client that gets no
	// event before reconnecting still resumes from where it started.
	sw.comment("stream of new actions; id is the resume cursor")
	sw.id(st.Position())
	sw.flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for sw.err == nil {
		e, err := st.Next(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			sw.end(err, st.Position())
			sw.flush()
			return
		}
		if e != nil {
			data, err := e.JSON(st.IncludeAccounts)
			if err != nil {
				sw.end(err, st.Position())
				sw.flush()
				return
			}
			sw.event(e.Seq, data)
			continue
		}
		sw.flush()
		select {
		case <-ctx.Done():
			return
		case <-st.Ready():
		case <-tick.C:
			sw.comment("heartbeat")
			sw.id(st.Position())
		}
	}
}

// sseWriter writes the event-stream format; the first failed write (the
// client is gone or stopped reading) ends the stream.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	buf     []byte
	lastID  uint64
	started bool
	err     error
}

func (s *sseWriter) id(pos uint64) {
	if s.started && pos == s.lastID {
		return
	}
	s.started, s.lastID = true, pos
	s.buf = append(append(append(s.buf, "id: "...), resolvers.EncodeStreamCursor(pos)...), "\n\n"...)
}

func (s *sseWriter) comment(text string) {
	s.buf = append(append(append(s.buf, ": "...), text...), '\n')
}

func (s *sseWriter) event(seq uint64, data []byte) {
	s.started, s.lastID = true, seq
	s.buf = append(append(s.buf, "id: "...), resolvers.EncodeStreamCursor(seq)...)
	s.buf = append(append(append(s.buf, "\ndata: "...), data...), "\n\n"...)
	if len(s.buf) >= 32<<10 {
		s.write()
	}
}

// end writes the last event: the error in the v3 envelope and the cursor
// to resume from.
func (s *sseWriter) end(err error, pos uint64) {
	e := apperr.From(err)
	body := ErrorBody(V3, e)
	body["cursor"] = resolvers.EncodeStreamCursor(pos)
	b, _ := json.Marshal(body) // strings and numbers always marshal
	s.buf = append(append(append(s.buf, "event: end\nid: "...), resolvers.EncodeStreamCursor(pos)...), "\ndata: "...)
	s.buf = append(append(s.buf, b...), "\n\n"...)
}

func (s *sseWriter) write() {
	if s.err != nil || len(s.buf) == 0 {
		s.buf = s.buf[:0]
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
	_, s.err = s.w.Write(s.buf)
	s.buf = s.buf[:0]
}

func (s *sseWriter) flush() {
	s.write()
	if s.err == nil {
		s.err = s.rc.Flush()
	}
}
