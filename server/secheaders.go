package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"regexp"
	"strings"
)

// secureHeaders keeps browsers from misusing our answers: nothing is
// framed (clickjacking of GraphiQL under a key), nothing is sniffed into
// another type, and no Referer carries a key-bearing URL away. An HTML
// page (the explorer) also gets a Content-Security-Policy made from the
// page itself: its inline scripts by hash, scripts, styles and requests
// only from us (its assets are embedded: no other host is ever allowed),
// so a page that changes keeps working and nothing injected into it runs.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		hw := &htmlWriter{ResponseWriter: w}
		next.ServeHTTP(hw, r)
		hw.finish()
	})
}

// htmlWriter holds back an HTML answer until its policy is known; any
// other answer passes straight through.
type htmlWriter struct {
	http.ResponseWriter
	status  int
	html    bool
	decided bool
	buf     bytes.Buffer
}

func (h *htmlWriter) decide() {
	if !h.decided {
		h.decided = true
		h.html = strings.HasPrefix(h.Header().Get("Content-Type"), "text/html")
	}
}

func (h *htmlWriter) WriteHeader(code int) {
	h.decide()
	if !h.html {
		h.ResponseWriter.WriteHeader(code)
		return
	}
	if h.status == 0 {
		h.status = code
	}
}

func (h *htmlWriter) Write(b []byte) (int, error) {
	h.decide()
	if !h.html {
		return h.ResponseWriter.Write(b)
	}
	return h.buf.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (h *htmlWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// Flush and Hijack pass through for streaming answers and websockets,
// which are never HTML pages.
func (h *htmlWriter) Flush() {
	h.decide()
	if !h.html {
		_ = http.NewResponseController(h.ResponseWriter).Flush()
	}
}

func (h *htmlWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}

func (h *htmlWriter) finish() {
	if !h.html {
		return
	}
	body := h.buf.Bytes()
	h.Header().Set("Content-Security-Policy", pagePolicy(body))
	h.ResponseWriter.WriteHeader(max(h.status, http.StatusOK))
	_, _ = h.ResponseWriter.Write(body)
}

var scriptTag = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)

// pagePolicy allows exactly what the page uses: external scripts and
// styles from this server ('self'), inline scripts by their hash. Inline
// styles stay allowed: GraphiQL's UI library may insert style elements
// (its query and subscription views need none; its dialogs were not
// checked without them), and a style cannot run code.
func pagePolicy(page []byte) string {
	scripts := []string{"'self'"}
	for _, m := range scriptTag.FindAllSubmatch(page, -1) {
		if srcAttr.Match(m[1]) {
			continue // a file of ours: 'self'
		}
		sum := sha256.Sum256(m[2])
		scripts = append(scripts, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	return "default-src 'none'; script-src " + strings.Join(scripts, " ") +
		"; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:" +
		"; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}

var srcAttr = regexp.MustCompile(`(?is)\bsrc\s*=`)
