package rest

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// ToncenterStreamPath is toncenter's streaming v2 SSE route.
const ToncenterStreamPath = "/api/streaming/v2/sse"

// tcRequest is toncenter's streaming v2 subscription (SSERequest; the
// websocket's subscribe message is the same with id and operation), plus
// our resume cursor.
type tcRequest struct {
	ID                     *string  `json:"id"`
	Operation              string   `json:"operation,omitempty"`
	Addresses              []string `json:"addresses"`
	TraceExternalHashNorms []string `json:"trace_external_hash_norms"`
	Types                  []string `json:"types"`
	MinFinality            *string  `json:"min_finality"`
	ActionTypes            []string `json:"action_types"`
	SupportedActionTypes   []string `json:"supported_action_types"`
	IncludeAddressBook     *bool    `json:"include_address_book"`
	IncludeMetadata        *bool    `json:"include_metadata"`
	// After resumes after a cursor (an event's SSE id): ours.
	After *string `json:"after"`
	// IncludeCursor adds "cursor" to each finalized notification (ours):
	// the websocket has no event ids, and toncenter's shapes stay exact
	// for clients that do not ask.
	IncludeCursor *bool `json:"include_cursor"`
}

// tcStatus and tcError are toncenter's StatusResponse and ErrorResponse.
type tcStatus struct {
	ID     *string `json:"id,omitempty"`
	Status string  `json:"status"`
}

// tcInvalidated is toncenter's TraceInvalidatedNotification.
type tcInvalidated struct {
	Type                  string `json:"type"`
	TraceExternalHashNorm string `json:"trace_external_hash_norm"`
}

type tcError struct {
	ID    *string `json:"id,omitempty"`
	Error string  `json:"error"`
}

// parseTCRequest reads a subscription as toncenter checks it: types are
// required, and addresses or hashes; then everything else as our streams
// check it (address forms, type and finality names, set size).
func parseTCRequest(raw []byte, what string) (*tcRequest, error) {
	var req tcRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return &req, jsonFieldError(err, what)
	}
	if len(req.Types) == 0 {
		return &req, apperr.Field("types", "required: the event types to stream (actions, transactions, trace, account_state_change, jettons_change)")
	}
	if len(req.Addresses) == 0 && len(req.TraceExternalHashNorms) == 0 {
		return &req, apperr.Field("addresses", "required: the addresses to watch (or trace_external_hash_norms)")
	}
	return &req, nil
}

// subscribe opens req's stream.
func (req *tcRequest) subscribe(r *http.Request, s ActionsStreamer, after *string, field string) (*resolvers.ActionStream, error) {
	filter := &model.ActionFilter{ActionType: req.ActionTypes, SupportedActionTypes: req.SupportedActionTypes}
	watch := &model.StreamWatch{Addresses: req.Addresses, TraceExternalHashNorms: req.TraceExternalHashNorms,
		Types: req.Types, MinFinality: req.MinFinality}
	return s.SubscribeActions(r.Context(), filter, watch, after, field)
}

// tcFormat writes st's events as toncenter's notifications: an action
// as ActionsNotification, one per notification (toncenter groups a
// trace's actions), always finalized.
func (req *tcRequest) format(st *resolvers.ActionStream) streamFormat {
	book := req.IncludeAddressBook != nil && *req.IncludeAddressBook
	meta := req.IncludeMetadata != nil && *req.IncludeMetadata
	cursor := req.IncludeCursor != nil && *req.IncludeCursor
	hello, _ := json.Marshal(tcStatus{ID: req.ID, Status: "subscribed"})
	return streamFormat{
		hello: append(append([]byte("event: connected\ndata: "), hello...), "\n\n"...),
		event: "event",
		data: func(e *notify.Event) (string, []byte, error) {
			if e.Invalidated != "" {
				b, err := json.Marshal(tcInvalidated{Type: "trace_invalidated", TraceExternalHashNorm: e.Invalidated})
				return "", b, err
			}
			if e.Tx != nil {
				b, err := tcTransactions(e, book, meta, cursor)
				return "", b, err
			}
			if e.State != nil {
				b, err := tcAccountState(e, cursor)
				return "", b, err
			}
			if e.Trace != nil {
				b, err := tcTrace(st, e, book, meta, cursor)
				return "", b, err
			}
			if e.Jetton != nil {
				b, err := tcJettons(e, book, meta, cursor)
				return "", b, err
			}
			return "", tcActionsNotification(nil, e, book, meta, cursor), nil
		},
	}
}

// tcActionsNotification appends e as toncenter's ActionsNotification, with
// our resume cursor when asked (a pending event has none: it moves no
// position).
func tcActionsNotification(b []byte, e *notify.Event, book, meta, cursor bool) []byte {
	l := e.List(false)
	a := l.Actions[0]
	finality := resolvers.FinalityFinalized
	if e.Pending {
		finality = resolvers.FinalityPending
	}
	b = append(b, `{"type":"actions","finality":"`+finality+`","trace_external_hash_norm":`...)
	hash := ""
	if a.TraceExternalHashNorm != nil {
		hash = *a.TraceExternalHashNorm
	}
	b, _ = appendJSON(b, hash)
	b = append(b, `,"actions":[`...)
	// toncenter's notification carries toncenter's Action (the dialect of
	// /toncenter/api/v3/actions); a stored action always renders, ours is
	// written only if one ever did not
	written := false
	if ta, err := toncenter.RenderAction(a); err == nil {
		if out, err := ta.AppendJSON(b); err == nil {
			b, written = out, true
		}
	}
	if !written {
		b = a.AppendJSON(b)
	}
	b = append(b, ']')
	if book {
		b = l.AddressBook.AppendJSON(append(b, `,"address_book":`...))
	}
	if meta {
		b = l.Metadata.AppendJSON(append(b, `,"metadata":`...))
	}
	if cursor && !e.Pending {
		b, _ = appendJSON(append(b, `,"cursor":`...), resolvers.EncodeStreamCursor(e.Seq))
	}
	return append(b, '}')
}

func appendJSON(b []byte, v any) ([]byte, error) {
	x, err := json.Marshal(v)
	return append(b, x...), err
}

// ToncenterStream serves toncenter's streaming v2 SSE: a POST whose body is
// its SSERequest; a "connected" event, then one "event" per action. Each
// event also carries an SSE id (our cursor): a client that reconnects with
// Last-Event-ID or "after" in the body gets what it missed first. Bad
// requests are answered 422 in toncenter's ErrorResponse shape.
func ToncenterStream(s ActionsStreamer, heartbeat time.Duration) http.HandlerFunc {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST with a JSON subscription", r.Method))
			return
		}
		raw, err := readBody(r)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		req, err := parseTCRequest(raw, "body")
		var st *resolvers.ActionStream
		if err == nil {
			after, field := lastEventID(r)
			if after == nil {
				after, field = req.After, "after"
			}
			st, err = req.subscribe(r, s, after, field)
		}
		if err != nil {
			e := apperr.From(err)
			writeJSON(w, e.Kind.Info().HTTPStatus, tcError{ID: req.ID, Error: e.Public()})
			return
		}
		defer st.Close()
		serveStream(w, r, st, heartbeat, req.format(st))
	}
}

// jsonFieldError names the member of a wrong JSON type (422), or says the
// whole (what: body, message) is not a JSON object (400).
func jsonFieldError(err error, what string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return apperr.Field(te.Field, "must be JSON %s, not %s", jsonKind(te.Type), te.Value)
	}
	return apperr.New(apperr.BadRequest, "%s: not a JSON subscription object: %v", what, err)
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "an array"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a string"
}
