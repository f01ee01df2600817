package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/tonql/tonql/internal/testenv"
)

// BenchmarkPreviewCost compares, in one sitting and interleaved (each
// iteration runs both), the uncached estimate of a message over HTTP
// (POST /api/v2/estimateFee) with its preview (POST /api/v3/emulate, the
// same fields): the emulation is shared, the preview adds recording the
// transactions, classifying the trace, the balance changes, the address
// book's store read and a bigger answer. Messages: a TON transfer (2
// transactions), a Tonstakers deposit (6) and a STON.fi swap (10).
func BenchmarkPreviewCost(b *testing.B) {
	for _, db := range testenv.Databases(b) {
		b.Run(db.Name, func(b *testing.B) {
			r := importFeeReplay(b, db)
			srv := httptest.NewServer(r.headHandler())
			defer srv.Close()
			client := srv.Client()
			post := func(path, body string) {
				resp, err := client.Post(srv.URL+path, "application/json", bytes.NewBufferString(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: status %d", path, resp.StatusCode)
				}
			}
			for _, c := range []struct{ name, prefix string }{
				{"ton-transfer", "0:dfec1432"}, {"stake-deposit", "0:89f356bd"}, {"stonfi-swap", "0:fcd79429"},
			} {
				var body string
				for _, m := range r.msgs {
					if m.Account.ToRaw()[:10] == c.prefix {
						body = fmt.Sprintf(`{"address":%q,"body":%q}`, m.Account.ToRaw(), m.Body)
					}
				}
				if body == "" {
					b.Fatalf("no message of %s", c.prefix)
				}
				post("/api/v2/estimateFee", body) // emulators are made once
				post("/api/v3/emulate", body)
				b.Run(c.name, func(b *testing.B) {
					var est, pre []time.Duration
					for b.Loop() {
						t0 := time.Now()
						post("/api/v2/estimateFee", body)
						t1 := time.Now()
						post("/api/v3/emulate", body)
						est, pre = append(est, t1.Sub(t0)), append(pre, time.Since(t1))
					}
					slices.Sort(est)
					slices.Sort(pre)
					e, p := est[len(est)/2], pre[len(pre)/2]
					b.ReportMetric(float64(e.Microseconds()), "estimate-p50-µs")
					b.ReportMetric(float64(p.Microseconds()), "preview-p50-µs")
					b.ReportMetric(float64(p)/float64(e), "preview/estimate")
				})
			}
		})
	}
}

// BenchmarkRunGetMethodSeqno is a wallet's seqno by JSON-RPC runGetMethod
// over loopback HTTP through the whole handler: the account read, the
// config, the TVM run, the stack rendered. Serial requests; p50 and p99.
func BenchmarkRunGetMethodSeqno(b *testing.B) {
	for _, db := range testenv.Databases(b) {
		b.Run(db.Name, func(b *testing.B) {
			r := importFeeReplay(b, db)
			srv := httptest.NewServer(r.handler(nil))
			defer srv.Close()
			client := srv.Client()
			for _, w := range []struct{ name, addr string }{{"v4r2", v4Wallet}, {"v5r1", v5Wallet}} {
				body := rpcCall(`1`, "runGetMethod", fmt.Sprintf(`{"address":%q,"method":"seqno","stack":[]}`, w.addr))
				post := func() {
					resp, err := client.Post(srv.URL+"/api/v2/jsonRPC", "application/json", bytes.NewBufferString(body))
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
				post()
				b.Run(w.name, func(b *testing.B) {
					var lat []time.Duration
					for b.Loop() {
						t0 := time.Now()
						post()
						lat = append(lat, time.Since(t0))
					}
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
				})
			}
		})
	}
}
