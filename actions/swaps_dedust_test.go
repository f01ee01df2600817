package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// DeDust's messages, written as DeDust's contracts write them (tongo's
// dedust.xml layouts; toncenter reads the same in events/blocks/swaps.py).

func ddJetton(raw string) abi.DedustAsset {
	id := ton.MustParseAccountID(raw)
	a := abi.DedustAsset{SumType: "Jetton"}
	a.Jetton.WorkchainId, a.Jetton.Address = int8(id.Workchain), id.Address
	return a
}

var ddNative = abi.DedustAsset{SumType: "Native"}

// ddStep is a SwapStep: the pool, its limit (the least out) and the next step.
func ddStep(pool string, limit uint64, next *abi.DedustSwapStep) abi.DedustSwapStep {
	return abi.DedustSwapStep{PoolAddr: msgAddr(pool), Params: abi.DedustSwapStepParams{Limit: varCoins(limit), Next: next}}
}

func ddParams(recipient, referral string) abi.DedustSwapParams {
	return abi.DedustSwapParams{Deadline: 0, RecipientAddr: msgAddr(recipient), ReferralAddr: msgAddr(referral)}
}

// ddJettonPayload is the forward payload of jettons sent to a vault to
// swap: swap#e3a0d482 step ^params.
func ddJettonPayload(step abi.DedustSwapStep, params abi.DedustSwapParams) *boc.Cell {
	return cellOf(op(0xe3a0d482), tlbOf(step), ref(cellOf(tlbOf(params))))
}

// ddNativeSwap is swap#ea06185d to the native vault.
func ddNativeSwap(amount uint64, step abi.DedustSwapStep, params abi.DedustSwapParams) *boc.Cell {
	return cellOf(op(abi.DedustSwapMsgOpCode), tlbOf(abi.DedustSwapMsgBody{QueryId: 1, Amount: tlb.Grams(amount), Step: step, SwapParams: params}))
}

// ddExternal is the vault's swap_external to the first pool.
func ddExternal(amount uint64, sender string, step abi.DedustSwapStep, params abi.DedustSwapParams) *boc.Cell {
	return cellOf(op(abi.DedustSwapExternalMsgOpCode), tlbOf(abi.DedustSwapExternalMsgBody{QueryId: 1, Proof: tlb.Any(*boc.NewCell()),
		Amount: varCoins(amount), SenderAddr: msgAddr(sender), Current: step.Params, SwapParams: params}))
}

// ddPeer is a pool's swap_peer to the next pool of the route.
func ddPeer(asset abi.DedustAsset, amount uint64, sender string, step abi.DedustSwapStep, params abi.DedustSwapParams) *boc.Cell {
	return cellOf(op(abi.DedustSwapPeerMsgOpCode), tlbOf(abi.DedustSwapPeerMsgBody{QueryId: 1, Proof: tlb.Any(*boc.NewCell()),
		Asset: asset, Amount: varCoins(amount), SenderAddr: msgAddr(sender), Current: step.Params, SwapParams: params}))
}

// ddPayoutFromPool is a pool asking a vault to pay amount to recipient.
func ddPayoutFromPool(amount uint64, recipient string) *boc.Cell {
	return cellOf(op(abi.DedustPayoutFromPoolMsgOpCode), tlbOf(abi.DedustPayoutFromPoolMsgBody{QueryId: 1, Proof: tlb.Any(*boc.NewCell()),
		Amount: varCoins(amount), RecipientAddr: msgAddr(recipient)}))
}

// ddPayout is the native vault paying TON out.
func ddPayout() *boc.Cell {
	return cellOf(op(abi.DedustPayoutMsgOpCode), tlbOf(abi.DedustPayoutMsgBody{QueryId: 1}))
}

// ddLog is the swap event a pool logs (an external out-message).
func ddLog(in, out abi.DedustAsset, amountIn, amountOut uint64, sender, referral string) *boc.Cell {
	b := abi.DedustSwapExtOutMsgBody{AssetIn: in, AssetOut: out, AmountIn: tlb.Grams(amountIn), AmountOut: tlb.Grams(amountOut)}
	b.Field4.SenderAddr, b.Field4.ReferralAddr, b.Field4.Reserve0, b.Field4.Reserve1 = msgAddr(sender), msgAddr(referral), 1, 1
	return cellOf(op(abi.DedustSwapExtOutMsgOpCode), tlbOf(b))
}

// Accounts of the DeDust traces: two pools, the native vault, and the
// vaults of jettons A and B with their jetton wallets.
var (
	ddPool1, ddPool2       = acct(40), acct(41)
	ddNativeVault          = acct(42)
	ddVaultA, ddVaultAWal  = acct(43), acct(44)
	ddVaultB, ddVaultBWal  = acct(45), acct(46)
	ddOther, ddOtherWallet = acct(47), acct(48) // another recipient, and its wallet of jetton B
)

func ddKnown() chain.KnownContracts {
	k := knownWallets()
	k[ddVaultAWal] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tMasterA, Owner: ddVaultA}
	k[ddVaultBWal] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tMasterB, Owner: ddVaultB}
	k[ddOtherWallet] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tMasterB, Owner: ddOther}
	k[ddPool1] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{tMasterA, tMasterB}}
	k[ddPool2] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{"", tMasterB}}
	return k
}

// TestDedustSwapShapes builds the DeDust swaps the fixtures lack (they hold
// TON in at the native vault and a one-pool refund): jettons in to another
// recipient paid TON by the native vault, a route whose second pool
// refuses, and a swap whose vault wallets the indexer does not know.
// toncenter's incoming and outgoing transfers take their asset and amount
// from the pools' swap logs (the first pool's in, the last logged pool's
// out), the rest from the legs.
func TestDedustSwapShapes(t *testing.T) {
	one := ddStep(ddPool1, 900, nil)
	two := ddStep(ddPool1, 0, &abi.DedustSwapStep{PoolAddr: msgAddr(ddPool2), Params: abi.DedustSwapStepParams{Limit: varCoins(400)}})
	params := ddParams(tUser, "")
	jA, jB := ddJetton(tMasterA), ddJetton(tMasterB)
	userIn := actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000", Source: actions.Address(tUser), Destination: actions.Address(ddVaultA),
		SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(ddVaultAWal)}
	in := func(step abi.DedustSwapStep, params abi.DedustSwapParams, pool *stx) *stx {
		return ext(tUser, leg(tUser, tUserWallet, ddVaultAWal, ddVaultA, 1000, ddJettonPayload(step, params), pool))
	}
	t.Run("jettons to TON for another recipient", func(t *testing.T) {
		// Pool 2 holds TON and jetton B: the user sends B.
		step := ddStep(ddPool2, 4_000_000_000, nil)
		other := ddParams(ddOther, acct(99))
		pool := call(ddPool2, 300_000_000, ddExternal(1000, tUser, step, other),
			call(ddNativeVault, 200_000_000, ddPayoutFromPool(5_000_000_000, ddOther),
				call(ddOther, 5_100_000_000, ddPayout()))).
			logs(ddLog(jB, ddNative, 1000, 5_000_000_000, tUser, acct(99)))
		root := ext(tUser, leg(tUser, tUserB, ddVaultBWal, ddVaultB, 1000, ddJettonPayload(step, other), pool))
		a := classify(t, root, ddKnown()).one(t, "JettonSwap")
		wantSwap(t, a, "ok",
			actions.SwapTransfer{Asset: actions.Address(tMasterB), Amount: "1000", Source: actions.Address(tUser), Destination: actions.Address(ddVaultB),
				SourceJettonWallet: actions.Address(tUserB), DestinationJettonWallet: actions.Address(ddVaultBWal)},
			actions.SwapTransfer{Amount: "5000000000", Source: actions.Address(ddNativeVault), Destination: actions.Address(ddOther)})
		a.wantTxs(t, 8) // the user's wallet, the leg in with its excess (4), pool, vault, payout
	})
	t.Run("second pool refuses", func(t *testing.T) {
		// Pool 1 swaps A for 950 B, pool 2 logs nothing and has the B
		// vault pay the 950 B back: failed, out = what pool 1 made.
		p2 := call(ddPool2, 250_000_000, ddPeer(jB, 950, tUser, *two.Params.Next, params),
			call(ddVaultB, 200_000_000, ddPayoutFromPool(950, tUser),
				leg(ddVaultB, ddVaultBWal, tUserB, tUser, 950, nil)))
		pool := call(ddPool1, 300_000_000, ddExternal(1000, tUser, two, params), p2).
			logs(ddLog(jA, jB, 1000, 950, tUser, ""))
		a := classify(t, in(two, params, pool), ddKnown()).one(t, "JettonSwap")
		wantSwap(t, a, "failed", userIn,
			actions.SwapTransfer{Asset: actions.Address(tMasterB), Amount: "950", Source: actions.Address(ddVaultB), Destination: actions.Address(tUser),
				SourceJettonWallet: actions.Address(ddVaultBWal), DestinationJettonWallet: actions.Address(tUserB)})
		if v := swapOf(t, a); v.PeerSwaps != nil || v.MinOutAmount != "400" {
			t.Errorf("peer swaps %+v, min out %s", v.PeerSwaps, v.MinOutAmount)
		}
	})
	t.Run("assets from the logs", func(t *testing.T) {
		// No jetton wallet known: the log names both assets.
		pool := call(ddPool1, 300_000_000, ddExternal(1000, tUser, one, params),
			call(ddVaultB, 200_000_000, ddPayoutFromPool(950, tUser),
				leg(ddVaultB, ddVaultBWal, tUserB, tUser, 950, nil))).
			logs(ddLog(jA, jB, 1000, 950, tUser, ""))
		v := swapOf(t, classify(t, in(one, params, pool), nil).one(t, "JettonSwap:ok"))
		if v.DexIncomingTransfer.Asset != actions.Address(tMasterA) || v.DexOutgoingTransfer.Asset != actions.Address(tMasterB) ||
			v.JettonMasterIn != actions.Address(tMasterA) || v.JettonMasterOut != actions.Address(tMasterB) {
			t.Errorf("assets in %s/%s out %s/%s", v.DexIncomingTransfer.Asset, v.JettonMasterIn, v.DexOutgoingTransfer.Asset, v.JettonMasterOut)
		}
	})
}
