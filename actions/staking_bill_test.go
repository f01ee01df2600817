package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/chain"
)

// The parties of the synthetic payout round.
var (
	tsHolderC = named("tonstakers bill holder C")
	tsBillC   = named("tonstakers bill C")
	tsRoundBy = named("tonstakers round trigger")
)

// tsBillNotify is burn_notification#ed58b0b2 query_id amount:Coins
// owner:MsgAddress index:uint64, which a burnt bill sends its collection
// (liquid-staking-contract, payout_nft/nft-item.func).
func tsBillNotify(amount uint64, owner string, index uint64) *boc.Cell {
	return cellOf(op(abi.TonstakeNftBurnNotificationMsgOpCode), u64(9), coins(amount), addr(owner), u64(index))
}

// tsBill is a bill's burn: the bill asks the next bill to burn (next, when
// there is one), then sends the collection its notification with all its
// balance, and the collection pays the owner (non-bounceable).
func tsBill(bill, owner string, billAmount, payout uint64, index uint64, next *stx) *stx {
	x := call(bill, 10_000_000, opQuery(abi.TonstakeNftBurnMsgOpCode, 9))
	if next != nil {
		x.then(next)
	}
	return x.then(call(tsCollection, 95_000_000, tsBillNotify(billAmount, owner, index),
		call(owner, payout, opQuery(abi.TonstakeNftPayoutMsgOpCode, 9)).bounceable(false)))
}

// TestTonstakersBillChain: a payout round as the payout collection and its
// bills run it (liquid-staking-contract, payout_nft/): the pool sends
// start_distribution (0x1140a64f) to the collection, which asks the first
// bill to burn (0xf127fe4e); each burnt bill asks the next bill to burn
// itself, then sends the collection burn_notification (its bill amount,
// owner and index) with all its balance, and the collection pays the owner
// its share (distributed_asset 0xdb3b8abd). So the next bill's burn hangs
// below the previous bill, not below the collection. Every bill is one
// StakeWithdrawal naming the holder (the notification's owner, who is the
// payout's recipient), the pool that started the round, the bill burnt and
// the collection that paid, over the bill's burn, the notification and the
// payout; the next bill's burn is not part of it.
func TestTonstakersBillChain(t *testing.T) {
	bills := func() *stx {
		c := tsBill(tsBillC, tsHolderC, 700_000_000, 740_000_000, 2, nil)
		b := tsBill(billB, holderB, 1_900_000_000, 2_000_000_000, 1, c)
		return tsBill(billA, holderA, 4_800_000_000, 5_000_000_000, 0, b)
	}
	start := func() *stx {
		return call(tsCollection, 7_800_000_000, opQuery(0x1140a64f, 9), bills())
	}
	want := []map[string]any{
		{"provider": "tonstakers", "stake_holder": holderA, "pool": tsPool, "amount": "5000000000", "tokens_burnt": "4800000000", "payout_nft": billA, "payout_collection": tsCollection},
		{"provider": "tonstakers", "stake_holder": holderB, "pool": tsPool, "amount": "2000000000", "tokens_burnt": "1900000000", "payout_nft": billB, "payout_collection": tsCollection},
		{"provider": "tonstakers", "stake_holder": tsHolderC, "pool": tsPool, "amount": "740000000", "tokens_burnt": "700000000", "payout_nft": tsBillC, "payout_collection": tsCollection},
	}
	for _, tc := range []struct {
		name string
		tr   *stx
	}{
		// The trace starts at the collection, told by the pool.
		{"round started by the pool", start().from(tsPool)},
		// The pool's own transaction is in the trace: something told the
		// pool to rotate the round, and it started the payouts.
		{"pool in the trace", call(tsPool, 1_000_000_000, opQuery(0x12345678, 9), start()).from(tsRoundBy)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classify(t, tc.tr, nil).ofKind("StakeWithdrawal")
			if len(got) != len(want) {
				t.Fatalf("%d withdrawals, want %d: %v", len(got), len(want), classify(t, tc.tr, nil).kinds())
			}
			for i, w := range want {
				if got[i].Status != chain.StatusOK {
					t.Errorf("bill %d: %s", i, got[i].Status)
				}
				got[i].wantTxs(t, 3)
				got[i].want(t, w)
			}
		})
	}
}

// The tsTON side of the synthetic rounds.
var (
	tsMaster  = named("tonstakers tsTON master")
	tsUserJW  = named("tonstakers holder D tsTON wallet")
	tsHolderD = named("tonstakers holder D")
)

// TestTonstakersRoundInUserRequest: the pool rotates its round inside any
// request it takes (update_round in pool.func), so a holder's tsTON
// withdrawal or TON deposit can start the payouts of the finished round
// from the same pool transaction (start_distribution before the pool's
// answer). The holder's action keeps its own steps only; each bill burnt
// below is its own StakeWithdrawal with the pool that started the round.
func TestTonstakersRoundInUserRequest(t *testing.T) {
	round := func() *stx {
		return call(tsCollection, 7_100_000_000, opQuery(0x1140a64f, 9),
			tsBill(billA, holderA, 4_800_000_000, 5_000_000_000, 0,
				tsBill(billB, holderB, 1_900_000_000, 2_000_000_000, 1, nil)))
	}
	bills := []map[string]any{
		{"stake_holder": holderA, "pool": tsPool, "amount": "5000000000", "tokens_burnt": "4800000000", "payout_nft": billA, "payout_collection": tsCollection},
		{"stake_holder": holderB, "pool": tsPool, "amount": "2000000000", "tokens_burnt": "1900000000", "payout_nft": billB, "payout_collection": tsCollection},
	}
	withdrawBody := cellOf(op(abi.TonstakePoolWithdrawMsgOpCode), tlbOf(abi.TonstakePoolWithdrawMsgBody{QueryId: 9,
		JettonAmount: 3_000_000_000, FromAddress: msgAddr(tsHolderD), ResponseAddress: msgAddr(tsHolderD)}), bit(false), bit(false))
	burn := jetton{query: 9, amount: 3_000_000_000, from: tsHolderD, response: tsHolderD}
	withdraw := ext(tsHolderD, call(tsUserJW, 1_050_000_000, burn.burn(),
		call(tsMaster, 1_040_000_000, burn.burnNotification(),
			call(tsPool, 1_030_000_000, withdrawBody,
				round(),
				call(tsHolderD, 4_100_000_000, opQuery(abi.TonstakePoolWithdrawalMsgOpCode, 9)).bounceable(false)))))
	t.Run("immediate withdrawal", func(t *testing.T) {
		rs := classify(t, withdraw, nil)
		// The collection's start_distribution stays a contract call, as
		// toncenter leaves it.
		rs.expect(t, "StakeWithdrawal:ok", "SmartContractExec:ok", "StakeWithdrawal:ok", "StakeWithdrawal:ok")
		got := rs.ofKind("StakeWithdrawal")
		if len(got) != 3 {
			t.Fatalf("%d withdrawals, want 3 (the holder's and two bills): %v", len(got), rs.kinds())
		}
		got[0].want(t, map[string]any{"stake_holder": tsHolderD, "pool": tsPool, "amount": "3070000000",
			"tokens_burnt": "3000000000", "asset": tsMaster, "source_wallet": tsUserJW, "payout_nft": nil})
		got[0].wantTxs(t, 5)
		for i, w := range bills {
			got[i+1].want(t, w)
			got[i+1].wantTxs(t, 3)
		}
	})
	t.Run("deposit", func(t *testing.T) {
		mint := jetton{query: 9, amount: 2_900_000_000, from: tsPool, response: tsHolderD}
		deposit := ext(tsHolderD, call(tsPool, 4_000_000_000, opQuery(abi.TonstakePoolDepositMsgOpCode, 9),
			round(),
			call(tsMaster, 100_000_000, cellOf(op(abi.TonstakePayoutMintJettonsMsgOpCode), u64(9)),
				call(tsUserJW, 90_000_000, mint.internal(), call(tsHolderD, 10_000_000, excesses(9))))))
		rs := classify(t, deposit, nil)
		rs.expect(t, "StakeDeposit:ok", "SmartContractExec:ok", "StakeWithdrawal:ok", "StakeWithdrawal:ok")
		dep := rs.one(t, "StakeDeposit")
		dep.want(t, map[string]any{"stake_holder": tsHolderD, "pool": tsPool, "amount": "3000000000",
			"tokens_minted": "2900000000", "asset": tsMaster, "tokens_wallet": tsUserJW})
		dep.wantTxs(t, 5)
		for i, w := range bills {
			got := rs.ofKind("StakeWithdrawal")[i]
			got.want(t, w)
			got.wantTxs(t, 3)
		}
	})
}

// More parties of the rotating requests.
var (
	tsDepCollection = named("tonstakers deposit payout collection")
	tsDepCollJW     = named("tonstakers deposit payout collection's tsTON wallet")
	tsNewPayout     = named("tonstakers withdrawal payout collection of the new round")
	tsNewBill       = named("tonstakers new bill of holder D")
)

// tsMint is the pool's mint#1674b0a0 query_id destination amount
// notification forward payload:(Maybe ^Cell).
func tsMint(dest string, amount uint64, payload *boc.Cell) *boc.Cell {
	return cellOf(op(abi.TonstakePayoutMintJettonsMsgOpCode), u64(9), addr(dest), coins(amount), coins(1), coins(2), maybeRef(payload))
}

// TestTonstakersRoundMints: a rotating request also has the tsTON master
// mint the deposit payout collection its jettons (a mint whose payload is
// start_distribution), sent before the mint the request asked for. The
// holder's action reads its own mint: the tsTON minted to the holder's
// wallet, or the bill NFT of the new round's collection, never the round's.
func TestTonstakersRoundMints(t *testing.T) {
	roundMint := func() *stx {
		j := jetton{query: 9, amount: 50_000_000_000, from: tsPool, response: tsPool}
		return call(tsMaster, 200_000_000, tsMint(tsDepCollection, 50_000_000_000, opQuery(0x1140a64f, 9)),
			call(tsDepCollJW, 150_000_000, j.internal(), call(tsDepCollection, 100_000_000, j.notify())))
	}
	t.Run("deposit", func(t *testing.T) {
		mint := jetton{query: 9, amount: 2_900_000_000, from: tsPool, response: tsHolderD}
		tr := ext(tsHolderD, call(tsPool, 4_000_000_000, opQuery(abi.TonstakePoolDepositMsgOpCode, 9),
			roundMint(),
			call(tsMaster, 100_000_000, tsMint(tsHolderD, 2_900_000_000, nil),
				call(tsUserJW, 90_000_000, mint.internal(), call(tsHolderD, 10_000_000, excesses(9))))))
		dep := classify(t, tr, nil).one(t, "StakeDeposit:ok")
		dep.want(t, map[string]any{"stake_holder": tsHolderD, "pool": tsPool, "tokens_minted": "2900000000",
			"asset": tsMaster, "tokens_wallet": tsUserJW})
		dep.wantTxs(t, 5)
	})
	t.Run("withdrawal request", func(t *testing.T) {
		withdrawBody := cellOf(op(abi.TonstakePoolWithdrawMsgOpCode), tlbOf(abi.TonstakePoolWithdrawMsgBody{QueryId: 9,
			JettonAmount: 3_000_000_000, FromAddress: msgAddr(tsHolderD), ResponseAddress: msgAddr(tsHolderD)}), bit(true), bit(false))
		burn := jetton{query: 9, amount: 3_000_000_000, from: tsHolderD, response: tsHolderD}
		tr := ext(tsHolderD, call(tsUserJW, 1_050_000_000, burn.burn(),
			call(tsMaster, 1_040_000_000, burn.burnNotification(),
				call(tsPool, 1_030_000_000, withdrawBody,
					roundMint(),
					call(tsNewPayout, 500_000_000, tsMint(tsHolderD, 3_000_000_000, nil),
						call(tsNewBill, 300_000_000, opQuery(abi.TonstakeNftInitMsgOpCode, 9)))))))
		rs := classify(t, tr, nil)
		req := rs.one(t, "StakeWithdrawalRequest:ok")
		req.want(t, map[string]any{"stake_holder": tsHolderD, "pool": tsPool, "tokens_burnt": "3000000000",
			"asset": tsMaster, "source_wallet": tsUserJW, "payout_nft": tsNewBill, "payout_collection": tsNewPayout})
	})
}
