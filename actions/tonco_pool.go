package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// ToncoDeployPool: a Tonco router deployed and initialized a pool.
type ToncoDeployPool struct {
	Deployer            Address `json:"deployer,omitempty" role:"sender" tc:"source" doc:"who asked the router to create the pool"`
	Router              Address `json:"router,omitempty" role:"contract" tc:"router" doc:"the Tonco router"`
	Pool                Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the new pool"`
	RouterJettonWallet1 Address `json:"router_jetton_wallet_1,omitempty" tc:"router_jetton_wallet_1" doc:"the router's wallet of the pool's jetton0"`
	RouterJettonWallet2 Address `json:"router_jetton_wallet_2,omitempty" tc:"router_jetton_wallet_2" doc:"the router's wallet of the pool's jetton1"`
	JettonMinter1       Address `json:"jetton_minter_1,omitempty" role:"master" tc:"jetton_minter_1" doc:"jetton0's master (wTTON's for TON)"`
	JettonMinter2       Address `json:"jetton_minter_2,omitempty" role:"master" tc:"jetton_minter_2" doc:"jetton1's master"`
	TickSpacing         *int64  `json:"tick_spacing,omitempty" tc:"tick_spacing" doc:"the pool's tick spacing"`
	InitialPriceX96     BigInt  `json:"initial_price_x96,omitempty" tc:"initial_price_x96" doc:"the initial sqrt price, Q64.96"`
	ProtocolFee         *int64  `json:"protocol_fee,omitempty" tc:"protocol_fee" doc:"the protocol's fee share"`
	LpFeeBase           *int64  `json:"lp_fee_base,omitempty" tc:"lp_fee_base" doc:"the LPs' base fee"`
	LpFeeCurrent        *int64  `json:"lp_fee_current,omitempty" tc:"lp_fee_current" doc:"the LPs' current fee"`
	PoolActive          *bool   `json:"pool_active,omitempty" tc:"pool_active" doc:"whether the pool was initialized active, as its init message says"`
}

func init() {
	declare(Type{Value: ToncoDeployPool{}, Title: "TONCO pool deployed", Describe: describeAs(func(v *ToncoDeployPool, w *Words) string {
		return "Deployed the TONCO pool " + w.Account(v.Pool) + " of " + w.JettonName(v.JettonMinter1) + " and " + w.JettonName(v.JettonMinter2)
	}),
		Toncenter: "tonco_deploy_pool", Protocols: "Tonco",
		Doc:    "ROUTERV3_CREATE_POOL (0x2e3034ef) at the router, POOLV3_INIT (0x441c39ed) from the router to the new pool, and the pool's excesses.",
		Failed: "never: as toncenter has it, the router's init message to the pool makes the deployment (without one there is no ToncoDeployPool)"})
	addMatcher(OrderProtocol+40, "ToncoDeployPool", matchToncoDeployPool)
}

// Tonco pool creation op codes, which tongo's abi lacks.
const (
	toncoCreatePoolOp abi.MsgOpCode = 0x2e3034ef // ROUTERV3_CREATE_POOL
	toncoPoolInitOp   abi.MsgOpCode = 0x441c39ed // POOLV3_INIT
)

// toncoCreatePoolBody: query_id:uint64 jetton_wallet0 jetton_wallet1
// tick_spacing:int24 initial_price_x96:uint160 protocol_fee:uint16
// lp_fee_base:uint16 lp_fee_current:uint16 nftv3_content:^Cell
// nftv3item_content:^Cell ^[jetton0_minter jetton1_minter controller].
type toncoCreatePoolBody struct {
	Op              uint32
	QueryID         uint64
	JettonWallet0   tlb.MsgAddress
	JettonWallet1   tlb.MsgAddress
	TickSpacing     tlb.Int24
	InitialPriceX96 tlb.Uint160
	ProtocolFee     uint16
	LpFeeBase       uint16
	LpFeeCurrent    uint16
	NftContent      tlb.Any `tlb:"^"`
	NftItemContent  tlb.Any `tlb:"^"`
	Minters         struct {
		Jetton0Minter tlb.MsgAddress
		Jetton1Minter tlb.MsgAddress
		Controller    tlb.MsgAddress
	} `tlb:"^"`
}

// toncoPoolInitBody is the start of POOLV3_INIT: query_id:uint64
// from_admin:bool has_admin:bool admin_addr has_controller:bool
// controller_addr set_spacing:bool tick_spacing:int24 set_price:bool
// initial_price_x96:uint160 set_active:bool pool_active:bool ...
type toncoPoolInitBody struct {
	Op              uint32
	QueryID         uint64
	FromAdmin       bool
	HasAdmin        bool
	Admin           tlb.MsgAddress
	HasController   bool
	Controller      tlb.MsgAddress
	SetSpacing      bool
	TickSpacing     tlb.Int24
	SetPrice        bool
	InitialPriceX96 tlb.Uint160
	SetActive       bool
	PoolActive      bool
}

// matchToncoDeployPool anchors at the router's create_pool and follows its
// init message to the pool it deploys; a create_pool the router did not
// follow with an init stays a plain call, as toncenter leaves it.
func matchToncoDeployPool(c *classifier, r *node) bool {
	poolInit := r.child(toncoPoolInitOp)
	if !r.is(toncoCreatePoolOp) || poolInit == nil {
		return false
	}
	var b toncoCreatePoolBody
	if !r.decode(&b) {
		return false
	}
	spacing := int64(b.TickSpacing)
	fee, base, current := int64(b.ProtocolFee), int64(b.LpFeeBase), int64(b.LpFeeCurrent)
	price := big.Int(b.InitialPriceX96)
	v := &ToncoDeployPool{Deployer: Address(r.in().Source), Router: Address(r.tx.Account),
		RouterJettonWallet1: Address(addr(b.JettonWallet0)), RouterJettonWallet2: Address(addr(b.JettonWallet1)),
		JettonMinter1: Address(addr(b.Minters.Jetton0Minter)), JettonMinter2: Address(addr(b.Minters.Jetton1Minter)),
		TickSpacing: &spacing, InitialPriceX96: BigInt(price.String()),
		ProtocolFee: &fee, LpFeeBase: &base, LpFeeCurrent: &current}
	v.Pool = Address(poolInit.tx.Account)
	d := newDraft(v, r.in().Hash, r, poolInit, poolInit.child(abi.ExcessMsgOpCode))
	var ib toncoPoolInitBody
	if poolInit.decode(&ib) {
		active := ib.PoolActive
		v.PoolActive = &active
	}
	c.add(d)
	return true
}
