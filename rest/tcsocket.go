package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/netconn"
	"github.com/tonql/tonql/resolvers"
)

// ToncenterSocketPath is toncenter's streaming v2 websocket route.
const ToncenterSocketPath = "/api/streaming/v2/ws"

// maxSocketMessage bounds one client message: a subscribe of
// MAX_STREAM_ADDRESSES user-friendly addresses fits many times over.
const maxSocketMessage = 1 << 20

// tcEnvelope is what every client message has (toncenter's Envelope).
type tcEnvelope struct {
	ID        *string `json:"id"`
	Operation string  `json:"operation"`
}

// tcUnsubscribe is toncenter's UnsubscribeRequest.
type tcUnsubscribe struct {
	Addresses              []string `json:"addresses"`
	TraceExternalHashNorms []string `json:"trace_external_hash_norms"`
}

// ToncenterSocket serves toncenter's streaming v2 websocket: client
// messages subscribe (replaces the subscription), unsubscribe (removes
// addresses or hashes from it) and ping, each answered with its id
// ({"status":"subscribed"|"unsubscribed"|"pong"} or {"error"}, the
// message starting with the field at fault); events are its
// ActionsNotification text messages. Replacing or narrowing a subscription
// goes on from the position the old one reached, so nothing watched by
// both is lost or repeated.
func ToncenterSocket(s ActionsStreamer, checkOrigin func(*http.Request) bool, heartbeat time.Duration) http.HandlerFunc {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	up := websocket.Upgrader{CheckOrigin: checkOrigin}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; open a websocket (GET with Upgrade)", r.Method))
			return
		}
		if !websocket.IsWebSocketUpgrade(r) {
			WriteError(w, r, V3, apperr.New(apperr.BadRequest, "Upgrade: this route is a websocket; open one (toncenter's streaming v2 protocol)"))
			return
		}
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return // the upgrader answered
		}
		defer conn.Close()
		netconn.LimitSendBuffer(r.Context())
		c := &tcSocket{conn: conn, streamer: s, r: r, heartbeat: heartbeat}
		c.serve()
	}
}

type tcSocket struct {
	conn      *websocket.Conn
	streamer  ActionsStreamer
	r         *http.Request
	heartbeat time.Duration

	cur *resolvers.ActionStream
	req *tcRequest
}

func (c *tcSocket) serve() {
	ctx, cancel := context.WithCancel(c.r.Context())
	defer cancel()
	defer c.close()
	in := make(chan []byte)
	go func() {
		defer cancel()
		c.conn.SetReadLimit(maxSocketMessage)
		// A dead peer answers no ping: its read times out.
		c.conn.SetPongHandler(func(string) error {
			return c.conn.SetReadDeadline(time.Now().Add(3 * c.heartbeat))
		})
		_ = c.conn.SetReadDeadline(time.Now().Add(3 * c.heartbeat))
		for {
			_, msg, err := c.conn.ReadMessage()
			if err != nil {
				return // over the read limit gorilla closes with 1009 (message too big)
			}
			_ = c.conn.SetReadDeadline(time.Now().Add(3 * c.heartbeat))
			select {
			case in <- msg:
			case <-ctx.Done():
				return
			}
		}
	}()
	tick := time.NewTicker(c.heartbeat)
	defer tick.Stop()
	for {
		var ready <-chan struct{}
		if c.cur != nil {
			if !c.pump(ctx) {
				return
			}
			ready = c.cur.Ready()
		}
		select {
		case <-ctx.Done():
			return
		case msg := <-in:
			if !c.handle(msg) {
				return
			}
		case <-ready:
		case <-tick.C:
			if c.write(websocket.PingMessage, nil) != nil {
				return
			}
		}
	}
}

// pump sends what the stream has; false when the socket should close.
func (c *tcSocket) pump(ctx context.Context) bool {
	fm := c.req.format(c.cur)
	for {
		e, err := c.cur.Next(ctx)
		if ctx.Err() != nil {
			return false
		}
		if err != nil {
			c.reply(tcError{ID: c.req.ID, Error: apperr.From(err).Public()})
			return false
		}
		if e == nil {
			return true
		}
		_, data, _ := fm.data(e)
		if c.write(websocket.TextMessage, data) != nil {
			return false
		}
	}
}

// write sends one message; a client that takes nothing for the stall time
// is cut (the write fails).
func (c *tcSocket) write(kind int, data []byte) error {
	stall := 10 * time.Second
	if c.cur != nil {
		stall = c.cur.Stall()
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(stall))
	return c.conn.WriteMessage(kind, data)
}

func (c *tcSocket) reply(v any) bool {
	b, _ := json.Marshal(v)
	return c.write(websocket.TextMessage, b) == nil
}

func (c *tcSocket) fail(id *string, err error) bool {
	return c.reply(tcError{ID: id, Error: apperr.From(err).Public()})
}

func (c *tcSocket) close() {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
}

// handle answers one client message; false when the socket should close.
func (c *tcSocket) handle(msg []byte) bool {
	var env tcEnvelope
	if err := json.Unmarshal(msg, &env); err != nil {
		return c.fail(nil, apperr.New(apperr.BadRequest, "message: not a JSON object with an operation: %v", err))
	}
	switch env.Operation {
	case "ping":
		return c.reply(tcStatus{ID: env.ID, Status: "pong"})
	case "subscribe":
		req, err := parseTCRequest(msg, "message")
		if err != nil {
			return c.fail(env.ID, err)
		}
		if err := c.open(req, req.After); err != nil {
			return c.fail(env.ID, err)
		}
		return c.reply(tcStatus{ID: env.ID, Status: "subscribed"})
	case "unsubscribe":
		if err := c.unsubscribe(msg); err != nil {
			return c.fail(env.ID, err)
		}
		return c.reply(tcStatus{ID: env.ID, Status: "unsubscribed"})
	case "":
		return c.fail(env.ID, apperr.Field("operation", "required: subscribe, unsubscribe or ping"))
	}
	return c.fail(env.ID, apperr.Field("operation", "unknown operation %q; one of subscribe, unsubscribe, ping", apperr.Excerpt(env.Operation)))
}

// open replaces the subscription with req's, from after (nil: from where
// the old one stood, or now). The old stream's place is given up first
// when the new one would be refused for it.
func (c *tcSocket) open(req *tcRequest, after *string) error {
	if after == nil && c.cur != nil {
		pos := resolvers.EncodeStreamCursor(c.cur.Position())
		after = &pos
	}
	st, err := req.subscribe(c.r, c.streamer, after, "after")
	if err != nil && c.cur != nil && apperr.From(err).Kind == apperr.RateLimited {
		c.close()
		st, err = req.subscribe(c.r, c.streamer, after, "after")
	}
	if err != nil {
		return err
	}
	c.close()
	c.cur, c.req = st, req
	return nil
}

// unsubscribe removes addresses and hashes from the subscription and goes
// on from where it stood; with nothing left to watch the stream ends.
func (c *tcSocket) unsubscribe(msg []byte) error {
	var u tcUnsubscribe
	if err := json.Unmarshal(msg, &u); err != nil {
		return jsonFieldError(err, "message")
	}
	if len(u.Addresses) == 0 && len(u.TraceExternalHashNorms) == 0 {
		return apperr.Field("addresses", "required: the addresses (or trace_external_hash_norms) to stop watching")
	}
	drop := map[string]bool{}
	for _, a := range u.Addresses {
		raw, err := chain.NormalizeAddress(a)
		if err != nil {
			return apperr.Field("addresses", "%q: %v", apperr.Excerpt(a), err)
		}
		drop[raw] = true
	}
	for _, h := range u.TraceExternalHashNorms {
		x, err := chain.ParseHash(h)
		if err != nil {
			return apperr.Field("trace_external_hash_norms", "%q: %v", apperr.Excerpt(h), err)
		}
		drop[x.Base64()] = true
	}
	if c.cur == nil {
		return nil
	}
	next := *c.req
	next.After = nil
	next.Addresses = slices.DeleteFunc(slices.Clone(next.Addresses), func(a string) bool {
		raw, _ := chain.NormalizeAddress(a) // checked when subscribed
		return drop[raw]
	})
	next.TraceExternalHashNorms = slices.DeleteFunc(slices.Clone(next.TraceExternalHashNorms), func(h string) bool {
		x, _ := chain.ParseHash(h)
		return drop[x.Base64()]
	})
	if len(next.Addresses) == 0 && len(next.TraceExternalHashNorms) == 0 {
		c.close()
		return nil
	}
	return c.open(&next, nil)
}
