package fees

import (
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// importPrice is the chain's import fee of a message from config param 25:
// lump + ceil((bit_price*bits + cell_price*cells) / 2^16), counting the
// distinct cells below the root (the root cell is free).
func importPrice(t *testing.T, cfgBOC []byte, m tlb.Message) uint64 {
	t.Helper()
	cells, err := boc.DeserializeBoc(cfgBOC)
	if err != nil {
		t.Fatal(err)
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		t.Fatal(err)
	}
	conf, _, err := ton.ConvertBlockchainConfig(params, true)
	if err != nil || conf.ConfigParam25 == nil {
		t.Fatalf("config param 25: %v", err)
	}
	p := conf.ConfigParam25.MsgForwardPrices
	root := boc.NewCell()
	if err := tlb.Marshal(root, m); err != nil {
		t.Fatal(err)
	}
	seen := map[[32]byte]bool{}
	var nCells, nBits uint64
	var walk func(c *boc.Cell)
	walk = func(c *boc.Cell) {
		for _, ref := range c.Refs() {
			h, err := ref.Hash256()
			if err != nil {
				t.Fatal(err)
			}
			if seen[h] {
				continue
			}
			seen[h] = true
			nCells++
			nBits += uint64(ref.BitSize())
			walk(ref)
		}
	}
	walk(root)
	return p.LumpPrice + (p.BitPrice*nBits+p.CellPrice*nCells+0xffff)>>16
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
		if got, want := res.SourceFees.InFwdFee, importPrice(t, r.config, inline); got != want {
			t.Errorf("%s: estimate %d, price of the inline layout %d", short(x.Account), got, want)
		}
		if got, want := x.Charged.InFwdFee, importPrice(t, r.config, byRef); got != want {
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
