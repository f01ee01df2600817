package actions_test

import (
	"crypto/sha256"
	"encoding/json"
	"math/big"
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
	tUser       = rawOf(1)
	tUserWallet = rawOf(2) // the user's jetton wallet (jetton A)
	tPool       = rawOf(3)
	tPoolWallet = rawOf(4) // the pool's jetton wallet (jetton A)
	tRange      = rawOf(5)
	tMasterA    = rawOf(6)
	tRouter     = rawOf(7)
	tRouterA    = rawOf(8) // the router's wallet of jetton A
	tRouterB    = rawOf(9) // the router's wallet of jetton B
	tExchange   = rawOf(10)
	tExchangeA  = rawOf(11)
	tExchangeB  = rawOf(12)
	tUserB      = rawOf(13) // the user's wallet of jetton B
	tMasterB    = rawOf(14)
)

func rawOf(i byte) string {
	var id ton.AccountID
	id.Address[31] = i
	id.Address[0] = 0xAB
	return chain.RawAddress(id)
}

func varCoins(v int64) tlb.VarUInteger16 { return tlb.VarUInteger16(*big.NewInt(v)) }

// cellOf marshals v (its first field the op code) into a cell.
func cellOf(t *testing.T, v any) *boc.Cell {
	t.Helper()
	c := boc.NewCell()
	if err := tlb.Marshal(c, v); err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return c
}

// traceBuilder makes transactions with increasing lts.
type traceBuilder struct {
	t  *testing.T
	lt uint64
}

// tx is account's transaction on a message from `from` (external when "")
// carrying value and body, with the given children.
func (b *traceBuilder) tx(account, from string, value uint64, body *boc.Cell, kids ...*chain.TraceNode) *chain.TraceNode {
	b.lt += 10
	m := &chain.Message{Source: from, Destination: account, Value: value, CreatedLt: b.lt - 1}
	if body != nil {
		raw, err := body.ToBoc()
		if err != nil {
			b.t.Fatal(err)
		}
		m.Body = raw
		body.ResetCounters()
		if op, err := body.PickUint(32); err == nil {
			op32 := uint32(op)
			m.Opcode = &op32
		}
	}
	h := sha256.Sum256([]byte(account + from + string(rune(b.lt))))
	tx := &chain.Transaction{Hash: chain.Hash(h), Account: account, Lt: b.lt, Utime: 1700000000,
		ComputeSuccess: true, ActionSuccess: true, InMsg: m, OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive}
	return &chain.TraceNode{Tx: tx, Children: kids}
}

// log adds an external out-message (a log) to n's transaction.
func (b *traceBuilder) log(n *chain.TraceNode, body *boc.Cell) *chain.TraceNode {
	raw, _ := body.ToBoc()
	body.ResetCounters()
	op, _ := body.PickUint(32)
	op32 := uint32(op)
	n.Tx.OutMsgs = append(n.Tx.OutMsgs, chain.Message{Source: n.Tx.Account, Body: raw, Opcode: &op32})
	return n
}

// jetton message layouts (TEP-74).
type tTransfer struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	Dest    tlb.MsgAddress
	Resp    tlb.MsgAddress
	Custom  tlb.Maybe[tlb.Ref[boc.Cell]]
	Fwd     tlb.VarUInteger16
	Payload tlb.EitherRef[boc.Cell]
}

type tInternal struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	From    tlb.MsgAddress
	Resp    tlb.MsgAddress
	Fwd     tlb.VarUInteger16
	Payload tlb.EitherRef[boc.Cell]
}

type tNotify struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	Sender  tlb.MsgAddress
	Payload tlb.EitherRef[boc.Cell]
}

func payloadRef(c *boc.Cell) tlb.EitherRef[boc.Cell] {
	if c == nil { // an empty payload, in a ref (tlb writes no inline cell)
		c = boc.NewCell()
	}
	return tlb.EitherRef[boc.Cell]{IsRight: true, Value: *c}
}

// leg builds owner -> ownerWallet (transfer) -> destWallet (internal
// transfer) -> dest (notification, with then as its children), plus the
// excess back to owner.
func (b *traceBuilder) leg(owner, ownerWallet, destWallet, dest string, amt int64, payload *boc.Cell, then ...*chain.TraceNode) *chain.TraceNode {
	t := b.t
	notify := b.tx(dest, destWallet, 50_000_000, cellOf(t, tNotify{Op: 0x7362d09c, Amount: varCoins(amt), Sender: msgAddr(owner), Payload: payloadRef(payload)}), then...)
	excess := b.tx(owner, destWallet, 10_000_000, cellOf(t, struct {
		Op      uint32
		QueryID uint64
	}{0xd53276db, 0}))
	internal := b.tx(destWallet, ownerWallet, 90_000_000, cellOf(t, tInternal{Op: 0x178d4519, Amount: varCoins(amt), From: msgAddr(owner),
		Resp: msgAddr(owner), Fwd: varCoins(50_000_000), Payload: payloadRef(payload)}), notify, excess)
	return b.tx(ownerWallet, owner, 100_000_000, cellOf(t, tTransfer{Op: 0x0f8a7ea5, Amount: varCoins(amt), Dest: msgAddr(dest),
		Resp: msgAddr(owner), Fwd: varCoins(50_000_000), Payload: payloadRef(payload)}), internal)
}

func (b *traceBuilder) opOnly(op uint32) *boc.Cell {
	return cellOf(b.t, struct {
		Op      uint32
		QueryID uint64
	}{op, 7})
}

// classifyBuilt classifies a trace rooted at a wallet's external message
// and returns its JettonSwaps as values, with their statuses.
func classifyBuilt(t *testing.T, root *chain.TraceNode, known chain.KnownContracts) ([]actions.JettonSwap, []string, []chain.Action) {
	t.Helper()
	root.Tx.InMsg.Source = ""
	tr := &chain.Trace{ID: root.Tx.Hash, Root: root, StartLt: root.Tx.Lt, EndLt: root.Tx.Lt + 1000}
	all := actions.Classify(tr, known)
	var swaps []actions.JettonSwap
	var status []string
	for _, a := range all {
		if a.Type != "JettonSwap" {
			continue
		}
		var v actions.JettonSwap
		if err := json.Unmarshal(a.Value, &v); err != nil {
			t.Fatal(err)
		}
		swaps = append(swaps, v)
		status = append(status, a.Status)
	}
	return swaps, status, all
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

// wantSwap checks one swap's facts.
func wantSwap(t *testing.T, got actions.JettonSwap, status, wantStatus string, in, out actions.SwapTransfer) {
	t.Helper()
	if status != wantStatus {
		t.Errorf("status %s, want %s", status, wantStatus)
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

// onlyAction fails when the trace decodes to anything but the swaps.
func onlyAction(t *testing.T, all []chain.Action, typ string) {
	t.Helper()
	for _, a := range all {
		if a.Type != typ {
			t.Errorf("left over: %s %s", a.Type, a.Value)
		}
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
	none := tlb.MsgAddress{SumType: "AddrNone"}
	t.Run("TON to jetton", func(t *testing.T) {
		b := &traceBuilder{t: t}
		// pool -> range (internal_swap) -> pool (swap_success) -> pool pays jettons.
		success := b.tx(tPool, tRange, 80_000_000, b.opOnly(uint32(abi.BidaskSwapSuccessMsgOpCode)),
			b.leg(tPool, tPoolWallet, tUserWallet, tUser, 1_000_000, nil))
		rng := b.tx(tRange, tPool, 100_000_000, b.opOnly(uint32(abi.BidaskInternalSwapMsgOpCode)), success)
		pool := b.tx(tPool, tUser, 5_200_000_000, cellOf(t, bidaskSwapBody{Op: uint32(abi.BidaskSwapMsgOpCode), QueryID: 1,
			NativeAmount: 5_000_000_000, To: msgAddr(tUser), Ref: none}), rng)
		root := b.tx(tUser, "", 0, nil, pool)
		swaps, status, all := classifyBuilt(t, root, knownWallets())
		if len(swaps) != 1 {
			t.Fatalf("%d swaps", len(swaps))
		}
		onlyAction(t, all, "JettonSwap")
		if swaps[0].Dex != "bidask" || swaps[0].Pool != actions.Address(tPool) {
			t.Errorf("dex %s pool %s", swaps[0].Dex, swaps[0].Pool)
		}
		wantSwap(t, swaps[0], status[0], "ok",
			actions.SwapTransfer{Amount: "5000000000", Source: actions.Address(tUser), Destination: actions.Address(tPool)},
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000000", Source: actions.Address(tPool), Destination: actions.Address(tUser),
				SourceJettonWallet: actions.Address(tPoolWallet), DestinationJettonWallet: actions.Address(tUserWallet)})
	})
	t.Run("jetton to TON", func(t *testing.T) {
		b := &traceBuilder{t: t}
		native := b.tx(tUser, tPool, 2_100_000_000, cellOf(t, bidaskNative{Op: uint32(abi.BidaskNativeTransferNotificationMsgOpCode), Amount: 2_000_000_000}))
		success := b.tx(tPool, tRange, 80_000_000, b.opOnly(uint32(abi.BidaskSwapSuccessV2MsgOpCode)), native)
		rng := b.tx(tRange, tPool, 100_000_000, b.opOnly(uint32(abi.BidaskInternalSwapV2MsgOpCode)), success)
		payload := cellOf(t, bidaskJettonPayload{Op: uint32(abi.BidaskSwapMsgOpCode), To: msgAddr(tUser), Ref: none})
		root := b.tx(tUser, "", 0, nil, b.leg(tUser, tUserWallet, tPoolWallet, tPool, 3_000_000, payload, rng))
		swaps, status, all := classifyBuilt(t, root, knownWallets())
		if len(swaps) != 1 {
			t.Fatalf("%d swaps", len(swaps))
		}
		onlyAction(t, all, "JettonSwap")
		wantSwap(t, swaps[0], status[0], "ok",
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "3000000", Source: actions.Address(tUser), Destination: actions.Address(tPool),
				SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tPoolWallet)},
			actions.SwapTransfer{Amount: "2000000000", Source: actions.Address(tPool), Destination: actions.Address(tUser)})
	})
	t.Run("fallback refunds the jettons", func(t *testing.T) {
		b := &traceBuilder{t: t}
		fallback := b.tx(tPool, tRange, 80_000_000, b.opOnly(uint32(abi.BidaskSwapFallbackMsgOpCode)),
			b.leg(tPool, tPoolWallet, tUserWallet, tUser, 3_000_000, nil))
		rng := b.tx(tRange, tPool, 100_000_000, b.opOnly(uint32(abi.BidaskInternalSwapMsgOpCode)), fallback)
		payload := cellOf(t, bidaskJettonPayload{Op: uint32(abi.BidaskSwapMsgOpCode), To: msgAddr(tUser), Ref: none})
		root := b.tx(tUser, "", 0, nil, b.leg(tUser, tUserWallet, tPoolWallet, tPool, 3_000_000, payload, rng))
		swaps, status, _ := classifyBuilt(t, root, knownWallets())
		if len(swaps) != 1 {
			t.Fatalf("%d swaps", len(swaps))
		}
		if status[0] != "failed" || swaps[0].AmountOut != "3000000" || swaps[0].DexOutgoingTransfer.Asset != actions.Address(tMasterA) {
			t.Errorf("refund decoded as %s %+v", status[0], swaps[0])
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
	none := tlb.MsgAddress{SumType: "AddrNone"}
	params := moonSwapParams{MinOut: varCoins(990_000), Excess: msgAddr(tUser), Referral: none}
	t.Run("TON to jetton", func(t *testing.T) {
		b := &traceBuilder{t: t}
		pool := b.tx(tPool, tUser, 5_300_000_000, cellOf(t, moonSwapBody{Op: uint32(abi.MoonSwapMsgOpCode), Amount: varCoins(5_000_000_000), Params: params}),
			b.leg(tPool, tPoolWallet, tUserWallet, tUser, 1_000_000, b.opOnly(uint32(abi.MoonSwapSucceedMsgOpCode))))
		root := b.tx(tUser, "", 0, nil, pool)
		swaps, status, all := classifyBuilt(t, root, knownWallets())
		if len(swaps) != 1 {
			t.Fatalf("%d swaps", len(swaps))
		}
		onlyAction(t, all, "JettonSwap")
		wantSwap(t, swaps[0], status[0], "ok",
			actions.SwapTransfer{Amount: "5000000000", Source: actions.Address(tUser), Destination: actions.Address(tPool)},
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "1000000", Source: actions.Address(tPool), Destination: actions.Address(tUser),
				SourceJettonWallet: actions.Address(tPoolWallet), DestinationJettonWallet: actions.Address(tUserWallet)})
		if swaps[0].Dex != "mooncx" || swaps[0].MinOutAmount != "990000" {
			t.Errorf("dex %s min out %s", swaps[0].Dex, swaps[0].MinOutAmount)
		}
	})
	t.Run("jetton to TON", func(t *testing.T) {
		b := &traceBuilder{t: t}
		paid := b.tx(tUser, tPool, 2_000_000_000, b.opOnly(uint32(abi.MoonSwapSucceedMsgOpCode)))
		payload := cellOf(t, moonJettonPayload{Op: uint32(abi.MoonSwapMsgOpCode), Params: params})
		root := b.tx(tUser, "", 0, nil, b.leg(tUser, tUserWallet, tPoolWallet, tPool, 3_000_000, payload, paid))
		swaps, status, all := classifyBuilt(t, root, knownWallets())
		if len(swaps) != 1 {
			t.Fatalf("%d swaps", len(swaps))
		}
		onlyAction(t, all, "JettonSwap")
		wantSwap(t, swaps[0], status[0], "ok",
			actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "3000000", Source: actions.Address(tUser), Destination: actions.Address(tPool),
				SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tPoolWallet)},
			actions.SwapTransfer{Amount: "2000000000", Source: actions.Address(tPool), Destination: actions.Address(tUser)})
		if swaps[0].MinOutAmount != "990000" {
			t.Errorf("min out %s", swaps[0].MinOutAmount)
		}
	})
	t.Run("failed swap refunds TON", func(t *testing.T) {
		b := &traceBuilder{t: t}
		pool := b.tx(tPool, tUser, 5_300_000_000, cellOf(t, moonSwapBody{Op: uint32(abi.MoonSwapMsgOpCode), Amount: varCoins(5_000_000_000), Params: params}),
			b.tx(tUser, tPool, 5_250_000_000, b.opOnly(uint32(abi.MoonSwapFailedMsgOpCode))))
		root := b.tx(tUser, "", 0, nil, pool)
		swaps, status, _ := classifyBuilt(t, root, knownWallets())
		if len(swaps) != 1 || status[0] != "failed" {
			t.Fatalf("%d swaps %v", len(swaps), status)
		}
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
	b := &traceBuilder{t: t}
	// exchange -> router (jetton B) -> user.
	toUser := b.leg(tRouter, tRouterB, tUserB, tUser, 131_164, nil)
	back := b.leg(tExchange, tExchangeB, tRouterB, tRouter, 131_164, nil, toUser)
	l := megatonLog{Op: 0x7362d09c, Account: msgAddr(tUser), InToken: msgAddr(tMasterA), In: 100_000_000}
	l.Out.OutToken, l.Out.Out = msgAddr(tMasterB), 131_164
	hop := b.leg(tRouter, tRouterA, tExchangeA, tExchange, 100_000_000, nil, back)
	exchangeNotify := hop.Children[0].Children[0]
	b.log(exchangeNotify, cellOf(t, l))
	root := b.tx(tUser, "", 0, nil, b.leg(tUser, tUserWallet, tRouterA, tRouter, 100_000_000, nil, hop))
	swaps, status, all := classifyBuilt(t, root, knownWallets())
	if len(swaps) != 1 {
		t.Fatalf("%d swaps: %v", len(swaps), all)
	}
	onlyAction(t, all, "JettonSwap")
	wantSwap(t, swaps[0], status[0], "ok",
		actions.SwapTransfer{Asset: actions.Address(tMasterA), Amount: "100000000", Source: actions.Address(tUser), Destination: actions.Address(tRouter),
			SourceJettonWallet: actions.Address(tUserWallet), DestinationJettonWallet: actions.Address(tRouterA)},
		actions.SwapTransfer{Asset: actions.Address(tMasterB), Amount: "131164", Source: actions.Address(tRouter), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(tRouterB), DestinationJettonWallet: actions.Address(tUserB)})
	if swaps[0].Dex != "megaton" || swaps[0].Pool != actions.Address(tExchange) {
		t.Errorf("dex %s pool %s", swaps[0].Dex, swaps[0].Pool)
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
	pool1, pool2, nativeVault, jettonVault, vaultWallet := rawOf(20), rawOf(21), rawOf(22), rawOf(23), rawOf(24)
	build := func(t *testing.T, logSecond bool) ([]actions.JettonSwap, []string) {
		b := &traceBuilder{t: t}
		last := abi.DedustSwapStep{PoolAddr: msgAddr(pool2), Params: abi.DedustSwapStepParams{Limit: varCoins(700)}}
		first := abi.DedustSwapStep{PoolAddr: msgAddr(pool1), Params: abi.DedustSwapStepParams{Limit: varCoins(0), Next: &last}}
		none := tlb.MsgAddress{SumType: "AddrNone"}
		swap := struct {
			Op   uint32
			Body abi.DedustSwapMsgBody
		}{uint32(abi.DedustSwapMsgOpCode), abi.DedustSwapMsgBody{Amount: 1_000_000_000, Step: first,
			SwapParams: abi.DedustSwapParams{RecipientAddr: none, ReferralAddr: none}}}
		logOf := func(in, out abi.DedustAsset, a, bOut int64) *boc.Cell {
			return cellOf(t, struct {
				Op   uint32
				Body abi.DedustSwapExtOutMsgBody
			}{uint32(abi.DedustSwapExtOutMsgOpCode), abi.DedustSwapExtOutMsgBody{AssetIn: in, AssetOut: out,
				AmountIn: tlb.Grams(a), AmountOut: tlb.Grams(bOut), Field4: struct {
					SenderAddr   tlb.MsgAddress
					ReferralAddr tlb.MsgAddress
					Reserve0     tlb.Grams
					Reserve1     tlb.Grams
				}{msgAddr(tUser), none, 1, 1}}})
		}
		jettonAsset := func(raw string) abi.DedustAsset {
			id := ton.MustParseAccountID(raw)
			a := abi.DedustAsset{SumType: "Jetton"}
			a.Jetton.WorkchainId, a.Jetton.Address = int8(id.Workchain), id.Address
			return a
		}
		native := abi.DedustAsset{SumType: "Native"}
		payout := b.tx(jettonVault, pool2, 100_000_000, b.opOnly(uint32(abi.DedustPayoutFromPoolMsgOpCode)),
			b.leg(jettonVault, vaultWallet, tUserB, tUser, 800, nil))
		p2 := b.tx(pool2, pool1, 200_000_000, b.opOnly(uint32(abi.DedustSwapPeerMsgOpCode)), payout)
		if logSecond {
			b.log(p2, logOf(jettonAsset(tMasterA), jettonAsset(tMasterB), 5000, 800))
		}
		p1 := b.log(b.tx(pool1, nativeVault, 300_000_000, b.opOnly(uint32(abi.DedustSwapExternalMsgOpCode)), p2),
			logOf(native, jettonAsset(tMasterA), 1_000_000_000, 5000))
		vault := b.tx(nativeVault, tUser, 1_300_000_000, cellOf(t, swap), p1)
		root := b.tx(tUser, "", 0, nil, vault)
		known := knownWallets()
		known[pool1] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{"", tMasterA}}
		known[pool2] = chain.KnownContract{Kind: "dedust_pool", Assets: []string{tMasterA, tMasterB}}
		known[vaultWallet] = chain.KnownContract{Kind: "jetton_wallet", Jetton: tMasterB, Owner: jettonVault}
		swaps, status, all := classifyBuilt(t, root, known)
		onlyAction(t, all, "JettonSwap")
		if len(swaps) != 1 {
			t.Fatalf("%d swaps", len(swaps))
		}
		return swaps, status
	}
	swaps, status := build(t, true)
	v := swaps[0]
	wantSwap(t, v, status[0], "ok",
		actions.SwapTransfer{Amount: "1000000000", Source: actions.Address(tUser), Destination: actions.Address(nativeVault)},
		actions.SwapTransfer{Asset: actions.Address(tMasterB), Amount: "800", Source: actions.Address(jettonVault), Destination: actions.Address(tUser),
			SourceJettonWallet: actions.Address(vaultWallet), DestinationJettonWallet: actions.Address(tUserB)})
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
	if _, status := build(t, false); status[0] != "failed" {
		t.Errorf("a pool without its log: %s", status[0])
	}
}
