package actions_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("VestingSendMessage", 1, 1)
}

// TestGoldenCore pins whole real traces of the core family.
func TestGoldenCore(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A signer's wallet (deployed by this very external) sends the
			// text comment "approve" to a multisig v2 order; the order
			// answers approve_accepted (0x82609bf6) and, the threshold
			// reached (approvals_num 2), sends execute (0x75097f5d) to the
			// multisig, which sends mint#642b7d07 to the USDT master; the
			// master mints 1000000 into a jetton wallet it deploys. Right:
			// MultisigApprove ok (signer = the wallet, order, exit code 0,
			// no signer index: a comment does not name it) over the
			// comment, the answer and the wallet's external; MultisigExecute
			// ok over the execute alone (query id, seqno 1, approvals 2,
			// signers hash and order as the message carries them);
			// JettonMint ok, ton_amount 50000000 as the request says, the
			// recipient from the wallet's indexed owner; the two
			// deployments.
			name: "core_multisig_approve_execute",
			file: "toncenter-traces/traces/4QljGlOz1j4I-Upxyt8Tsp8bRXoS05bP9gOnBCQQRj8=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.MultisigExecuteMsgOpCode) })
			},
			want: []string{"ContractDeploy:ok", "ContractDeploy:ok", "JettonMint:ok", "MultisigApprove:ok", "MultisigExecute:ok"},
		},
		{
			// The owner's wallet asks a vesting wallet to send (0xa7733acd,
			// send mode 3) 100 TON with the comment "Deposit"; the vesting
			// sends it and answers 0xf7733acd; the recipient answers with a
			// comment. Right: VestingSendMessage ok (owner, vesting,
			// destination and amount of the enclosed message, its BOC as
			// toncenter writes it) over the wallet's external, the request
			// and the answer; the two comments are TonTransfers.
			name: "core_vesting_send_message",
			file: "toncenter-traces/traces/03RZCW7mu3eJp-FWifVzKsRHafUrqQNu4E6YwZxvXJ0=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool {
					return tx.InMsg != nil && tx.InMsg.Opcode != nil && *tx.InMsg.Opcode == 0xa7733acd
				})
			},
			want: []string{"TonTransfer:ok", "TonTransfer:ok", "VestingSendMessage:ok"},
		},
		{
			// A wallet sends mint#642b7d07 to a minter whose request does
			// not follow the standard layout (two coins fields before the
			// address); the minter sends internal_transfer of 4853188593690
			// to a wallet it deploys, which returns the excess. Right:
			// JettonMint ok; ton_amount is what the standard layout reads
			// (toncenter's figure), wallet_value the 488014519 nanotons the
			// wallet got; the wallet's external transaction that sent the
			// request belongs to the mint (toncenter lists it too).
			name: "core_jetton_mint_request",
			file: "toncenter-traces/traces/uXA5LQpf_4c9NEOK6trJZuBMitcBLNYxK7_2OfzphtI=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.JettonMintMsgOpCode) })
			},
			want: []string{"ContractDeploy:ok", "JettonMint:ok"},
		},
	})
}

// ---- a small builder of synthetic traces ----

type flow struct {
	seq int
	lt  uint64
	txs []*chain.Transaction
}

func acct(i int) string { return fmt.Sprintf("0:%064X", i) }

func (f *flow) hash() chain.Hash {
	f.seq++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(f.seq))
	return sha256.Sum256(b[:])
}

func (f *flow) tx(account string, in *chain.Message) *chain.Transaction {
	f.lt += 10
	tx := &chain.Transaction{Hash: f.hash(), Account: account, Lt: f.lt, Utime: 1700000000,
		OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
		ComputeSuccess: true, ActionSuccess: true, InMsg: in}
	f.txs = append(f.txs, tx)
	return tx
}

// ext is a transaction of account on an external message with body.
func (f *flow) ext(account string, body *boc.Cell) *chain.Transaction {
	m := &chain.Message{Hash: f.hash(), Destination: account}
	setBody(m, body)
	return f.tx(account, m)
}

// tickTock is a transaction with no in-message.
func (f *flow) tickTock(account string) *chain.Transaction { return f.tx(account, nil) }

// send adds an out-message of from and returns it.
func (f *flow) send(from *chain.Transaction, to string, value uint64, body *boc.Cell, bounce bool) chain.Message {
	m := chain.Message{Hash: f.hash(), Source: from.Account, Destination: to, Value: value, Bounce: bounce,
		CreatedLt: from.Lt + uint64(len(from.OutMsgs)) + 1}
	setBody(&m, body)
	from.OutMsgs = append(from.OutMsgs, m)
	return m
}

// call sends a message from from and returns the receiver's transaction.
func (f *flow) call(from *chain.Transaction, to string, value uint64, body *boc.Cell, bounce bool) *chain.Transaction {
	m := f.send(from, to, value, body, bounce)
	return f.tx(to, &m)
}

// bounce makes tx abort and, for a bounceable message, bounce it back.
func (f *flow) abort(tx *chain.Transaction, exitCode int32) {
	tx.Aborted, tx.ComputeSuccess, tx.ComputeExitCode = true, false, exitCode
	if tx.InMsg.Bounce {
		tx.Bounced = true
		b := boc.NewCell()
		_ = b.WriteUint(0xffffffff, 32)
		m := f.send(tx, tx.InMsg.Source, tx.InMsg.Value/2, b, false)
		m.Bounced = true
		tx.OutMsgs[len(tx.OutMsgs)-1].Bounced = true
		f.tx(m.Destination, &m)
	}
}

func setBody(m *chain.Message, body *boc.Cell) {
	if body == nil {
		return
	}
	body.ResetCounters()
	if body.BitsAvailableForRead() >= 32 {
		op, _ := body.PickUint(32)
		v := uint32(op)
		m.Opcode = &v
	}
	b, err := body.ToBoc()
	if err != nil {
		panic(err)
	}
	m.Body = b
}

// classify assembles the flow and decodes the trace rooted at its first
// transaction.
func (f *flow) classify(t *testing.T) []chain.Action {
	t.Helper()
	for _, tr := range chain.NewAssembler().Add(f.txs) {
		if tr.ID == f.txs[0].Hash {
			return actions.Classify(tr, nil)
		}
	}
	t.Fatal("no trace rooted at the first transaction")
	return nil
}

// got is the decoded actions as "Type:status" plus their values by type.
type got struct {
	kinds  []string
	values map[string][]map[string]any
}

func decoded(t *testing.T, list []chain.Action) got {
	t.Helper()
	g := got{values: map[string][]map[string]any{}}
	for _, a := range list {
		g.kinds = append(g.kinds, a.Type+":"+a.Status)
		var v map[string]any
		if err := json.Unmarshal(a.Value, &v); err != nil {
			t.Fatal(err)
		}
		g.values[a.Type] = append(g.values[a.Type], v)
	}
	slices.Sort(g.kinds)
	return g
}

func (g got) expect(t *testing.T, kinds ...string) {
	t.Helper()
	slices.Sort(kinds)
	if !slices.Equal(g.kinds, kinds) {
		t.Fatalf("actions %v, want %v", g.kinds, kinds)
	}
}

// field checks one value field of the only action of a type.
func (g got) field(t *testing.T, typ, key string, want any) {
	t.Helper()
	vs := g.values[typ]
	if len(vs) != 1 {
		t.Fatalf("%d %s actions, want 1", len(vs), typ)
	}
	gotJSON, _ := json.Marshal(vs[0][key])
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("%s.%s = %s, want %s", typ, key, gotJSON, wantJSON)
	}
}

func cell(write func(c *boc.Cell)) *boc.Cell {
	c := boc.NewCell()
	write(c)
	return c
}

func opCell(op uint32, queryID uint64) *boc.Cell {
	return cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(op), 32)
		_ = c.WriteUint(queryID, 64)
	})
}

func coreComment(text string) *boc.Cell {
	return cell(func(c *boc.Cell) {
		_ = c.WriteUint(0, 32)
		_ = c.WriteBytes([]byte(text))
	})
}

func marshal(t *testing.T, v any) *boc.Cell {
	t.Helper()
	c := boc.NewCell()
	if err := tlb.Marshal(c, v); err != nil {
		t.Fatal(err)
	}
	return c
}

func coreAddr(a string) tlb.MsgAddress {
	id := ton.MustParseAccountID(a)
	return id.ToMsgAddress()
}

func coreCoins(v uint64) tlb.VarUInteger16 { return tlb.VarUInteger16(*new(big.Int).SetUint64(v)) }

// ---- status rules ----

// TestCoreTonTransferStatus: toncenter fails a value transfer only when
// the recipient aborted and the coins came back (bounceable), or, for a
// non-bounceable one, unless the recipient stayed uninit or could not buy
// gas.
func TestCoreTonTransferStatus(t *testing.T) {
	cases := []struct {
		name   string
		bounce bool
		setup  func(f *flow, tx *chain.Transaction)
		want   string
	}{
		{"accepted", true, func(*flow, *chain.Transaction) {}, "ok"},
		{"bounced", true, func(f *flow, tx *chain.Transaction) { f.abort(tx, 33) }, "failed"},
		{"non-bounceable, recipient failed", false, func(f *flow, tx *chain.Transaction) { f.abort(tx, 33) }, "failed"},
		{"non-bounceable to an empty account", false, func(f *flow, tx *chain.Transaction) {
			f.abort(tx, 0)
			tx.ComputeSkipped, tx.OrigStatus, tx.EndStatus = true, chain.AccountNonexist, chain.AccountUninit
		}, "ok"},
		{"non-bounceable, no gas", false, func(f *flow, tx *chain.Transaction) {
			f.abort(tx, 0)
			tx.ComputeSkipped = true
		}, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &flow{}
			w := f.ext(acct(1), nil)
			to := f.call(w, acct(2), 1_000_000_000, coreComment("hi"), tc.bounce)
			tc.setup(f, to)
			g := decoded(t, f.classify(t))
			g.expect(t, "TonTransfer:"+tc.want)
			g.field(t, "TonTransfer", "comment", "hi")
		})
	}
}

// TestCoreCallStatus: a call that aborted is failed, except one that
// carried nothing at all.
func TestCoreCallStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value uint64
		abort bool
		want  string
	}{
		{"ok", 5, false, "ok"},
		{"aborted with value", 5, true, "failed"},
		{"aborted, free", 0, true, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &flow{}
			w := f.ext(acct(1), nil)
			to := f.call(w, acct(2), tc.value, opCell(0x12345678, 1), true)
			if tc.abort {
				f.abort(to, 40)
			}
			g := decoded(t, f.classify(t))
			g.expect(t, "SmartContractExec:"+tc.want)
			g.field(t, "SmartContractExec", "opcode", "0x12345678")
		})
	}
}

// TestCoreExtraCurrency: a message carrying extra currencies is an
// ExtraCurrencyTransfer; a free call that aborted is failed when it carried
// extra currencies.
func TestCoreExtraCurrency(t *testing.T) {
	f := &flow{}
	w := f.ext(acct(1), nil)
	plain := f.call(w, acct(2), 7, coreComment("ec"), true)
	plain.InMsg.ExtraCurrencies = map[uint32]string{239: "1000"}
	callTx := f.call(w, acct(3), 0, opCell(0x0badcafe, 1), true)
	callTx.InMsg.ExtraCurrencies = map[uint32]string{100: "5", 7: "1"}
	f.abort(callTx, 40)
	g := decoded(t, f.classify(t))
	g.expect(t, "ExtraCurrencyTransfer:ok", "ExtraCurrencyTransfer:failed")
	for _, v := range g.values["ExtraCurrencyTransfer"] {
		switch v["recipient"] {
		case acct(2):
			if v["comment"] != "ec" || v["amount"] != "7" || v["opcode"] != nil || fmt.Sprint(v["extra_currencies"]) != "[map[amount:1000 id:239]]" {
				t.Errorf("plain transfer: %v", v)
			}
		case acct(3):
			if v["opcode"] != "0x0badcafe" || fmt.Sprint(v["extra_currencies"]) != "[map[amount:1 id:7] map[amount:5 id:100]]" {
				t.Errorf("call: %v", v)
			}
		}
	}
}

// TestCoreEncryptedComment: the encrypted bytes are kept, as toncenter
// keeps them in its comment.
func TestCoreEncryptedComment(t *testing.T) {
	f := &flow{}
	w := f.ext(acct(1), nil)
	f.call(w, acct(2), 1, cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(abi.EncryptedTextCommentMsgOpCode), 32)
		_ = c.WriteBytes([]byte{1, 2, 3})
	}), false)
	g := decoded(t, f.classify(t))
	g.expect(t, "TonTransfer:ok")
	g.field(t, "TonTransfer", "encrypted", true)
	g.field(t, "TonTransfer", "encrypted_comment", "AQID")
}

// TestCoreCommentBytes: a comment that is not UTF-8 shows its bytes as
// \xNN and loses NUL characters, as toncenter writes it.
func TestCoreCommentBytes(t *testing.T) {
	f := &flow{}
	w := f.ext(acct(1), nil)
	f.call(w, acct(2), 1, cell(func(c *boc.Cell) {
		_ = c.WriteUint(0, 32)
		_ = c.WriteBytes([]byte{'a', 0xff, 0, 'b'})
	}), false)
	g := decoded(t, f.classify(t))
	g.field(t, "TonTransfer", "comment", `a\xffb`)
}

// ---- Unknown and TickTock ----

func TestCoreUnknown(t *testing.T) {
	t.Run("external that sent nothing", func(t *testing.T) {
		f := &flow{}
		f.ext(acct(1), opCell(0x01020304, 0))
		g := decoded(t, f.classify(t))
		g.expect(t, "Unknown:ok")
		g.field(t, "Unknown", "account", acct(1))
	})
	t.Run("aborted", func(t *testing.T) {
		f := &flow{}
		root := f.ext(acct(1), opCell(0x01020304, 0))
		root.Aborted = true
		decoded(t, f.classify(t)).expect(t, "Unknown:failed")
	})
	t.Run("deploy only", func(t *testing.T) {
		f := &flow{}
		root := f.ext(acct(1), opCell(0x01020304, 0))
		root.OrigStatus = chain.AccountUninit
		decoded(t, f.classify(t)).expect(t, "ContractDeploy:ok")
	})
	t.Run("incomplete", func(t *testing.T) {
		f := &flow{}
		root := f.ext(acct(1), nil)
		f.send(root, acct(2), 1, opCell(0x01020304, 0), true) // its receiver is not at hand
		decoded(t, f.classify(t)).expect(t)
	})
}

func TestCoreTickTock(t *testing.T) {
	t.Run("with messages", func(t *testing.T) {
		f := &flow{}
		tt := f.tickTock("-1:" + fmt.Sprintf("%064X", 0x33))
		f.call(tt, acct(5), 10, opCell(0x4e73744b, 1), true)
		g := decoded(t, f.classify(t))
		g.expect(t, "TickTock:ok", "SmartContractExec:ok")
		g.field(t, "TickTock", "account", tt.Account)
	})
	t.Run("alone", func(t *testing.T) {
		f := &flow{}
		f.tickTock("-1:" + fmt.Sprintf("%064X", 0x33))
		decoded(t, f.classify(t)).expect(t)
	})
}

// TestCoreWalletIntentCall: a wallet asked to send a call it never sent
// (the action phase skipped it): a failed SmartContractExec, as toncenter
// reports the call it reads from the request.
func TestCoreWalletIntentCall(t *testing.T) {
	m, _, err := wallet.Message{Amount: 5_000_000, Address: ton.MustParseAccountID(acct(9)),
		Body: opCell(0x0ddba11, 3), Bounce: true}.ToInternal()
	if err != nil {
		t.Fatal(err)
	}
	body := cell(func(c *boc.Cell) {
		_ = c.WriteBytes(make([]byte, 64)) // signature
		_ = c.WriteUint(698983191, 32)     // subwallet
		_ = c.WriteUint(1800000000, 32)
		_ = c.WriteUint(4, 32) // seqno
		_ = c.WriteUint(0, 8)  // v4: plain send
		_ = c.WriteUint(3, 8)  // mode
		_ = c.AddRef(marshal(t, m))
	})
	f := &flow{}
	f.ext(acct(1), body)
	g := decoded(t, f.classify(t))
	g.expect(t, "SmartContractExec:failed")
	g.field(t, "SmartContractExec", "opcode", "0x00ddba11")
	g.field(t, "SmartContractExec", "contract", acct(9))
	g.field(t, "SmartContractExec", "amount", "5000000")
}

// ---- JettonMint ----

// standardMint is mint#642b7d07 (or #15) query_id to_address ton_amount
// master_msg:^internal_transfer.
func standardMint(t *testing.T, op uint32, to string, tonAmount, jettons uint64) *boc.Cell {
	master := cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(abi.JettonInternalTransferMsgOpCode), 32)
		_ = c.WriteUint(0, 64)
		_ = tlb.Marshal(c, coreCoins(jettons))
	})
	return cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(op), 32)
		_ = c.WriteUint(77, 64)
		_ = tlb.Marshal(c, coreAddr(to))
		_ = tlb.Marshal(c, coreCoins(tonAmount))
		_ = c.AddRef(master)
	})
}

func TestCoreJettonMintRequest(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		f := &flow{}
		w := f.ext(acct(1), nil)
		master := f.call(w, acct(2), 100_000_000, standardMint(t, 0x642b7d07, acct(3), 50_000_000, 1000), true)
		f.abort(master, 73)
		g := decoded(t, f.classify(t))
		g.expect(t, "JettonMint:failed")
		g.field(t, "JettonMint", "recipient", acct(3))
		g.field(t, "JettonMint", "jetton_master", acct(2))
		g.field(t, "JettonMint", "amount", "1000")
		g.field(t, "JettonMint", "ton_amount", "50000000")
		g.field(t, "JettonMint", "minter", acct(1))
	})
	t.Run("legacy op 0x15", func(t *testing.T) {
		f := &flow{}
		w := f.ext(acct(1), nil)
		master := f.call(w, acct(2), 100_000_000, standardMint(t, 0x15, acct(3), 40_000_000, 1000), true)
		it := cell(func(c *boc.Cell) {
			_ = c.WriteUint(uint64(abi.JettonInternalTransferMsgOpCode), 32)
			_ = c.WriteUint(0, 64)
			_ = tlb.Marshal(c, coreCoins(1000))
			_ = tlb.Marshal(c, coreAddr(acct(2)))
			_ = tlb.Marshal(c, coreAddr(acct(1)))
			_ = tlb.Marshal(c, coreCoins(0))
			_ = c.WriteBit(false)
		})
		f.call(master, acct(4), 39_000_000, it, true)
		g := decoded(t, f.classify(t))
		g.expect(t, "JettonMint:ok")
		g.field(t, "JettonMint", "ton_amount", "40000000")
		g.field(t, "JettonMint", "wallet_value", "39000000")
		g.field(t, "JettonMint", "recipient_wallet", acct(4))
		g.field(t, "JettonMint", "recipient", acct(3))
	})
}

// ---- multisig v2 ----

type testOrderInit struct {
	Op          uint32
	QueryID     uint64
	Threshold   uint8
	Signers     tlb.Ref[tlb.Hashmap[tlb.Uint8, tlb.MsgAddress]]
	Expiration  tlb.Uint48
	Order       tlb.Ref[boc.Cell]
	SignerIndex tlb.Maybe[tlb.Uint8]
}

func multisigOrderCell() *boc.Cell {
	return cell(func(c *boc.Cell) { _ = c.WriteUint(0xf1381e5b, 32) })
}

func newOrderBody(t *testing.T) *boc.Cell {
	return cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(abi.MultisigNewOrderMsgOpCode), 32)
		_ = c.WriteUint(9, 64)
		_ = tlb.Marshal(c, tlb.Uint256(*big.NewInt(3)))
		_ = c.WriteBit(true) // a signer
		_ = c.WriteUint(0, 8)
		_ = c.WriteUint(1800000000, 48)
		_ = c.AddRef(multisigOrderCell())
	})
}

// TestCoreMultisigCreateOrder: signer -> multisig new_order -> order init
// (approved on init, threshold 1) -> execute -> the order's message. The
// flow follows multisig-contract-v2's multisig.func and order.func.
func TestCoreMultisigCreateOrder(t *testing.T) {
	signer, other, ms, order, dest := acct(1), acct(2), acct(3), acct(4), acct(5)
	var signers tlb.Hashmap[tlb.Uint8, tlb.MsgAddress]
	signers.Put(0, coreAddr(signer))
	signers.Put(1, coreAddr(other))
	init := testOrderInit{Op: uint32(abi.MultisigOrderInitMsgOpCode), QueryID: 9, Threshold: 1,
		Expiration: 1800000000, SignerIndex: tlb.Maybe[tlb.Uint8]{Exists: true, Value: 0}}
	init.Signers.Value = signers
	init.Order.Value = *multisigOrderCell()
	execute := cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(abi.MultisigExecuteMsgOpCode), 32)
		_ = c.WriteUint(9, 64)
		_ = tlb.Marshal(c, tlb.Uint256(*big.NewInt(3)))
		_ = c.WriteUint(1800000000, 48)
		_ = c.WriteUint(1, 8)
		_ = c.WriteBytes(make([]byte, 32)) // signers hash
		_ = c.AddRef(multisigOrderCell())
	})

	t.Run("created and executed", func(t *testing.T) {
		f := &flow{}
		w := f.ext(signer, nil)
		m := f.call(w, ms, 200_000_000, newOrderBody(t), true)
		o := f.call(m, order, 190_000_000, marshal(t, init), true)
		o.OrigStatus = chain.AccountNonexist
		m2 := f.call(o, ms, 180_000_000, execute, false)
		f.call(m2, dest, 1, nil, false)
		g := decoded(t, f.classify(t))
		g.expect(t, "MultisigCreateOrder:ok", "MultisigExecute:ok", "TonTransfer:ok", "ContractDeploy:ok")
		for k, v := range map[string]any{"creator": signer, "multisig": ms, "order": order, "query_id": "9",
			"order_seqno": "3", "is_created_by_signer": true, "is_signed_by_creator": true, "creator_index": 0,
			"expiration_date": 1800000000, "threshold": 1, "signers": []string{signer, other}} {
			g.field(t, "MultisigCreateOrder", k, v)
		}
		g.field(t, "MultisigExecute", "approvals_num", 1)
		g.field(t, "MultisigExecute", "order", order)
		g.field(t, "MultisigExecute", "order_seqno", "3")
		g.field(t, "MultisigExecute", "signers", []string{signer, other})
	})
	t.Run("refused", func(t *testing.T) {
		f := &flow{}
		w := f.ext(signer, nil)
		m := f.call(w, ms, 200_000_000, newOrderBody(t), true)
		f.abort(m, 1007)
		g := decoded(t, f.classify(t))
		g.expect(t, "MultisigCreateOrder:failed")
		g.field(t, "MultisigCreateOrder", "multisig", ms)
	})
}

// TestCoreMultisigApprove: approve#a762230f answered with approve_accepted
// or approve_rejected (exit code), and a comment "approve" to something
// that does not answer (not an order).
func TestCoreMultisigApprove(t *testing.T) {
	approve := cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(abi.MultisigApproveMsgOpCode), 32)
		_ = c.WriteUint(5, 64)
		_ = c.WriteUint(2, 8)
	})
	t.Run("rejected", func(t *testing.T) {
		f := &flow{}
		w := f.ext(acct(1), nil)
		o := f.call(w, acct(2), 100_000_000, approve, true)
		f.call(o, acct(1), 90_000_000, cell(func(c *boc.Cell) {
			_ = c.WriteUint(uint64(abi.MultisigApproveRejectedMsgOpCode), 32)
			_ = c.WriteUint(5, 64)
			_ = c.WriteUint(107, 32)
		}), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "MultisigApprove:failed")
		g.field(t, "MultisigApprove", "exit_code", 107)
		g.field(t, "MultisigApprove", "signer_index", 2)
		g.field(t, "MultisigApprove", "signer", acct(1))
		g.field(t, "MultisigApprove", "order", acct(2))
	})
	t.Run("accepted", func(t *testing.T) {
		f := &flow{}
		w := f.ext(acct(1), nil)
		o := f.call(w, acct(2), 100_000_000, approve, true)
		f.call(o, acct(1), 90_000_000, opCell(uint32(abi.MultisigApproveAcceptedMsgOpCode), 5), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "MultisigApprove:ok")
		g.field(t, "MultisigApprove", "exit_code", 0)
	})
	t.Run("comment to a non-order", func(t *testing.T) {
		f := &flow{}
		w := f.ext(acct(1), nil)
		f.call(w, acct(2), 100_000_000, coreComment("approve"), true)
		decoded(t, f.classify(t)).expect(t, "TonTransfer:ok")
	})
}

// ---- vesting ----

func TestCoreVesting(t *testing.T) {
	owner, vesting, dest := acct(1), acct(2), acct(3)
	inner, _, err := wallet.Message{Amount: 7_000_000_000, Address: ton.MustParseAccountID(dest), Bounce: true}.ToInternal()
	if err != nil {
		t.Fatal(err)
	}
	send := cell(func(c *boc.Cell) {
		_ = c.WriteUint(0xa7733acd, 32)
		_ = c.WriteUint(4, 64)
		_ = c.WriteUint(3, 8)
		_ = c.AddRef(marshal(t, inner))
	})
	t.Run("send refused", func(t *testing.T) {
		f := &flow{}
		w := f.ext(owner, nil)
		f.call(w, vesting, 100_000_000, send, true) // not from the owner: accepted, no answer
		g := decoded(t, f.classify(t))
		g.expect(t, "VestingSendMessage:failed")
		g.field(t, "VestingSendMessage", "destination", dest)
		g.field(t, "VestingSendMessage", "amount", "7000000000")
		g.field(t, "VestingSendMessage", "send_mode", 3)
	})
	t.Run("add whitelist", func(t *testing.T) {
		second := cell(func(c *boc.Cell) { _ = tlb.Marshal(c, coreAddr(acct(8))) })
		body := cell(func(c *boc.Cell) {
			_ = c.WriteUint(0x7258a69b, 32)
			_ = c.WriteUint(6, 64)
			_ = tlb.Marshal(c, coreAddr(acct(7)))
			_ = c.AddRef(second)
		})
		f := &flow{}
		w := f.ext(owner, nil)
		v := f.call(w, vesting, 100_000_000, body, true)
		f.call(v, owner, 90_000_000, opCell(0xf258a69b, 6), true)
		g := decoded(t, f.classify(t))
		g.expect(t, "VestingAddWhitelist:ok")
		g.field(t, "VestingAddWhitelist", "accounts_added", []string{acct(7), acct(8)})
		g.field(t, "VestingAddWhitelist", "query_id", "6")
		g.field(t, "VestingAddWhitelist", "vesting", vesting)
	})
}

// ---- subscriptions (wallet v4 plugins) ----

func requestFunds(amount uint64) *boc.Cell {
	return cell(func(c *boc.Cell) {
		_ = c.WriteUint(uint64(abi.PaymentRequestMsgOpCode), 32)
		_ = c.WriteUint(11, 64)
		_ = tlb.Marshal(c, tlb.Grams(amount))
		_ = c.WriteBit(false) // no extra currencies
	})
}

func bareOp(op uint32) *boc.Cell { return cell(func(c *boc.Cell) { _ = c.WriteUint(uint64(op), 32) }) }

func TestCoreSubscribe(t *testing.T) {
	walletA, plugin, beneficiary := acct(1), acct(2), acct(3)
	t.Run("periodic payment", func(t *testing.T) {
		f := &flow{}
		p := f.ext(plugin, nil)
		w := f.call(p, walletA, 20_000_000, requestFunds(1_000_000_000), true)
		p2 := f.call(w, plugin, 1_000_000_000, opCell(uint32(abi.PaymentConfirmedMsgOpCode), 11), true)
		f.call(p2, beneficiary, 990_000_000, bareOp(uint32(abi.SubscriptionPaymentMsgOpCode)), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "Subscribe:ok")
		for k, v := range map[string]any{"subscriber": walletA, "subscription": plugin, "beneficiary": beneficiary,
			"amount": "1000000000", "query_id": "11"} {
			g.field(t, "Subscribe", k, v)
		}
	})
	t.Run("wallet cannot pay", func(t *testing.T) {
		f := &flow{}
		p := f.ext(plugin, nil)
		w := f.call(p, walletA, 20_000_000, requestFunds(1_000_000_000), true)
		f.abort(w, 80)
		decoded(t, f.classify(t)).expect(t, "Subscribe:failed")
	})
	t.Run("first payment with the plugin's deployment", func(t *testing.T) {
		f := &flow{}
		w := f.ext(walletA, nil)
		p := f.call(w, plugin, 1_000_000_000, opCell(uint32(abi.PaymentConfirmedMsgOpCode), 0), true)
		p.OrigStatus = chain.AccountNonexist
		f.call(p, beneficiary, 990_000_000, bareOp(uint32(abi.SubscriptionPaymentMsgOpCode)), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "Subscribe:ok", "ContractDeploy:ok")
		g.field(t, "Subscribe", "amount", "1000000000")
		g.field(t, "Subscribe", "beneficiary", beneficiary)
	})
}

func TestCoreUnsubscribe(t *testing.T) {
	walletA, plugin, beneficiary := acct(1), acct(2), acct(3)
	destruct := uint32(abi.WalletPluginDestructMsgOpCode)
	t.Run("by the wallet", func(t *testing.T) {
		f := &flow{}
		w := f.ext(walletA, nil)
		p := f.call(w, plugin, 50_000_000, opCell(destruct, 12), true)
		p.EndStatus = chain.AccountNonexist
		f.call(p, beneficiary, 60_000_000, bareOp(destruct), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "Unsubscribe:ok")
		for k, v := range map[string]any{"subscriber": walletA, "subscription": plugin, "beneficiary": beneficiary,
			"amount": "60000000", "query_id": "12", "initiated_by": nil} {
			g.field(t, "Unsubscribe", k, v)
		}
	})
	t.Run("by the beneficiary", func(t *testing.T) {
		f := &flow{}
		b := f.ext(beneficiary, nil)
		p := f.call(b, plugin, 50_000_000, opCell(destruct, 13), true)
		p.EndStatus = chain.AccountNonexist
		f.call(p, walletA, 5_000_000, opCell(destruct, 99), false)
		f.call(p, beneficiary, 40_000_000, bareOp(destruct), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "Unsubscribe:ok")
		g.field(t, "Unsubscribe", "subscriber", walletA)
		g.field(t, "Unsubscribe", "beneficiary", beneficiary)
		g.field(t, "Unsubscribe", "initiated_by", beneficiary)
	})
	t.Run("by the plugin after failed payments", func(t *testing.T) {
		f := &flow{}
		p := f.ext(plugin, nil)
		p.EndStatus = chain.AccountNonexist
		f.call(p, walletA, 5_000_000, opCell(destruct, 99), false)
		f.call(p, beneficiary, 40_000_000, bareOp(destruct), false)
		g := decoded(t, f.classify(t))
		g.expect(t, "Unsubscribe:ok")
		g.field(t, "Unsubscribe", "subscriber", walletA)
		g.field(t, "Unsubscribe", "beneficiary", beneficiary)
		g.field(t, "Unsubscribe", "initiated_by", plugin)
	})
}
