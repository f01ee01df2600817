package actions_test

import (
	"fmt"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"

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

// ---- status rules ----

// TestCoreTonTransferStatus: toncenter fails a value transfer only when
// the recipient aborted and the coins came back (bounceable), or, for a
// non-bounceable one, unless the recipient stayed uninit or could not buy
// gas.
func TestCoreTonTransferStatus(t *testing.T) {
	skipped := func(tx *chain.Transaction) { tx.ComputeSkipped = true }
	cases := []struct {
		name   string
		bounce bool
		setup  func(to *stx)
		want   string
	}{
		{"accepted", true, func(*stx) {}, "ok"},
		{"bounced", true, func(to *stx) { to.fails(33).bouncesBack(500_000_000, nil) }, "failed"},
		{"non-bounceable, recipient failed", false, func(to *stx) { to.fails(33) }, "failed"},
		{"non-bounceable to an empty account", false, func(to *stx) {
			to.fails(0).status(chain.AccountNonexist, chain.AccountUninit).edit(skipped)
		}, "ok"},
		{"non-bounceable, no gas", false, func(to *stx) { to.fails(0).edit(skipped) }, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			to := call(acct(2), 1_000_000_000, comment("hi")).bounceable(tc.bounce)
			tc.setup(to)
			rs := classify(t, ext(acct(1), to), nil)
			rs.expect(t, "TonTransfer:"+tc.want)
			rs.one(t, "TonTransfer").want(t, map[string]any{"comment": "hi"})
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
			to := call(acct(2), tc.value, opQuery(0x12345678, 1))
			if tc.abort {
				to.fails(40).bouncesBack(tc.value/2, nil)
			}
			rs := classify(t, ext(acct(1), to), nil)
			rs.expect(t, "SmartContractExec:"+tc.want)
			rs.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x12345678"})
		})
	}
}

// TestCoreExtraCurrency: a message carrying extra currencies is an
// ExtraCurrencyTransfer; a free call that aborted is failed when it carried
// extra currencies.
func TestCoreExtraCurrency(t *testing.T) {
	rs := classify(t, ext(acct(1),
		call(acct(2), 7, comment("ec")).extra(map[uint32]string{239: "1000"}),
		call(acct(3), 0, opQuery(0x0badcafe, 1)).extra(map[uint32]string{100: "5", 7: "1"}).fails(40).bouncesBack(0, nil)), nil)
	rs.expect(t, "ExtraCurrencyTransfer:ok", "ExtraCurrencyTransfer:failed")
	// Each has the transfer or call toncenter's classifier makes of the
	// message as its step (what a client without the newer type is shown),
	// with the same status and currencies.
	all := classifyAll(t, ext(acct(1),
		call(acct(2), 7, comment("ec")).extra(map[uint32]string{239: "1000"}),
		call(acct(3), 0, opQuery(0x0badcafe, 1)).extra(map[uint32]string{100: "5", 7: "1"}).fails(40).bouncesBack(0, nil)), nil)
	for i, want := range []string{"TonTransfer:ok", "SmartContractExec:failed"} {
		parent := all.top()[i]
		step := all.stepsOf(parent).one(t, want)
		if fmt.Sprint(step.v["extra_currencies"]) != fmt.Sprint(parent.v["extra_currencies"]) || step.v["amount"] != parent.v["amount"] {
			t.Errorf("%s step %v of %v", want, step.v, parent.v)
		}
	}
	for _, a := range rs {
		v := a.v
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
	rs := classify(t, ext(acct(1),
		call(acct(2), 1, cellOf(op(abi.EncryptedTextCommentMsgOpCode), raw([]byte{1, 2, 3}))).bounceable(false)), nil)
	rs.expect(t, "TonTransfer:ok")
	rs.one(t, "TonTransfer").want(t, map[string]any{"encrypted": true, "encrypted_comment": "AQID"})
}

// TestCoreCommentBytes: a comment that is not UTF-8 shows its bytes as
// \xNN and loses NUL characters, as toncenter writes it.
func TestCoreCommentBytes(t *testing.T) {
	rs := classify(t, ext(acct(1), call(acct(2), 1, cellOf(op(0), raw([]byte{'a', 0xff, 0, 'b'}))).bounceable(false)), nil)
	rs.one(t, "TonTransfer").want(t, map[string]any{"comment": `a\xffb`})
}

// ---- Unknown and TickTock ----

func TestCoreUnknown(t *testing.T) {
	request := opQuery(0x01020304, 0)
	t.Run("external that sent nothing", func(t *testing.T) {
		rs := classify(t, ext(acct(1)).withBody(request), nil)
		rs.expect(t, "Unknown:ok")
		rs.one(t, "Unknown").want(t, map[string]any{"account": acct(1)})
	})
	t.Run("aborted", func(t *testing.T) {
		classify(t, ext(acct(1)).withBody(request).fails(0), nil).expect(t, "Unknown:failed")
	})
	t.Run("deploy only", func(t *testing.T) {
		root := ext(acct(1)).withBody(request).status(chain.AccountUninit, chain.AccountActive)
		classify(t, root, nil).expect(t, "ContractDeploy:ok")
	})
	t.Run("incomplete", func(t *testing.T) {
		classify(t, ext(acct(1)).sendsUnseen(acct(2), 1, request), nil).expect(t)
	})
}

func TestCoreTickTock(t *testing.T) {
	config := "-1:" + fmt.Sprintf("%064X", 0x33)
	t.Run("with messages", func(t *testing.T) {
		rs := classify(t, tickTock(config, call(acct(5), 10, opQuery(0x4e73744b, 1))), nil)
		rs.expect(t, "TickTock:ok", "SmartContractExec:ok")
		rs.one(t, "TickTock").want(t, map[string]any{"account": config})
	})
	t.Run("alone", func(t *testing.T) {
		classify(t, tickTock(config), nil).expect(t)
	})
}

// TestCoreWalletIntentCall: a wallet asked to send a call it never sent
// (the action phase skipped it): a failed SmartContractExec, as toncenter
// reports the call it reads from the request.
func TestCoreWalletIntentCall(t *testing.T) {
	m, _, err := wallet.Message{Amount: 5_000_000, Address: ton.MustParseAccountID(acct(9)),
		Body: opQuery(0x0ddba11, 3), Bounce: true}.ToInternal()
	if err != nil {
		t.Fatal(err)
	}
	body := cellOf(
		raw(make([]byte, 64)), // signature
		u(698983191, 32),      // subwallet
		u(1800000000, 32),
		u(4, 32), // seqno
		u(0, 8),  // v4: plain send
		u(3, 8),  // mode
		ref(cellOf(tlbOf(m))))
	rs := classify(t, ext(acct(1)).withBody(body), nil)
	rs.expect(t, "SmartContractExec:failed")
	rs.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x00ddba11", "contract": acct(9), "amount": "5000000"})
}

// ---- JettonMint ----

// standardMint is mint#642b7d07 (or #15) query_id to_address ton_amount
// master_msg:^internal_transfer.
func standardMint(code uint32, to string, tonAmount, jettons uint64) *boc.Cell {
	master := cellOf(op(abi.JettonInternalTransferMsgOpCode), u64(0), coins(jettons))
	return cellOf(op(code), u64(77), addr(to), coins(tonAmount), ref(master))
}

func TestCoreJettonMintRequest(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		rs := classify(t, ext(acct(1),
			call(acct(2), 100_000_000, standardMint(0x642b7d07, acct(3), 50_000_000, 1000)).fails(73).bouncesBack(50_000_000, nil)), nil)
		rs.expect(t, "JettonMint:failed")
		rs.one(t, "JettonMint").want(t, map[string]any{"recipient": acct(3), "jetton_master": acct(2), "amount": "1000",
			"ton_amount": "50000000", "minter": acct(1)})
	})
	t.Run("legacy op 0x15", func(t *testing.T) {
		rs := classify(t, ext(acct(1),
			call(acct(2), 100_000_000, standardMint(0x15, acct(3), 40_000_000, 1000),
				call(acct(4), 39_000_000, jetton{amount: 1000, from: acct(2), response: acct(1)}.internal()))), nil)
		rs.expect(t, "JettonMint:ok")
		rs.one(t, "JettonMint").want(t, map[string]any{"ton_amount": "40000000", "wallet_value": "39000000",
			"recipient_wallet": acct(4), "recipient": acct(3)})
	})
	t.Run("another minter's call is its own", func(t *testing.T) {
		// A master minting on a message of its own protocol (op 0x11111111):
		// the mint is the internal_transfer and its wallet; the incoming
		// message stays a call, as toncenter leaves it.
		rs := classify(t, ext(acct(1),
			call(acct(2), 100_000_000, cellOf(op(0x11111111), u64(1)),
				call(acct(4), 39_000_000, jetton{amount: 1000, from: acct(2), response: acct(1)}.internal()))), nil)
		rs.expect(t, "SmartContractExec:ok", "JettonMint:ok")
		rs.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x11111111", "contract": acct(2)})
		rs.one(t, "JettonMint").wantTxs(t, 1)
	})
}

// ---- JettonTransfer ----

// TestCoreJettonTransferCredited: the amount is what the internal_transfer
// carried to the recipient's wallet (toncenter's amount); a wallet that
// takes a fee sends less than the request named, which requested_amount
// keeps.
func TestCoreJettonTransferCredited(t *testing.T) {
	owner, wallet, rwallet, recipient := acct(1), acct(2), acct(3), acct(4)
	for _, credited := range []uint64{1000, 950} {
		asked := jetton{query: 5, amount: 1000, to: recipient, response: owner, forward: 1}
		sent := jetton{query: 5, amount: credited, from: owner, response: owner, forward: 1}
		rs := classify(t, ext(owner,
			call(wallet, 100_000_000, asked.transfer(),
				call(rwallet, 90_000_000, sent.internal(),
					call(recipient, 1, sent.notify())))), nil)
		a := rs.one(t, "JettonTransfer:ok")
		want := map[string]any{"amount": fmt.Sprint(credited), "recipient_wallet": rwallet, "forward_amount": "1"}
		if credited != 1000 {
			want["requested_amount"] = "1000"
		}
		a.want(t, want)
		if credited == 1000 && a.v["requested_amount"] != nil {
			t.Errorf("requested_amount %v beside an equal amount", a.v["requested_amount"])
		}
	}
}

// TestCoreJettonTransferRefused: a request the sender's wallet refused
// (not its owner, too little balance) moved nothing; toncenter reports the
// failed call, with the TON it carried, and no jetton transfer.
func TestCoreJettonTransferRefused(t *testing.T) {
	owner, wallet := acct(1), acct(2)
	j := jetton{query: 5, amount: 1000, to: acct(4), response: owner}
	rs := classify(t, ext(owner, call(wallet, 100_000_000, j.transfer()).fails(706).bouncesBack(90_000_000, nil)), nil)
	rs.expect(t, "SmartContractExec:failed")
	rs.one(t, "SmartContractExec").want(t, map[string]any{"opcode": "0x0f8a7ea5", "contract": wallet, "amount": "100000000"})
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

func multisigOrderCell() *boc.Cell { return cellOf(op(0xf1381e5b)) }

func newOrderBody() *boc.Cell {
	return cellOf(op(abi.MultisigNewOrderMsgOpCode), u64(9), u(3, 256),
		bit(true), u(0, 8), // a signer, its index
		u(1800000000, 48), ref(multisigOrderCell()))
}

// TestCoreMultisigCreateOrder: signer -> multisig new_order -> order init
// (approved on init, threshold 1) -> execute -> the order's message. The
// flow follows multisig-contract-v2's multisig.func and order.func.
func TestCoreMultisigCreateOrder(t *testing.T) {
	signer, other, ms, order, dest := acct(1), acct(2), acct(3), acct(4), acct(5)
	var signers tlb.Hashmap[tlb.Uint8, tlb.MsgAddress]
	signers.Put(0, msgAddr(signer))
	signers.Put(1, msgAddr(other))
	init := testOrderInit{Op: uint32(abi.MultisigOrderInitMsgOpCode), QueryID: 9, Threshold: 1,
		Expiration: 1800000000, SignerIndex: tlb.Maybe[tlb.Uint8]{Exists: true, Value: 0}}
	init.Signers.Value = signers
	init.Order.Value = *multisigOrderCell()
	execute := cellOf(op(abi.MultisigExecuteMsgOpCode), u64(9), u(3, 256), u(1800000000, 48), u(1, 8),
		raw(make([]byte, 32)), // signers hash
		ref(multisigOrderCell()))

	t.Run("created and executed", func(t *testing.T) {
		rs := classify(t, ext(signer,
			call(ms, 200_000_000, newOrderBody(),
				call(order, 190_000_000, cellOf(tlbOf(init)),
					call(ms, 180_000_000, execute,
						call(dest, 1, nil).bounceable(false)).bounceable(false)).status(chain.AccountNonexist, chain.AccountActive))), nil)
		rs.expect(t, "MultisigCreateOrder:ok", "MultisigExecute:ok", "TonTransfer:ok", "ContractDeploy:ok")
		rs.one(t, "MultisigCreateOrder").want(t, map[string]any{"creator": signer, "multisig": ms, "order": order, "query_id": "9",
			"order_seqno": "3", "is_created_by_signer": true, "is_signed_by_creator": true, "creator_index": 0,
			"expiration_date": 1800000000, "threshold": 1, "signers": []string{signer, other}})
		rs.one(t, "MultisigExecute").want(t, map[string]any{"approvals_num": 1, "order": order, "order_seqno": "3",
			"signers": []string{signer, other}})
	})
	t.Run("refused", func(t *testing.T) {
		rs := classify(t, ext(signer, call(ms, 200_000_000, newOrderBody()).fails(1007).bouncesBack(100_000_000, nil)), nil)
		rs.expect(t, "MultisigCreateOrder:failed")
		rs.one(t, "MultisigCreateOrder").want(t, map[string]any{"multisig": ms})
	})
}

// TestCoreMultisigApprove: approve#a762230f answered with approve_accepted
// or approve_rejected (exit code), and a comment "approve" to something
// that does not answer (not an order).
func TestCoreMultisigApprove(t *testing.T) {
	approve := cellOf(op(abi.MultisigApproveMsgOpCode), u64(5), u(2, 8))
	t.Run("rejected", func(t *testing.T) {
		rs := classify(t, ext(acct(1),
			call(acct(2), 100_000_000, approve,
				call(acct(1), 90_000_000, cellOf(op(abi.MultisigApproveRejectedMsgOpCode), u64(5), u(107, 32))).bounceable(false))), nil)
		rs.expect(t, "MultisigApprove:failed")
		rs.one(t, "MultisigApprove").want(t, map[string]any{"exit_code": 107, "signer_index": 2, "signer": acct(1), "order": acct(2)})
	})
	t.Run("accepted", func(t *testing.T) {
		rs := classify(t, ext(acct(1),
			call(acct(2), 100_000_000, approve,
				call(acct(1), 90_000_000, opQuery(abi.MultisigApproveAcceptedMsgOpCode, 5)).bounceable(false))), nil)
		rs.expect(t, "MultisigApprove:ok")
		rs.one(t, "MultisigApprove").want(t, map[string]any{"exit_code": 0})
	})
	t.Run("signers of an indexed order", func(t *testing.T) {
		// The order's init is not in this trace; what the indexer knows of
		// the order names its signers, as toncenter lists them.
		known := chain.KnownContracts{acct(2): {Kind: chain.KindMultisigOrder, Signers: []string{acct(1), acct(9)}}}
		rs := classify(t, ext(acct(1),
			call(acct(2), 100_000_000, approve,
				call(acct(1), 90_000_000, opQuery(abi.MultisigApproveAcceptedMsgOpCode, 5)).bounceable(false))), known)
		rs.one(t, "MultisigApprove:ok").want(t, map[string]any{"signers": []string{acct(1), acct(9)}})
	})
	t.Run("comment to a non-order", func(t *testing.T) {
		classify(t, ext(acct(1), call(acct(2), 100_000_000, comment("approve"))), nil).expect(t, "TonTransfer:ok")
	})
}

// ---- vesting ----

func TestCoreVesting(t *testing.T) {
	owner, vesting, dest := acct(1), acct(2), acct(3)
	inner, _, err := wallet.Message{Amount: 7_000_000_000, Address: ton.MustParseAccountID(dest), Bounce: true}.ToInternal()
	if err != nil {
		t.Fatal(err)
	}
	send := cellOf(op(0xa7733acd), u64(4), u(3, 8), ref(cellOf(tlbOf(inner))))
	t.Run("send refused", func(t *testing.T) {
		// Not from the owner: accepted, no answer.
		rs := classify(t, ext(owner, call(vesting, 100_000_000, send)), nil)
		rs.expect(t, "VestingSendMessage:failed")
		rs.one(t, "VestingSendMessage").want(t, map[string]any{"destination": dest, "amount": "7000000000", "send_mode": 3})
	})
	t.Run("add whitelist", func(t *testing.T) {
		body := cellOf(op(0x7258a69b), u64(6), addr(acct(7)), ref(cellOf(addr(acct(8)))))
		rs := classify(t, ext(owner, call(vesting, 100_000_000, body, call(owner, 90_000_000, opQuery(0xf258a69b, 6)))), nil)
		rs.expect(t, "VestingAddWhitelist:ok")
		rs.one(t, "VestingAddWhitelist").want(t, map[string]any{"accounts_added": []string{acct(7), acct(8)}, "query_id": "6",
			"vesting": vesting})
	})
}

// ---- subscriptions (wallet v4 plugins) ----

func requestFunds(amount uint64) *boc.Cell {
	return cellOf(op(abi.PaymentRequestMsgOpCode), u64(11), coins(amount),
		bit(false)) // no extra currencies
}

func TestCoreSubscribe(t *testing.T) {
	walletA, plugin, beneficiary := acct(1), acct(2), acct(3)
	payment := cellOf(op(abi.SubscriptionPaymentMsgOpCode))
	t.Run("periodic payment", func(t *testing.T) {
		rs := classify(t, ext(plugin,
			call(walletA, 20_000_000, requestFunds(1_000_000_000),
				call(plugin, 1_000_000_000, opQuery(abi.PaymentConfirmedMsgOpCode, 11),
					call(beneficiary, 990_000_000, payment).bounceable(false)))), nil)
		rs.expect(t, "Subscribe:ok")
		rs.one(t, "Subscribe").want(t, map[string]any{"subscriber": walletA, "subscription": plugin, "beneficiary": beneficiary,
			"amount": "1000000000", "query_id": "11"})
	})
	t.Run("wallet cannot pay", func(t *testing.T) {
		rs := classify(t, ext(plugin, call(walletA, 20_000_000, requestFunds(1_000_000_000)).fails(80).bouncesBack(10_000_000, nil)), nil)
		rs.expect(t, "Subscribe:failed")
	})
	t.Run("first payment with the plugin's deployment", func(t *testing.T) {
		rs := classify(t, ext(walletA,
			call(plugin, 1_000_000_000, opQuery(abi.PaymentConfirmedMsgOpCode, 0),
				call(beneficiary, 990_000_000, payment).bounceable(false)).status(chain.AccountNonexist, chain.AccountActive)), nil)
		rs.expect(t, "Subscribe:ok", "ContractDeploy:ok")
		rs.one(t, "Subscribe").want(t, map[string]any{"amount": "1000000000", "beneficiary": beneficiary})
	})
}

func TestCoreUnsubscribe(t *testing.T) {
	walletA, plugin, beneficiary := acct(1), acct(2), acct(3)
	destruct := uint32(abi.WalletPluginDestructMsgOpCode)
	// The plugin's balance to the beneficiary, and the notice to the wallet.
	payout := func(value uint64) *stx { return call(beneficiary, value, cellOf(op(destruct))).bounceable(false) }
	notice := call(walletA, 5_000_000, opQuery(destruct, 99)).bounceable(false)
	t.Run("by the wallet", func(t *testing.T) {
		rs := classify(t, ext(walletA,
			call(plugin, 50_000_000, opQuery(destruct, 12), payout(60_000_000)).status(chain.AccountActive, chain.AccountNonexist)), nil)
		rs.expect(t, "Unsubscribe:ok")
		rs.one(t, "Unsubscribe").want(t, map[string]any{"subscriber": walletA, "subscription": plugin, "beneficiary": beneficiary,
			"amount": "60000000", "query_id": "12", "initiated_by": nil})
	})
	t.Run("by the beneficiary", func(t *testing.T) {
		rs := classify(t, ext(beneficiary,
			call(plugin, 50_000_000, opQuery(destruct, 13), notice, payout(40_000_000)).status(chain.AccountActive, chain.AccountNonexist)), nil)
		rs.expect(t, "Unsubscribe:ok")
		rs.one(t, "Unsubscribe").want(t, map[string]any{"subscriber": walletA, "beneficiary": beneficiary, "initiated_by": beneficiary})
	})
	t.Run("by the plugin after failed payments", func(t *testing.T) {
		rs := classify(t, ext(plugin, notice, payout(40_000_000)).status(chain.AccountActive, chain.AccountNonexist), nil)
		rs.expect(t, "Unsubscribe:ok")
		rs.one(t, "Unsubscribe").want(t, map[string]any{"subscriber": walletA, "beneficiary": beneficiary, "initiated_by": plugin})
	})
}

// TestCoreJettonRecipientIsWalletOwner: the jettons belong to the owner of
// the wallet that took them. When the indexer knows that wallet's owner and
// it is not the request's destination (a jetton whose wallets derive the
// receiving wallet otherwise), the owner is the recipient, as toncenter
// reports it; unknown, the request's destination stands.
func TestCoreJettonRecipientIsWalletOwner(t *testing.T) {
	sender, asked, owner := acct(1), acct(2), acct(3)
	fromWallet, toWallet := acct(10), acct(11)
	j := jetton{query: 7, amount: 500, to: asked, from: sender, response: sender, forward: 1}
	trace := func() *stx { return ext(sender, jettonLeg(j, fromWallet, toWallet)) }

	rs := classify(t, trace(), nil)
	rs.one(t, "JettonTransfer:ok").want(t, map[string]any{"recipient": asked, "recipient_wallet": toWallet})

	known := chain.KnownContracts{toWallet: {Kind: chain.KindJettonWallet, Jetton: acct(20), Owner: owner}}
	rs = classify(t, trace(), known)
	rs.one(t, "JettonTransfer:ok").want(t, map[string]any{"recipient": owner, "recipient_wallet": toWallet, "jetton_master": acct(20)})
}
