package fees

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// chainTraces rebuilds, from the block, the transactions each external
// message caused, in breadth-first order (how destination_fees lists them),
// and whether each was its account's first transaction of the block (only
// then does the chain charge the storage our estimate, which starts from the
// state before the block, also charges).
func chainTraces(t *testing.T) map[[32]byte][]chainTx {
	t.Helper()
	raw, err := os.ReadFile(replayPath(t))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		BlockBOC string `json:"block_boc_base64"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	b, _ := base64.StdEncoding.DecodeString(f.BlockBOC)
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		t.Fatal(err)
	}
	var block tlb.Block
	if err := tlb.Unmarshal(cells[0], &block); err != nil {
		t.Fatal(err)
	}
	txs := block.AllTransactions()
	byInMsg := map[tlb.Bits256]*tlb.Transaction{}
	firstLt := map[tlb.Bits256]uint64{}
	for _, tx := range txs {
		if tx.Msgs.InMsg.Exists {
			m := tx.Msgs.InMsg.Value.Value
			byInMsg[m.Hash(false)] = tx
		}
		if l, ok := firstLt[tx.AccountAddr]; !ok || tx.Lt < l {
			firstLt[tx.AccountAddr] = tx.Lt
		}
	}
	out := map[[32]byte][]chainTx{}
	for _, root := range txs {
		if !root.Msgs.InMsg.Exists || root.Msgs.InMsg.Value.Value.Info.SumType != "ExtInMsgInfo" {
			continue
		}
		var list []chainTx
		queue := []*tlb.Transaction{root}
		for len(queue) > 0 {
			tx := queue[0]
			queue = queue[1:]
			for _, m := range tx.Msgs.OutMsgs.Values() {
				msg := m.Value
				if child, ok := byInMsg[msg.Hash(false)]; ok {
					fees, err := txFees(child)
					if err != nil {
						t.Fatal(err)
					}
					list = append(list, chainTx{fees: fees, first: firstLt[child.AccountAddr] == child.Lt})
					queue = append(queue, child)
				}
			}
		}
		out[root.AccountAddr] = list
	}
	return out
}

type chainTx struct {
	fees  Fees
	first bool
}

// TestDestinationFeesMatchChain compares destination_fees with the
// transactions the same messages caused inside the block. Gas and forwarding
// fees must match to the nanoton; storage where the block also started from
// the pre-block state (a later transaction of an account in the same block
// pays no storage). All 57 hops of the block's 12 traces match.
func TestDestinationFeesMatchChain(t *testing.T) {
	r := loadReplay(t)
	traces := chainTraces(t)
	est := r.estimator(Options{})
	var hops, exact int
	for _, x := range r.ext {
		res, err := est.Estimate(context.Background(), x.request(t))
		if err != nil {
			t.Fatal(err)
		}
		want := traces[x.Account.Address]
		if len(res.DestinationFees) != len(want) {
			t.Errorf("%s: %d destination transactions, chain had %d", short(x.Account), len(res.DestinationFees), len(want))
			continue
		}
		for i, got := range res.DestinationFees {
			w := want[i]
			hops++
			same := got.GasFee == w.fees.GasFee && got.FwdFee == w.fees.FwdFee &&
				(!w.first || got.StorageFee == w.fees.StorageFee) && got.InFwdFee == 0
			if same {
				exact++
			} else {
				t.Logf("%s hop %d: got %+v, chain %+v (first in block: %v)", short(x.Account), i, got, w.fees, w.first)
			}
		}
	}
	t.Logf("%d of %d destination transactions match the chain exactly", exact, hops)
	if hops == 0 || exact != hops {
		t.Fatalf("only %d of %d destination transactions match", exact, hops)
	}
}
