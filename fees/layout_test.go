package fees

import (
	"testing"

	"github.com/tonkeeper/tongo/tlb"
)

func mustImportPrice(t *testing.T, cfgBOC []byte, m tlb.Message) uint64 {
	t.Helper()
	p, err := importPrice(cfgBOC, m)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestByRefCostsOneCell checks the one known difference between an estimate
// and the chain: a sender that put the body by reference although it fits
// inline pays the import fee of one more cell (the body's root), which the
// request (body only) cannot reveal.
func TestByRefCostsOneCell(t *testing.T) {
	r := loadReplay(t)
	est := r.estimator(Options{})
	n := 0
	for _, x := range r.ext {
		if !x.BodyByRef {
			continue
		}
		n++
		req := x.request(t)
		res, err := est.Estimate(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := decodeRoot(req.Body)
		if err != nil {
			t.Fatal(err)
		}
		inline := externalMessage(req.Account, body, nil, false)
		if !fitsOneCell(inline) {
			t.Fatalf("%s: body does not fit inline; fixture changed?", short(x.Account))
		}
		byRef := externalMessage(req.Account, body, nil, true)
		if got, want := res.SourceFees.InFwdFee, mustImportPrice(t, r.config, inline); got != want {
			t.Errorf("%s: estimate %d, price of the inline layout %d", short(x.Account), got, want)
		}
		if got, want := x.Charged.InFwdFee, mustImportPrice(t, r.config, byRef); got != want {
			t.Errorf("%s: chain charged %d, price of the by-ref layout %d", short(x.Account), got, want)
		}
		if res.SourceFees.InFwdFee >= x.Charged.InFwdFee {
			t.Errorf("%s: estimate %d is not cheaper than the chain's %d", short(x.Account), res.SourceFees.InFwdFee, x.Charged.InFwdFee)
		}
		t.Logf("%s: one cell of %d bits costs %d", short(x.Account), body.BitSize(), x.Charged.InFwdFee-res.SourceFees.InFwdFee)
	}
	if n != 2 {
		t.Fatalf("%d by-reference messages, want 2", n)
	}
}
