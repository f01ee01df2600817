package actions_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// Swaps as toncenter's matchers shape them (events/blocks/swaps.py), on
// traces built from the DEXes' messages: the status is the DEX's own
// answer, and a route short of a step those matchers require is no swap.

// TestSwapStatusFromDexAnswer: a DeDust route from jetton A through B back
// to A (an arbitrage loop), both pools logging their swap, is paid out by
// the very vault wallet that took A in. toncenter's status is the pools'
// logs alone: ok, not a refund.
func TestSwapStatusFromDexAnswer(t *testing.T) {
	pool3 := acct(49) // a second pool of A and B
	back := abi.DedustSwapStep{PoolAddr: msgAddr(pool3), Params: abi.DedustSwapStepParams{Limit: varCoins(1001)}}
	route := ddStep(ddPool1, 0, &back)
	params := ddParams(tUser, "")
	jA, jB := ddJetton(tMasterA), ddJetton(tMasterB)
	p2 := call(pool3, 250_000_000, ddPeer(jB, 950, tUser, back, params),
		call(ddVaultA, 200_000_000, ddPayoutFromPool(1010, tUser),
			leg(ddVaultA, ddVaultAWal, tUserWallet, tUser, 1010, nil))).
		logs(ddLog(jB, jA, 950, 1010, tUser, ""))
	pool := call(ddPool1, 300_000_000, ddExternal(1000, tUser, route, params), p2).
		logs(ddLog(jA, jB, 1000, 950, tUser, ""))
	known := ddKnown()
	known[pool3] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{tMasterB, tMasterA}}
	root := ext(tUser, leg(tUser, tUserWallet, ddVaultAWal, ddVaultA, 1000, ddJettonPayload(route, params), pool))
	a := classify(t, root, known).one(t, "JettonSwap")
	wantSwap(t, a, "ok",
		actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000", Source: actions.Address(tUser), Destination: actions.Address(ddVaultA),
			SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(ddVaultAWal)},
		actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1010", Source: actions.Address(ddVaultA), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(ddVaultAWal), DestinationJettonWallet: actions.Address(tUserWallet)})
	if v := swapOf(t, a); len(v.PeerSwaps) != 2 || v.JettonMasterOut != actions.Address(tMasterA) {
		t.Errorf("peer swaps %+v, asset out %s", v.PeerSwaps, v.JettonMasterOut)
	}
}

// TestDedustSwapPreconditions: toncenter's DeDust swap needs the jettons'
// forward payload to be swap#e3a0d482 and the route to end in the pool's
// payout_from_pool; without either there is no JettonSwap (the jetton
// transfer and the calls stand alone).
func TestDedustSwapPreconditions(t *testing.T) {
	step := ddStep(ddPool1, 900, nil)
	params := ddParams(tUser, "")
	payout := func() *stx {
		return call(ddVaultB, 200_000_000, ddPayoutFromPool(950, tUser), leg(ddVaultB, ddVaultBWal, tUserB, tUser, 950, nil))
	}
	swapLog := ddLog(ddJetton(tMasterA), ddJetton(tMasterB), 1000, 950, tUser, "")
	for _, tc := range []struct {
		name    string
		payload *boc.Cell
		pool    *stx
		swap    bool
	}{
		{"as toncenter has it", ddJettonPayload(step, params), call(ddPool1, 300_000_000, ddExternal(1000, tUser, step, params), payout()).logs(swapLog), true},
		{"another payload op", cellOf(op(0xe3a0d483), tlbOf(step), ref(cellOf(tlbOf(params)))),
			call(ddPool1, 300_000_000, ddExternal(1000, tUser, step, params), payout()).logs(swapLog), false},
		{"no payout", ddJettonPayload(step, params), call(ddPool1, 300_000_000, ddExternal(1000, tUser, step, params)).fails(100), false},
		// Pending: the pool's payout request is sent but its transaction is
		// not in the trace yet; the swap stands until the trace completes.
		{"payout not yet in the trace", ddJettonPayload(step, params),
			call(ddPool1, 300_000_000, ddExternal(1000, tUser, step, params)).logs(swapLog).
				sendsUnseen(ddVaultB, 200_000_000, ddPayoutFromPool(950, tUser)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classify(t, ext(tUser, leg(tUser, tUserWallet, ddVaultAWal, ddVaultA, 1000, tc.payload, tc.pool)), ddKnown())
			if n := len(got.ofKind("JettonSwap")); (n == 1) != tc.swap || n > 1 {
				t.Errorf("actions %v, want a JettonSwap: %v", got.kinds(), tc.swap)
			}
		})
	}
}

// Tonco's router and its wallets (tRouter, tRouterA, tRouterB of the tonapi
// tests), a third jetton C, and two pools.
var (
	tcRouterC, tcUserC, tcMasterC = acct(60), acct(61), acct(62)
	tcPool1, tcPool2              = acct(63), acct(64)
)

func tcKnown() chain.KnownContracts {
	k := knownWallets()
	k[tcRouterC] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tcMasterC, Owner: tRouter}
	k[tcUserC] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tcMasterC, Owner: tUser}
	return k
}

// tcRequest is the payload the user sends with the asset:
// poolv3_swap#a7fb58f8 target_wallet price_limit:uint160 min_out recipient
// next:(Maybe ^Cell).
func tcRequest(target string, minOut uint64, next *boc.Cell) *boc.Cell {
	return cellOf(op(abi.Poolv3SwapMsgOpCode), addr(target), u(0, 160), coins(minOut), addr(tUser), maybeRef(next))
}

// tcSwap is the router's poolv3_swap to a pool.
func tcSwap(sourceWallet string, amount, minOut uint64) *boc.Cell {
	b := abi.Poolv3SwapMsgBody{QueryId: 1, OwnerAddress: msgAddr(tUser), SourceWallet: msgAddr(sourceWallet)}
	b.ParamsCell.Amount, b.ParamsCell.MinOutAmount = varCoins(amount), varCoins(minOut)
	b.PayloadsCell.TargetAddress = msgAddr(tUser)
	return cellOf(op(abi.Poolv3SwapMsgOpCode), tlbOf(b))
}

// tcPayTo is the pool's routerv3_pay_to to the router: exit code 200 (a
// swap), the amounts out and the router's wallets they are paid from.
func tcPayTo(exit uint32, amount0 uint64, wallet0 string, amount1 uint64, wallet1 string) *boc.Cell {
	return cellOf(op(abi.PayToMsgOpCode), u64(1), addr(tUser), addr(""), u(uint64(exit), 32), u64(0),
		maybeRef(cellOf(coins(amount0), addr(wallet0), coins(amount1), addr(wallet1))), bit(false))
}

// TestToncoRoute: Tonco's multi-hop route A -> B -> C, where the router
// hands pool 1's B to itself (a jetton transfer from its B wallet to
// itself, whose notification makes it ask pool 2), as toncenter's Tonco
// matcher follows it: one JettonSwap from the A that came in to the C paid
// out, a peer swap per pool from the pay_to answers, every router step
// inside it. A pool that answered with an error code makes it failed; a
// pool that never answered (no pay_to) makes no swap at all.
func TestToncoRoute(t *testing.T) {
	build := func(exit2 uint32, answer2 bool) *stx {
		last := tcRequest(tcRouterC, 880, nil)
		hop2 := call(tcPool2, 200_000_000, tcSwap(tRouterB, 950, 880))
		if answer2 {
			out := leg(tRouter, tcRouterC, tcUserC, tUser, 900, nil)
			if exit2 != 200 { // the router gives B back
				out = leg(tRouter, tRouterB, tUserB, tUser, 950, nil)
			}
			hop2.then(call(tRouter, 150_000_000, tcPayTo(exit2, 0, tRouterB, 900, tcRouterC), out))
		}
		pool1 := call(tcPool1, 300_000_000, tcSwap(tRouterA, 1000, 0),
			call(tRouter, 250_000_000, tcPayTo(200, 0, tRouterA, 950, tRouterB),
				leg(tRouter, tRouterB, tRouterB, tRouter, 950, last, hop2)))
		return ext(tUser, leg(tUser, tUserWallet, tRouterA, tRouter, 1000, tcRequest(tRouterB, 0, last), pool1))
	}
	got := classify(t, build(200, true), tcKnown())
	a := got.one(t, "JettonSwap")
	wantSwap(t, a, "ok",
		actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000", Source: actions.Address(tUser), Destination: actions.Address(tRouter),
			SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tRouterA)},
		actions.SwapTransfer{Asset: actions.Address(tcMasterC), Amount: "900", Source: actions.Address(tRouter), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(tcRouterC), DestinationJettonWallet: actions.Address(tcUserC)})
	v := swapOf(t, a)
	wantPeers := []actions.PeerSwap{
		{AssetIn: actions.Address(tMasterA), AmountIn: "1000", AssetOut: actions.Address(tMasterB), AmountOut: "950"},
		{AssetIn: actions.Address(tMasterB), AmountIn: "950", AssetOut: actions.Address(tcMasterC), AmountOut: "900"},
	}
	if len(v.PeerSwaps) != 2 || v.PeerSwaps[0] != wantPeers[0] || v.PeerSwaps[1] != wantPeers[1] {
		t.Errorf("peer swaps %+v", v.PeerSwaps)
	}
	if v.JettonMasterOut != actions.Address(tcMasterC) || v.DexWalletTarget != actions.Address(tcRouterC) {
		t.Errorf("target %s (%s)", v.JettonMasterOut, v.DexWalletTarget)
	}
	// Every transaction: the user's wallet, the three legs with their
	// excesses (the router's own included), both pools, both pay_to.
	a.wantTxs(t, 17)
	got.expect(t, "JettonSwap:ok")

	failed := classify(t, build(0xfffe, true), tcKnown()).one(t, "JettonSwap")
	if v := swapOf(t, failed); failed.Status != "failed" || v.DexOutgoingTransfer == nil || v.DexOutgoingTransfer.Asset != actions.Address(tMasterB) ||
		v.JettonMasterOut != actions.Address(tcMasterC) || len(v.PeerSwaps) != 1 && len(v.PeerSwaps) != 0 {
		t.Errorf("pool 2 refused: %s, out %+v, target %s, peers %+v", failed.Status, v.DexOutgoingTransfer, v.JettonMasterOut, v.PeerSwaps)
	}

	// Pool 2 failed without answering: as toncenter's matchers follow the
	// route through the pools' answers, the swap is the route so far, A to
	// B, ending at what pool 1 paid out (the router's transfer on its way
	// to pool 2); pool 2's request is a call of its own.
	unanswered := classify(t, build(200, false), tcKnown())
	short := unanswered.one(t, "JettonSwap:ok")
	if v := swapOf(t, short); v.DexOutgoingTransfer == nil || v.DexOutgoingTransfer.Asset != actions.Address(tMasterB) ||
		v.DexOutgoingTransfer.Amount != "950" || len(v.PeerSwaps) > 1 {
		t.Errorf("pool 2 never answered: out %+v, peers %+v", v.DexOutgoingTransfer, v.PeerSwaps)
	}
	var pool2Call bool
	for _, x := range unanswered.ofKind("SmartContractExec") {
		pool2Call = pool2Call || x.v["contract"] == tcPool2
	}
	if !pool2Call {
		t.Errorf("pool 2's request is not a call of its own: %v", unanswered.kinds())
	}
}

// TestSwapTonInFromContract: a contract (an aggregator, a bot) called by a
// wallet sends TON to Tonco's pTON wallet with ton_transfer. toncenter's
// incoming transfer is that ton_transfer: the contract is the sender, the
// amount is ton_amount, the pTON wallet the destination jetton wallet and
// the router the destination; the wallet above is not part of the swap's
// incoming leg.
func TestSwapTonInFromContract(t *testing.T) {
	bot, pton := acct(66), acct(67)
	known := tcKnown()
	known[pton] = chain.KnownContract{Kind: "jetton_wallet", Jetton: "0:949C4C66760C002800E2FA3D8A3CA4E1C90A9373B53AE7472033483BF14CD95E", Owner: tRouter}
	request := tcRequest(tcRouterC, 880, nil)
	tonTransfer := cellOf(op(abi.PtonTonTransferMsgOpCode), tlbOf(abi.PtonTonTransferMsgBody{QueryId: 1, TonAmount: 5_000_000_000,
		RefundAddress: msgAddr(bot), ForwardPayload: tlb.EitherRef[tlb.Any]{IsRight: true, Value: tlb.Any(*request)}}))
	notify := jetton{query: 1, amount: 5_000_000_000, from: bot, payload: request}.notify()
	pool := call(tcPool1, 300_000_000, tcSwap(pton, 5_000_000_000, 880),
		call(tRouter, 250_000_000, tcPayTo(200, 0, pton, 900, tcRouterC),
			leg(tRouter, tcRouterC, tcUserC, tUser, 900, nil)))
	root := ext(tUser, call(bot, 5_500_000_000, opQuery(0x7a4594a2, 1),
		call(pton, 5_300_000_000, tonTransfer, call(tRouter, 5_200_000_000, notify, pool))))
	a := classify(t, root, known).one(t, "JettonSwap")
	wantSwap(t, a, "ok",
		actions.SwapTransfer{Amount: "5000000000", Source: actions.Address(bot), Destination: actions.Address(tRouter), DestinationJettonWallet: actions.Address(pton)},
		actions.SwapTransfer{Asset: actions.Address(tcMasterC), Amount: "900", Source: actions.Address(tRouter), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(tcRouterC), DestinationJettonWallet: actions.Address(tcUserC)})
}

// TestSwapTransactionsAsLabelled: every labelled jetton_swap that lists
// its transactions (tx_hashes) is one of our JettonSwaps with exactly those
// transactions: toncenter's block spans the route's every step, the
// excesses of the transfers that carry the asset between routers included.
func TestSwapTransactionsAsLabelled(t *testing.T) {
	labelled := 0
	forEachCase(t, func(f, name, trace string, cs labelledCase) {
		var ours [][]string
		for _, exp := range cs.Expected {
			values, _ := fromYAML(&exp.Values).(map[string]any)
			hashes, _ := values["tx_hashes"].([]any)
			if exp.Type != "jetton_swap" || len(hashes) == 0 {
				continue
			}
			labelled++
			if ours == nil {
				for _, a := range classifyFile(t, trace, nil) {
					if a.Type == "JettonSwap" {
						ours = append(ours, slices.Sorted(slices.Values(a.Transactions)))
					}
				}
			}
			want := make([]string, 0, len(hashes))
			for _, h := range hashes {
				want = append(want, fmt.Sprint(h))
			}
			slices.Sort(want)
			if !slices.ContainsFunc(ours, func(got []string) bool { return slices.Equal(got, want) }) {
				t.Errorf("%s | %s: no JettonSwap spans the %d labelled transactions (ours: %v)", filepath.Base(f), name, len(want), ours)
			}
		}
	})
	if labelled == 0 {
		t.Fatal("no labelled jetton_swap lists its transactions")
	}
	t.Logf("%d labelled swaps list their transactions", labelled)
}

// TestStonfiV1ReferralNotThePayout: a STON.fi v1 pool pays the swap and the
// referral's fee with two payment requests. When the jettons reach the
// router from someone other than the user the swap pays (here the mainnet
// swap with its sender's address replaced), no payout goes to the
// transfer's owner; the referral's payment (exit code 0x45078540) must still
// not be taken for the swap's: it stays a JettonTransfer of its own, as
// toncenter reports it, and the swap's payout is not one.
func TestStonfiV1ReferralNotThePayout(t *testing.T) {
	const user = "0:CB1B24891A00B4F8A8C53C119E81F67B17865CD148621A25C82B05AE45AFE30C"
	const other = "0:ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB"
	path := testenv.Fixture(t, "toncenter-traces/traces/utNOlIUjzWv7MRoSUfkjHkBaIg40RkYMLOy9ljAaykQ=.json")
	rs := resultsOf(t, topLevel(classifyFile(t, path, func(tr *chain.ToncenterTrace) {
		for _, tx := range tr.Transactions {
			if tx.InMsg != nil && tx.InMsg.Source == user {
				tx.InMsg.Source = other
			}
			for i := range tx.OutMsgs {
				if tx.OutMsgs[i].Source == user {
					tx.OutMsgs[i].Source = other
				}
			}
		}
	})))
	rs.one(t, "JettonSwap:ok")
	var amounts []string
	for _, x := range rs.ofKind("JettonTransfer") {
		amounts = append(amounts, fmt.Sprint(x.v["amount"]))
	}
	if !slices.Equal(amounts, []string{"14272848"}) {
		t.Errorf("JettonTransfers beside the swap move %v, want the referral's 14272848 alone", amounts)
	}
}
