package actions_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("StakeDeposit", 2, 2)
	setFloor("StakeWithdrawal", 1, 1)
	setFloor("StakeWithdrawalRequest", 1, 1)
}

// TestGoldenStaking pins two labelled traces whole.
func TestGoldenStaking(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// Tonstakers withdrawal paid later: burn of 67599 tsTON, the
			// master's burn_notification, withdraw (0x319b0cdc) at the pool,
			// which has the payout collection mint (0x1674b0a0) a bill NFT
			// that deploys itself (init_nft 0x132f9a45) and tells its owner
			// (ownership_assigned). Right: StakeWithdrawalRequest ok over the
			// wallet request, burn, notification, pool and collection (5
			// transactions, toncenter's list), payout_nft = the item; the
			// item's deploy and its ownership_assigned are left to the NFT
			// matchers: toncenter's separate nft_mint (our NftMint of the
			// bill, beside its ContractDeploy) and nft_transfer (the
			// ownership_assigned, a transfer from nobody).
			name: "tonstakers_withdrawal_request",
			file: "toncenter-traces/traces/GO-NI0EjOuhj1z4YzHK-VDAAOJsLm710DvyRRRMXhoY=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.TonstakeNftInitMsgOpCode) })
			},
			want: []string{"ContractDeploy:ok", "NftItemTransfer:ok", "NftMint:ok", "StakeWithdrawalRequest:ok"},
		},
		{
			// Ethena deposit: 2500300127 USDe sent to the staking pool,
			// which has the tsUSDe master mint (0x642b7d07) 1994155249 tsUSDe
			// to the sender's wallet. Right: one StakeDeposit ok over all 7
			// transactions (no JettonTransfer or JettonMint of its own),
			// asset = tsUSDe, source_asset = USDe, both wallets named.
			name: "ethena_deposit",
			file: "toncenter-traces/traces/vhM4-FbBKgC8khEg0MTKMvPx8MiBuEYbrqHgDjPFHcQ=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.JettonMintMsgOpCode) })
			},
			want: []string{"StakeDeposit:ok"},
		},
	})
}

// synth is one transaction of a constructed trace: the message that
// reached account (from "" = an external message), and what it caused.
type synth struct {
	account, from string
	value         uint64
	body          *boc.Cell
	failed        bool
	exit          int32
	bounced       bool
	children      []*synth
}

// synthTrace builds a trace from constructed transactions, lts in
// pre-order. Used where the fixtures have no real trace of a flow.
func synthTrace(root *synth) *chain.Trace {
	var lt uint64 = 1000
	var build func(s *synth) *chain.TraceNode
	build = func(s *synth) *chain.TraceNode {
		lt += 10
		var seed [8]byte
		binary.BigEndian.PutUint64(seed[:], lt)
		tx := &chain.Transaction{Hash: sha256.Sum256(seed[:]), Account: s.account, Lt: lt, Utime: 1700000000,
			OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
			ComputeSuccess: !s.failed, ActionSuccess: !s.failed, Aborted: s.failed, ComputeExitCode: s.exit}
		m := &chain.Message{Hash: sha256.Sum256(append(seed[:], 'm')), Source: s.from, Destination: s.account,
			Value: s.value, Bounced: s.bounced, CreatedLt: lt - 1}
		if s.body != nil {
			b, err := s.body.ToBoc()
			if err != nil {
				panic(err)
			}
			m.Body = b
			s.body.ResetCounters()
			if s.body.BitSize() >= 32 {
				op, _ := s.body.ReadUint(32)
				o := uint32(op)
				m.Opcode = &o
			}
		}
		tx.InMsg = m
		n := &chain.TraceNode{Tx: tx}
		for _, ch := range s.children {
			cn := build(ch)
			tx.OutMsgs = append(tx.OutMsgs, *cn.Tx.InMsg)
			n.Children = append(n.Children, cn)
		}
		return n
	}
	top := build(root)
	return &chain.Trace{ID: top.Tx.Hash, Root: top, StartLt: top.Tx.Lt, EndLt: lt, Complete: true}
}

// body writes a message body: fields are uint32 op codes and other
// unsigned values (written as uint64 unless wrapped), stakeCoins, addresses and
// strings (text).
type bits struct {
	v uint64
	n int
}
type stakeCoins uint64
type stakeAddr string

func body(fields ...any) *boc.Cell {
	c := boc.NewCell()
	for _, f := range fields {
		var err error
		switch x := f.(type) {
		case uint32:
			err = c.WriteUint(uint64(x), 32)
		case uint64:
			err = c.WriteUint(x, 64)
		case bits:
			err = c.WriteUint(x.v, x.n)
		case bool:
			err = c.WriteBit(x)
		case stakeCoins:
			err = tlb.Marshal(c, tlb.Grams(x))
		case stakeAddr:
			id := ton.MustParseAccountID(string(x))
			err = tlb.Marshal(c, id.ToMsgAddress())
		case string:
			err = c.WriteBytes([]byte(x))
		default:
			panic("body: unsupported field")
		}
		if err != nil {
			panic(err)
		}
	}
	return c
}

func comment(text string) *boc.Cell { return body(uint32(0), text) }

// classifySynth classifies a constructed trace and decodes each action's
// value into a map.
func classifySynth(t *testing.T, root *synth, known chain.KnownContracts) []synthAction {
	t.Helper()
	var out []synthAction
	for _, a := range actions.Classify(synthTrace(root), known) {
		var v map[string]any
		if err := json.Unmarshal(a.Value, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, synthAction{typ: a.Type, status: a.Status, value: v, txs: len(a.Transactions)})
	}
	return out
}

type synthAction struct {
	typ, status string
	value       map[string]any
	txs         int
}

// only returns the actions of a type.
func stakeOnly(list []synthAction, typ string) []synthAction {
	var out []synthAction
	for _, a := range list {
		if a.typ == typ {
			out = append(out, a)
		}
	}
	return out
}

// expectValue checks fields of an action's value.
func expectValue(t *testing.T, a synthAction, want map[string]any) {
	t.Helper()
	for k, w := range want {
		if got := a.value[k]; got != w {
			t.Errorf("%s %s = %v, want %v", a.typ, k, got, w)
		}
	}
}

const (
	tsPool       = "0:A45B17F28409229B78360E3290420F13E4FE20F90D7E2BF8C4AC6703259E22FA"
	tsCollection = "0:0BA5C4C5C3A4896EB494116FBA4CDB83CE84ED3266FFA8C2859960F9D778669E"
	holderA      = "0:1111111111111111111111111111111111111111111111111111111111111111"
	holderB      = "0:2222222222222222222222222222222222222222222222222222222222222222"
	billA        = "0:AAAA000000000000000000000000000000000000000000000000000000000001"
	billB        = "0:AAAA000000000000000000000000000000000000000000000000000000000002"
)

// TestTonstakersBillPayouts: the fixtures have no payout round. Built from
// the messages toncenter's staking.py and tongo's liquid_stacking.xml
// describe: the pool starts the round at the payout collection
// (0x1140a64f), which burns the bills one after the other (burn 0xf127fe4e
// at the item, burn_notification 0xed58b0b2 back with the tsTON amount and
// the owner) and pays each owner (0xdb3b8abd). Each bill is one
// StakeWithdrawal, the pool found above the chain of burns.
func TestTonstakersBillPayouts(t *testing.T) {
	notify := func(amount uint64, owner string) *boc.Cell {
		return body(uint32(abi.TonstakeNftBurnNotificationMsgOpCode), uint64(7), stakeCoins(amount), stakeAddr(owner), uint64(3))
	}
	payB := &synth{account: holderB, from: tsCollection, value: 2_000_000_000, body: body(uint32(abi.TonstakeNftPayoutMsgOpCode), uint64(7))}
	burnB := &synth{account: billB, from: tsCollection, value: 50_000_000, body: body(uint32(abi.TonstakeNftBurnMsgOpCode), uint64(7)),
		children: []*synth{{account: tsCollection, from: billB, value: 40_000_000, body: notify(1_900_000_000, holderB), children: []*synth{payB}}}}
	payA := &synth{account: holderA, from: tsCollection, value: 5_000_000_000, body: body(uint32(abi.TonstakeNftPayoutMsgOpCode), uint64(7))}
	burnA := &synth{account: billA, from: tsCollection, value: 100_000_000, body: body(uint32(abi.TonstakeNftBurnMsgOpCode), uint64(7)),
		children: []*synth{{account: tsCollection, from: billA, value: 90_000_000, body: notify(4_800_000_000, holderA), children: []*synth{payA, burnB}}}}
	start := &synth{account: tsCollection, from: tsPool, value: 7_100_000_000, body: body(uint32(0x1140a64f), uint64(7)), children: []*synth{burnA}}
	got := stakeOnly(classifySynth(t, start, nil), "StakeWithdrawal")
	if len(got) != 2 {
		t.Fatalf("%d withdrawals, want 2: %v", len(got), got)
	}
	for i, w := range []map[string]any{
		{"stake_holder": holderA, "pool": tsPool, "amount": "5000000000", "tokens_burnt": "4800000000", "payout_nft": billA, "payout_collection": tsCollection},
		{"stake_holder": holderB, "pool": tsPool, "amount": "2000000000", "tokens_burnt": "1900000000", "payout_nft": billB, "payout_collection": tsCollection},
	} {
		if got[i].status != chain.StatusOK || got[i].txs != 3 {
			t.Errorf("bill %d: %s over %d transactions, want ok over 3", i, got[i].status, got[i].txs)
		}
		expectValue(t, got[i], w)
	}
}

const (
	nomPool   = "-1:5555555555555555555555555555555555555555555555555555555555555555"
	nominator = "0:6666666666666666666666666666666666666666666666666666666666666666"
	validator = "-1:7777777777777777777777777777777777777777777777777777777777777777"
)

// TestNominatorPool: requests to the nominator pool are text comments from
// basechain wallets to the masterchain pool (ton-blockchain/nominator-pool);
// no fixture has one, so the flows are built from its documented answers.
func TestNominatorPool(t *testing.T) {
	cases := []struct {
		name   string
		root   *synth
		typ    string
		status string
		want   map[string]any
	}{
		{"deposit", &synth{account: nomPool, from: nominator, value: 10_001_000_000_000, body: comment("d")},
			"StakeDeposit", chain.StatusOK, map[string]any{"provider": "nominator", "stake_holder": nominator, "pool": nomPool, "amount": "10001000000000"}},
		{"deposit refused", &synth{account: nomPool, from: nominator, value: 5_000_000_000, body: comment("d"), failed: true, exit: 101,
			children: []*synth{{account: nominator, from: nomPool, value: 4_900_000_000, bounced: true, body: body(uint32(0xffffffff))}}},
			"StakeDeposit", chain.StatusFailed, map[string]any{"amount": "5000000000"}},
		// The pool pays the stake, then the change (mode 64): both plain.
		{"withdrawal paid at once", &synth{account: nomPool, from: nominator, value: 1_000_000_000, body: comment("w"),
			children: []*synth{{account: nominator, from: nomPool, value: 400_000_000_000_000}, {account: nominator, from: nomPool, value: 990_000_000}}},
			"StakeWithdrawal", chain.StatusOK, map[string]any{"stake_holder": nominator, "pool": nomPool, "amount": "400000000000000"}},
		{"withdrawal requested", &synth{account: nomPool, from: nominator, value: 1_000_000_000, body: comment("w"),
			children: []*synth{{account: nominator, from: nomPool, value: 990_000_000}}},
			"StakeWithdrawalRequest", chain.StatusOK, map[string]any{"stake_holder": nominator, "pool": nomPool}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := classifySynth(t, tc.root, nil)
			if len(got) != 1 || got[0].typ != tc.typ || got[0].status != tc.status {
				t.Fatalf("got %v, want one %s %s", got, tc.typ, tc.status)
			}
			expectValue(t, got[0], tc.want)
		})
	}
	t.Run("validator processes requests", func(t *testing.T) {
		root := &synth{account: nomPool, from: validator, value: 1_000_000_000, body: body(uint32(2), uint64(0)),
			children: []*synth{{account: nominator, from: nomPool, value: 300_000_000_000}, {account: holderA, from: nomPool, value: 200_000_000_000}}}
		got := classifySynth(t, root, nil)
		ws := stakeOnly(got, "StakeWithdrawal")
		if len(ws) != 2 || len(stakeOnly(got, "SmartContractExec")) != 1 {
			t.Fatalf("got %v, want two withdrawals and the validator's call", got)
		}
		expectValue(t, ws[0], map[string]any{"stake_holder": nominator, "pool": nomPool, "amount": "300000000000"})
		expectValue(t, ws[1], map[string]any{"stake_holder": holderA, "amount": "200000000000"})
	})
	t.Run("a d comment to a basechain account is a transfer", func(t *testing.T) {
		got := classifySynth(t, &synth{account: holderA, from: nominator, value: 1, body: comment("d")}, nil)
		if len(got) != 1 || got[0].typ != "TonTransfer" {
			t.Fatalf("got %v, want a TonTransfer", got)
		}
	})
}

const (
	ethenaHolder       = "0:C2C866D626A17E4C2228FC7385173DC21CDEE4CA9AADF50ACE71A73D6EC9906B"
	ethenaHolderTs     = "0:FCFD6E47032018900AB3C4B57C950D683E33695843EE3B3F7ACE9798D8857D16"
	ethenaPool         = "0:A11AE0F5BB47BB2945871F915A621FF281C2D786C746DA74873D71D6F2AAA7A5"
	ethenaPoolTs       = "0:3333000000000000000000000000000000000000000000000000000000000003"
	ethenaLockedMaster = "0:4444000000000000000000000000000000000000000000000000000000000004"
	ethenaHolderLocked = "0:5555000000000000000000000000000000000000000000000000000000000005"
	tsUSDe             = "0:D0E545323C7ACB7102653C073377F7E3C67F122EB94D430A250739F109D4A57D"
)

// TestEthenaWithdrawalRequest: no fixture has one. Built from toncenter's
// ethena_staking.py: the holder sends tsUSDe to the staking pool, which
// asks a master to mint (0x642b7d07), and that master credits the holder's
// wallet with locked USDe (0xb2583ed5, internal_transfer's layout).
func TestEthenaWithdrawalRequest(t *testing.T) {
	const sent, locked = 1_000_000, 1_200_000
	lockedMsg := &synth{account: ethenaHolderLocked, from: ethenaLockedMaster, value: 50_000_000,
		body: body(uint32(0xb2583ed5), uint64(9), stakeCoins(locked), stakeAddr(ethenaPool), stakeAddr(ethenaHolder), stakeCoins(0), false)}
	mint := &synth{account: ethenaLockedMaster, from: ethenaPool, value: 80_000_000,
		body: body(uint32(abi.JettonMintMsgOpCode), uint64(9), stakeAddr(ethenaHolder)), children: []*synth{lockedMsg}}
	notify := &synth{account: ethenaPool, from: ethenaPoolTs, value: 100_000_000,
		body: body(uint32(abi.JettonNotifyMsgOpCode), uint64(9), stakeCoins(sent), stakeAddr(ethenaHolder), false), children: []*synth{mint}}
	internal := &synth{account: ethenaPoolTs, from: ethenaHolderTs, value: 140_000_000,
		body:     body(uint32(abi.JettonInternalTransferMsgOpCode), uint64(9), stakeCoins(sent), stakeAddr(ethenaHolder), stakeAddr(ethenaHolder), stakeCoins(100_000_000), false),
		children: []*synth{notify}}
	transfer := &synth{account: ethenaHolderTs, from: ethenaHolder, value: 150_000_000,
		body:     body(uint32(abi.JettonTransferMsgOpCode), uint64(9), stakeCoins(sent), stakeAddr(ethenaPool), stakeAddr(ethenaHolder), false, stakeCoins(100_000_000), false),
		children: []*synth{internal}}
	known := chain.KnownContracts{
		ethenaHolderTs:     {Kind: chain.KindJettonWallet, Jetton: tsUSDe, Owner: ethenaHolder},
		ethenaHolderLocked: {Kind: chain.KindJettonWallet, Jetton: ethenaLockedMaster, Owner: ethenaHolder},
	}
	got := classifySynth(t, transfer, known)
	if len(got) != 1 || got[0].typ != "StakeWithdrawalRequest" || got[0].status != chain.StatusOK || got[0].txs != 5 {
		t.Fatalf("got %v, want one StakeWithdrawalRequest ok over 5 transactions", got)
	}
	expectValue(t, got[0], map[string]any{"provider": "ethena", "stake_holder": ethenaHolder, "pool": ethenaPool,
		"amount": "1000000", "tokens_minted": "1200000", "asset": tsUSDe, "source_wallet": ethenaHolderTs,
		"tokens_wallet": ethenaHolderLocked})

	// A locked wallet that is someone else's is not the holder's request.
	known[ethenaHolderLocked] = chain.KnownContract{Kind: chain.KindJettonWallet, Jetton: ethenaLockedMaster, Owner: holderA}
	if got := stakeOnly(classifySynth(t, transfer, known), "StakeWithdrawalRequest"); len(got) != 0 {
		t.Fatalf("got %v for a wallet of another owner", got)
	}
}

// TestEthenaWithdrawalToMaster: toncenter's matcher expects the tsUSDe to
// go straight to their master (internal_transfer at the master, which
// notifies the pool); the pool then has the tsUSDe master itself credit a
// locked balance. The locked transfer, not the master, makes it a request.
func TestEthenaWithdrawalToMaster(t *testing.T) {
	lockedMsg := &synth{account: ethenaHolderLocked, from: tsUSDe, value: 50_000_000,
		body: body(uint32(0xb2583ed5), uint64(9), stakeCoins(700), stakeAddr(ethenaPool), stakeAddr(ethenaHolder), stakeCoins(0), false)}
	mint := &synth{account: tsUSDe, from: ethenaPool, value: 80_000_000,
		body: body(uint32(abi.JettonMintMsgOpCode), uint64(9), stakeAddr(ethenaHolder)), children: []*synth{lockedMsg}}
	notify := &synth{account: ethenaPool, from: tsUSDe, value: 100_000_000,
		body: body(uint32(abi.JettonNotifyMsgOpCode), uint64(9), stakeCoins(500), stakeAddr(ethenaHolder), false), children: []*synth{mint}}
	internal := &synth{account: tsUSDe, from: ethenaHolderTs, value: 140_000_000,
		body:     body(uint32(abi.JettonInternalTransferMsgOpCode), uint64(9), stakeCoins(500), stakeAddr(ethenaHolder), stakeAddr(ethenaHolder), stakeCoins(100_000_000), false),
		children: []*synth{notify}}
	transfer := &synth{account: ethenaHolderTs, from: ethenaHolder, value: 150_000_000,
		body:     body(uint32(abi.JettonTransferMsgOpCode), uint64(9), stakeCoins(500), stakeAddr(tsUSDe), stakeAddr(ethenaHolder), false, stakeCoins(100_000_000), false),
		children: []*synth{internal}}
	got := classifySynth(t, transfer, nil)
	if len(got) != 1 || got[0].typ != "StakeWithdrawalRequest" || got[0].status != chain.StatusOK {
		t.Fatalf("got %v, want one StakeWithdrawalRequest ok", got)
	}
	expectValue(t, got[0], map[string]any{"pool": ethenaPool, "amount": "500", "tokens_minted": "700"})
}
