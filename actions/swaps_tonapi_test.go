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

// The fixtures hold no Bidask, MoonCX or Megaton trace: these tests build
// traces whose bodies follow the layouts of tongo's abi schemas
// (bidask.xml, mooncx.xml, megaton-fi.xml) and the flows of the protocols
// (see swaps_tonapi.go), and check the JettonSwap decoded from them.

// Accounts of the constructed traces.
var (
	tUser       = acct(1)
	tUserWallet = acct(2) // the user's jetton wallet (jetton A)
	tPool       = acct(3)
	tPoolWallet = acct(4) // the pool's jetton wallet (jetton A)
	tRange      = acct(5)
	tMasterA    = acct(6)
	tRouter     = acct(7)
	tRouterA    = acct(8) // the router's wallet of jetton A
	tRouterB    = acct(9) // the router's wallet of jetton B
	tExchange   = acct(10)
	tExchangeA  = acct(11)
	tExchangeB  = acct(12)
	tUserB      = acct(13) // the user's wallet of jetton B
	tMasterB    = acct(14)
)

// leg is owner's jetton transfer of amt from ownerWallet to dest's
// destWallet, the payload (nil: an empty one) in a reference, then the
// transactions the notification caused.
func leg(owner, ownerWallet, destWallet, dest string, amt uint64, payload *boc.Cell, then ...*stx) *stx {
	if payload == nil {
		payload = boc.NewCell()
	}
	return jettonLeg(jetton{amount: amt, to: dest, from: owner, response: owner, forward: 50_000_000, payload: payload},
		ownerWallet, destWallet, then...)
}

func knownWallets() chain.KnownContracts {
	return chain.KnownContracts{
		tUserWallet: {Kind: "jetton_wallet", Jetton: tMasterA, Owner: tUser},
		tPoolWallet: {Kind: "jetton_wallet", Jetton: tMasterA, Owner: tPool},
		tRouterA:    {Kind: "jetton_wallet", Jetton: tMasterA, Owner: tRouter},
		tRouterB:    {Kind: "jetton_wallet", Jetton: tMasterB, Owner: tRouter},
		tExchangeA:  {Kind: "jetton_wallet", Jetton: tMasterA, Owner: tExchange},
		tExchangeB:  {Kind: "jetton_wallet", Jetton: tMasterB, Owner: tExchange},
		tUserB:      {Kind: "jetton_wallet", Jetton: tMasterB, Owner: tUser},
	}
}

// swapOf is a JettonSwap's value.
func swapOf(t *testing.T, a result) actions.JettonSwap {
	t.Helper()
	var v actions.JettonSwap
	a.decode(t, &v)
	return v
}

// wantSwap checks one swap's facts.
func wantSwap(t *testing.T, a result, wantStatus string, in, out actions.SwapTransfer) {
	t.Helper()
	got := swapOf(t, a)
	if a.Status != wantStatus {
		t.Errorf("status %s, want %s", a.Status, wantStatus)
	}
	if got.DexIncomingTransfer == nil || *got.DexIncomingTransfer != in {
		t.Errorf("incoming %+v, want %+v", got.DexIncomingTransfer, in)
	}
	if got.DexOutgoingTransfer == nil || *got.DexOutgoingTransfer != out {
		t.Errorf("outgoing %+v, want %+v", got.DexOutgoingTransfer, out)
	}
	if got.Sender != in.Source || got.AmountIn != in.Amount || got.Recipient != out.Destination || got.AmountOut != out.Amount {
		t.Errorf("flat fields disagree with the transfers: %+v", got)
	}
}

// bidaskSwapBody: bidask_swap#f2ef6c1b query_id native_amount to_address
// slippage:(Either Coins uint256) exact_out ref_address and three Maybe refs.
type bidaskSwapBody struct {
	Op           uint32
	QueryID      uint64
	NativeAmount tlb.Grams
	To           tlb.MsgAddress
	Slippage     tlb.Either[tlb.Grams, tlb.Uint256]
	ExactOut     tlb.Grams
	Ref          tlb.MsgAddress
	A, R, F      tlb.Maybe[tlb.Ref[boc.Cell]]
}

// bidaskJettonPayload is the same without query_id and native_amount.
type bidaskJettonPayload struct {
	Op       uint32
	To       tlb.MsgAddress
	Slippage tlb.Either[tlb.Grams, tlb.Uint256]
	ExactOut tlb.Grams
	Ref      tlb.MsgAddress
	A, R, F  tlb.Maybe[tlb.Ref[boc.Cell]]
}

type bidaskNative struct {
	Op      uint32
	QueryID uint64
	Notify  bool
	Amount  tlb.Grams
	Fwd     tlb.Maybe[tlb.Ref[boc.Cell]]
}

func TestBidaskSwaps(t *testing.T) {
	none := msgAddr("")
	t.Run("TON to jetton", func(t *testing.T) {
		// pool -> range (internal_swap) -> pool (swap_success) -> pool pays jettons.
		root := ext(tUser,
			call(tPool, 5_200_000_000, cellOf(tlbOf(bidaskSwapBody{Op: abi.BidaskSwapMsgOpCode, QueryID: 1,
				NativeAmount: 5_000_000_000, To: msgAddr(tUser), Ref: none})),
				call(tRange, 100_000_000, opQuery(abi.BidaskInternalSwapMsgOpCode, 7),
					call(tPool, 80_000_000, opQuery(abi.BidaskSwapSuccessMsgOpCode, 7),
						leg(tPool, tPoolWallet, tUserWallet, tUser, 1_000_000, nil)))))
		a := classify(t, root, knownWallets()).only(t, "JettonSwap")
		if v := swapOf(t, a); v.Dex != "bidask" || v.Pool != actions.Address(tPool) {
			t.Errorf("dex %s pool %s", v.Dex, v.Pool)
		}
		wantSwap(t, a, "ok",
			actions.SwapTransfer{Amount: "5000000000", Source: actions.Address(tUser), Destination: actions.Address(tPool)},
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000000", Source: actions.Address(tPool), Destination: actions.Address(tUser),
				SourceJettonWallet: actions.Address(tPoolWallet), DestinationJettonWallet: actions.Address(tUserWallet)})
	})
	t.Run("jetton to TON", func(t *testing.T) {
		payload := cellOf(tlbOf(bidaskJettonPayload{Op: abi.BidaskSwapMsgOpCode, To: msgAddr(tUser), Ref: none}))
		root := ext(tUser,
			leg(tUser, tUserWallet, tPoolWallet, tPool, 3_000_000, payload,
				call(tRange, 100_000_000, opQuery(abi.BidaskInternalSwapV2MsgOpCode, 7),
					call(tPool, 80_000_000, opQuery(abi.BidaskSwapSuccessV2MsgOpCode, 7),
						call(tUser, 2_100_000_000, cellOf(tlbOf(bidaskNative{Op: abi.BidaskNativeTransferNotificationMsgOpCode, Amount: 2_000_000_000})))))))
		a := classify(t, root, knownWallets()).only(t, "JettonSwap")
		wantSwap(t, a, "ok",
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "3000000", Source: actions.Address(tUser), Destination: actions.Address(tPool),
				SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tPoolWallet)},
			actions.SwapTransfer{Amount: "2000000000", Source: actions.Address(tPool), Destination: actions.Address(tUser)})
	})
	t.Run("fallback refunds the jettons", func(t *testing.T) {
		payload := cellOf(tlbOf(bidaskJettonPayload{Op: abi.BidaskSwapMsgOpCode, To: msgAddr(tUser), Ref: none}))
		root := ext(tUser,
			leg(tUser, tUserWallet, tPoolWallet, tPool, 3_000_000, payload,
				call(tRange, 100_000_000, opQuery(abi.BidaskInternalSwapMsgOpCode, 7),
					call(tPool, 80_000_000, opQuery(abi.BidaskSwapFallbackMsgOpCode, 7),
						leg(tPool, tPoolWallet, tUserWallet, tUser, 3_000_000, nil)))))
		a := classify(t, root, knownWallets()).one(t, "JettonSwap")
		if v := swapOf(t, a); a.Status != "failed" || v.AmountOut != "3000000" || v.DexOutgoingTransfer.Asset != actions.Address(tMasterA) {
			t.Errorf("refund decoded as %s %+v", a.Status, v)
		}
	})
}

// moonSwapBody: moon_swap#b37a900b query_id amount:(VarUInteger 16)
// swap_params:(min_out deadline excess referral next_fulfill next_reject).
type moonSwapParams struct {
	MinOut   tlb.VarUInteger16
	Deadline uint64
	Excess   tlb.MsgAddress
	Referral tlb.MsgAddress
	Fulfill  tlb.Maybe[tlb.Ref[boc.Cell]]
	Reject   tlb.Maybe[tlb.Ref[boc.Cell]]
}

type moonSwapBody struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	Params  moonSwapParams
}

type moonJettonPayload struct {
	Op     uint32
	Params moonSwapParams
}

func TestMooncxSwaps(t *testing.T) {
	params := moonSwapParams{MinOut: varCoins(990_000), Excess: msgAddr(tUser), Referral: msgAddr("")}
	t.Run("TON to jetton", func(t *testing.T) {
		root := ext(tUser,
			call(tPool, 5_300_000_000, cellOf(tlbOf(moonSwapBody{Op: abi.MoonSwapMsgOpCode, Amount: varCoins(5_000_000_000), Params: params})),
				leg(tPool, tPoolWallet, tUserWallet, tUser, 1_000_000, opQuery(abi.MoonSwapSucceedMsgOpCode, 7))))
		a := classify(t, root, knownWallets()).only(t, "JettonSwap")
		wantSwap(t, a, "ok",
			actions.SwapTransfer{Amount: "5000000000", Source: actions.Address(tUser), Destination: actions.Address(tPool)},
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000000", Source: actions.Address(tPool), Destination: actions.Address(tUser),
				SourceJettonWallet: actions.Address(tPoolWallet), DestinationJettonWallet: actions.Address(tUserWallet)})
		if v := swapOf(t, a); v.Dex != "mooncx" || v.MinOutAmount != "990000" {
			t.Errorf("dex %s min out %s", v.Dex, v.MinOutAmount)
		}
	})
	t.Run("jetton to TON", func(t *testing.T) {
		payload := cellOf(tlbOf(moonJettonPayload{Op: abi.MoonSwapMsgOpCode, Params: params}))
		root := ext(tUser,
			leg(tUser, tUserWallet, tPoolWallet, tPool, 3_000_000, payload,
				call(tUser, 2_000_000_000, opQuery(abi.MoonSwapSucceedMsgOpCode, 7))))
		a := classify(t, root, knownWallets()).only(t, "JettonSwap")
		wantSwap(t, a, "ok",
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "3000000", Source: actions.Address(tUser), Destination: actions.Address(tPool),
				SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tPoolWallet)},
			actions.SwapTransfer{Amount: "2000000000", Source: actions.Address(tPool), Destination: actions.Address(tUser)})
		if v := swapOf(t, a); v.MinOutAmount != "990000" {
			t.Errorf("min out %s", v.MinOutAmount)
		}
	})
	t.Run("failed swap refunds TON", func(t *testing.T) {
		root := ext(tUser,
			call(tPool, 5_300_000_000, cellOf(tlbOf(moonSwapBody{Op: abi.MoonSwapMsgOpCode, Amount: varCoins(5_000_000_000), Params: params})),
				call(tUser, 5_250_000_000, opQuery(abi.MoonSwapFailedMsgOpCode, 7))))
		classify(t, root, knownWallets()).one(t, "JettonSwap:failed")
	})
}

// megatonLog: swap#7362d09c account_addr in_token_addr in_amount
// ^[out_token_addr out_amount], an external message of the exchange.
type megatonLog struct {
	Op      uint32
	Account tlb.MsgAddress
	InToken tlb.MsgAddress
	In      tlb.Grams
	Out     struct {
		OutToken tlb.MsgAddress
		Out      tlb.Grams
	} `tlb:"^"`
}

func TestMegatonSwap(t *testing.T) {
	l := megatonLog{Op: 0x7362d09c, Account: msgAddr(tUser), InToken: msgAddr(tMasterA), In: 100_000_000}
	l.Out.OutToken, l.Out.Out = msgAddr(tMasterB), 131_164
	// exchange -> router (jetton B) -> user.
	toUser := leg(tRouter, tRouterB, tUserB, tUser, 131_164, nil)
	back := leg(tExchange, tExchangeB, tRouterB, tRouter, 131_164, nil, toUser)
	hop := leg(tRouter, tRouterA, tExchangeA, tExchange, 100_000_000, nil, back)
	exchangeNotify := hop.kids[0].kids[0]
	exchangeNotify.logs(cellOf(tlbOf(l)))
	a := classify(t, ext(tUser, leg(tUser, tUserWallet, tRouterA, tRouter, 100_000_000, nil, hop)), knownWallets()).only(t, "JettonSwap")
	wantSwap(t, a, "ok",
		actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "100000000", Source: actions.Address(tUser), Destination: actions.Address(tRouter),
			SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tRouterA)},
		actions.SwapTransfer{Asset: actions.Address(tMasterB), Amount: "131164", Source: actions.Address(tRouter), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(tRouterB), DestinationJettonWallet: actions.Address(tUserB)})
	if v := swapOf(t, a); v.Dex != "megaton" || v.Pool != actions.Address(tExchange) {
		t.Errorf("dex %s pool %s", v.Dex, v.Pool)
	}
}

// TestDedustRoute builds a DeDust route of two pools (the fixtures hold
// only one-pool DeDust swaps): TON to the native vault with swap (two
// steps), the first pool's swap_external, its swap_peer to the second pool,
// payout_from_pool to the jetton vault, which pays the user. Each pool logs
// its swap. Right: one JettonSwap, ok, with a peer swap per pool from the
// logs, the asset asked for resolved through the pools' known assets, and
// the last step's limit as min_out_amount; a pool whose log is missing
// makes it failed.
func TestDedustRoute(t *testing.T) {
	pool1, pool2, nativeVault, jettonVault, vaultWallet := acct(20), acct(21), acct(22), acct(23), acct(24)
	build := func(t *testing.T, logSecond bool) result {
		last := abi.DedustSwapStep{PoolAddr: msgAddr(pool2), Params: abi.DedustSwapStepParams{Limit: varCoins(700)}}
		first := abi.DedustSwapStep{PoolAddr: msgAddr(pool1), Params: abi.DedustSwapStepParams{Limit: varCoins(0), Next: &last}}
		none := msgAddr("")
		swap := cellOf(op(abi.DedustSwapMsgOpCode), tlbOf(abi.DedustSwapMsgBody{Amount: 1_000_000_000, Step: first,
			SwapParams: abi.DedustSwapParams{RecipientAddr: none, ReferralAddr: none}}))
		logOf := func(in, out abi.DedustAsset, a, bOut int64) *boc.Cell {
			return cellOf(op(abi.DedustSwapExtOutMsgOpCode), tlbOf(abi.DedustSwapExtOutMsgBody{AssetIn: in, AssetOut: out,
				AmountIn: tlb.Grams(a), AmountOut: tlb.Grams(bOut), Field4: struct {
					SenderAddr   tlb.MsgAddress
					ReferralAddr tlb.MsgAddress
					Reserve0     tlb.Grams
					Reserve1     tlb.Grams
				}{msgAddr(tUser), none, 1, 1}}))
		}
		jettonAsset := func(raw string) abi.DedustAsset {
			id := ton.MustParseAccountID(raw)
			a := abi.DedustAsset{SumType: "Jetton"}
			a.Jetton.WorkchainId, a.Jetton.Address = int8(id.Workchain), id.Address
			return a
		}
		native := abi.DedustAsset{SumType: "Native"}
		p2 := call(pool2, 200_000_000, opQuery(abi.DedustSwapPeerMsgOpCode, 7),
			call(jettonVault, 100_000_000, opQuery(abi.DedustPayoutFromPoolMsgOpCode, 7),
				leg(jettonVault, vaultWallet, tUserB, tUser, 800, nil)))
		if logSecond {
			p2.logs(logOf(jettonAsset(tMasterA), jettonAsset(tMasterB), 5000, 800))
		}
		root := ext(tUser,
			call(nativeVault, 1_300_000_000, swap,
				call(pool1, 300_000_000, opQuery(abi.DedustSwapExternalMsgOpCode, 7), p2).
					logs(logOf(native, jettonAsset(tMasterA), 1_000_000_000, 5000))))
		known := knownWallets()
		known[pool1] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{"", tMasterA}}
		known[pool2] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{tMasterA, tMasterB}}
		known[vaultWallet] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tMasterB, Owner: jettonVault}
		return classify(t, root, known).only(t, "JettonSwap")
	}
	a := build(t, true)
	wantSwap(t, a, "ok",
		actions.SwapTransfer{Amount: "1000000000", Source: actions.Address(tUser), Destination: actions.Address(nativeVault)},
		actions.SwapTransfer{Asset: actions.Address(tMasterB), Amount: "800", Source: actions.Address(jettonVault), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(vaultWallet), DestinationJettonWallet: actions.Address(tUserB)})
	v := swapOf(t, a)
	wantPeers := []actions.PeerSwap{
		{AmountIn: "1000000000", AssetOut: actions.Address(tMasterA), AmountOut: "5000"},
		{AssetIn: actions.Address(tMasterA), AmountIn: "5000", AssetOut: actions.Address(tMasterB), AmountOut: "800"},
	}
	if len(v.PeerSwaps) != 2 || v.PeerSwaps[0] != wantPeers[0] || v.PeerSwaps[1] != wantPeers[1] {
		t.Errorf("peer swaps %+v", v.PeerSwaps)
	}
	if v.JettonMasterOut != actions.Address(tMasterB) || v.MinOutAmount != "700" || v.Pool != actions.Address(pool1) {
		t.Errorf("target %s min out %s pool %s", v.JettonMasterOut, v.MinOutAmount, v.Pool)
	}
	if a := build(t, false); a.Status != "failed" {
		t.Errorf("a pool without its log: %s", a.Status)
	}
}
