package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// DexDepositLiquidity: assets put into a DEX pool for LP jettons or a
// liquidity position.
type DexDepositLiquidity struct {
	Dex               Text                        `json:"dex,omitempty" tc:"dex" doc:"dedust, stonfi_v2, coffee or tonco"`
	Sender            Address                     `json:"sender,omitempty" role:"sender" tc:"source" doc:"who deposited"`
	Pool              Address                     `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the pool, when the deposit reached it"`
	DepositContract   Address                     `json:"deposit_contract,omitempty" tc:"destination_liquidity" doc:"the DEX's per-user deposit contract: DeDust's deposit, STON.fi's LP account, Coffee's liquidity depository, Tonco's user account"`
	Asset1            Address                     `json:"asset_1,omitempty" role:"master" tc:"asset_1" doc:"the (first) asset this action put in: a jetton master; absent for TON (pTON and wTTON included) or when unknown"`
	Amount1           BigInt                      `json:"amount_1,omitempty" tc:"amount_1" doc:"amount of the first asset put in"`
	UserJettonWallet1 Address                     `json:"user_jetton_wallet_1,omitempty" role:"source" tc:"user_jetton_wallet_1" doc:"the sender's jetton wallet that sent the first asset; absent for TON"`
	Asset2            Address                     `json:"asset_2,omitempty" role:"master" tc:"asset_2" doc:"the second asset put in, when the action carries both (DeDust and STON.fi merge both assets sent in one wallet message); absent for TON or when unknown"`
	Amount2           BigInt                      `json:"amount_2,omitempty" tc:"amount_2" doc:"amount of the second asset put in"`
	UserJettonWallet2 Address                     `json:"user_jetton_wallet_2,omitempty" role:"source" tc:"user_jetton_wallet_2" doc:"the sender's jetton wallet that sent the second asset"`
	TargetAsset1      Address                     `json:"target_asset_1,omitempty" role:"master" tc:"target_asset_1" doc:"the pool's first asset (DeDust asset0, Tonco jetton0, Coffee first, STON.fi token0); absent for TON or when unknown"`
	TargetAmount1     BigInt                      `json:"target_amount_1,omitempty" tc:"target_amount_1" doc:"what the deposit adds of the pool's first asset: DeDust's target, Tonco's position amount, Coffee's amount handed to the pool (completing branch only)"`
	TargetAsset2      Address                     `json:"target_asset_2,omitempty" role:"master" tc:"target_asset_2" doc:"the pool's second asset"`
	TargetAmount2     BigInt                      `json:"target_amount_2,omitempty" tc:"target_amount_2" doc:"what the deposit adds of the pool's second asset"`
	LpAmount          BigInt                      `json:"lp_amount,omitempty" tc:"lp_tokens_minted" doc:"LP jettons minted (Tonco: the position's liquidity); only on the action that completed the deposit"`
	LpWallet          Address                     `json:"lp_wallet,omitempty" doc:"the sender's LP jetton wallet"`
	VaultExcesses     []DexDepositLiquidityExcess `json:"vault_excesses,omitempty" tc:"vault_excesses" doc:"what the DEX paid back to the sender: the part of an asset the pool did not take, or the whole deposit when the pool refused it"`
	TickLower         *int64                      `json:"tick_lower,omitempty" tc:"tick_lower" doc:"Tonco: lower tick of the position"`
	TickUpper         *int64                      `json:"tick_upper,omitempty" tc:"tick_upper" doc:"Tonco: upper tick of the position"`
	Nft               Address                     `json:"nft,omitempty" role:"contract" tc:"nft_address" doc:"Tonco: the position NFT"`
	NftIndex          BigInt                      `json:"nft_index,omitempty" tc:"nft_index" doc:"Tonco: index of the position NFT"`
}

// DexDepositLiquidityExcess is one asset a DEX paid back after a deposit.
type DexDepositLiquidityExcess struct {
	Asset  Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"jetton master; absent for TON"`
	Amount BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount paid back (a TON payout: the message's value)"`
}

func init() {
	declare(Type{Value: DexDepositLiquidity{}, Title: "Liquidity deposit", Describe: describeAs(func(v *DexDepositLiquidity, w *Words) string {
		return "Added " + w.and(if1(v.Amount1 != "", w.Asset(v.Asset1, v.Amount1)), if1(v.Amount2 != "", w.Asset(v.Asset2, v.Amount2))) +
			" to the " + w.Dex(v.Dex) + " pool " + w.Account(v.Pool)
	}),
		Toncenter: "dex_deposit_liquidity",
		Protocols: "DeDust, STON.fi v2, Coffee, Tonco",
		Doc:       "DeDust: one action per deposit (the assets sent in one wallet message merge); STON.fi v2: the two branches of one wallet message merge when one of them saw the LP mint; Coffee and Tonco: one action per asset sent, as toncenter reports them; only the action that completed the deposit carries the pool's answer. A DeDust trace that only funds a deposit, whose other asset comes later, is an action without pool; every top-up of one deposit contract in a trace, completing or not, is one action.",
		Failed:    "as toncenter has it: DeDust, the pool minted no LP jettons (it rejected the deposit); STON.fi v2, the pool handed the assets back to an LP account instead of minting; never for a DeDust deposit without pool, Coffee or Tonco",
		Differs:   "toncenter orders a Tonco branch's user_jetton_wallet_1/2 by pool side while it puts the asset sent first; ours pairs wallet N with asset N. Coffee's target_asset_1/2 follow the pool's order (toncenter puts the branch's own asset first) and carry the amounts the completing branch handed the pool. Toncenter's destination_liquidity is the pool for all but DeDust; ours is always the per-user deposit contract."})
	addMatcher(OrderProtocol+20, "DexDepositLiquidity/dedust", matchDedustDeposit)
	addMatcher(OrderProtocol+21, "DexDepositLiquidity/coffee", matchCoffeeDeposit)
	addMatcher(OrderProtocol+22, "DexDepositLiquidity/tonco", matchToncoDeposit)
	addMatcher(OrderProtocol+23, "DexDepositLiquidity/stonfi_v2", matchStonfiDeposit)
	addMatcher(OrderProtocol+24, "DexDepositLiquidity/dedust_partial", matchDedustPartialDeposit)
}

// DeDust liquidity op codes tongo's abi lacks (DeDust's contracts, as
// toncenter's indexer names them in events/blocks/messages/liquidity.py):
// a vault asking the factory for the user's deposit contract, the
// factory's top-up of that contract, and the deposit contract's request to
// a vault to return what the pool did not take.
const (
	dedustAskLiqFactoryOp abi.MsgOpCode = 0xf04ec526
	dedustTopUpDepositOp  abi.MsgOpCode = 0x54240fe5
	dedustReturnExcessOp  abi.MsgOpCode = 0x6b0b787f
)

// matchDedustDeposit anchors at a DeDust pool told deposit_liquidity_all by
// a liquidity-deposit contract: that contract collects each asset the user
// sent to a vault, and asks the pool only once all of them are in. Every
// branch of the trace that fed the same deposit contract is one deposit
// (a TON and a jetton sent in one wallet message are one action); the pool
// answers by minting LP jettons, or by rejecting the deposit, and the
// deposit contract has the vaults pay back what the pool did not take.
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
	a0, a1 := dedustAsset(assets.Asset0), dedustAsset(assets.Asset1)
	v := &DexDepositLiquidity{Dex: "dedust", Sender: Address(owner), Pool: Address(p.tx.Account),
		DepositContract: Address(deposit),
		TargetAsset1:    Address(a0), TargetAmount1: amount(assets.Asset0Amount),
		TargetAsset2: Address(a1), TargetAmount2: amount(assets.Asset1Amount)}
	d := newDraft(v, p.in().Hash, p)
	heads := map[*node]bool{}
	var ins []liqMove
	for _, n := range c.nodes {
		if n.tx.Account != deposit || n.used {
			continue
		}
		if h := requestOf(n, owner); !heads[h] {
			heads[h] = true
			d.claimSubtree(h)
			d.withInitiator(h)
			if m, ok := c.dedustSent(h, a0, a1); ok {
				ins = append(ins, m)
			}
		}
	}
	d.claimSubtree(p)
	v.setDeposited(mergeDeposits(ins, a0, a1))
	// Toncenter's rule: failed when the pool minted no LP jettons.
	lp := p.child(abi.JettonInternalTransferMsgOpCode)
	d.ok = lp != nil
	if lp != nil {
		if _, amt, ok := internalTransferHead(lp); ok {
			v.LpAmount = amt
		}
		v.LpWallet = Address(lp.tx.Account)
	}
	v.VaultExcesses = c.dedustExcesses(p, owner)
	c.add(d)
	return true
}

// matchDedustPartialDeposit anchors at a deposit contract topped up by the
// factory (0x54240fe5) that did not go on to the pool in this trace: the
// user funded assets of a deposit whose rest comes (or came) in another
// trace. Every top-up of that contract in the trace is the one deposit (a
// TON and a jetton sent in one wallet message, or two sends of one asset,
// merge as they do when the pool is reached); the branches, from the
// user's messages to the vaults down, are the action. It names no pool
// and, as toncenter has it, is never failed.
func matchDedustPartialDeposit(c *classifier, t *node) bool {
	first, ok := dedustTopUpOf(t)
	if !ok {
		return false
	}
	v := &DexDepositLiquidity{Dex: "dedust", Sender: Address(first.owner), DepositContract: Address(t.tx.Account)}
	var tops []dedustTopUp
	for _, n := range c.nodes {
		if n.used || n.tx.Account != t.tx.Account {
			continue
		}
		if u, ok := dedustTopUpOf(n); ok && u.owner == first.owner {
			tops = append(tops, u)
			if u.params != nil && v.TargetAmount1 == "" {
				v.TargetAsset1, v.TargetAmount1 = Address(dedustAsset(u.params.Asset0)), u.target0
				v.TargetAsset2, v.TargetAmount2 = Address(dedustAsset(u.params.Asset1)), u.target1
			}
		}
	}
	a0, a1 := string(v.TargetAsset1), string(v.TargetAsset2)
	var d *draft
	var ins []liqMove
	heads := map[*node]bool{}
	for _, u := range tops {
		head := requestOf(u.vault, u.owner)
		if heads[head] {
			continue
		}
		heads[head] = true
		if d == nil {
			d = newDraft(v, head.in().Hash)
		}
		d.claimSubtree(head)
		d.withInitiator(head)
		if m, ok := c.dedustSent(head, a0, a1); ok {
			ins = append(ins, m)
		}
	}
	v.setDeposited(mergeDeposits(ins, a0, a1))
	c.add(d)
	return true
}

// dedustTopUp is a factory's top-up of a deposit contract that did not ask
// the pool, read from the vault's request above it.
type dedustTopUp struct {
	vault            *node // the vault told deposit_liquidity or transfer_notification
	owner            string
	params           *abi.DedustPoolParams // nil when the jetton's payload is unreadable
	target0, target1 BigInt
}

// dedustTopUpOf reads a top-up (0x54240fe5) from the factory's ask
// (0xf04ec526), itself from a vault's deposit request: TON with
// deposit_liquidity, or a jetton whose notification carries the deposit
// parameters.
func dedustTopUpOf(t *node) (dedustTopUp, bool) {
	if !t.is(dedustTopUpDepositOp) || t.child(abi.DedustDepositLiquidityAllMsgOpCode) != nil {
		return dedustTopUp{}, false
	}
	factory := t.parent
	if factory == nil || factory.parent == nil || !factory.is(dedustAskLiqFactoryOp) {
		return dedustTopUp{}, false
	}
	u := dedustTopUp{vault: factory.parent}
	switch {
	case u.vault.is(abi.DedustDepositLiquidityMsgOpCode):
		b, ok := bodyAs[abi.DedustDepositLiquidityMsgBody](u.vault)
		if !ok {
			return dedustTopUp{}, false
		}
		u.owner, u.params = u.vault.in().Source, &b.PoolParams
		u.target0, u.target1 = nano(uint64(b.Params.Asset0TargetBalance)), nano(uint64(b.Params.Asset1TargetBalance))
	case u.vault.is(abi.JettonNotifyMsgOpCode):
		b, ok := bodyAs[abi.JettonNotifyMsgBody](u.vault)
		if !ok {
			return dedustTopUp{}, false
		}
		u.owner = addr(b.Sender)
		if p, ok := b.ForwardPayload.Value.Value.(abi.DedustDepositLiquidityJettonPayload); ok {
			u.params = &p.PoolParams
			u.target0, u.target1 = nano(uint64(p.Asset0TargetBalance)), nano(uint64(p.Asset1TargetBalance))
		}
	default:
		return dedustTopUp{}, false
	}
	return u, true
}

// dedustSent reads the asset a branch brought to a DeDust vault: TON sent
// with deposit_liquidity (its amount field; the value also pays gas), or
// a jetton transfer to a vault. An unknown jetton is the pool's only
// jetton, when it has one.
func (c *classifier) dedustSent(head *node, a0, a1 string) (liqMove, bool) {
	if n := findOp(head, abi.DedustDepositLiquidityMsgOpCode); n != nil && (n == head || n.in().Source == head.in().Source) {
		m := liqMove{ton: true, user: n.in().Source, dex: n.tx.Account, ok: n.ok(), nodes: []*node{n}}
		if b, ok := bodyAs[abi.DedustDepositLiquidityMsgBody](n); ok {
			m.amount = nano(uint64(b.Amount))
		}
		return m, true
	}
	n := findOp(head, abi.JettonTransferMsgOpCode)
	if n == nil {
		return liqMove{}, false
	}
	m, ok := c.sentIn(n)
	if ok && m.asset == "" && !m.ton && (a0 == "") != (a1 == "") {
		m.asset = a0 + a1
	}
	return m, ok
}

// mergeDeposits sums what the branches of one deposit brought, per asset
// (per DEX vault when masters are unknown), in the pool's order when both
// assets are there.
func mergeDeposits(ins []liqMove, a0, a1 string) []liqMove {
	var out []liqMove
	for _, m := range ins {
		merged := false
		for i := range out {
			same := out[i].ton == m.ton && out[i].asset == m.asset && (m.asset != "" || m.ton || out[i].dex == m.dex)
			if same {
				out[i].amount = addAmounts(out[i].amount, m.amount)
				if out[i].userWallet == "" {
					out[i].userWallet = m.userWallet
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, m)
		}
	}
	if len(out) == 2 && out[0].asset == a1 && out[1].asset == a0 && a0 != a1 {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

// setDeposited fills the deposited assets (at most two) of a value.
func (v *DexDepositLiquidity) setDeposited(ms []liqMove) {
	if len(ms) > 0 {
		v.Asset1, v.Amount1, v.UserJettonWallet1 = Address(ms[0].asset), ms[0].amount, Address(ms[0].userWallet)
	}
	if len(ms) > 1 {
		v.Asset2, v.Amount2, v.UserJettonWallet2 = Address(ms[1].asset), ms[1].amount, Address(ms[1].userWallet)
	}
}

// dedustExcesses reads, below the pool's answer, what the vaults paid back
// to the owner at the deposit contract's request (0x6b0b787f): TON with a
// payout (its value), jettons with a transfer.
func (c *classifier) dedustExcesses(p *node, owner string) []DexDepositLiquidityExcess {
	var out []DexDepositLiquidityExcess
	var walk func(n *node)
	walk = func(n *node) {
		for _, ch := range n.children {
			if !ch.is(dedustReturnExcessOp) {
				walk(ch)
				continue
			}
			for _, pay := range ch.children {
				if m, ok := c.paidOut(pay); ok && m.user == owner {
					out = append(out, m.excess())
				}
			}
		}
	}
	walk(p)
	return out
}

// addAmounts adds two decimal amounts ("" is unknown and stays so).
func addAmounts(a, b BigInt) BigInt {
	x, ok1 := new(big.Int).SetString(string(a), 10)
	y, ok2 := new(big.Int).SetString(string(b), 10)
	if !ok1 || !ok2 {
		return ""
	}
	return BigInt(x.Add(x, y).String())
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
