package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/internal/netconn"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
)

// DefaultHeartbeat is how often an idle stream sends a comment, so proxies
// and load balancers (which commonly close connections idle for 60 s) keep
// it open.
const DefaultHeartbeat = 15 * time.Second

// streamOnlyParams are /api/v3/actions parameters that mean nothing for a
// stream, which sends every matching action once, in commit order.
var streamOnlyParams = []string{"limit", "offset", "sort"}

// ActionsStreamer opens action streams (resolvers.Resolver).
type ActionsStreamer interface {
	SubscribeActions(ctx context.Context, in *model.ActionFilter, watch *model.StreamWatch, after *string, field string) (*resolvers.ActionStream, error)
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
		var q url.Values
		switch r.Method {
		case http.MethodGet:
			q = r.URL.Query()
		case http.MethodPost:
			// A set of thousands of addresses does not fit in a URL.
			var err error
			if q, err = bodyParams(r); err != nil {
				WriteError(w, r, V3, err)
				return
			}
		default:
			w.Header().Set("Allow", "GET, POST")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET or POST", r.Method))
			return
		}
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
		watch, err := parseWatch(q)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		filter, _, _, _, err := parseActionsQuery(q)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		st, err := s.SubscribeActions(r.Context(), filter, watch, after, field)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		defer st.Close()
		serveStream(w, r, st, heartbeat, ownFormat(st))
	}
}

func lastEventID(r *http.Request) (*string, string) {
	if vals, ok := r.Header["Last-Event-Id"]; ok && len(vals) > 0 && vals[0] != "" {
		return &vals[0], "Last-Event-ID"
	}
	return nil, ""
}

// serveStream writes events until the client leaves or the stream ends.
// The bytes go out through an sseOut: at most StreamBuffer of them wait,
// and a client that takes nothing for the subscription's stall time is cut
// with the last event "end" (503, read too slowly), whether its events come
// from a replay (which then reads no further page) or live.
func serveStream(w http.ResponseWriter, r *http.Request, st *resolvers.ActionStream, heartbeat time.Duration, fm streamFormat) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	// The server's ReadTimeout would end the request (its context) mid-stream.
	_ = rc.SetReadDeadline(time.Time{})
	netconn.LimitSendBuffer(ctx)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	out := startOut(w, rc, StreamBuffer, st.Stall())
	var sw sseWriter
	// The first id is the starting position, so a client that gets no
	// event before reconnecting still resumes from where it started.
	sw.buf = append(sw.buf, fm.hello...)
	sw.id(st.Position())
	sw.to(out)
	end := func(err error) {
		out.last(false, func(pos uint64) []byte { return endEvent(err, pos) })
	}
	cut := func() {
		err := st.CutSlow("it took nothing for " + st.Stall().String())
		out.last(true, func(pos uint64) []byte { return endEvent(err, pos) })
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		switch err := out.wait(ctx); {
		case err == errStalled:
			cut()
			return
		case err != nil:
			out.abort()
			return
		}
		e, err := st.Next(ctx)
		if ctx.Err() != nil {
			out.abort()
			return
		}
		if err != nil {
			end(err)
			return
		}
		if e != nil {
			name, data, err := fm.data(e)
			if err != nil {
				end(err)
				return
			}
			if name == "" {
				name = fm.event
			}
			sw.event(name, e.Seq, !e.Pending && e.Invalidated == "", data)
			sw.to(out)
			continue
		}
		select {
		case <-ctx.Done():
			out.abort()
			return
		case <-st.Ready():
		case <-tick.C:
			if out.stalled() {
				cut()
				return
			}
			sw.comment("heartbeat")
			sw.id(st.Position())
			sw.to(out)
		}
	}
}

// streamFormat is how a protocol writes a stream: what it says first, the
// default name of its events' SSE event field ("" for none), and each
// event's data with its own name when it has one.
type streamFormat struct {
	hello []byte
	event string
	data  func(*notify.Event) (name string, data []byte, err error)
}

// ownFormat is /api/v3/actions/stream's: each event a /api/v3/actions page
// of its one action; a pending one the same named "pending", an
// invalidation {"trace_external_hash_norm"} named "invalidated"; a
// transaction (types=transactions) a /api/v3/transactions page of it with
// the metadata of its tokens, named "transactions"; an account's state
// after a transaction (types=account_state_change) notify.StateEvent's
// JSON, named "account_state_change"; a trace stored complete
// (types=trace) a /api/v3/traces page of it with its actions and the
// metadata of its tokens, named "trace"; a jetton wallet after a
// transaction (types=jettons_change) notify.JettonEvent's JSON, named
// "jettons_change".
func ownFormat(st *resolvers.ActionStream) streamFormat {
	return streamFormat{hello: []byte(": stream of new events; id is the resume cursor\n"),
		data: func(e *notify.Event) (string, []byte, error) {
			if e.Invalidated != "" {
				b, err := json.Marshal(map[string]string{"trace_external_hash_norm": e.Invalidated})
				return "invalidated", b, err
			}
			b, err := e.JSON(st.IncludeAccounts)
			if e.Tx != nil || e.State != nil || e.Trace != nil || e.Jetton != nil {
				return e.Type(), b, err
			}
			if e.Pending {
				return "pending", b, err
			}
			return "", b, err
		}}
}

// sseWriter formats the event-stream format.
type sseWriter struct {
	buf     []byte
	lastID  uint64
	started bool
	hasID   bool // buf ends at an id
}

func (s *sseWriter) id(pos uint64) {
	if s.started && pos == s.lastID {
		return
	}
	s.started, s.lastID, s.hasID = true, pos, true
	s.buf = append(append(append(s.buf, "id: "...), resolvers.EncodeStreamCursor(pos)...), "\n\n"...)
}

func (s *sseWriter) comment(text string) {
	s.buf = append(append(append(s.buf, ": "...), text...), '\n')
}

// event writes one event; withID gives it the position as its id (pending
// news has none: it moves no position).
func (s *sseWriter) event(name string, seq uint64, withID bool, data []byte) {
	if name != "" {
		s.buf = append(append(append(s.buf, "event: "...), name...), '\n')
	}
	if withID {
		s.started, s.lastID, s.hasID = true, seq, true
		s.buf = append(append(append(s.buf, "id: "...), resolvers.EncodeStreamCursor(seq)...), '\n')
	}
	s.buf = append(append(append(s.buf, "data: "...), data...), "\n\n"...)
}

// to hands what was formatted to out.
func (s *sseWriter) to(out *sseOut) {
	out.put(s.buf, s.lastID, s.hasID)
	s.buf, s.hasID = s.buf[:0], false
}

// endEvent is the last event: the error in the v3 envelope and the cursor
// to resume from.
func endEvent(err error, pos uint64) []byte {
	e := apperr.From(err)
	body := ErrorBody(V3, e)
	body["cursor"] = resolvers.EncodeStreamCursor(pos)
	b, _ := json.Marshal(body) // strings and numbers always marshal
	var buf []byte
	buf = append(append(append(buf, "event: end\nid: "...), resolvers.EncodeStreamCursor(pos)...), "\ndata: "...)
	return append(append(buf, b...), "\n\n"...)
}
