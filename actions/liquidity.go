package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// DexDepositLiquidity: assets put into a DEX pool for LP jettons or a
// liquidity position.
type DexDepositLiquidity struct {
	Dex             string  `json:"dex,omitempty" tc:"dex" doc:"dedust, stonfi_v2, coffee or tonco"`
	Sender          Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who deposited"`
	Pool            Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the pool, when the deposit reached it"`
	DepositContract Address `json:"deposit_contract,omitempty" tc:"destination_liquidity" doc:"the DEX's per-user deposit contract: DeDust's deposit, STON.fi's LP account, Coffee's liquidity depository, Tonco's user account"`
	Asset1          Address `json:"asset_1,omitempty" role:"master" tc:"asset_1" doc:"first asset (jetton master); absent for TON or when unknown"`
	Amount1         BigInt  `json:"amount_1,omitempty" tc:"amount_1" doc:"amount of the first asset"`
	Asset2          Address `json:"asset_2,omitempty" role:"master" tc:"asset_2" doc:"second asset (jetton master); absent for TON or when unknown"`
	Amount2         BigInt  `json:"amount_2,omitempty" tc:"amount_2" doc:"amount of the second asset"`
	LpAmount        BigInt  `json:"lp_amount,omitempty" tc:"lp_tokens_minted" doc:"LP jettons minted (Tonco: the position's liquidity); only on the action that completed the deposit"`
	LpWallet        Address `json:"lp_wallet,omitempty" doc:"the sender's LP jetton wallet"`
	TickLower       *int64  `json:"tick_lower,omitempty" tc:"tick_lower" doc:"Tonco: lower tick of the position"`
	TickUpper       *int64  `json:"tick_upper,omitempty" tc:"tick_upper" doc:"Tonco: upper tick of the position"`
	Nft             Address `json:"nft,omitempty" role:"contract" tc:"nft_address" doc:"Tonco: the position NFT"`
	NftIndex        BigInt  `json:"nft_index,omitempty" tc:"nft_index" doc:"Tonco: index of the position NFT"`
}

func init() {
	declare(Type{Value: DexDepositLiquidity{}, Toncenter: "dex_deposit_liquidity",
		Protocols: "DeDust, Coffee, Tonco",
		Doc:       "DeDust: one action per deposit (both assets sent in one wallet message merge); Coffee and Tonco: one action per asset sent, as toncenter reports them; only the branch that completed the deposit carries the pool's answer.",
		Failed:    "the pool failed or minted no LP jettons (it cancelled and refunded the deposit); for a Coffee or Tonco branch also: its asset did not reach the DEX contract that records it"})
	addMatcher(OrderProtocol+20, "DexDepositLiquidity/dedust", matchDedustDeposit)
	addMatcher(OrderProtocol+21, "DexDepositLiquidity/coffee", matchCoffeeDeposit)
	addMatcher(OrderProtocol+22, "DexDepositLiquidity/tonco", matchToncoDeposit)
}

// matchDedustDeposit anchors at a DeDust pool told deposit_liquidity_all by
// a liquidity-deposit contract: that contract collects each asset the user
// sent to a vault, and asks the pool only once all of them are in. Every
// branch of the trace that fed the same deposit contract is one deposit
// (a TON and a jetton sent in one wallet message are one action); the pool
// answers by minting LP jettons, or by cancelling and refunding.
func matchDedustDeposit(c *classifier, p *node) bool {
	if !p.is(abi.DedustDepositLiquidityAllMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.DedustDepositLiquidityAllMsgBody](p)
	if !ok {
		return false
	}
	owner, deposit := addr(body.OwnerAddr), p.in().Source
	assets := body.Field4
	v := &DexDepositLiquidity{Dex: "dedust", Sender: Address(owner), Pool: Address(p.tx.Account),
		DepositContract: Address(deposit),
		Asset1:          Address(dedustAsset(assets.Asset0)), Amount1: amount(assets.Asset0Amount),
		Asset2: Address(dedustAsset(assets.Asset1)), Amount2: amount(assets.Asset1Amount)}
	d := newDraft(v, p.in().Hash, p)
	heads := map[*node]bool{}
	for _, n := range c.nodes {
		if n.tx.Account != deposit || n.used {
			continue
		}
		if h := requestOf(n, owner); !heads[h] {
			heads[h] = true
			d.claimSubtree(h)
			d.withInitiator(h)
		}
	}
	d.claimSubtree(p)
	lp := p.child(abi.JettonInternalTransferMsgOpCode)
	d.ok = p.ok() && lp != nil && lp.ok()
	if lp != nil {
		if _, amt, ok := internalTransferHead(lp); ok {
			v.LpAmount = amt
		}
		v.LpWallet = Address(lp.tx.Account)
	}
	c.add(d)
	return true
}

// requestOf walks up from n to the message the user sent (to a vault, or to
// their jetton wallet): the start of the branch that belongs to the action.
// Without the user on the path it stops below the trace root.
func requestOf(n *node, user string) *node {
	a := n
	for a.in() != nil && a.in().Source != user && a.parent != nil && a.parent.in() != nil && !a.parent.in().IsExternalIn() {
		a = a.parent
	}
	return a
}

// claimSubtree adds n and every unclaimed transaction below it: what a DEX
// answers to a request (refunds, excesses, LP mints) belongs to the request.
func (d *draft) claimSubtree(n *node) {
	d.nodes = append(d.nodes, n)
	for _, ch := range n.children {
		if !ch.used {
			d.claimSubtree(ch)
		}
	}
}

// dedustAsset is the jetton master of a DeDust asset, "" for TON (and for
// extra currencies, which have no address).
func dedustAsset(a abi.DedustAsset) string {
	if a.SumType != "Jetton" {
		return ""
	}
	return chain.RawAddress(ton.AccountID{Workchain: int32(a.Jetton.WorkchainId), Address: a.Jetton.Address})
}
