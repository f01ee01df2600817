package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/tonql/tonql/graph"
)

// postTransport answers POST /graphql as gqlgen's POST transport does, but
// writes a plain answer itself: gqlgen's json.Marshal of the response
// scanned again all the data it had just written (compacting a
// json.RawMessage), 7% of a page's CPU. The bytes are the same
// (TestGraphQLPostWritesWhatGqlgenWrites); anything other than a plain
// application/json exchange goes to gqlgen's transport unchanged.
type postTransport struct{ transport.POST }

func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	body, ok := r.Context().Value(graphQLBodyKey{}).(graphQLBody) // limitBody checked it
	if !ok {
		raw, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if err == nil {
			body, err = checkGraphQLBody(raw)
		}
		ok = err == nil
	}
	params := &graphql.RawParams{Headers: r.Header}
	if !ok || !plainJSONAccepted(r.Header.Get("Accept")) || body.params(params) != nil {
		t.POST.Do(w, r, exec)
		return
	}
	now := graphql.Now()
	params.ReadTime = graphql.TraceTiming{Start: now, End: now}
	ctx := r.Context()
	w.Header().Set("Content-Type", "application/json")
	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			w.WriteHeader(http.StatusUnprocessableEntity)
		}
		writeGraphQLResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs))
		return
	}
	// The answer's data is marshalled into a buffer of the pool, taken
	// back once the answer is written (cmd/gqlleaf's bufferEdit).
	data := getBuffer()
	defer putBuffer(data)
	responses, ctx := exec.DispatchOperation(graph.WithResponseBuffer(ctx, data), rc)
	writeGraphQLResponse(w, responses(ctx))
}

// buffers are reused for answers and their data: a page of actions is
// tens of KB, which a buffer grown from nothing reached through nine
// copies, and a new one per request fed the collector.
var buffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 32<<10)) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 { // a huge answer is not kept
		b.Reset()
		buffers.Put(b)
	}
}

// plainJSONAccepted tells the requests gqlgen answers as application/json:
// no Accept, or its first part it knows is application/json or a wildcard.
func plainJSONAccepted(accept string) bool {
	if accept == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", "application/json":
			return true
		case "application/graphql-response+json":
			return false
		}
	}
	return false
}

// writeGraphQLResponse writes resp as json.Marshal does. A response of
// data alone is written around the data as it is, when the data holds
// nothing json.Marshal would escape (<, >, &, U+2028, U+2029); gqlgen
// writes its data compact, so that is all the second pass would change.
func writeGraphQLResponse(w http.ResponseWriter, resp *graphql.Response) {
	var b []byte
	if len(resp.Errors) == 0 && len(resp.Extensions) == 0 && resp.Label == "" && resp.Path == nil &&
		resp.HasNext == nil && resp.Data != nil && !needsEscape(resp.Data) {
		buf := getBuffer()
		defer putBuffer(buf)
		buf.WriteString(`{"data":`)
		buf.Write(resp.Data)
		buf.WriteByte('}')
		b = buf.Bytes()
	} else {
		var err error
		if b, err = json.Marshal(resp); err != nil {
			b = []byte(`{"errors":[{"message":"internal error"}],"data":null}`)
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func needsEscape(b []byte) bool {
	// IndexByte is vectorized: four passes are cheaper than one loop.
	if bytes.IndexByte(b, '<') >= 0 || bytes.IndexByte(b, '>') >= 0 || bytes.IndexByte(b, '&') >= 0 {
		return true
	}
	for i := bytes.IndexByte(b, 0xE2); i >= 0 && i+2 < len(b); {
		if b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
			return true
		}
		j := bytes.IndexByte(b[i+1:], 0xE2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}
