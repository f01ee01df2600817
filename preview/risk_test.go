package preview

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	tw "github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/tonconnect"
)

// signedPreview previews the block's signed external message of the wallet
// whose raw address starts with prefix, and returns it with the chain's
// trace of the same message.
func signedPreview(t *testing.T, r *replay, prefix string) (*Preview, *chain.Trace) {
	t.Helper()
	for _, x := range r.msgs {
		if raw := chain.RawAddress(x.Account); strings.HasPrefix(raw, prefix) {
			_, pv := r.preview(t, r.estimator(nil), fees.Params{Boc: x.Message})
			return pv, r.traces[raw]
		}
	}
	t.Fatalf("no external message of %s in the block", prefix)
	return nil, nil
}

// wantTonOut is what the chain's root transaction sent and paid.
func wantTonOut(tr *chain.Trace) uint64 {
	out := tr.Root.Tx.TotalFees
	for _, m := range tr.Root.Tx.OutMsgs {
		out += m.Value
	}
	return out
}

// TestRiskJettonTransfer: a TON Connect request of the block's v5R1 wallet
// that burns jettons in the block, transferring 12345 units of the same
// jetton to another wallet of the block instead: the risk names its jetton
// wallet (the one the chain's burn went to) and the amount, and the TON it
// parts with; nothing fails.
func TestRiskJettonTransfer(t *testing.T) {
	r := loadReplay(t)
	_, tr := signedPreview(t, r, "0:BC91B30E")
	from, jw := tr.Root.Tx.Account, tr.Root.Tx.OutMsgs[0].Destination
	to, _ := ton.AccountIDFromRaw(chain.RawAddress(r.msgs[1].Account))
	body := boc.NewCell()
	_ = body.WriteUint(opJettonTransfer, 32)
	_ = body.WriteUint(7, 64)
	_ = tlb.Marshal(body, tlb.VarUInteger16(*big.NewInt(12345)))
	_ = tlb.Marshal(body, to.ToMsgAddress())
	_ = tlb.Marshal(body, to.ToMsgAddress())
	_ = body.WriteBit(false)            // no custom payload
	_ = tlb.Marshal(body, tlb.Grams(1)) // forward amount
	_ = body.WriteBit(false)            // forward payload inline, empty
	pv := tonConnectPreview(t, r, from, tonconnect.Message{Address: jw, Amount: "100000000", Payload: b64(body)})
	rk := pv.Risk
	if len(rk.Jettons) != 1 || rk.Jettons[0].JettonWallet != jw || rk.Jettons[0].Amount != "12345" {
		t.Fatalf("jettons %+v; want 12345 of %s", rk.Jettons, jw)
	}
	if rk.TonOut != actions.BigInt(uitoa(100_000_000+pv.Transactions[0].TotalFees)) || rk.SendsAll || len(rk.Nfts) != 0 || rk.Fails || rk.Bounces {
		t.Fatalf("risk %+v; want 0.1 TON plus fees out, nothing else", rk)
	}
	if rk.Sender != from || rk.TotalFees <= pv.Transactions[0].TotalFees {
		t.Fatalf("sender %s fees %d", rk.Sender, rk.TotalFees)
	}
}

func b64(c *boc.Cell) string {
	s, _ := c.ToBocBase64()
	return s
}

// tonConnectPreview previews a TON Connect request of a wallet of the block.
func tonConnectPreview(t *testing.T, r *replay, from string, msgs ...tonconnect.Message) *Preview {
	t.Helper()
	req, err := tonconnect.Parse(tonconnect.Params{From: from, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	var st *chain.AccountState
	for _, a := range r.accounts {
		if a.Address == from {
			st = a
		}
	}
	built, err := tonconnect.Build(req, st, r.at)
	if err != nil {
		t.Fatal(err)
	}
	em, err := r.estimator(nil).Emulate(t.Context(), built.Request)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := Build(em, nil, Limits{MaxDepth: 8, MaxTransactions: 32})
	if err != nil {
		t.Fatal(err)
	}
	return pv
}

// TestRiskSwaps: the block's signed swaps. The STON.fi v2 swap sends
// jettons out and succeeds; both DeDust swaps send jettons out and fail at
// the pool (exit code 304, the payback), as the chain's trace of the first
// shows (the second's pool step is in a later block, not the fixture).
func TestRiskSwaps(t *testing.T) {
	r := loadReplay(t)
	for _, c := range []struct {
		prefix string
		fails  bool
		chain  bool // the block holds the failing step
	}{{"0:FCD79429", false, true}, {"0:CEE275C9", true, true}, {"0:B0CA4D92", true, false}} {
		pv, tr := signedPreview(t, r, c.prefix)
		req := tr.Root.Tx.OutMsgs[0]
		h, err := readJettonHead(req.Body, false)
		if err != nil {
			t.Fatal(err)
		}
		rk := pv.Risk
		if len(rk.Jettons) != 1 || string(rk.Jettons[0].Amount) != h.amount.String() || rk.Jettons[0].JettonWallet != req.Destination {
			t.Fatalf("%s: jettons %+v; want %s from %s", c.prefix, rk.Jettons, h.amount, req.Destination)
		}
		chainFails := false
		for _, tx := range breadthFirst(tr) {
			chainFails = chainFails || failed(tx)
		}
		if rk.Fails != c.fails || (c.chain && chainFails != c.fails) {
			t.Fatalf("%s: fails %v, the chain's trace %v, want %v", c.prefix, rk.Fails, chainFails, c.fails)
		}
		if rk.TonOut != actions.BigInt(uitoa(wantTonOut(tr))) {
			t.Fatalf("%s: ton_out %s, the chain's %d", c.prefix, rk.TonOut, wantTonOut(tr))
		}
	}
}

// walletBody is an unsigned body of a block's v4R2 wallet sending one
// message with the given mode, at the wallet's real seqno.
func walletBody(t *testing.T, r *replay, acc string, msg tlb.Message, mode byte) string {
	t.Helper()
	var st *chain.AccountState
	for _, a := range r.accounts {
		if a.Address == acc {
			st = a
		}
	}
	sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
	if err != nil {
		t.Fatal(err)
	}
	init := sa.Account.Account.Storage.State.AccountActive.StateInit
	w, seqno, err := tw.NewFromCodeAndData(init.Code.Value.Value, init.Data.Value.Value)
	if err != nil {
		t.Fatal(err)
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, msg); err != nil {
		t.Fatal(err)
	}
	body, err := w.CreateMsgBodyWithoutSignature(tw.MessageConfig{Seqno: seqno, ValidUntil: time.Now().Add(time.Hour)},
		[]tw.RawMessage{{Message: c, Mode: mode}})
	if err == nil {
		body, err = w.AttachSignature(body, tlb.Bits512{})
	}
	if err != nil {
		t.Fatal(err)
	}
	s, _ := body.ToBocBase64()
	return s
}

// TestRiskSendAll: a real v4R2 wallet of the block sends 1 nanoton with
// mode 128 (the whole balance): the risk says so, and its TON out is the
// wallet's whole balance, not the 1 nanoton named.
func TestRiskSendAll(t *testing.T) {
	r := loadReplay(t)
	acc := "0:89F356BD10B3C8609187C5ABCD7BB1D5840C7F8A88E73DEBFF8E64FFD8F12010"
	to, _ := ton.AccountIDFromRaw(chain.RawAddress(r.msgs[0].Account))
	msg, _, err := tw.Message{Amount: 1, Address: to}.ToInternal()
	if err != nil {
		t.Fatal(err)
	}
	body := walletBody(t, r, acc, msg, 128)
	em, pv := r.preview(t, r.estimator(nil), fees.Params{Address: acc, Body: body})
	rk := pv.Risk
	before := em.Transactions[0].BalanceBefore
	if !rk.SendsAll || rk.TonOut != actions.BigInt(uitoa(before)) || before == 0 {
		t.Fatalf("risk %+v; want sends_all with ton_out the balance %d", rk, before)
	}
	// and the same transfer with mode 3 is not a send-all
	body = walletBody(t, r, acc, msg, 3)
	_, pv = r.preview(t, r.estimator(nil), fees.Params{Address: acc, Body: body})
	if pv.Risk.SendsAll {
		t.Fatalf("mode 3 read as a send-all: %+v", pv.Risk)
	}
}

// TestRiskNftTransfer: a TON Connect request of a real v4R2 wallet of the
// block transferring an NFT (TEP-62 transfer to the item the block's
// Telemint deploy made): the risk names the item.
func TestRiskNftTransfer(t *testing.T) {
	r := loadReplay(t)
	from := "0:A9558B20E93C35DF38B326449C5EDAF320CCFE487393773BFF5ABDB244B739DD"
	item := "0:CC4629E3C4BE256F2AF3E7CA22E0CACF9285BE6172FADD6FA7FC3BD5C90F3D4A"
	owner, _ := ton.AccountIDFromRaw(chain.RawAddress(r.msgs[0].Account))
	body := boc.NewCell()
	_ = body.WriteUint(opNftTransfer, 32)
	_ = body.WriteUint(1, 64)
	_ = tlb.Marshal(body, owner.ToMsgAddress())
	_ = tlb.Marshal(body, owner.ToMsgAddress())
	_ = body.WriteBit(false)                    // no custom payload
	_ = tlb.Marshal(body, tlb.Grams(1_000_000)) // forward amount
	_ = body.WriteBit(false)                    // forward payload inline, empty
	payload, _ := body.ToBocBase64()
	pv := tonConnectPreview(t, r, from, tonconnect.Message{Address: item, Amount: "50000000", Payload: payload})
	rk := pv.Risk
	if len(rk.Nfts) != 1 || rk.Nfts[0].Nft != item || len(rk.Jettons) != 0 || rk.SendsAll {
		t.Fatalf("risk %+v; want the NFT %s out", rk, item)
	}
	if rk.TonOut != actions.BigInt(uitoa(50_000_000+pv.Transactions[0].TotalFees)) {
		t.Fatalf("ton_out %s; want the 0.05 TON sent plus the wallet's fees", rk.TonOut)
	}
}

func uitoa(v uint64) string { return new(big.Int).SetUint64(v).String() }

// TestRiskHighloadBatch: a TON Connect request of two messages from a real
// highload v3 wallet of the block (its STON.fi swap's jetton transfer, and
// 0.05 TON to another wallet) goes through the wallet itself: its first
// transaction sends all its balance to itself (mode 128), its second
// sends the two. The risk reads both: the jettons, the TON that leaves
// (the two values and both transactions' fees), not "everything".
func TestRiskHighloadBatch(t *testing.T) {
	r := loadReplay(t)
	_, tr := signedPreview(t, r, "0:FCD79429")
	from, req := tr.Root.Tx.Account, tr.Root.Tx.OutMsgs[0]
	to := chain.RawAddress(r.msgs[1].Account)
	pv := tonConnectPreview(t, r, from,
		tonconnect.Message{Address: req.Destination, Amount: uitoa(req.Value), Payload: b64(mustRoot(t, req.Body))},
		tonconnect.Message{Address: to, Amount: "50000000"})
	if len(pv.Transactions) < 4 || pv.Transactions[1].Account != from {
		t.Fatalf("%d transactions, the second on %s; want the batch through the wallet itself", len(pv.Transactions), pv.Transactions[1].Account)
	}
	rk := pv.Risk
	want := req.Value + 50_000_000 + pv.Transactions[0].TotalFees + pv.Transactions[1].TotalFees
	if rk.SendsAll || rk.TonOut != actions.BigInt(uitoa(want)) {
		t.Fatalf("ton_out %s sends_all %v; want %d (the two values and the wallet's two fees)", rk.TonOut, rk.SendsAll, want)
	}
	h, err := readJettonHead(req.Body, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rk.Jettons) != 1 || string(rk.Jettons[0].Amount) != h.amount.String() || rk.Jettons[0].JettonWallet != req.Destination {
		t.Fatalf("jettons %+v; want %s from %s", rk.Jettons, h.amount, req.Destination)
	}
}

func mustRoot(t *testing.T, b []byte) *boc.Cell {
	t.Helper()
	c, err := chain.DecodeRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
