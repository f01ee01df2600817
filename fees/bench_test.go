package fees

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/tonql/tonql/cache"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// noOutIndex is the replay message whose transaction sends nothing, so one
// estimate is exactly one emulation and compares directly with the bare
// emulator.
func noOutIndex(b *testing.B, r *replay) int {
	for i, x := range r.ext {
		if x.Charged.FwdFee == 0 {
			return i
		}
	}
	b.Fatal("no message without outgoing messages")
	return 0
}

// BenchmarkBareEmulator is the floor: tongo's Emulate on structures decoded
// once, on a warm emulator.
func BenchmarkBareEmulator(b *testing.B) {
	r := loadReplay(b)
	x := r.ext[noOutIndex(b, r)]
	req := x.request(b)
	est := r.estimator(Options{})
	cfg, err := est.config(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	em, err := newPool(1).create(cfg)
	if err != nil {
		b.Fatal(err)
	}
	st, _ := r.source.Account(context.Background(), chain.RawAddress(x.Account))
	sa, err := decodeShardAccount(st.ShardAccountBOC)
	if err != nil {
		b.Fatal(err)
	}
	bm, err := buildMessage(req)
	if err != nil {
		b.Fatal(err)
	}
	if err := setup(em, ChainTime{Unix: r.genUtime}, true, req.Body); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := em.Emulate(sa, bm.msg)
		if err != nil || !res.Success {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimateCold is a full uncached estimate of the same message:
// source reads, BOC decoding, message building, emulation, fee extraction.
func BenchmarkEstimateCold(b *testing.B) {
	r := loadReplay(b)
	req := r.ext[noOutIndex(b, r)].request(b)
	est := r.estimator(Options{})
	b.ResetTimer()
	for b.Loop() {
		if _, err := est.Estimate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimateColdTrace estimates a jetton transfer whose trace adds
// destination transactions; ns/op covers all of them.
func BenchmarkEstimateColdTrace(b *testing.B) {
	r := loadReplay(b)
	req := r.ext[3].request(b)
	est := r.estimator(Options{})
	res, err := est.Estimate(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(1+len(res.DestinationFees)), "emulations/op")
	b.ResetTimer()
	for b.Loop() {
		if _, err := est.Estimate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimateColdParallel is throughput with one emulator per CPU.
func BenchmarkEstimateColdParallel(b *testing.B) {
	r := loadReplay(b)
	req := r.ext[noOutIndex(b, r)].request(b)
	est := r.estimator(Options{})
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := est.Estimate(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func benchCached(b *testing.B, c cache.Cache, idx int) {
	r := loadReplay(b)
	req := r.ext[idx].request(b)
	at := time.Unix(int64(r.genUtime), 0)
	est := New(r.source, c, Options{Now: func() time.Time { return at }})
	if _, err := est.Estimate(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := est.Estimate(context.Background(), req)
		if err != nil || !res.Cached {
			b.Fatal("not a hit", err)
		}
	}
}

func BenchmarkCachedMemory(b *testing.B)      { benchCached(b, cache.NewMemory(1000), 3) }
func BenchmarkCachedMemoryNoOut(b *testing.B) { benchCached(b, cache.NewMemory(1000), 6) }

func BenchmarkCachedRedis(b *testing.B) {
	rc := cache.NewRedisAddr(testenv.RedisAddr(b), cache.RedisOptions{
		Prefix: "tonql-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
	defer rc.Close()
	benchCached(b, rc, 3)
}

// BenchmarkCachedFromJSON is a hit as a route sees it: the JSON body
// decoded and validated, then the estimate served from the in-process cache.
func BenchmarkCachedFromJSON(b *testing.B) {
	r := loadReplay(b)
	x := r.ext[noOutIndex(b, r)]
	body := []byte(`{"address":"` + x.Account.ToRaw() + `","body":"` + x.Body + `"}`)
	at := time.Unix(int64(r.genUtime), 0)
	est := New(r.source, cache.NewMemory(1000), Options{Now: func() time.Time { return at }})
	estimate := func() {
		req, err := DecodeRequest(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := est.Estimate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	estimate()
	b.ResetTimer()
	for b.Loop() {
		estimate()
	}
}
