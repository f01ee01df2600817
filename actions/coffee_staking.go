package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// swap.coffee staking: a staking master (an NFT collection) and a vault
// that holds the staked jettons. Staking sends jettons to the vault with
// staking_lock as forward payload; the vault tells the master
// (staking_deposit 0xf9471134), which mints a position NFT
// (staking_initialize 0xbe5a7595). Withdrawing asks the position NFT, which
// tells the master, which tells the vault to pay back (three messages of op
// 0xcb03bfaf). Rewards are paid by the master (staking_claim_rewards
// 0xb30c7310 from swap.coffee's admin). Layouts: tongo's abi and toncenter's
// messages/coffee.py.

// opCoffeeStakingWithdraw is staking_position_withdraw (steps 1 to 3 share
// it); tongo's abi decodes this op as another protocol's message.
const opCoffeeStakingWithdraw abi.MsgOpCode = 0xcb03bfaf

// CoffeeStakingDeposit: jettons staked, for a position NFT.
type CoffeeStakingDeposit struct {
	Sender       Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who staked"`
	SenderWallet Address `json:"sender_wallet,omitempty" role:"source" tc:"source_jetton_wallet" doc:"the staker's jetton wallet"`
	Pool         Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking master (the positions' NFT collection)"`
	Vault        Address `json:"vault,omitempty" role:"contract" doc:"the staking vault that holds the staked jettons"`
	VaultWallet  Address `json:"vault_wallet,omitempty" role:"destination" tc:"pool_jetton_wallet" doc:"the vault's jetton wallet that took the jettons"`
	Asset        Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the staked jetton (its master), when known"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"jettons staked"`
	Nft          Address `json:"nft,omitempty" role:"contract" tc:"minted_item_address" doc:"the position NFT minted"`
	NftIndex     BigInt  `json:"nft_index,omitempty" tc:"minted_item_index" doc:"index of the position NFT in the staking master's collection"`
	PeriodID     *int64  `json:"period_id,omitempty" doc:"the staking period chosen (staking_lock's period_id)"`
	Points       BigInt  `json:"points,omitempty" doc:"points of the position (user_points)"`
	UnlockTime   int64   `json:"unlock_time,omitempty" doc:"when the position may be withdrawn (unix time)"`
	QueryID      BigInt  `json:"query_id,omitempty" doc:"query id of the jetton transfer"`
}

// CoffeeStakingWithdraw: a staking position closed, its jettons paid back.
type CoffeeStakingWithdraw struct {
	Owner       Address `json:"owner,omitempty" role:"sender" tc:"source" doc:"owner of the position, who gets the jettons"`
	OwnerWallet Address `json:"owner_wallet,omitempty" role:"destination" tc:"source_jetton_wallet" doc:"the owner's jetton wallet that received them"`
	Pool        Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking master"`
	Vault       Address `json:"vault,omitempty" role:"contract" doc:"the staking vault that paid"`
	VaultWallet Address `json:"vault_wallet,omitempty" role:"source" tc:"pool_jetton_wallet" doc:"the vault's jetton wallet that paid"`
	Asset       Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the jetton (its master), when known"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"jettons paid back"`
	Nft         Address `json:"nft,omitempty" role:"contract" tc:"nft_address" doc:"the position NFT"`
	NftIndex    BigInt  `json:"nft_index,omitempty" tc:"nft_index" doc:"index of the position NFT"`
	Points      BigInt  `json:"points,omitempty" tc:"points" doc:"points the position had"`
	QueryID     BigInt  `json:"query_id,omitempty" doc:"query id of the withdrawal"`
}

// CoffeeStakingClaimRewards: staking rewards paid out.
type CoffeeStakingClaimRewards struct {
	Pool            Address `json:"pool,omitempty" role:"sender" tc:"pool" doc:"the staking master that paid"`
	PoolWallet      Address `json:"pool_wallet,omitempty" role:"source" tc:"pool_jetton_wallet" doc:"the master's jetton wallet that paid"`
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"recipient" doc:"who got the rewards"`
	RecipientWallet Address `json:"recipient_wallet,omitempty" role:"destination" tc:"recipient_jetton_wallet" doc:"the recipient's jetton wallet"`
	Asset           Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the reward jetton (its master), when known"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"jettons paid"`
	Admin           Address `json:"admin,omitempty" doc:"who asked the master to pay (swap.coffee's admin)"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the claim"`
}

func init() {
	declare(
		Type{Value: CoffeeStakingDeposit{}, Title: "swap.coffee stake", Describe: describeAs(func(v *CoffeeStakingDeposit, w *Words) string {
			return "Staked " + w.Jetton(v.Asset, v.Amount) + " in swap.coffee staking pool " + w.Account(v.Pool)
		}),
			Toncenter: "coffee_staking_deposit", Protocols: "swap.coffee staking",
			Doc:    "A jetton transfer to the staking vault; the vault's staking_deposit (0xf9471134) to the master, which mints the position NFT (staking_initialize 0xbe5a7595).",
			Failed: "the jettons did not move, or the master or the new position failed"},
		Type{Value: CoffeeStakingWithdraw{}, Title: "swap.coffee unstake", Describe: describeAs(func(v *CoffeeStakingWithdraw, w *Words) string {
			return "Withdrew " + w.Jetton(v.Asset, v.Amount) + " from swap.coffee staking pool " + w.Account(v.Pool)
		}),
			Toncenter: "coffee_staking_withdraw", Protocols: "swap.coffee staking",
			Doc:     "staking_position_withdraw (0xcb03bfaf) from the owner to the position NFT, from the NFT to the master, from the master to the vault, then the vault's jetton transfer to the owner.",
			Failed:  "a step failed or the jettons did not move",
			Differs: "toncenter's pool is the sender of the second step, the position NFT; ours is the staking master it reaches."},
		Type{Value: CoffeeStakingClaimRewards{}, Title: "swap.coffee rewards", Describe: describeAs(func(v *CoffeeStakingClaimRewards, w *Words) string {
			return "Claimed " + w.Jetton(v.Asset, v.Amount) + " of rewards from swap.coffee staking pool " + w.Account(v.Pool)
		}),
			Toncenter: "coffee_staking_claim_rewards", Protocols: "swap.coffee staking",
			Doc:    "staking_claim_rewards (0xb30c7310) at the master, which sends the rewards by jetton transfer.",
			Failed: "the master failed or the jettons did not move"},
	)
	addMatcher(OrderProtocol+33, "CoffeeStakingDeposit", matchCoffeeStakingDeposit)
	addMatcher(OrderProtocol+34, "CoffeeStakingWithdraw", matchCoffeeStakingWithdraw)
	addMatcher(OrderProtocol+35, "CoffeeStakingClaimRewards", matchCoffeeStakingClaim)
}

// matchCoffeeStakingDeposit anchors at the staker's jetton transfer whose
// notification makes the vault send staking_deposit; the position the
// master mints is required (as toncenter requires it).
func matchCoffeeStakingDeposit(c *classifier, n *node) bool {
	if !n.is(abi.JettonTransferMsgOpCode) {
		return false
	}
	l, ok := c.followTransfer(n)
	if !ok || l.notify == nil {
		return false
	}
	p := l.notify.child(abi.CoffeeStakingDepositMsgOpCode)
	if p == nil {
		return false
	}
	mint := p.child(abi.CoffeeStakingInitMsgOpCode)
	if mint == nil {
		return false
	}
	v := &CoffeeStakingDeposit{Sender: Address(l.owner), SenderWallet: Address(l.sourceWallet),
		Pool: Address(p.tx.Account), Vault: Address(l.recipient), VaultWallet: Address(l.destWallet),
		Asset: Address(l.master), Amount: l.amount, Nft: Address(mint.tx.Account), QueryID: nano(l.body.QueryId)}
	if b, ok := bodyAs[abi.CoffeeStakingDepositMsgBody](p); ok {
		period := int64(b.PeriodId)
		v.PeriodID = &period
	}
	if b, ok := bodyAs[abi.CoffeeStakingInitMsgBody](mint); ok {
		v.Points = nano(uint64(b.PositionData.UserPoints))
		v.UnlockTime = int64(b.PositionData.EndTimestamp)
	}
	v.NftIndex = c.coffeeItemIndex(mint)
	d := newDraft(v, n.in().Hash, l.nodes()...).withInitiator(n)
	d.nodes = append(d.nodes, p, mint)
	d.ok = l.ok && p.ok() && mint.ok()
	c.add(d)
	return true
}

// coffeeItemIndex is the index of the staking position NFT deployed at n:
// the indexer's fact, else the item's initial data (init:uint1 index:uint64
// collection:MsgAddress) when it names the master that deployed it.
func (c *classifier) coffeeItemIndex(n *node) BigInt {
	if k, ok := c.known[n.tx.Account]; ok && k.Index != "" {
		return BigInt(k.Index)
	}
	if n.in().InitState == nil {
		return ""
	}
	var si tlb.StateInit
	if !decodePrefix(n.in().InitState, &si) || !si.Data.Exists {
		return ""
	}
	var data struct {
		Init       bool
		Index      uint64
		Collection tlb.MsgAddress
	}
	cell := si.Data.Value.Value
	if !unmarshalCell(&cell, &data) || addr(data.Collection) != n.in().Source {
		return ""
	}
	return nano(data.Index)
}

// coffeeWithdraw2 is the position NFT's step to the master:
// query_id nft_id:uint64 owner points:Coins ^[wallet amount].
type coffeeWithdraw2 struct {
	Op      uint32
	QueryID uint64
	NftID   uint64
	Owner   tlb.MsgAddress
	Points  tlb.Grams
	Jetton  struct {
		Wallet tlb.MsgAddress
		Amount tlb.Grams
	} `tlb:"^"`
}

// coffeeWithdraw3 is the master's step to the vault:
// query_id jetton_wallet jetton_amount:Coins owner.
type coffeeWithdraw3 struct {
	Op      uint32
	QueryID uint64
	Wallet  tlb.MsgAddress
	Amount  tlb.Grams
	Owner   tlb.MsgAddress
}

// matchCoffeeStakingWithdraw anchors at the owner's withdraw request to the
// position NFT; the NFT's and the master's steps and the vault's jetton
// transfer are required (as toncenter requires them), and each step must
// decode with its layout (the op is shared with other protocols).
func matchCoffeeStakingWithdraw(c *classifier, n *node) bool {
	if !n.is(opCoffeeStakingWithdraw) {
		return false
	}
	var w1 struct {
		Op      uint32
		QueryID uint64
	}
	var w2 coffeeWithdraw2
	var w3 coffeeWithdraw3
	s2 := n.child(opCoffeeStakingWithdraw)
	if s2 == nil || !n.decode(&w1) || !s2.decode(&w2) {
		return false
	}
	s3 := s2.child(opCoffeeStakingWithdraw)
	if s3 == nil || !s3.decode(&w3) {
		return false
	}
	jt := s3.child(abi.JettonTransferMsgOpCode)
	if jt == nil {
		return false
	}
	l, ok := c.followTransfer(jt)
	if !ok {
		return false
	}
	v := &CoffeeStakingWithdraw{Owner: Address(addr(w2.Owner)), OwnerWallet: Address(l.destWallet),
		Pool: Address(s2.tx.Account), Vault: Address(s3.tx.Account), VaultWallet: Address(addr(w3.Wallet)),
		Asset: Address(l.master), Amount: nano(uint64(w3.Amount)), Nft: Address(n.tx.Account),
		NftIndex: nano(w2.NftID), Points: nano(uint64(w2.Points)), QueryID: nano(w1.QueryID)}
	if v.Owner == "" {
		v.Owner = Address(l.recipient)
	}
	if v.VaultWallet == "" {
		v.VaultWallet = Address(l.sourceWallet)
	}
	if v.Asset == "" {
		v.Asset = Address(c.masterOf(addr(w3.Wallet)))
	}
	d := newDraft(v, n.in().Hash, n, s2, s3).withInitiator(n)
	d.nodes = append(d.nodes, l.nodes()...)
	d.ok = n.ok() && s2.ok() && s3.ok() && l.ok
	c.add(d)
	return true
}

// matchCoffeeStakingClaim anchors at staking_claim_rewards at the master;
// the master's jetton transfer of the rewards is required (as toncenter
// requires it).
func matchCoffeeStakingClaim(c *classifier, n *node) bool {
	if !n.is(abi.CoffeeStakingClaimRewardsMsgOpCode) {
		return false
	}
	b, ok := bodyAs[abi.CoffeeStakingClaimRewardsMsgBody](n)
	if !ok {
		return false
	}
	jt := n.child(abi.JettonTransferMsgOpCode)
	if jt == nil {
		return false
	}
	l, ok := c.followTransfer(jt)
	if !ok {
		return false
	}
	wallet := addr(b.JettonWallet)
	v := &CoffeeStakingClaimRewards{Pool: Address(n.tx.Account), PoolWallet: Address(wallet),
		Recipient: Address(addr(b.Receiver)), RecipientWallet: Address(l.destWallet),
		Asset: Address(l.master), Amount: nano(uint64(b.JettonAmount)), Admin: Address(n.in().Source),
		QueryID: nano(b.QueryId)}
	if v.Asset == "" {
		v.Asset = Address(c.masterOf(wallet))
	}
	d := newDraft(v, n.in().Hash, n).withInitiator(n)
	d.nodes = append(d.nodes, l.nodes()...)
	d.ok = n.ok() && l.ok
	c.add(d)
	return true
}
