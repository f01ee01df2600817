package actions_test

import (
	"math/big"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// TestToncoWithdrawAsToncenter: toncenter needs the whole chain down to the
// router's pay_to, decides the status by pay_to's exit code alone, and
// reports a side the router paid nothing for with what pay_to names.
func TestToncoWithdrawAsToncenter(t *testing.T) {
	user, pool, nft, router := named("tonco user"), named("tonco pool"), named("tonco position"), named("tonco router")
	rwA, rwB, uwA := named("tonco router A wallet"), named("tonco router B wallet"), named("tonco user A wallet")
	liq := tlb.Uint128(*big.NewInt(777))
	pay := toncoPayToT{Receiver0: msgAddr(user), Receiver1: msgAddr(user), ExitCode: 201}
	pay.Coins = &struct {
		Amount0 tlb.VarUInteger16
		Jetton0 tlb.MsgAddress
		Amount1 tlb.VarUInteger16
		Jetton1 tlb.MsgAddress
	}{varCoins(11), msgAddr(rwA), varCoins(22), msgAddr(rwB)}
	// chain builds start_burn, position_burn, poolv3_burn; below is what
	// the pool's poolv3_burn led to, and nftFails makes the NFT's
	// transaction abort (it still sent its message, as real ones may).
	chain := func(nftFails bool, below ...*stx) *stx {
		burn := call(pool, 280_000_000, cellOf(op(0xd73ac09d), tlbOf(toncoPoolBurnT{Recipient: msgAddr(user), BurnedIndex: 5, Liquidity: liq, LiquidityToBurn: liq})), below...)
		pos := call(nft, 290_000_000, cellOf(op(0x46ca335a), tlbOf(toncoPositionBurnT{NftOwner: msgAddr(user), Liquidity: liq})), burn)
		if nftFails {
			pos.tx.ComputeSuccess, pos.tx.ComputeExitCode = false, 100
		}
		return ext(user, call(pool, 300_000_000, cellOf(op(0x530b5f2c), tlbOf(toncoStartBurnT{BurnedIndex: 5, Liquidity: liq})), pos))
	}
	payA := call(rwA, 100_000_000, jetton{amount: 11, to: user, response: user}.transfer(),
		call(uwA, 90_000_000, jetton{amount: 11, from: router, response: router}.internal()))
	t.Run("no pay_to", func(t *testing.T) {
		got := classify(t, chain(false), nil)
		if len(got.ofKind("DexWithdrawLiquidity")) != 0 {
			t.Errorf("actions %v, want no withdrawal without the router's pay_to", got.kinds())
		}
	})
	t.Run("a step aborted, exit code 201", func(t *testing.T) {
		tr := chain(true, call(router, 270_000_000, cellOf(op(abi.PayToMsgOpCode), tlbOf(pay)), payA))
		classify(t, tr, nil).only(t, "DexWithdrawLiquidity:ok")
	})
	t.Run("one side unpaid", func(t *testing.T) {
		// The router paid jetton A only: jetton B's side is what pay_to
		// names, from the router's B wallet.
		tr := chain(false, call(router, 270_000_000, cellOf(op(abi.PayToMsgOpCode), tlbOf(pay)), payA))
		a := classify(t, tr, nil).only(t, "DexWithdrawLiquidity:ok")
		a.want(t, map[string]any{"amount_1": "11", "dex_jetton_wallet_1": rwA, "user_jetton_wallet_1": uwA,
			"amount_2": "22", "dex_jetton_wallet_2": rwB, "dex_wallet_2": router})
	})
}
