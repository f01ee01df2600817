package preview

import (
	"context"
	"slices"
	"testing"
	"time"

	tw "github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/walletmsg"
	"github.com/tonql/tonql/tonconnect"
)

// BenchmarkPreviewInProcess compares, interleaved in one sitting, an
// uncached estimate with the same message's emulation decoded into a
// preview (Emulate + Build), without HTTP or the address book: what the
// preview itself adds to the emulation.
func BenchmarkPreviewInProcess(b *testing.B) {
	r := loadReplay(b)
	est := r.estimator(nil)
	depth, txs := est.Limits()
	for _, prefix := range []string{"0:DFEC1432", "0:89F356BD", "0:FCD79429"} {
		var x *fees.ExternalMessage
		for i := range r.msgs {
			if chain.RawAddress(r.msgs[i].Account)[:10] == prefix {
				x = &r.msgs[i]
			}
		}
		req, err := fees.ParseParams(fees.Params{Address: x.Account.ToRaw(), Body: x.Body})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if _, err := est.Estimate(ctx, req); err != nil {
			b.Fatal(err)
		}
		b.Run(prefix, func(b *testing.B) {
			var e, p []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := est.Estimate(ctx, req); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				em, err := est.Emulate(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Build(em, nil, Limits{MaxDepth: depth, MaxTransactions: txs}); err != nil {
					b.Fatal(err)
				}
				e, p = append(e, t1.Sub(t0)), append(p, time.Since(t1))
			}
			slices.Sort(e)
			slices.Sort(p)
			b.ReportMetric(float64(e[len(e)/2].Microseconds()), "estimate-p50-µs")
			b.ReportMetric(float64(p[len(p)/2].Microseconds()), "preview-p50-µs")
			b.ReportMetric(float64(p[len(p)/2])/float64(e[len(e)/2]), "preview/estimate")
		})
	}
}

// BenchmarkTonConnectPreview compares, interleaved in one sitting, the
// preview of a wallet's signed external message (boc) with the preview of
// the TON Connect request for the same transfer: validating the request,
// reading the sender's state, recognizing the wallet and building its
// message, then the same emulation and decoding. Uncached, for a v4R2, a
// v5R1 and a highload v3 wallet of the fee-replay block.
func BenchmarkTonConnectPreview(b *testing.B) {
	r := loadReplay(b)
	est := r.estimator(nil)
	depth, txs := est.Limits()
	limits := Limits{MaxDepth: depth, MaxTransactions: txs}
	ctx := context.Background()
	v3 := func(m string) ([]walletmsg.TonConnectMessage, error) {
		out, _, err := walletmsg.HighloadV3TonConnectOf(m)
		return out, err
	}
	for _, w := range []struct {
		prefix string
		name   string
		read   func(message string) ([]walletmsg.TonConnectMessage, error)
	}{{"0:89F356BD", "v4R2", tonConnectOf(tw.V4R2)}, {"0:BC91B30E", "v5R1", tonConnectOf(tw.V5R1)}, {"0:FCD79429", "highload_v3r1", v3}} {
		var x *fees.ExternalMessage
		for i := range r.msgs {
			if chain.RawAddress(r.msgs[i].Account)[:10] == w.prefix {
				x = &r.msgs[i]
			}
		}
		msgs, err := w.read(x.Message)
		if err != nil {
			b.Fatal(err)
		}
		p := tonconnect.Params{From: x.Account.ToRaw(), ValidUntil: time.Now().Add(time.Hour).Unix()}
		for _, m := range msgs {
			p.Messages = append(p.Messages, tonconnect.Message(m))
		}
		signed := func() {
			req, err := fees.ParseParams(fees.Params{Boc: x.Message})
			if err != nil {
				b.Fatal(err)
			}
			em, err := est.Emulate(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Build(em, nil, limits); err != nil {
				b.Fatal(err)
			}
		}
		tonConnect := func() {
			req, err := tonconnect.Parse(p)
			if err != nil {
				b.Fatal(err)
			}
			st, err := est.State(ctx, chain.RawAddress(req.From))
			if err != nil {
				b.Fatal(err)
			}
			built, err := tonconnect.Build(req, st, r.at)
			if err != nil {
				b.Fatal(err)
			}
			em, err := est.Emulate(ctx, built.Request)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Build(em, nil, limits); err != nil {
				b.Fatal(err)
			}
		}
		signed()
		tonConnect()
		b.Run(w.name, func(b *testing.B) {
			var s, c []time.Duration
			for b.Loop() {
				t0 := time.Now()
				signed()
				t1 := time.Now()
				tonConnect()
				s, c = append(s, t1.Sub(t0)), append(c, time.Since(t1))
			}
			slices.Sort(s)
			slices.Sort(c)
			b.ReportMetric(float64(s[len(s)/2].Microseconds()), "signed-p50-µs")
			b.ReportMetric(float64(c[len(c)/2].Microseconds()), "tonconnect-p50-µs")
			b.ReportMetric(float64(c[len(c)/2])/float64(s[len(s)/2]), "tonconnect/signed")
		})
	}
}

// tonConnectOf reads a standard wallet's signed message as TON Connect
// messages.
func tonConnectOf(ver tw.Version) func(string) ([]walletmsg.TonConnectMessage, error) {
	return func(m string) ([]walletmsg.TonConnectMessage, error) {
		out, _, err := walletmsg.TonConnectOf(m, ver)
		return out, err
	}
}
