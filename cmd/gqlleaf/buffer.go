package main

import (
	"bytes"
	"fmt"
)

// The executor marshals a query's answer into a bytes.Buffer of its own,
// grown from nothing: a page of ten actions (10 KB) regrew it nine times,
// 32 KB of garbage per request, a third of what a GraphQL page allocated
// beyond the REST page's. bufferEdit makes it marshal into a buffer the
// transport lends through the context (WithResponseBuffer), which the
// transport reuses once it has written the answer; with none lent, or for
// an operation's later (deferred) responses, it is a new buffer as before.

// marshalIntoOwnBuffer is what gqlgen writes for a query's first response.
const marshalIntoOwnBuffer = "\t\t\tvar buf bytes.Buffer\n\t\t\tdata.MarshalGQL(&buf)\n"

// execDecl starts the executor's entry point, which holds that text.
const execDecl = "func (e *executableSchema) Exec("

// bufferEdit finds that text of the query's answer in src, once, and replaces it. A source
// without the entry point (a test's excerpt) has nothing to edit.
func bufferEdit(src []byte) ([]edit, error) {
	if !bytes.Contains(src, []byte(execDecl)) {
		return nil, nil
	}
	// A mutation's answer is marshalled by the same text; it is left as it
	// is (mutations are few and small), so only the query's is counted.
	var at []int
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(marshalIntoOwnBuffer))
		if j < 0 {
			break
		}
		j += i
		if !bytes.Contains(src[max(0, j-200):j], []byte("ec._Mutation(")) {
			at = append(at, j)
		}
		i = j + len(marshalIntoOwnBuffer)
	}
	switch n := len(at); n {
	case 0:
		if bytes.Contains(src, []byte("buf := responseBuffer(ctx)")) {
			return nil, nil // rewritten already
		}
		return nil, fmt.Errorf("the query response's buffer was not found: gqlgen's Exec changed")
	case 1:
		i := at[0]
		return []edit{{i, i + len(marshalIntoOwnBuffer), "\t\t\tbuf := responseBuffer(ctx)\n\t\t\tdata.MarshalGQL(buf)\n"}}, nil
	default:
		return nil, fmt.Errorf("the query response's buffer was found %d times, expected once", n)
	}
}

// responseBufferSource is the companion's part that lends the buffer.
const responseBufferSource = `
// responseBufferKey holds a buffer a transport lends the executor
// (WithResponseBuffer).
type responseBufferKey struct{}

type lentBuffer struct {
	buf   *bytes.Buffer
	taken atomic.Bool
}

// WithResponseBuffer lends buf to the executor: the first response of the
// operation run with ctx is marshalled into it, so the response's Data
// aliases buf until the caller, having written it, reuses buf. Later
// responses of the same operation (deferred parts) get buffers of their own.
func WithResponseBuffer(ctx context.Context, buf *bytes.Buffer) context.Context {
	return context.WithValue(ctx, responseBufferKey{}, &lentBuffer{buf: buf})
}

// responseBuffer is the buffer lent with ctx, the first time it is asked
// for, and otherwise a new one.
func responseBuffer(ctx context.Context) *bytes.Buffer {
	if l, ok := ctx.Value(responseBufferKey{}).(*lentBuffer); ok && l.taken.CompareAndSwap(false, true) {
		return l.buf
	}
	return new(bytes.Buffer)
}
`
