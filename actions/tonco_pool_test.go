package actions_test

import (
	"math/big"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("ToncoDeployPool", 5, 5)
}

// ROUTERV3_CREATE_POOL and POOLV3_INIT as the TL-B toncenter's indexer
// documents them.
type toncoCreatePoolT struct {
	QueryID                    uint64
	Wallet0, Wallet1           tlb.MsgAddress
	TickSpacing                tlb.Int24
	Price                      tlb.Uint160
	ProtocolFee, Base, Current uint16
	NftContent, ItemContent    tlb.Any `tlb:"^"`
	Minters                    struct {
		Minter0, Minter1, Controller tlb.MsgAddress
	} `tlb:"^"`
}

type toncoPoolInitT struct {
	QueryID               uint64
	FromAdmin, HasAdmin   bool
	Admin                 tlb.MsgAddress
	HasController         bool
	Controller            tlb.MsgAddress
	SetSpacing            bool
	TickSpacing           tlb.Int24
	SetPrice              bool
	Price                 tlb.Uint160
	SetActive, PoolActive bool
}

func TestToncoDeployPool(t *testing.T) {
	deployer, router, pool := named("tonco deployer"), named("tonco router"), named("tonco new pool")
	w0, w1, m0, m1 := named("router wallet 0"), named("router wallet 1"), named("minter 0"), named("minter 1")
	price := tlb.Uint160(*big.NewInt(79228162514264337))
	create := toncoCreatePoolT{Wallet0: msgAddr(w0), Wallet1: msgAddr(w1), TickSpacing: 60, Price: price,
		ProtocolFee: 33268, Base: 15, Current: 10,
		NftContent: tlb.Any(*boc.NewCell()), ItemContent: tlb.Any(*boc.NewCell())}
	create.Minters.Minter0, create.Minters.Minter1, create.Minters.Controller = msgAddr(m0), msgAddr(m1), msgAddr("")
	initBody := toncoPoolInitT{Admin: msgAddr(""), Controller: msgAddr(""), TickSpacing: 60, Price: price, SetActive: true, PoolActive: true}
	for _, tc := range []struct {
		name     string
		initFail bool
		want     string
	}{{"initialized", false, chain.StatusOK}, {"init failed: toncenter still reports it ok", true, chain.StatusOK}} {
		t.Run(tc.name, func(t *testing.T) {
			initTx := call(pool, 60_000_000, cellOf(op(0x441c39ed), tlbOf(initBody)))
			if tc.initFail {
				initTx.fails(100)
			} else {
				initTx.then(call(router, 2_000_000, excesses(0)))
			}
			tr := ext(deployer, call(router, 100_000_000, cellOf(op(0x2e3034ef), tlbOf(create)), initTx))
			a := classify(t, tr, nil).only(t, "ToncoDeployPool:"+tc.want)
			a.want(t, map[string]any{"deployer": deployer, "router": router, "pool": pool,
				"router_jetton_wallet_1": w0, "router_jetton_wallet_2": w1, "jetton_minter_1": m0, "jetton_minter_2": m1,
				"initial_price_x96": "79228162514264337", "pool_active": true,
				"tick_spacing": 60, "protocol_fee": 33268, "lp_fee_base": 15, "lp_fee_current": 10})
		})
	}
	t.Run("no init", func(t *testing.T) {
		// The router refused create_pool: toncenter sees no deployment,
		// only the call.
		tr := ext(deployer, call(router, 100_000_000, cellOf(op(0x2e3034ef), tlbOf(create))).fails(100))
		got := classify(t, tr, nil)
		if len(got.ofKind("ToncoDeployPool")) != 0 {
			t.Errorf("actions %v, want no ToncoDeployPool", got.kinds())
		}
	})
}
