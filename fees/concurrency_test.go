package fees

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// TestConcurrentMatchesSequential: many goroutines estimating different
// messages at once, on a pool smaller than the goroutine count, give exactly
// the answers of one-at-a-time estimation (destination fees included).
func TestConcurrentMatchesSequential(t *testing.T) {
	r := loadReplay(t)
	reqs := make([]Request, 0, len(r.ext)+1)
	for _, x := range r.ext {
		reqs = append(reqs, x.request(t))
	}
	d := newV3Deploy(t, r.genUtime+60)
	reqs = append(reqs, mustParams(t, Params{Address: d.addr.ToRaw(), Body: d.body, InitCode: d.code, InitData: d.data}))

	want := make([]string, len(reqs))
	seq := r.estimator(Options{Emulators: 1})
	for i, q := range reqs {
		res, err := seq.Estimate(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = asJSON(t, res)
	}

	par := r.estimator(Options{Emulators: 3})
	const workers, rounds = 8, 3
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*len(reqs))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < rounds*len(reqs); k++ {
				i := (w*5 + k) % len(reqs) // every worker in a different order
				res, err := par.Estimate(context.Background(), reqs[i])
				if err != nil {
					errs <- err
					continue
				}
				if got := asJSON(t, res); got != want[i] {
					errs <- fmt.Errorf("request %d: concurrent %s, sequential %s", i, got, want[i])
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func asJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Error(err)
	}
	return string(b)
}

// TestPoolReplacesEmulatorsOnConfigChange: emulators made for one config
// never serve another.
func TestPoolReplacesEmulatorsOnConfigChange(t *testing.T) {
	r := loadReplay(t)
	var cc configCache
	a, err := cc.prepare(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := r.source.Config(context.Background())
	b, err := cc.prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := newPool(2)
	la, err := p.acquire(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	ea := la.e
	la.release()
	la, _ = p.acquire(context.Background(), a)
	if la.e != ea {
		t.Fatal("an idle emulator of the same config was not reused")
	}
	lb, err := p.acquire(context.Background(), b) // while la is still out
	if err != nil {
		t.Fatal(err)
	}
	if lb.e == ea {
		t.Fatal("emulator of the old config served the new one")
	}
	la.release() // old config: dropped, not pooled
	lb.release()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) != 1 || p.idle[0] == ea {
		t.Fatalf("idle emulators after the change: %d", len(p.idle))
	}
}

func TestMalformedConfigRejectedBeforeC(t *testing.T) {
	for _, bad := range [][]byte{nil, {1, 2, 3}, []byte("b5ee9c72")} {
		if err := validateConfig(bad, nil); err == nil {
			t.Errorf("config %x accepted", bad)
		}
	}
	// a real cell that is not a config dictionary
	body, _ := decodeRoot(mustB64(t, goodBody(t)))
	b, _ := body.ToBoc()
	if err := validateConfig(b, nil); err == nil {
		t.Error("a message body accepted as a config")
	}
}

func mustB64(t testing.TB, s string) []byte {
	b, err := checkBOC("test", s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConfigMissingGasPrices: a real config with param 21 removed would abort
// the process inside the emulator; it is refused in Go and the estimate says
// the config is unusable.
func TestConfigMissingGasPrices(t *testing.T) {
	r := loadReplay(t)
	cells, err := boc.DeserializeBoc(r.config)
	if err != nil {
		t.Fatal(err)
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		t.Fatal(err)
	}
	var keep []uint32
	for _, item := range params.Config.Items() {
		if item.Key != 21 {
			keep = append(keep, uint32(item.Key))
		}
	}
	cut := params.CloneKeepingSubsetOfKeys(keep)
	c := boc.NewCell()
	if err := tlb.Marshal(c, cut.Config); err != nil {
		t.Fatal(err)
	}
	b, err := c.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	if err := validateConfig(b, nil); err == nil {
		t.Fatal("config without param 21 accepted")
	}
	src := NewMemorySource(&chain.ChainConfig{ConfigBOC: b})
	_, err = New(src, nil, Options{}).Estimate(context.Background(), r.ext[0].request(t))
	if ae := apperr.From(err); ae.Kind != apperr.Unavailable {
		t.Fatalf("want Unavailable, got %v", err)
	}
}
