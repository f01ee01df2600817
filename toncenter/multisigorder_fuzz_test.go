package toncenter

import (
	"encoding/json"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/internal/contractfixture"
)

// FuzzOrderActions: an order's cell is whatever a contract with the order
// code holds in its data, so any bytes may reach OrderActions. None panics,
// and what it parses renders as JSON and names only raw addresses. Seeded
// with the real order of tongo's mainnet new_order body, written without
// CRC so that the fuzzer's changes reach the cells.
func FuzzOrderActions(f *testing.F) {
	_, proposal := contractfixture.TongoNewOrder(f)
	c := boc.NewCell()
	if err := tlb.Marshal(c, proposal.Order); err != nil {
		f.Fatal(err)
	}
	seed, err := c.ToBocCustom(false, false, false, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		acts, err := OrderActions(b)
		if err != nil {
			return
		}
		for _, a := range acts {
			if _, err := json.Marshal(a); err != nil {
				t.Fatalf("action %+v: %v", a, err)
			}
			for _, addr := range a.Addresses() {
				if len(addr) < 66 {
					t.Fatalf("address %q of %+v", addr, a)
				}
			}
		}
	})
}
