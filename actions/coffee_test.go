package actions_test

import (
	"encoding/json"
	"math/big"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

func init() {
	setFloor("CoffeeCreatePool", 1, 1)
	setFloor("CoffeeCreatePoolCreator", 1, 1)
	setFloor("CoffeeCreateVault", 1, 1)
	setFloor("CoffeeMevProtectHoldFunds", 1, 1)
	setFloor("CoffeeStakingDeposit", 2, 2)
	setFloor("CoffeeStakingWithdraw", 1, 1)
	setFloor("CoffeeStakingClaimRewards", 1, 1)
}

// coffeeTrace is a toncenter fixture trace by id.
func coffeeTrace(id string) string { return "toncenter-traces/traces/" + id + ".json" }

func TestGoldenCoffee(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A migration NFT item creates a TON/jetton pool: it sends TON to
			// the native vault (create_pool 0xc0ffee02) and jettons to the
			// jetton vault (forward payload create_pool 0xc0ffee11); each
			// vault sends create_pool_creator_request (0xc0ffee23) to the
			// factory, which deploys (0xc0ffee22) the same pool creator. The
			// jetton branch arrives second: the creator asks the factory for
			// the pool (0xc0ffee25), the pool is deployed, logs its success
			// event and mints 633671618650 LP to the recipient 3E4650..
			// Right: the TON branch is a CoffeeCreatePoolCreator (amount
			// 171205371318, no provided asset: TON), the jetton branch a
			// CoffeeCreatePool with asset_1 = the jetton 67D4C6.. sent
			// (2345368713954) and asset_2 TON (171205371318, the request's
			// amounts swapped since the jetton is the pool's second asset);
			// the NFT collection and item calls above stay SmartContractExec;
			// the jetton vault wallet, creator, pool and LP wallet deploys are
			// ContractDeploy.
			name: "coffee_create_pool",
			file: coffeeTrace("3uecEX5TvThuugPaMO4MqlOxGGHRQpNRErwAP7fL7J4="),
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeCreatePoolRequestMsgOpCode) })
			},
			want: []string{"CoffeeCreatePool:ok", "CoffeeCreatePoolCreator:ok", "ContractDeploy:ok", "ContractDeploy:ok",
				"ContractDeploy:ok", "ContractDeploy:ok", "SmartContractExec:ok", "SmartContractExec:ok"},
		},
		{
			// A wallet sends 15.59 TON to the MEV protector with
			// mev_protect_hold_funds (0x6bc79e7e) and, in the same
			// transaction, 0.045 TON service_fee (0xc0ffeea0). Right: one
			// CoffeeMevProtectHoldFunds of 15590000000 holding the wallet
			// transaction, the hold and the fee (service_fee 45000000).
			name: "coffee_mev_hold_funds",
			file: coffeeTrace("11WhhXiPhXuLm5C85XGw4WYY8BDn6Xnee-nPq-W0tkA="),
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeMevProtectHoldFundsMsgOpCode) })
			},
			want: []string{"CoffeeMevProtectHoldFunds:ok"},
		},
		{
			// A wallet sends 54999439792 jettons A5D12E.. to the staking vault
			// 29F905.. with staking_lock (period 1); the vault sends
			// staking_deposit (0xf9471134) to the master 8CB6B9.., which
			// deploys position NFT #1317 BC36AD.. (staking_initialize
			// 0xbe5a7595, 5499943979200 points, unlocked at 1767835782).
			// Right: one CoffeeStakingDeposit over all 7 transactions (the
			// excess included), plus the NFT's ContractDeploy.
			name: "coffee_staking_deposit",
			file: coffeeTrace("K_PlZB5RlxrIdSTiEdvKqazSqLUWzQ8PB4NzDTxAHk8="),
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeStakingDepositMsgOpCode) })
			},
			want: []string{"CoffeeStakingDeposit:ok", "ContractDeploy:ok"},
		},
		{
			// The owner D63BBD.. asks position NFT #451 BB6701.. to withdraw
			// (0xcb03bfaf); the NFT tells the master 8CB6B9.. (owner, 451,
			// 5945779396400 points, the vault wallet and 59457793964), the
			// master tells the vault 29F905.., whose wallet 7C7EDF.. sends
			// 59457793964 jettons to the owner. Right: one
			// CoffeeStakingWithdraw with those facts over 7 transactions.
			name: "coffee_staking_withdraw",
			file: coffeeTrace("T-oXSZb9qU9H5js9gaOZIJ8RicZmZ8l9oV4s_f9pV6g="),
			pick: func(tr *chain.Trace) bool { return true },
			want: []string{"CoffeeStakingWithdraw:ok"},
		},
	})
}

// coffeeClassify classifies a fixture trace after edit changed it.
func coffeeClassify(t *testing.T, id string, edit func(tr *chain.ToncenterTrace)) []chain.Action {
	t.Helper()
	tr, err := chain.ParseToncenterFile(filepath.Join(testenv.FixturesDir(t), coffeeTrace(id)))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(tr)
	}
	var out []chain.Action
	for _, trace := range chain.NewAssembler().Add(tr.Transactions) {
		out = append(out, actions.Classify(trace, tr.Known)...)
	}
	return out
}

// only returns the one action of the type, failing otherwise.
func only(t *testing.T, list []chain.Action, typ string) (chain.Action, map[string]any) {
	t.Helper()
	var found []chain.Action
	for _, a := range list {
		if a.Type == typ {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s actions, want 1", len(found), typ)
	}
	var v map[string]any
	if err := json.Unmarshal(found[0].Value, &v); err != nil {
		t.Fatal(err)
	}
	return found[0], v
}

// TestCoffeeFactsWithoutIndexer: without the indexer's interfaces, the
// facts it gave come from the messages: the jetton of a pool being created
// is the pair's only jetton, and the staking position's index is in the
// item's initial data.
func TestCoffeeFactsWithoutIndexer(t *testing.T) {
	noKnown := func(tr *chain.ToncenterTrace) { tr.Known = nil }
	_, v := only(t, coffeeClassify(t, "3uecEX5TvThuugPaMO4MqlOxGGHRQpNRErwAP7fL7J4=", noKnown), "CoffeeCreatePool")
	if v["asset_1"] != "0:67D4C65E197C2FAB68ADBADF4116E82D29200327152B6C8055F265009E8D2A7F" || v["amount_1"] != "2345368713954" ||
		v["asset_2"] != nil || v["amount_2"] != "171205371318" || v["lp_amount"] != "633671618650" {
		t.Errorf("create pool without interfaces: %v", v)
	}
	_, v = only(t, coffeeClassify(t, "K_PlZB5RlxrIdSTiEdvKqazSqLUWzQ8PB4NzDTxAHk8=", noKnown), "CoffeeStakingDeposit")
	if v["nft_index"] != "1317" || v["nft"] != "0:BC36AD7C77A596ABF16AB8BCE9D8B682D40B6EE1873D74114E9C151E63E435AC" {
		t.Errorf("staking deposit without interfaces: %v", v)
	}
}

// TestCoffeeStatus: a step that carries the action's meaning failing makes
// it failed; the real traces, with one transaction's outcome changed.
func TestCoffeeStatus(t *testing.T) {
	// failAt fails the transactions whose in-message has the op (and, when
	// from is set, comes from that account).
	failAt := func(op abi.MsgOpCode, from string) func(tr *chain.ToncenterTrace) {
		return func(tr *chain.ToncenterTrace) {
			for _, tx := range tr.Transactions {
				if m := tx.InMsg; m != nil && m.Opcode != nil && *m.Opcode == uint32(op) && (from == "" || m.Source == from) {
					tx.ComputeSuccess, tx.ComputeExitCode = false, 500
				}
			}
		}
	}
	cases := []struct {
		name, id, typ string
		op            abi.MsgOpCode
		from          string
	}{
		{"position not minted", "K_PlZB5RlxrIdSTiEdvKqazSqLUWzQ8PB4NzDTxAHk8=", "CoffeeStakingDeposit", abi.CoffeeStakingInitMsgOpCode, ""},
		{"vault did not pay", "T-oXSZb9qU9H5js9gaOZIJ8RicZmZ8l9oV4s_f9pV6g=", "CoffeeStakingWithdraw", abi.JettonInternalTransferMsgOpCode, ""},
		{"master failed", "0HIS6vA7Hk0SdwNB5P2i0zovRDZLpWyQBzpBsJAX1sg=", "CoffeeStakingClaimRewards", abi.CoffeeStakingClaimRewardsMsgOpCode, ""},
		{"protector rejected", "11WhhXiPhXuLm5C85XGw4WYY8BDn6Xnee-nPq-W0tkA=", "CoffeeMevProtectHoldFunds", abi.CoffeeMevProtectHoldFundsMsgOpCode, ""},
		{"vault not deployed", "_7TiwVoy-w5U7lbbF5_RD0yGAauPKFCjMcuYRX4eeoU=", "CoffeeCreateVault", abi.CoffeeDeployMsgOpCode, ""},
		// The new pool's LP mint (from the pool 8FE5F7..) failing.
		{"no LP minted", "3uecEX5TvThuugPaMO4MqlOxGGHRQpNRErwAP7fL7J4=", "CoffeeCreatePool", abi.JettonInternalTransferMsgOpCode,
			"0:8FE5F74378278AB42C80772AF2551A0ECE02C599DACB115BA1C1F2F9678521ED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := only(t, coffeeClassify(t, tc.id, nil), tc.typ)
			if a.Status != chain.StatusOK {
				t.Fatalf("unchanged trace: %s", a.Status)
			}
			a, _ = only(t, coffeeClassify(t, tc.id, failAt(tc.op, tc.from)), tc.typ)
			if a.Status != chain.StatusFailed {
				t.Errorf("status %s, want failed", a.Status)
			}
		})
	}
}

// Synthetic traces, for mev_protect_failed_swap (no labelled trace holds
// one). The layouts are tongo's abi (schemas/swap_coffee.xml) and toncenter's
// messages/coffee.py: mev_protect_failed_swap#ee51ce51 query_id:uint64
// recipient:MsgAddressInt, at the protector as a message with TON, or as the
// forward payload of a jetton transfer to it.

const (
	synWallet    = "0:1111111111111111111111111111111111111111111111111111111111111111"
	synDex       = "0:2222222222222222222222222222222222222222222222222222222222222222"
	synProtector = "0:3333333333333333333333333333333333333333333333333333333333333333"
	synRecipient = "0:4444444444444444444444444444444444444444444444444444444444444444"
	synDexWallet = "0:5555555555555555555555555555555555555555555555555555555555555555"
	synMevWallet = "0:6666666666666666666666666666666666666666666666666666666666666666"
	synMaster    = "0:7777777777777777777777777777777777777777777777777777777777777777"
)

type synTx struct {
	account, source string
	value           uint64
	op              *uint32
	body            []byte
	fail            bool
	children        []*synTx
}

func msgAddr(raw string) tlb.MsgAddress { id := ton.MustParseAccountID(raw); return id.ToMsgAddress() }

func cellBOC(t *testing.T, v any) []byte {
	t.Helper()
	c := boc.NewCell()
	if err := tlb.Marshal(c, v); err != nil {
		t.Fatal(err)
	}
	b, err := c.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bigInt(v int64) *big.Int { return big.NewInt(v) }

func opPtr(op abi.MsgOpCode) *uint32 { o := uint32(op); return &o }

// synTrace builds a trace from the tree: the root consumes an external
// message; hashes and lts follow the order of the walk.
func synTrace(root *synTx) *chain.Trace {
	var lt uint64
	var build func(s *synTx, ext bool) *chain.TraceNode
	build = func(s *synTx, ext bool) *chain.TraceNode {
		lt++
		var h chain.Hash
		h[0], h[31] = byte(lt), 0xc0
		m := &chain.Message{Hash: h, Source: s.source, Destination: s.account, Value: s.value, Opcode: s.op, Body: s.body}
		if ext {
			m.Source, m.Value = "", 0
		}
		tx := &chain.Transaction{Hash: h, Account: s.account, Lt: lt * 1000, OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
			ComputeSuccess: !s.fail, ActionSuccess: !s.fail, InMsg: m}
		if s.fail {
			tx.ComputeExitCode = 100
		}
		n := &chain.TraceNode{Tx: tx}
		for _, c := range s.children {
			n.Children = append(n.Children, build(c, false))
		}
		return n
	}
	r := build(root, true)
	return &chain.Trace{ID: r.Tx.Hash, Root: r, StartLt: r.Tx.Lt, EndLt: lt * 1000, Complete: true, Transactions: int(lt)}
}

func failedSwapPayload(recipient string) struct {
	Op        uint32
	QueryID   uint64
	Recipient tlb.MsgAddress
} {
	return struct {
		Op        uint32
		QueryID   uint64
		Recipient tlb.MsgAddress
	}{uint32(abi.CoffeeMevProtectFailedSwapMsgOpCode), 77, msgAddr(recipient)}
}

func TestCoffeeMevFailedSwapTON(t *testing.T) {
	for _, fail := range []bool{false, true} {
		refund := &synTx{account: synRecipient, source: synProtector, value: 4_900_000_000}
		protector := &synTx{account: synProtector, source: synDex, value: 5_000_000_000,
			op: opPtr(abi.CoffeeMevProtectFailedSwapMsgOpCode), body: cellBOC(t, failedSwapPayload(synRecipient)), fail: fail}
		if !fail {
			protector.children = []*synTx{refund}
		}
		dex := &synTx{account: synDex, source: synWallet, value: 5_100_000_000, op: opPtr(0x12345678),
			body: cellBOC(t, struct{ Op, X uint32 }{0x12345678, 1}), children: []*synTx{protector}}
		root := &synTx{account: synWallet, children: []*synTx{dex}}
		got := actions.Classify(synTrace(root), nil)
		a, v := only(t, got, "CoffeeMevProtectFailedSwap")
		want := map[string]any{"recipient": synRecipient, "mev_contract": synProtector, "sender": synDex,
			"amount": "5000000000", "query_id": "77"}
		for k, w := range want {
			if v[k] != w {
				t.Errorf("fail=%v: %s = %v, want %v", fail, k, v[k], w)
			}
		}
		if v["asset"] != nil {
			t.Errorf("TON asset %v", v["asset"])
		}
		if wantStatus := map[bool]string{false: chain.StatusOK, true: chain.StatusFailed}[fail]; a.Status != wantStatus {
			t.Errorf("fail=%v: status %s", fail, a.Status)
		}
		if len(a.Transactions) != 1 {
			t.Errorf("fail=%v: %d transactions, want the protector's only", fail, len(a.Transactions))
		}
		var kinds []string
		for _, x := range got {
			kinds = append(kinds, x.Type)
		}
		slices.Sort(kinds)
		wantKinds := []string{"CoffeeMevProtectFailedSwap", "SmartContractExec"}
		if !fail {
			// The protector's return of the funds stays a transfer of its own.
			wantKinds = []string{"CoffeeMevProtectFailedSwap", "SmartContractExec", "TonTransfer"}
		}
		if !slices.Equal(kinds, wantKinds) {
			t.Errorf("fail=%v: actions %v, want %v", fail, kinds, wantKinds)
		}
	}
}

func TestCoffeeMevFailedSwapJetton(t *testing.T) {
	payload := boc.NewCell()
	if err := tlb.Marshal(payload, failedSwapPayload(synRecipient)); err != nil {
		t.Fatal(err)
	}
	transfer := struct {
		Op       uint32
		QueryID  uint64
		Amount   tlb.VarUInteger16
		Dest     tlb.MsgAddress
		Response tlb.MsgAddress
		Custom   tlb.Maybe[tlb.Ref[boc.Cell]]
		Fwd      tlb.VarUInteger16
		Payload  tlb.EitherRef[boc.Cell]
	}{Op: uint32(abi.JettonTransferMsgOpCode), QueryID: 9, Amount: tlb.VarUInteger16(*bigInt(1234567)),
		Dest: msgAddr(synProtector), Response: msgAddr(synProtector), Fwd: tlb.VarUInteger16(*bigInt(50_000_000)),
		Payload: tlb.EitherRef[boc.Cell]{IsRight: true, Value: *payload}}
	internal := struct {
		Op       uint32
		QueryID  uint64
		Amount   tlb.VarUInteger16
		From     tlb.MsgAddress
		Response tlb.MsgAddress
		Fwd      tlb.VarUInteger16
		Payload  tlb.EitherRef[boc.Cell]
	}{uint32(abi.JettonInternalTransferMsgOpCode), 9, transfer.Amount, msgAddr(synDex), msgAddr(synProtector), transfer.Fwd, transfer.Payload}
	notify := struct {
		Op      uint32
		QueryID uint64
		Amount  tlb.VarUInteger16
		Sender  tlb.MsgAddress
		Payload tlb.EitherRef[boc.Cell]
	}{uint32(abi.JettonNotifyMsgOpCode), 9, transfer.Amount, msgAddr(synDex), transfer.Payload}

	notified := &synTx{account: synProtector, source: synMevWallet, value: 50_000_000, op: opPtr(abi.JettonNotifyMsgOpCode), body: cellBOC(t, notify)}
	receive := &synTx{account: synMevWallet, source: synDexWallet, value: 90_000_000, op: opPtr(abi.JettonInternalTransferMsgOpCode),
		body: cellBOC(t, internal), children: []*synTx{notified}}
	send := &synTx{account: synDexWallet, source: synDex, value: 100_000_000, op: opPtr(abi.JettonTransferMsgOpCode),
		body: cellBOC(t, transfer), children: []*synTx{receive}}
	dex := &synTx{account: synDex, source: synWallet, value: 200_000_000, op: opPtr(0x12345678),
		body: cellBOC(t, struct{ Op, X uint32 }{0x12345678, 1}), children: []*synTx{send}}
	root := &synTx{account: synWallet, children: []*synTx{dex}}
	known := chain.KnownContracts{synDexWallet: {Kind: "jetton_wallet", Jetton: synMaster, Owner: synDex}}

	got := actions.Classify(synTrace(root), known)
	a, v := only(t, got, "CoffeeMevProtectFailedSwap")
	want := map[string]any{"recipient": synRecipient, "mev_contract": synProtector, "mev_contract_wallet": synMevWallet,
		"sender": synDex, "sender_wallet": synDexWallet, "asset": synMaster, "amount": "1234567", "query_id": "77"}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}
	if a.Status != chain.StatusOK || len(a.Transactions) != 3 {
		t.Errorf("status %s over %d transactions, want ok over the 3 of the jetton leg", a.Status, len(a.Transactions))
	}
	for _, x := range got {
		if x.Type == "JettonTransfer" {
			t.Errorf("the leg is also a JettonTransfer: %s", x.Value)
		}
	}
}
