package tonconnect

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"testing"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/txemulator"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// highloadV3Code is highload wallet v3's code as its authors published it
// (ton-blockchain/highload-wallet-contract-v3, tag v3.00, the hex tonweb
// ships); TestHighloadV3CodeIsTongos ties it to the hash tongo's abi knows.
const highloadV3Code = "b5ee9c7241021001000228000114ff00f4a413f4bcf2c80b01020120020d02014803040078d020d74bc00101c060b0915be101d0d3030171b0915be0fa4030f828c705b39130e0d31f018210ae42e5a4ba9d8040d721d74cf82a01ed55fb04e030020120050a02027306070011adce76a2686b85ffc00201200809001aabb6ed44d0810122d721d70b3f0018aa3bed44d08307d721d70b1f0201200b0c001bb9a6eed44d0810162d721d70b15800e5b8bf2eda2edfb21ab09028409b0ed44d0810120d721f404f404d33fd315d1058e1bf82325a15210b99f326df82305aa0015a112b992306dde923033e2923033e25230800df40f6fa19ed021d721d70a00955f037fdb31e09130e259800df40f6fa19cd001d721d70a00937fdb31e0915be270801f6f2d48308d718d121f900ed44d0d3ffd31ff404f404d33fd315d1f82321a15220b98e12336df82324aa00a112b9926d32de58f82301de541675f910f2a106d0d31fd4d307d30cd309d33fd315d15168baf2a2515abaf2a6f8232aa15250bcf2a304f823bbf2a35304800df40f6fa199d024d721d70a00f2649130e20e01fe5309800df40f6fa18e13d05004d718d20001f264c858cf16cf8301cf168e1030c824cf40cf8384095005a1a514cf40e2f800c94039800df41704c8cbff13cb1ff40012f40012cb3f12cb15c9ed54f80f21d0d30001f265d3020171b0925f03e0fa4001d70b01c000f2a5fa4031fa0031f401fa0031fa00318060d721d300010f0020f265d2000193d431d19130e272b1fb00b585bf03"

func TestHighloadV3CodeIsTongos(t *testing.T) {
	code := hlCode(t)
	if name, ok := isHighload(code); !ok || name != HighloadV3Name {
		t.Fatalf("the published v3 code is recognized as %q (%v)", name, ok)
	}
}

func hlCode(t *testing.T) *boc.Cell {
	t.Helper()
	b, err := hex.DecodeString(highloadV3Code)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.DecodeRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hlWallet is a highload wallet made from a test key: its code is the real
// contract's (tongo's v2R2 code, the published v3 code).
type hlWallet struct {
	name    string
	priv    ed25519.PrivateKey
	init    tlb.StateInit
	initBOC string // base64
	addr    ton.AccountID
	ownTxs  int // the wallet's transactions in a trace: v3 sends through itself
}

func newHighload(t *testing.T, name string) hlWallet {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := hlWallet{name: name, priv: priv, ownTxs: 1}
	switch name {
	case HighloadV3Name:
		data := boc.NewCell()
		_ = tlb.Marshal(data, highloadV3Data{PublicKey: tlb.Bits256(pub), SubwalletID: 0x10ad, Timeout: 3600})
		w.init.Code.Exists, w.init.Code.Value.Value = true, *hlCode(t)
		w.init.Data.Exists, w.init.Data.Value.Value = true, *data
		w.ownTxs = 2
	default:
		hw, err := wallet.NewFromPublicKey(pub, wallet.HighLoadV2R2)
		if err != nil {
			t.Fatal(err)
		}
		si, err := hw.StateInit()
		if err != nil {
			t.Fatal(err)
		}
		w.init = *si
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, w.init); err != nil {
		t.Fatal(err)
	}
	h, _ := c.Hash256()
	w.addr = ton.AccountID{Workchain: 0, Address: h}
	w.initBOC, _ = c.ToBocBase64()
	return w
}

// sign puts a real signature on a body Build made: v3 signs the inner
// cell it references, v2 the rest of its own cell after the signature.
func (w hlWallet) sign(t *testing.T, body []byte) []byte {
	t.Helper()
	c, err := chain.DecodeRoot(body)
	if err != nil {
		t.Fatal(err)
	}
	rest := boc.NewCell()
	if err := c.Skip(512); err != nil {
		t.Fatal(err)
	}
	bits, err := c.ReadBits(c.BitsAvailableForRead())
	if err == nil {
		err = rest.WriteBitString(bits)
	}
	for _, r := range c.Refs() {
		if err == nil {
			err = rest.AddRef(r)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	signedCell := rest
	if w.name == HighloadV3Name {
		signedCell = c.Refs()[0]
	}
	h, err := signedCell.Hash256()
	if err != nil {
		t.Fatal(err)
	}
	out := boc.NewCell()
	if err := tlb.Marshal(out, tlb.Bits512(ed25519.Sign(w.priv, h[:]))); err != nil {
		t.Fatal(err)
	}
	if err := out.WriteBitString(bits); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Refs() {
		if err := out.AddRef(r); err != nil {
			t.Fatal(err)
		}
	}
	b, err := out.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// deployed is the wallet's state after its first (signed) message deployed
// it: an uninitialized account holding 10 TON, as a transfer to the
// address leaves it, takes the wallet's StateInit and a message sending
// 0.1 TON, run by the real emulator on the block's config at at. The
// wallet remembers that message's query id.
func (w hlWallet) deployed(t *testing.T, b *block, to ton.AccountID, at uint32) *chain.AccountState {
	t.Helper()
	ctx := context.Background()
	// valid until the moment the previews' requests are (at is 60 s
	// before them): v2's query id is then taken, and a preview must pick
	// the next one
	r, err := Parse(Params{From: chain.RawAddress(w.addr), StateInit: w.initBOC, ValidUntil: int64(at) + 660,
		Messages: []Message{{Address: chain.RawAddress(to), Amount: "100000000"}}})
	if err != nil {
		t.Fatal(err)
	}
	built, err := Build(r, nil, time.Unix(int64(at), 0))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := chain.DecodeRoot(w.sign(t, built.Request.Body))
	var sa tlb.ShardAccount
	sa.Account.SumType = "Account"
	acc := &sa.Account.Account
	acc.Addr = w.addr.ToMsgAddress()
	acc.StorageStat.StorageExtra.SumType = "StorageExtraNone"
	acc.StorageStat.LastPaid = at - 100
	acc.Storage.State.SumType = "AccountUninit"
	acc.Storage.Balance.Grams = 10_000_000_000
	m := externalMsg(w.addr, body)
	m.Init.Exists = true
	m.Init.Value.IsRight, m.Init.Value.Value = true, w.init
	cfg, err := b.source.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfgCell, err := chain.DecodeRoot(cfg.ConfigBOC)
	if err != nil {
		t.Fatal(err)
	}
	em, err := txemulator.NewEmulator(cfgCell, txemulator.LogTruncated)
	if err != nil {
		t.Fatal(err)
	}
	if err := em.SetUnixtime(at); err != nil {
		t.Fatal(err)
	}
	if err := em.SetLT(blockLt - 1_000_000); err != nil {
		t.Fatal(err)
	}
	after := sa
	// v3's first transaction sends its balance to itself; the second,
	// on that message, sends the transfer
	for pending := []tlb.Message{m}; len(pending) > 0; pending = pending[1:] {
		res, err := em.Emulate(after, pending[0])
		if err != nil || !res.Success {
			t.Fatalf("deploying the %s wallet: %v %+v", w.name, err, res.Error)
		}
		after = res.Emulation.ShardAccount
		for _, out := range res.Emulation.Transaction.Msgs.OutMsgs.Values() {
			if out.Value.Info.IntMsgInfo != nil && out.Value.Info.IntMsgInfo.Dest == w.addr.ToMsgAddress() {
				pending = append(pending, out.Value)
			}
		}
	}
	if after.Account.Account.Storage.State.SumType != "AccountActive" {
		t.Fatalf("deploy left the wallet %s", after.Account.Account.Storage.State.SumType)
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, after); err != nil {
		t.Fatal(err)
	}
	sab, err := c.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	return &chain.AccountState{Address: chain.RawAddress(w.addr), Status: "active", ShardAccountBOC: sab,
		Balance: uint64(after.Account.Account.Storage.Balance.Grams), LastTxLt: after.LastTransLt, ReadAtUtime: at}
}

// TestHighloadPreviewFeesEqualSigned: for highload v2R2 and v3 wallets
// (real code, test keys), a TON Connect request is previewed unsigned (a)
// as the wallet's deployment, from an uninitialized sender with its
// StateInit, and (b) as a transfer from the state the real emulator left
// after deploying it; each preview's fees, at every step of the trace,
// equal those of the same message signed with the wallet's key and run
// with the signature checked.
func TestHighloadPreviewFeesEqualSigned(t *testing.T) {
	b := loadBlock(t)
	est := b.estimator()
	ctx := context.Background()
	to := b.msgs[0].Account // a deployed wallet of the block
	payload := boc.NewCell()
	_ = payload.WriteUint(0, 32)
	_, _ = payload.WriteStringTail("highload preview")
	pb, _ := payload.ToBocBase64()
	msgs := []Message{
		{Address: to.ToHuman(true, false), Amount: "150000000", Payload: pb},
		{Address: chain.RawAddress(b.msgs[1].Account), Amount: "20000000"},
	}
	for _, name := range []string{wallet.HighLoadV2R2.ToString(), HighloadV3Name} {
		t.Run(name, func(t *testing.T) {
			w := newHighload(t, name)
			deployState := w.deployed(t, b, to, b.at-60)
			for _, c := range []struct {
				name   string
				state  *chain.AccountState
				deploy bool
			}{{"deploy", nil, true}, {"transfer", deployState, false}} {
				t.Run(c.name, func(t *testing.T) {
					p := Params{From: w.addr.ToHuman(true, false), ValidUntil: int64(b.at) + 600, Messages: msgs}
					if c.deploy {
						p.StateInit = w.initBOC
					}
					r, err := Parse(p)
					if err != nil {
						t.Fatal(err)
					}
					built, err := Build(r, c.state, time.Unix(int64(b.at), 0))
					if err != nil {
						t.Fatal(err)
					}
					if built.Type != name || built.Deploy != c.deploy {
						t.Fatalf("built %q deploy=%v; want %q deploy=%v", built.Type, built.Deploy, name, c.deploy)
					}
					preview, err := est.Emulate(ctx, built.Request)
					if err != nil {
						t.Fatal(err)
					}
					signedReq := built.Request
					signedReq.Body, signedReq.IgnoreChksig = w.sign(t, built.Request.Body), false
					signed, err := est.Emulate(ctx, signedReq)
					if err != nil {
						t.Fatal(err)
					}
					checkHighloadTrace(t, preview, w, c.deploy, len(msgs))
					checkHighloadTrace(t, signed, w, c.deploy, len(msgs))
					if preview.Result.SourceFees != signed.Result.SourceFees {
						t.Fatalf("source fees %+v; signed %+v", preview.Result.SourceFees, signed.Result.SourceFees)
					}
					if len(preview.Transactions) != len(signed.Transactions) {
						t.Fatalf("%d transactions; signed %d", len(preview.Transactions), len(signed.Transactions))
					}
					for i := range signed.Result.DestinationFees {
						if preview.Result.DestinationFees[i] != signed.Result.DestinationFees[i] {
							t.Fatalf("destination %d: %+v; signed %+v", i, preview.Result.DestinationFees[i], signed.Result.DestinationFees[i])
						}
					}
					t.Logf("%s %s: source fees %+v, %d transactions", name, c.name, preview.Result.SourceFees, len(preview.Transactions))
				})
			}
		})
	}
}

// checkHighloadTrace: the wallet's transaction succeeds (deploying it
// when asked) and the request's messages reach their destinations, from
// the wallet (v3: from its second transaction, on its message to itself).
func checkHighloadTrace(t *testing.T, em *fees.Emulation, w hlWallet, deploy bool, n int) {
	t.Helper()
	root, err := chain.ParseTransactionBOC(em.Transactions[0].BOC)
	if err != nil {
		t.Fatal(err)
	}
	if !root.Success() || (deploy != (root.OrigStatus != chain.AccountActive)) || root.EndStatus != chain.AccountActive {
		t.Fatalf("wallet transaction: success %v, %s -> %s (deploy %v)", root.Success(), root.OrigStatus, root.EndStatus, deploy)
	}
	sender := em.Transactions[0]
	if w.ownTxs == 2 {
		if len(root.OutMsgs) != 1 || root.OutMsgs[0].Destination != chain.RawAddress(w.addr) {
			t.Fatalf("v3's first transaction sends %d messages; want 1 to itself", len(root.OutMsgs))
		}
		sender = em.Transactions[1]
	}
	tx, err := chain.ParseTransactionBOC(sender.BOC)
	if err != nil {
		t.Fatal(err)
	}
	if sender.Account != chain.RawAddress(w.addr) || !tx.Success() || len(tx.OutMsgs) != n {
		t.Fatalf("the wallet's sending transaction (%s): success %v, %d out messages; want %d", sender.Account, tx.Success(), len(tx.OutMsgs), n)
	}
	if len(em.Transactions) != w.ownTxs+n {
		t.Fatalf("%d transactions; want %d", len(em.Transactions), w.ownTxs+n)
	}
}
