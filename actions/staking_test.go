package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"

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
		return cellOf(op(abi.TonstakeNftBurnNotificationMsgOpCode), u64(7), coins(amount), addr(owner), u64(3))
	}
	burn, pay := opQuery(abi.TonstakeNftBurnMsgOpCode, 7), opQuery(abi.TonstakeNftPayoutMsgOpCode, 7)
	burnB := call(billB, 50_000_000, burn,
		call(tsCollection, 40_000_000, notify(1_900_000_000, holderB),
			call(holderB, 2_000_000_000, pay)))
	start := call(tsCollection, 7_100_000_000, opQuery(0x1140a64f, 7),
		call(billA, 100_000_000, burn,
			call(tsCollection, 90_000_000, notify(4_800_000_000, holderA),
				call(holderA, 5_000_000_000, pay),
				burnB))).from(tsPool)
	got := classify(t, start, nil).ofKind("StakeWithdrawal")
	if len(got) != 2 {
		t.Fatalf("%d withdrawals, want 2: %v", len(got), got.kinds())
	}
	for i, w := range []map[string]any{
		{"stake_holder": holderA, "pool": tsPool, "amount": "5000000000", "tokens_burnt": "4800000000", "payout_nft": billA, "payout_collection": tsCollection},
		{"stake_holder": holderB, "pool": tsPool, "amount": "2000000000", "tokens_burnt": "1900000000", "payout_nft": billB, "payout_collection": tsCollection},
	} {
		if got[i].Status != chain.StatusOK {
			t.Errorf("bill %d: %s", i, got[i].Status)
		}
		got[i].wantTxs(t, 3)
		got[i].want(t, w)
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
	runCases(t, nil, []actionCase{
		{"deposit", call(nomPool, 10_001_000_000_000, comment("d")).from(nominator),
			"StakeDeposit:ok", 0, map[string]any{"provider": "nominator", "stake_holder": nominator, "pool": nomPool, "amount": "10001000000000"}},
		{"deposit refused", call(nomPool, 5_000_000_000, comment("d")).from(nominator).fails(101).bouncesBack(4_900_000_000, nil),
			"StakeDeposit:failed", 0, map[string]any{"amount": "5000000000"}},
		// The pool pays the stake, then the change (mode 64): both plain.
		{"withdrawal paid at once", call(nomPool, 1_000_000_000, comment("w"),
			call(nominator, 400_000_000_000_000, nil), call(nominator, 990_000_000, nil)).from(nominator),
			"StakeWithdrawal:ok", 0, map[string]any{"stake_holder": nominator, "pool": nomPool, "amount": "400000000000000"}},
		{"withdrawal requested", call(nomPool, 1_000_000_000, comment("w"), call(nominator, 990_000_000, nil)).from(nominator),
			"StakeWithdrawalRequest:ok", 0, map[string]any{"stake_holder": nominator, "pool": nomPool}},
	})
	t.Run("validator processes requests", func(t *testing.T) {
		root := call(nomPool, 1_000_000_000, opQuery(2, 0),
			call(nominator, 300_000_000_000, nil), call(holderA, 200_000_000_000, nil)).from(validator)
		got := classify(t, root, nil)
		ws := got.ofKind("StakeWithdrawal")
		if len(ws) != 2 || len(got.ofKind("SmartContractExec")) != 1 {
			t.Fatalf("got %v, want two withdrawals and the validator's call", got.kinds())
		}
		ws[0].want(t, map[string]any{"stake_holder": nominator, "pool": nomPool, "amount": "300000000000"})
		ws[1].want(t, map[string]any{"stake_holder": holderA, "amount": "200000000000"})
	})
	// The pool paid: a payout that bounced off a closed wallet is still the
	// withdrawal done, as toncenter reports it.
	t.Run("payout bounced by the nominator's wallet", func(t *testing.T) {
		closed := call(holderB, 300_000_000_000, nil).status(chain.AccountNonexist, chain.AccountNonexist).
			fails(0).bouncesBack(299_000_000_000, nil)
		closed.tx.ComputeSkipped = true
		root := call(nomPool, 1_000_000_000, opQuery(2, 0), closed).from(validator)
		w := classify(t, root, nil).one(t, "StakeWithdrawal")
		if w.Status != chain.StatusOK {
			t.Errorf("status %s, want ok", w.Status)
		}
		w.want(t, map[string]any{"stake_holder": holderB, "pool": nomPool, "amount": "300000000000"})
	})
	t.Run("a d comment to a basechain account is a transfer", func(t *testing.T) {
		classify(t, call(holderA, 1, comment("d")).from(nominator), nil).only(t, "TonTransfer")
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
	j := jetton{query: 9, amount: sent, to: ethenaPool, from: ethenaHolder, response: ethenaHolder, forward: 100_000_000}
	transfer := call(ethenaHolderTs, 150_000_000, j.transfer(),
		call(ethenaPoolTs, 140_000_000, j.internal(),
			call(ethenaPool, 100_000_000, j.notify(),
				call(ethenaLockedMaster, 80_000_000, cellOf(op(abi.JettonMintMsgOpCode), u64(9), addr(ethenaHolder)),
					call(ethenaHolderLocked, 50_000_000, lockedTransfer(locked)))))).from(ethenaHolder)
	known := chain.KnownContracts{
		ethenaHolderTs:     {Kind: chain.KindJettonWallet, Jetton: tsUSDe, Owner: ethenaHolder},
		ethenaHolderLocked: {Kind: chain.KindJettonWallet, Jetton: ethenaLockedMaster, Owner: ethenaHolder},
	}
	a := classify(t, transfer, known).only(t, "StakeWithdrawalRequest:ok")
	a.wantTxs(t, 5)
	a.want(t, map[string]any{"provider": "ethena", "stake_holder": ethenaHolder, "pool": ethenaPool,
		"amount": "1000000", "tokens_minted": "1200000", "asset": tsUSDe, "source_wallet": ethenaHolderTs,
		"tokens_wallet": ethenaHolderLocked})

	// A locked wallet that is someone else's is not the holder's request.
	known[ethenaHolderLocked] = chain.KnownContract{Kind: chain.KindJettonWallet, Jetton: ethenaLockedMaster, Owner: holderA}
	if got := classify(t, transfer, known).ofKind("StakeWithdrawalRequest"); len(got) != 0 {
		t.Fatalf("got %v for a wallet of another owner", got.kinds())
	}
}

// lockedTransfer is the pool's credit of locked USDe to the holder
// (0xb2583ed5, internal_transfer's layout).
func lockedTransfer(amount uint64) *boc.Cell {
	return cellOf(op(0xb2583ed5), u64(9), coins(amount), addr(ethenaPool), addr(ethenaHolder), coins(0), bit(false))
}

// TestEthenaWithdrawalToMaster: toncenter's matcher expects the tsUSDe to
// go straight to their master (internal_transfer at the master, which
// notifies the pool); the pool then has the tsUSDe master itself credit a
// locked balance. The locked transfer, not the master, makes it a request.
func TestEthenaWithdrawalToMaster(t *testing.T) {
	j := jetton{query: 9, amount: 500, to: tsUSDe, from: ethenaHolder, response: ethenaHolder, forward: 100_000_000}
	transfer := call(ethenaHolderTs, 150_000_000, j.transfer(),
		call(tsUSDe, 140_000_000, j.internal(),
			call(ethenaPool, 100_000_000, j.notify(),
				call(tsUSDe, 80_000_000, cellOf(op(abi.JettonMintMsgOpCode), u64(9), addr(ethenaHolder)),
					call(ethenaHolderLocked, 50_000_000, lockedTransfer(700)))))).from(ethenaHolder)
	a := classify(t, transfer, nil).only(t, "StakeWithdrawalRequest:ok")
	a.want(t, map[string]any{"pool": ethenaPool, "amount": "500", "tokens_minted": "700"})
}
