package storetest

import (
	"fmt"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// Nested is a trace with nested (child) actions, as the classifier writes
// them: a purchase whose steps (an NFT transfer and a TON transfer) are
// listed too, naming it as their parent, and a top-level TON transfer of
// its own trace; fillers more top-level transfers (to send the rows
// through COPY on Postgres). Every action has Buyer among its participants.
type Nested struct {
	Batch                   *store.Batch
	Purchase, Item, Payment chain.Action // the parent and its two steps
	Transfer                chain.Action // top-level, another trace
	Buyer, Seller, NftItem  string
}

// Nested action ids.
const (
	PurchaseID = "nested-purchase"
	ItemID     = "nested-item-transfer"
	PaymentID  = "nested-payment"
	TransferID = "nested-plain-transfer"
)

// NestedBatch builds the batch; lts start at base (0: 1,000,000).
func NestedBatch(fillers int, base uint64) *Nested {
	if base == 0 {
		base = 1_000_000
	}
	n := &Nested{Buyer: raw(1), Seller: raw(2), NftItem: raw(3)}
	hash := func(i int) chain.Hash {
		var h chain.Hash
		h[0], h[1], h[31] = byte(i), byte(i>>8), 0x5a
		return h
	}
	b := &store.Batch{}
	tx := func(i int, acc string, lt uint64, trace chain.Hash) string {
		t := &chain.Transaction{Hash: hash(i), Account: acc, Lt: lt, Utime: uint32(lt / 1000), TraceID: trace}
		b.Transactions = append(b.Transactions, t)
		return t.Hash.Base64()
	}
	trace := hash(1000)
	t1, t2, t3 := tx(1, n.Buyer, base+10, trace), tx(2, n.NftItem, base+20, trace), tx(3, n.Seller, base+30, trace)
	b.Traces = append(b.Traces, &chain.Trace{ID: trace, StartLt: base + 10, EndLt: base + 30,
		StartUtime: uint32((base + 10) / 1000), EndUtime: uint32((base + 30) / 1000), Complete: true, Transactions: 3})
	action := func(id, typ string, lts []uint64, txs []string, accs ...string) chain.Action {
		a := chain.Action{ActionID: id, TraceID: trace.Base64(), TxHash: txs[0], Type: typ, Status: "ok",
			Value: chain.RawJSON(`{}`), StartLt: lts[0], EndLt: lts[len(lts)-1],
			StartUtime: uint32(lts[0] / 1000), EndUtime: uint32(lts[len(lts)-1] / 1000),
			Transactions: txs, TxLts: lts, TraceEndLt: base + 30, TraceEndUtime: uint32((base + 30) / 1000)}
		for _, acc := range accs {
			a.Participants = append(a.Participants, chain.ActionAccount{Address: acc, Role: chain.RoleOther})
			a.Accounts = append(a.Accounts, acc)
		}
		return a
	}
	n.Purchase = action(PurchaseID, "NftPurchase", []uint64{base + 10, base + 20, base + 30}, []string{t1, t2, t3}, n.Buyer, n.Seller, n.NftItem)
	n.Item = action(ItemID, "NftItemTransfer", []uint64{base + 20}, []string{t2}, n.Buyer, n.NftItem)
	n.Payment = action(PaymentID, "TonTransfer", []uint64{base + 30}, []string{t3}, n.Buyer, n.Seller)
	for _, c := range []*chain.Action{&n.Item, &n.Payment} {
		c.ParentActionID, c.Ancestors = PurchaseID, []string{"NftPurchase"}
	}
	other := hash(1001)
	b.Traces = append(b.Traces, &chain.Trace{ID: other, StartLt: base + 5, EndLt: base + 5, Complete: true, Transactions: 1})
	n.Transfer = action(TransferID, "TonTransfer", []uint64{base + 5}, []string{tx(4, n.Buyer, base+5, other)}, n.Buyer, n.Seller)
	n.Transfer.TraceID, n.Transfer.TraceEndLt = other.Base64(), base+5
	b.Actions = []chain.Action{n.Purchase, n.Item, n.Payment, n.Transfer}
	for i := range fillers {
		id := hash(2000 + i)
		lt := base - 100 - uint64(i)
		b.Traces = append(b.Traces, &chain.Trace{ID: id, StartLt: lt, EndLt: lt, Complete: true, Transactions: 1})
		a := action(fmt.Sprintf("nested-filler-%03d", i), "TonTransfer", []uint64{lt}, []string{tx(5000+i, n.Buyer, lt, id)}, n.Buyer, raw(100+i))
		a.TraceID, a.TraceEndLt = id.Base64(), lt
		b.Actions = append(b.Actions, a)
	}
	n.Batch = b
	return n
}

func raw(i int) string { return fmt.Sprintf("0:%064X", i) }
