package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// secureHeaders keeps browsers from misusing our answers: nothing is
// framed (clickjacking of GraphiQL under a key), nothing is sniffed into
// another type, and no Referer carries a key-bearing URL away. An HTML
// page (GraphiQL) also gets a Content-Security-Policy made from the page
// itself: its inline scripts by hash, the origins its scripts and styles
// load from, and requests only back to us, so a page that changes keeps
// working and nothing injected into it runs.
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

var (
	scriptTag = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	linkTag   = regexp.MustCompile(`(?is)<link\b([^>]*)>`)
	srcAttr   = regexp.MustCompile(`(?is)\b(?:src|href)\s*=\s*["']?([^"'\s>]+)`)
)

// pagePolicy allows exactly what the page uses.
func pagePolicy(page []byte) string {
	scripts := []string{"'self'"}
	styles := []string{"'self'", "'unsafe-inline'"} // style attributes set by the page's own code
	for _, m := range scriptTag.FindAllSubmatch(page, -1) {
		if src := srcAttr.FindSubmatch(m[1]); src != nil {
			scripts = addOrigin(scripts, string(src[1]))
			continue
		}
		sum := sha256.Sum256(m[2])
		scripts = append(scripts, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	for _, m := range linkTag.FindAllSubmatch(page, -1) {
		if href := srcAttr.FindSubmatch(m[1]); href != nil {
			styles = addOrigin(styles, string(href[1]))
		}
	}
	return "default-src 'none'; script-src " + strings.Join(scripts, " ") +
		"; style-src " + strings.Join(styles, " ") +
		"; img-src 'self' data:; font-src 'self' data: " + strings.Join(styles[2:], " ") +
		"; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}

func addOrigin(list []string, ref string) []string {
	u, err := url.Parse(strings.ReplaceAll(ref, "&amp;", "&"))
	if err != nil || u.Host == "" || u.Scheme != "https" {
		return list // relative: 'self'
	}
	o := "https://" + u.Host
	if slices.Contains(list, o) {
		return list
	}
	return append(list, o)
}
