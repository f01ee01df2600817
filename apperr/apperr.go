// Package apperr classifies errors where they arise, so that every transport
// (REST v2, REST v3, JSON-RPC, GraphQL) maps them the same way from one table.
package apperr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Kind is what went wrong, from the client's point of view.
type Kind int

const (
	Internal         Kind = iota // our bug; shown as "internal error", logged with detail
	Invalid                      // a field of the request is malformed or out of range
	NotFound                     // the thing asked for does not exist
	NotAccepted                  // the contract refused the message (exit code before accept)
	Unavailable                  // a dependency (database, lite server) cannot answer now
	Timeout                      // the request ran out of time
	Unauthorized                 // unknown or revoked API key
	RateLimited                  // the key is over its rate limit
	TooLarge                     // the request body is over the limit
	BadRequest                   // the body is not JSON at all
	MethodNotAllowed             // wrong HTTP method
	OverBudget                   // the request's work budget ran out before this call (cost package)
)

// Info is one row of the mapping table.
type Info struct {
	HTTPStatus int    // HTTP status and toncenter "code"
	GQLCode    string // GraphQL extensions.code
}

var table = map[Kind]Info{
	Internal:         {http.StatusInternalServerError, "INTERNAL"},
	Invalid:          {http.StatusUnprocessableEntity, "INVALID_INPUT"},
	NotFound:         {http.StatusNotFound, "NOT_FOUND"},
	NotAccepted:      {http.StatusUnprocessableEntity, "NOT_ACCEPTED"},
	Unavailable:      {http.StatusServiceUnavailable, "UNAVAILABLE"},
	Timeout:          {http.StatusGatewayTimeout, "TIMEOUT"},
	Unauthorized:     {http.StatusUnauthorized, "UNAUTHORIZED"},
	RateLimited:      {http.StatusTooManyRequests, "RATE_LIMITED"},
	TooLarge:         {http.StatusRequestEntityTooLarge, "TOO_LARGE"},
	BadRequest:       {http.StatusBadRequest, "BAD_REQUEST"},
	MethodNotAllowed: {http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
	// 429: the call was not run and may be sent again on its own; the
	// server did not fail (no 5xx) and the client is not wrong (no 4xx of
	// its input).
	OverBudget: {http.StatusTooManyRequests, "BUDGET_EXCEEDED"},
}

// KindOfCode is the kind of a GraphQL extensions.code (Internal when no
// kind has it).
func KindOfCode(code string) Kind {
	for k, info := range table {
		if info.GQLCode == code {
			return k
		}
	}
	return Internal
}

// ServerFailed tells the GraphQL codes of answers the server failed to
// give (5xx): they cost the client no unit.
func ServerFailed(code string) bool {
	for _, info := range table {
		if info.GQLCode == code {
			return info.HTTPStatus >= 500
		}
	}
	return false
}

// Info returns the table row of a kind.
func (k Kind) Info() Info { return table[k] }

// Error is a classified error. Msg is safe to show to clients; Cause is not.
type Error struct {
	Kind  Kind
	Field string // the request field at fault, if any
	Msg   string
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Msg + ": " + e.Cause.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Cause }

// Public is the message a client may see.
func (e *Error) Public() string {
	if e.Kind == Internal {
		return "internal error"
	}
	return e.Msg
}

// New makes a classified error with a client-safe message.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Field makes an Invalid error that names the field at fault.
func Field(field, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Field: field, Msg: field + ": " + fmt.Sprintf(format, args...)}
}

// Wrap classifies cause; msg is what the client sees (for Internal, nothing is shown).
func Wrap(kind Kind, cause error, msg string) *Error {
	return &Error{Kind: kind, Msg: msg, Cause: cause}
}

// From finds the classified error in err's chain; anything unclassified is Internal.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: Timeout, Msg: "request timed out", Cause: err}
	}
	return &Error{Kind: Internal, Msg: "internal error", Cause: err}
}

// Excerpt shortens client input echoed in an error message, so a huge
// value never makes a huge error.
func Excerpt(s string) string {
	const max = 80
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
