package metadata

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tonql/tonql/internal/safedial"
)

// Fetch failure reasons: short, stable, machine-readable. An HTTP status
// other than 404/410 is "http_status_NNN".
const (
	ReasonBadURI          = "bad_uri"         // not a URL we can fetch (no host, bad syntax, too long)
	ReasonUnsupported     = "unsupported_uri" // a scheme other than http, https, ipfs
	ReasonPrivateAddress  = "private_address" // the host resolves to a non-public address
	ReasonDNS             = "dns_error"       // the host does not resolve
	ReasonConnect         = "connect_failed"  // no connection (refused, unreachable, TLS)
	ReasonTimeout         = "timeout"         // METADATA_FETCH_TIMEOUT passed
	ReasonNotFound        = "not_found"       // 404 or 410
	ReasonTooLarge        = "too_large"       // more than METADATA_MAX_BYTES
	ReasonRedirectLoop    = "redirect_loop"   // a redirect back to a URL already visited
	ReasonTooManyRedirect = "too_many_redirects"
	ReasonNotUTF8         = "not_utf8"
	ReasonInvalidJSON     = "invalid_json"    // not JSON
	ReasonNotObject       = "not_json_object" // JSON, but not an object
	ReasonFetchFailed     = "fetch_failed"    // any other transport failure
)

// FetchError is a failed fetch: Reason is one of the reasons above, Err
// the detail for logs.
type FetchError struct {
	Reason string
	Err    error
}

func (e *FetchError) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *FetchError) Unwrap() error { return e.Err }

func fail(reason string, err error) *FetchError { return &FetchError{Reason: reason, Err: err} }

// FetchReason is the reason of a fetch error, ReasonFetchFailed for any
// other error.
func FetchReason(err error) string {
	var fe *FetchError
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return ReasonFetchFailed
}

// FetchOptions configure a Fetcher. Zero values take the defaults.
type FetchOptions struct {
	// IPFSGateway serves ipfs:// links: ipfs://CID/path is fetched as
	// IPFSGateway + "CID/path". Default DefaultIPFSGateway.
	IPFSGateway string
	// AllowPrivate lets requests reach loopback, private, link-local and
	// other non-public addresses (METADATA_ALLOW_PRIVATE: tests, and
	// servers whose metadata hosts are on a private network).
	AllowPrivate bool
	// Timeout bounds one fetch whole: connection, redirects, body.
	Timeout time.Duration
	// ConnectTimeout bounds each connection attempt.
	ConnectTimeout time.Duration
	// MaxBytes bounds the body.
	MaxBytes int64
	// MaxRedirects bounds the redirects one fetch follows.
	MaxRedirects int
	// UserAgent is sent with each request.
	UserAgent string

	// LookupHost resolves a host name to addresses; default the system
	// resolver. Tests use it to give a public-looking name a loopback
	// address (DNS rebinding), which the dial-time check must refuse.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
	// ExemptAddrs are "ip:port" addresses dialed even when AllowPrivate is
	// off. For tests only: a test server listens on loopback, and the
	// test exempts exactly that listener to show every other private
	// address refused. Never set by configuration.
	ExemptAddrs []string
}

// Defaults of FetchOptions.
const (
	DefaultIPFSGateway    = "https://ipfs.io/ipfs/"
	DefaultFetchTimeout   = 10 * time.Second
	DefaultConnectTimeout = 5 * time.Second
	DefaultMaxBytes       = 1 << 20
	DefaultMaxRedirects   = 5
	maxURILength          = 2048
)

// Fetcher fetches off-chain metadata JSON. It is safe for concurrent use.
type Fetcher struct {
	opt     FetchOptions
	gateway *url.URL
	client  *http.Client
}

// NewFetcher checks the options and makes a Fetcher.
func NewFetcher(opt FetchOptions) (*Fetcher, error) {
	if opt.IPFSGateway == "" {
		opt.IPFSGateway = DefaultIPFSGateway
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultFetchTimeout
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = min(DefaultConnectTimeout, opt.Timeout)
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxRedirects <= 0 {
		opt.MaxRedirects = DefaultMaxRedirects
	}
	if opt.UserAgent == "" {
		opt.UserAgent = "tonql-metadata/1"
	}
	if opt.LookupHost == nil {
		opt.LookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	gw, err := url.Parse(opt.IPFSGateway)
	if err != nil || (gw.Scheme != "http" && gw.Scheme != "https") || gw.Host == "" {
		return nil, fmt.Errorf("IPFS_GATEWAY: %q is not an http(s) URL", opt.IPFSGateway)
	}
	if !strings.HasSuffix(gw.Path, "/") {
		gw.Path += "/"
	}
	f := &Fetcher{opt: opt, gateway: gw}
	transport := &http.Transport{
		// No proxy from the environment: a proxy would dial for us and
		// the address check would see only the proxy.
		Proxy: nil,
		// The guard of every dial (internal/safedial): the address check
		// runs on the address actually dialed, after every resolution.
		DialContext: safedial.DialContext(safedial.Options{AllowPrivate: opt.AllowPrivate, ConnectTimeout: opt.ConnectTimeout,
			LookupHost: opt.LookupHost, ExemptAddrs: opt.ExemptAddrs}),
		TLSHandshakeTimeout:    opt.ConnectTimeout,
		ResponseHeaderTimeout:  opt.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	f.client = &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			for _, v := range via {
				if v.URL.String() == req.URL.String() {
					return fail(ReasonRedirectLoop, fmt.Errorf("back to %s", req.URL.Redacted()))
				}
			}
			if len(via) > opt.MaxRedirects {
				return fail(ReasonTooManyRedirect, fmt.Errorf("more than %d", opt.MaxRedirects))
			}
			return nil
		},
	}
	return f, nil
}

// PublicAddr tells whether ip is a public unicast address
// (safedial.PublicAddr).
func PublicAddr(ip netip.Addr) bool { return safedial.PublicAddr(ip) }

// Resolve turns a content's link into the URL fetched: http and https as
// they are, ipfs://CID/path (or ipfs://ipfs/CID/path) through the
// gateway.
func (f *Fetcher) Resolve(uri string) (*url.URL, error) {
	uri = strings.TrimSpace(uri)
	if uri == "" || len(uri) > maxURILength {
		return nil, fail(ReasonBadURI, fmt.Errorf("length %d", len(uri)))
	}
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fail(ReasonBadURI, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" || u.User != nil {
			return nil, fail(ReasonBadURI, errors.New("no host, or credentials in the URL"))
		}
		return u, nil
	case "ipfs":
		p := strings.TrimPrefix(u.Host+u.EscapedPath(), "ipfs/")
		p = strings.TrimLeft(p, "/")
		if p == "" {
			return nil, fail(ReasonBadURI, errors.New("ipfs link without a CID"))
		}
		g, err := f.gateway.Parse(p)
		if err != nil {
			return nil, fail(ReasonBadURI, err)
		}
		g.RawQuery = u.RawQuery
		return g, nil
	}
	return nil, fail(ReasonUnsupported, fmt.Errorf("scheme %q", u.Scheme))
}

// Fetch gets the JSON object a content links. Every failure is a
// *FetchError.
func (f *Fetcher) Fetch(ctx context.Context, uri string) (map[string]any, error) {
	u, err := f.Resolve(uri)
	if err != nil {
		return nil, err
	}
	return f.FetchURL(ctx, u)
}

// FetchURL is Fetch of a resolved URL.
func (f *Fetcher) FetchURL(ctx context.Context, u *url.URL) (map[string]any, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, f.opt.Timeout, errFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fail(ReasonBadURI, err)
	}
	req.Header.Set("User-Agent", f.opt.UserAgent)
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, fail(ReasonNotFound, errors.New(resp.Status))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, fail("http_status_"+strconv.Itoa(resp.StatusCode), errors.New(resp.Status))
	case resp.ContentLength > f.opt.MaxBytes:
		return nil, fail(ReasonTooLarge, fmt.Errorf("Content-Length %d", resp.ContentLength))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opt.MaxBytes+1))
	if err != nil {
		return nil, classify(ctx, err)
	}
	if int64(len(body)) > f.opt.MaxBytes {
		return nil, fail(ReasonTooLarge, fmt.Errorf("more than %d bytes", f.opt.MaxBytes))
	}
	return decodeObject(body)
}

var errFetchTimeout = errors.New("metadata fetch timed out")

// decodeObject checks that body is UTF-8 JSON holding one object (a
// leading byte-order mark is allowed, as editors write one).
func decodeObject(body []byte) (map[string]any, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(body) {
		return nil, fail(ReasonNotUTF8, nil)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fail(ReasonInvalidJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(ReasonInvalidJSON, errors.New("data after the JSON value"))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fail(ReasonNotObject, nil)
	}
	return obj, nil
}

// classify names a transport failure.
func classify(ctx context.Context, err error) error {
	var fe *FetchError
	if errors.As(err, &fe) {
		return fe
	}
	switch {
	case errors.Is(err, safedial.ErrPrivate):
		return fail(ReasonPrivateAddress, err)
	case errors.Is(err, safedial.ErrDNS):
		return fail(ReasonDNS, err)
	case errors.Is(err, safedial.ErrBadAddress):
		return fail(ReasonBadURI, err)
	}
	if context.Cause(ctx) == errFetchTimeout {
		return fail(ReasonTimeout, err)
	}
	if ctx.Err() != nil {
		return ctx.Err() // the caller stopped: not the link's failure
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fail(ReasonTimeout, err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return fail(ReasonConnect, err)
	}
	return fail(ReasonFetchFailed, err)
}
