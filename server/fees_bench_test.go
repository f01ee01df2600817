package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/cache/cachetest"
	"github.com/tonql/tonql/internal/testenv"
)

// benchBody is the REST body of the replay message whose transaction sends
// nothing (one estimate = one emulation), the same message fees'
// BenchmarkBareEmulator and BenchmarkEstimateCold run, so the numbers
// compare directly.
func benchBody(b *testing.B, r *feeReplay) string {
	for _, m := range r.msgs {
		if m.Charged.FwdFee == 0 {
			return fmt.Sprintf(`{"address":%q,"body":%q}`, m.Account.ToRaw(), m.Body)
		}
	}
	b.Fatal("no message without outgoing messages")
	return ""
}

// BenchmarkEstimateFeeHTTPCold is the uncached estimate over loopback HTTP
// through the whole handler (request id, log line, metrics, body limit,
// JSON, resolver, store reads, emulation). Run it in the same go test
// invocation as fees' BenchmarkBareEmulator.
func BenchmarkEstimateFeeHTTPCold(b *testing.B) {
	for _, db := range testenv.Databases(b) {
		b.Run(db.Name, func(b *testing.B) { benchHTTPCold(b, db) })
	}
}

func benchHTTPCold(b *testing.B, db testenv.Database) {
	r := importFeeReplay(b, db)
	srv := httptest.NewServer(r.handler(nil))
	defer srv.Close()
	url, body := srv.URL+"/api/v2/estimateFee", benchBody(b, r)
	client := srv.Client()
	post := func() {
		resp, err := client.Post(url, "application/json", bytes.NewBufferString(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	post() // emulator creation is not part of an estimate
	b.Run("serial", func(b *testing.B) {
		var lat []time.Duration
		start := time.Now()
		for b.Loop() {
			t0 := time.Now()
			post()
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(len(lat))/time.Since(start).Seconds(), "req/s")
	})
	b.Run("parallel", func(b *testing.B) {
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				post()
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
}

// BenchmarkEstimateFeeWrkCached measures cache hits per second with wrk
// (10 s, 2 threads, 32 connections) POSTing one body, with the in-process
// cache and with a private Redis. It runs once whatever b.N is; skipped
// without wrk. The result is the rate wrk reports, not a Go timing.
func BenchmarkEstimateFeeWrkCached(b *testing.B) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk not installed")
	}
	redisSrv := cachetest.StartRedis(b)
	for _, db := range testenv.Databases(b) {
		b.Run(db.Name, func(b *testing.B) { benchWrkCached(b, db, wrk, redisSrv.Addr) })
	}
}

func benchWrkCached(b *testing.B, db testenv.Database, wrk, redisAddr string) {
	r := importFeeReplay(b, db)
	bodyFile := filepath.Join(b.TempDir(), "body.json")
	if err := os.WriteFile(bodyFile, []byte(benchBody(b, r)), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"memory", "redis"} {
		b.Run(name, func(b *testing.B) {
			url := ""
			if name == "redis" {
				url = "redis://" + redisAddr + "/0"
			}
			c, err := cache.New(url, 10_000)
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(r.handler(c))
			defer srv.Close()
			b.ResetTimer()
			out, err := exec.Command(wrk, "-t2", "-c32", "-d10s", "--latency",
				"-s", filepath.Join("testdata", "estimate_fee.lua"),
				srv.URL+"/api/v2/estimateFee", "--", bodyFile).CombinedOutput()
			if err != nil {
				b.Fatalf("wrk: %v\n%s", err, out)
			}
			b.Log("\n" + string(out))
			if regexp.MustCompile(`Non-2xx`).Match(out) {
				b.Fatalf("errors under load:\n%s", out)
			}
			m := regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`).FindSubmatch(out)
			if m == nil {
				b.Fatalf("no rate in wrk output:\n%s", out)
			}
			rate, _ := strconv.ParseFloat(string(m[1]), 64)
			b.ReportMetric(rate, "req/s")
		})
	}
}
