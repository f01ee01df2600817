// Package openapitest checks HTTP exchanges against the OpenAPI document,
// for tests: wrap a handler and every answer it gives is validated (and
// every request it accepts), so the document cannot drift from the code.
// It is imported by tests only.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/tonql/tonql/openapi"
)

// Validator matches exchanges to the document's operations.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
}

var load = sync.OnceValues(func() (*Validator, error) {
	// Pages and event streams are strings to the document: let their
	// bodies be read as such (kin-openapi knows no decoder for them).
	openapi3filter.RegisterBodyDecoder("text/html", stringBody)
	openapi3filter.RegisterBodyDecoder("text/event-stream", stringBody)
	// the explorer's files
	openapi3filter.RegisterBodyDecoder("text/css", stringBody)
	openapi3filter.RegisterBodyDecoder("text/javascript", stringBody)
	openapi3filter.RegisterBodyDecoder("image/svg+xml", stringBody)
	openapi3filter.RegisterBodyDecoder("application/json", jsonBody)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Validator{doc: doc, router: r}, nil
})

func stringBody(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

// jsonBody decodes JSON as kin-openapi's own decoder does, except that a
// number out of float64's range (a JSON-RPC id such as 1e999, which the
// server echoes as sent) is the largest float64 of its sign instead of a
// decoding error (kin-openapi refuses infinities).
func jsonBody(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}
	}
	return numbers(v), nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64) // ±Inf when out of range
		if math.IsInf(f, 0) {
			return math.Copysign(math.MaxFloat64, f)
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// Load returns the validator of the embedded document.
func Load() (*Validator, error) { return load() }

// TB is the part of testing.TB that Wrap reports to.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Wrap returns h with every exchange checked against the document; a
// mismatch fails t. Websocket upgrades pass unchecked (their answers are
// not HTTP bodies).
func Wrap(t TB, h http.Handler) http.Handler {
	t.Helper()
	v, err := Load()
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isUpgrade(r) {
			h.ServeHTTP(w, r)
			return
		}
		req := r.Clone(r.Context())
		var body bytes.Buffer
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = teeBody{r.Body, &body}
		}
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if err := v.Check(req, body.Bytes(), rec.code(), w.Header(), rec.body.Bytes()); err != nil {
			t.Errorf("openapi: %s %s answered %d: %v\nbody: %s", req.Method, req.URL.RequestURI(), rec.code(),
				err, excerpt(rec.body.Bytes()))
		}
	})
}

// Check validates one exchange: the answer against the operation the
// request matches (every status it gives must be documented), and the
// request too when the server accepted it. An answer of a path the
// document does not have must be an error in a route envelope, never a
// success: a new route has to be documented.
func (v *Validator) Check(r *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	if r.Method == http.MethodOptions {
		// CORS preflights and plain OPTIONS are answered by the middleware
		// for any path, as the document's description says; still, only
		// with 204.
		if status != http.StatusNoContent {
			return fmt.Errorf("OPTIONS %s answered %d, not 204", r.URL.Path, status)
		}
		return nil
	}
	req := routable(r, reqBody)
	if p := r.URL.Path; !utf8.ValidString(p) || strings.ContainsFunc(p, isControl) {
		// refused before the path is cleaned or routed (server/paths.go)
		return v.checkNoRoute(req, status, header, body)
	}
	route, params, err := v.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		return v.checkNoRoute(req, status, header, body)
	case errors.Is(err, routers.ErrMethodNotAllowed):
		return v.checkWrongMethod(req, status, header, body)
	case err != nil:
		return err
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	// GraphQL requests are gqlgen's to accept: its decoder matches member
	// names as encoding/json does, ignoring case ("querY" is a query).
	if accepted(status, body) && route.Path != "/graphql" {
		in.Request = decimalQuery(req)
		if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
			return fmt.Errorf("the server accepted a request the document does not allow: %w", err)
		}
	}
	return validateResponse(in, status, header, body)
}

func validateResponse(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte) error {
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(in.Request.Context(), out); err != nil {
		return fmt.Errorf("answer does not match the document: %w", err)
	}
	return nil
}

// preRoute are the statuses of errors raised before a route runs, by the
// middleware (server/envelope.go): a path or key error, a rate limit, a
// body over the cap, a failed key lookup, a panic, the request timeout.
var preRoute = map[int]bool{http.StatusBadRequest: true, http.StatusUnauthorized: true, http.StatusTooManyRequests: true,
	http.StatusRequestEntityTooLarge: true, http.StatusInternalServerError: true, http.StatusServiceUnavailable: true,
	http.StatusGatewayTimeout: true}

// checkNoRoute: paths that are no route get a 404 (or, before that, a
// key or path error) in the v3 or v2 envelope; GraphiQL's "/{key}" is
// redirected to "/{key}/".
func (v *Validator) checkNoRoute(r *http.Request, status int, header http.Header, body []byte) error {
	if status == http.StatusPermanentRedirect {
		loc := header.Get("Location")
		if loc != r.URL.Path+"/" {
			return fmt.Errorf("redirect of a path the document does not have, to %q", loc)
		}
		to := r.Clone(r.Context())
		to.URL.Path = loc
		if _, _, err := v.router.FindRoute(to); err != nil {
			return fmt.Errorf("redirect to %q, a path the document does not have: %w", loc, err)
		}
		return nil
	}
	if !preRoute[status] && status != http.StatusNotFound {
		return fmt.Errorf("the document has no operation %s %s (a new route must be documented in openapi/openapi.yaml)", r.Method, r.URL.Path)
	}
	return v.oneOfSchemas(body, "V3Error", "V2Error")
}

// checkWrongMethod: a method the path does not document gets 405 (or the
// key's errors, checked first) as that path's operations answer them.
func (v *Validator) checkWrongMethod(r *http.Request, status int, header http.Header, body []byte) error {
	if !preRoute[status] && status != http.StatusMethodNotAllowed {
		return fmt.Errorf("the document has no operation %s %s, and the answer is not 405", r.Method, r.URL.Path)
	}
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		other := r.Clone(r.Context())
		other.Method = m
		route, params, err := v.router.FindRoute(other)
		if err != nil {
			continue
		}
		in := &openapi3filter.RequestValidationInput{Request: other, PathParams: params, Route: route}
		return validateResponse(in, status, header, body)
	}
	return fmt.Errorf("no operation of %s found", r.URL.Path)
}

func (v *Validator) oneOfSchemas(body []byte, names ...string) error {
	var val any
	if err := json.Unmarshal(body, &val); err != nil {
		return fmt.Errorf("error answer is not JSON: %w", err)
	}
	var errs []error
	for _, n := range names {
		err := v.doc.Components.Schemas[n].Value.VisitJSON(val)
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", n, err))
	}
	return fmt.Errorf("error answer in no route envelope: %w", errors.Join(errs...))
}

// routable is the request as the routes see it: the path cleaned as the
// server cleans it (server/paths.go), HEAD as GET (the same operation, its
// body dropped by net/http), and the body readable again.
func routable(r *http.Request, body []byte) *http.Request {
	req := r.Clone(r.Context())
	if p := req.URL.Path; strings.HasPrefix(p, "/") {
		c := path.Clean(p)
		if strings.HasSuffix(p, "/") && c != "/" {
			c += "/"
		}
		u := *req.URL
		u.Path, u.RawPath = c, ""
		req.URL = &u
	}
	if req.Method == http.MethodHead {
		req.Method = http.MethodGet
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	return req
}

// leadingZeros are decimal numbers written with leading zeros.
var leadingZeros = regexp.MustCompile(`^0+[0-9]`)

// decimalQuery drops leading zeros of numbers in the query: the server
// reads integers in base 10 ("010" is 10), kin-openapi in Go's base 0, where
// "010" is octal and "08" no number at all.
func decimalQuery(r *http.Request) *http.Request {
	q := r.URL.Query()
	changed := false
	for _, vals := range q {
		for i, v := range vals {
			if leadingZeros.MatchString(v) && strings.Trim(v, "0123456789") == "" {
				vals[i] = strings.TrimLeft(v[:len(v)-1], "0") + v[len(v)-1:]
				changed = true
			}
		}
	}
	if !changed {
		return r
	}
	req := r.Clone(r.Context())
	u := *req.URL
	u.RawQuery = q.Encode()
	req.URL = &u
	return req
}

// accepted tells answers that mean the request was valid: a 2xx that is
// not a v2 or JSON-RPC failure (a batch answers 200 whatever its calls do).
func accepted(status int, body []byte) bool {
	if status < 200 || status > 299 {
		return false
	}
	var one struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(body, &one) == nil && one.OK != nil {
		return *one.OK
	}
	var batch []struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(body, &batch) == nil {
		for _, b := range batch {
			if b.OK != nil && !*b.OK {
				return false
			}
		}
	}
	return true
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f }

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func excerpt(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// teeBody keeps a copy of what the handler reads of the request body.
type teeBody struct {
	r   io.ReadCloser
	buf *bytes.Buffer
}

func (t teeBody) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf.Write(p[:n])
	return n, err
}

func (t teeBody) Close() error { return t.r.Close() }

// recorder keeps a copy of the answer while passing it through; streams
// flush through it.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

func (r *recorder) Flush() { _ = http.NewResponseController(r.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
