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
	deployer, router, pool := liqAddr("tonco deployer"), liqAddr("tonco router"), liqAddr("tonco new pool")
	w0, w1, m0, m1 := liqAddr("router wallet 0"), liqAddr("router wallet 1"), liqAddr("minter 0"), liqAddr("minter 1")
	price := tlb.Uint160(*big.NewInt(79228162514264337))
	create := toncoCreatePoolT{Wallet0: liqMsgAddr(w0), Wallet1: liqMsgAddr(w1), TickSpacing: 60, Price: price,
		ProtocolFee: 33268, Base: 15, Current: 10,
		NftContent: tlb.Any(*boc.NewCell()), ItemContent: tlb.Any(*boc.NewCell())}
	create.Minters.Minter0, create.Minters.Minter1, create.Minters.Controller = liqMsgAddr(m0), liqMsgAddr(m1), liqNone
	initBody := toncoPoolInitT{Admin: liqNone, Controller: liqNone, TickSpacing: 60, Price: price, SetActive: true, PoolActive: true}
	for _, tc := range []struct {
		name     string
		initFail bool
		want     string
	}{{"initialized", false, chain.StatusOK}, {"init failed", true, chain.StatusFailed}} {
		t.Run(tc.name, func(t *testing.T) {
			initTx := liqT(pool, 60_000_000, liqBody(t, 0x441c39ed, initBody), liqT(router, 2_000_000, liqExcess(t)))
			if tc.initFail {
				initTx = liqT(pool, 60_000_000, liqBody(t, 0x441c39ed, initBody)).failed()
			}
			tr := liqTrace(deployer, liqT(router, 100_000_000, liqBody(t, 0x2e3034ef, create), initTx))
			a := liqOnly(t, liqClassify(t, tr, nil), "ToncoDeployPool")
			if a.status != tc.want {
				t.Errorf("status %s, want %s", a.status, tc.want)
			}
			liqWant(t, a, map[string]string{"deployer": deployer, "router": router, "pool": pool,
				"router_jetton_wallet_1": w0, "router_jetton_wallet_2": w1, "jetton_minter_1": m0, "jetton_minter_2": m1,
				"initial_price_x96": "79228162514264337", "pool_active": "true"})
			for k, w := range map[string]float64{"tick_spacing": 60, "protocol_fee": 33268, "lp_fee_base": 15, "lp_fee_current": 10} {
				if a.v[k] != w {
					t.Errorf("%s = %v, want %v", k, a.v[k], w)
				}
			}
		})
	}
}
