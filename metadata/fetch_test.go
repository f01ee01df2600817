package metadata

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// metadataServer is a local HTTP server with one handler per failure the
// fetcher must name.
type metadataServer struct {
	*httptest.Server
	hits    atomic.Int64
	release chan struct{} // closed at the end of the test: /slow answers then
}

const maxTestBytes = 4096

func newMetadataServer(t *testing.T) *metadataServer {
	t.Helper()
	ms := &metadataServer{release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"Off Chain","symbol":"OFF","decimals":"6","image":"https://img/1.png","social":["https://t.me/x"]}`)
	})
	mux.HandleFunc("/bom.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "\ufeff"+`{"name":"BOM"}`)
	})
	mux.HandleFunc("/ipfs/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"name":%q}`, r.URL.Path)
	})
	mux.HandleFunc("/slow.json", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-ms.release:
			fmt.Fprint(w, `{"name":"Slow"}`)
		}
	})
	mux.HandleFunc("/big.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"name":"`+strings.Repeat("x", maxTestBytes)+`"}`)
	})
	mux.HandleFunc("/big-unsized.json", func(w http.ResponseWriter, r *http.Request) {
		for range 10 {
			fmt.Fprint(w, strings.Repeat(" ", maxTestBytes/4))
			w.(http.Flusher).Flush() // chunked: no Content-Length to refuse early
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop2", http.StatusFound)
	})
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/chain/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	mux.HandleFunc("/invalid.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"name": "unterminated`) })
	mux.HandleFunc("/latin1.json", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{\"name\":\"caf\xe9\"}")) })
	mux.HandleFunc("/array.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[{"name":"x"}]`) })
	mux.HandleFunc("/two.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"a":1}{"b":2}`) })
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	ms.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(ms.release); ms.Close() })
	return ms
}

// testFetcher fetches from local servers: AllowPrivate, as
// METADATA_ALLOW_PRIVATE=true does.
func testFetcher(t *testing.T, ms *metadataServer, opt FetchOptions) *Fetcher {
	t.Helper()
	opt.AllowPrivate = true
	if opt.Timeout == 0 {
		opt.Timeout = 2 * time.Second
	}
	opt.MaxBytes = maxTestBytes
	opt.IPFSGateway = ms.URL + "/ipfs/"
	f, err := NewFetcher(opt)
	require.NoError(t, err)
	return f
}

func TestFetchOutcomes(t *testing.T) {
	ms := newMetadataServer(t)
	f := testFetcher(t, ms, FetchOptions{Timeout: 300 * time.Millisecond, MaxRedirects: 3})
	ctx := context.Background()

	doc, err := f.Fetch(ctx, ms.URL+"/ok.json")
	require.NoError(t, err)
	require.Equal(t, "OFF", doc["symbol"])
	doc, err = f.Fetch(ctx, ms.URL+"/bom.json")
	require.NoError(t, err)
	require.Equal(t, "BOM", doc["name"])
	doc, err = f.Fetch(ctx, "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/meta.json")
	require.NoError(t, err)
	require.Equal(t, "/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/meta.json", doc["name"])
	doc, err = f.Fetch(ctx, "ipfs://ipfs/QmCID/1.json")
	require.NoError(t, err)
	require.Equal(t, "/ipfs/QmCID/1.json", doc["name"])

	for path, reason := range map[string]string{
		"/missing.json":     ReasonNotFound,
		"/500":              "http_status_502",
		"/slow.json":        ReasonTimeout,
		"/big.json":         ReasonTooLarge,
		"/big-unsized.json": ReasonTooLarge,
		"/loop":             ReasonRedirectLoop,
		"/chain/0":          ReasonTooManyRedirect,
		"/invalid.json":     ReasonInvalidJSON,
		"/two.json":         ReasonInvalidJSON,
		"/latin1.json":      ReasonNotUTF8,
		"/array.json":       ReasonNotObject,
	} {
		_, err := f.Fetch(ctx, ms.URL+path)
		require.Error(t, err, path)
		require.Equal(t, reason, FetchReason(err), "%s: %v", path, err)
	}
	for uri, reason := range map[string]string{
		"":                           ReasonBadURI,
		"https://":                   ReasonBadURI,
		"https://user:pw@host/x":     ReasonBadURI,
		"ipfs://":                    ReasonBadURI,
		"ftp://example.com/x.json":   ReasonUnsupported,
		"tonstorage://bag/meta.json": ReasonUnsupported,
		"https://" + strings.Repeat("a", maxURILength): ReasonBadURI,
	} {
		_, err := f.Fetch(ctx, uri)
		require.Equal(t, reason, FetchReason(err), "%q: %v", uri, err)
	}
}

// TestFetchRefusesPrivateAddresses runs with METADATA_ALLOW_PRIVATE off.
// The test's own server listens on loopback, so the fetcher exempts
// exactly that listener (ExemptAddrs, a test-only option) and nothing
// else: every other loopback, private or link-local address, reached
// directly, through a redirect or through a public-looking name that
// resolves to it (DNS rebinding), must be refused at dial time, before
// any request reaches it.
func TestFetchRefusesPrivateAddresses(t *testing.T) {
	ms := newMetadataServer(t)
	other := newMetadataServer(t) // a private service the fetcher must never reach
	f, err := NewFetcher(FetchOptions{
		Timeout:     2 * time.Second,
		ExemptAddrs: []string{ms.Listener.Addr().String()},
		LookupHost: func(ctx context.Context, host string) ([]netip.Addr, error) {
			if host == "metadata.example.com" {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, fmt.Errorf("no such host %s", host)
		},
	})
	require.NoError(t, err)
	ctx := context.Background()

	// The exempt listener works: the refusals below are the check's.
	_, err = f.Fetch(ctx, ms.URL+"/ok.json")
	require.NoError(t, err)

	otherPort := other.Listener.Addr().String()
	otherPort = otherPort[strings.LastIndexByte(otherPort, ':')+1:]
	for _, uri := range []string{
		other.URL + "/ok.json",                                           // loopback, directly
		"http://metadata.example.com:" + otherPort + "/ok.json",          // a name resolving to loopback
		ms.URL + "/to?u=" + other.URL + "/ok.json",                       // a redirect to loopback
		ms.URL + "/to?u=http://169.254.169.254/latest/meta-data/",        // a redirect to cloud metadata (link-local)
		ms.URL + "/to?u=http://10.0.0.1/x.json",                          // a redirect to RFC 1918
		ms.URL + "/to?u=http://metadata.example.com:" + otherPort + "/x", // a redirect to a rebinding name
		"http://[::1]:" + otherPort + "/ok.json",                         // IPv6 loopback
		"http://[::ffff:127.0.0.1]:" + otherPort + "/ok.json",            // IPv4-mapped loopback
	} {
		_, err := f.Fetch(ctx, uri)
		require.Equal(t, ReasonPrivateAddress, FetchReason(err), "%s: %v", uri, err)
	}
	require.Zero(t, other.hits.Load(), "a refused address received a request")
}

func TestPublicAddr(t *testing.T) {
	for ip, public := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2a00:1450:4001::1": true, "95.161.1.1": true,
		"127.0.0.1": false, "127.8.9.10": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "0.0.0.0": false, "100.64.0.1": false, "224.0.0.1": false, "255.255.255.255": false,
		"198.18.0.1": false, "192.0.2.1": false, "::1": false, "::": false, "fe80::1": false, "fc00::1": false,
		"fd12::1": false, "ff02::1": false, "::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "64:ff9b::808:808": true,
		"2002:c0a8:101::1": false, "2001:db8::1": false,
	} {
		require.Equal(t, public, PublicAddr(netip.MustParseAddr(ip)), ip)
	}
}

func TestNewFetcherRejectsBadGateway(t *testing.T) {
	for _, g := range []string{"ftp://gw/", "ipfs.io/ipfs", "https://"} {
		_, err := NewFetcher(FetchOptions{IPFSGateway: g})
		require.ErrorContains(t, err, "IPFS_GATEWAY", g)
	}
}
