package actions

import (
	"slices"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Staking providers, as the provider field names them.
const (
	providerTonstakers = "tonstakers"
	providerNominator  = "nominator"
	providerEthena     = "ethena"
)

// StakeDeposit: coins or jettons put into a staking pool.
type StakeDeposit struct {
	Provider     Text    `json:"provider,omitempty" tc:"provider" doc:"tonstakers (toncenter: liquid_staking), nominator or ethena"`
	StakeHolder  Address `json:"stake_holder,omitempty" role:"sender" tc:"stake_holder" doc:"who staked"`
	Pool         Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"what was staked: nanotons (Tonstakers: the value sent less the pool's 1 TON deposit fee), or USDe in its smallest units for Ethena"`
	TokensMinted BigInt  `json:"tokens_minted,omitempty" tc:"tokens_minted" doc:"liquid staking jettons minted for the deposit (tsTON, tsUSDe)"`
	Asset        Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the jetton minted for the deposit (its master): tsTON, tsUSDe"`
	SourceAsset  Address `json:"source_asset,omitempty" role:"master" tc:"source_asset" doc:"Ethena: the jetton staked (USDe's master), when known"`
	SourceWallet Address `json:"source_wallet,omitempty" role:"source" doc:"Ethena: the stake holder's jetton wallet the staked jettons left"`
	TokensWallet Address `json:"tokens_wallet,omitempty" role:"destination" doc:"the stake holder's jetton wallet credited with the minted jettons"`
	PayoutNft    Address `json:"payout_nft,omitempty" doc:"Tonstakers: the bill NFT minted instead of tsTON when the pool pays the deposit out after the round"`
	Collection   Address `json:"payout_collection,omitempty" doc:"Tonstakers: the collection of that bill NFT"`
}

// StakeWithdrawal: staked coins paid back to their holder.
type StakeWithdrawal struct {
	Provider     Text    `json:"provider,omitempty" tc:"provider" doc:"tonstakers (toncenter: liquid_staking) or nominator"`
	StakeHolder  Address `json:"stake_holder,omitempty" role:"recipient" tc:"stake_holder" doc:"who withdrew and was paid"`
	Pool         Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool, when known"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons paid out (Tonstakers, immediate: the pool's payout less the value it was sent with the request)"`
	PayoutNft    Address `json:"payout_nft,omitempty" tc:"payout_nft" doc:"Tonstakers: the bill NFT burnt for the payout"`
	Collection   Address `json:"payout_collection,omitempty" doc:"Tonstakers: the collection of that bill NFT"`
	TokensBurnt  BigInt  `json:"tokens_burnt,omitempty" tc:"tokens_burnt" doc:"Tonstakers: tsTON burnt (for a bill: the tsTON it was issued for)"`
	Asset        Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"Tonstakers, immediate: the jetton burnt (tsTON's master)"`
	SourceWallet Address `json:"source_wallet,omitempty" role:"source" doc:"Tonstakers, immediate: the stake holder's tsTON wallet that burnt them"`
}

// StakeWithdrawalRequest: a withdrawal asked for, to be paid later.
type StakeWithdrawalRequest struct {
	Provider     Text    `json:"provider,omitempty" tc:"provider" doc:"tonstakers (toncenter: liquid_staking), nominator or ethena"`
	StakeHolder  Address `json:"stake_holder,omitempty" role:"sender" tc:"stake_holder" doc:"who asked"`
	Pool         Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool"`
	Amount       BigInt  `json:"amount,omitempty" doc:"Ethena: the staked jettons (tsUSDe) handed back to the pool"`
	TokensBurnt  BigInt  `json:"tokens_burnt,omitempty" tc:"tokens_burnt" doc:"Tonstakers: tsTON burnt"`
	TokensMinted BigInt  `json:"tokens_minted,omitempty" tc:"tokens_minted" doc:"Ethena: what the pool credits in return, locked until the cooldown ends"`
	Asset        Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the jetton handed in (its master): tsTON, tsUSDe; when known"`
	PayoutNft    Address `json:"payout_nft,omitempty" tc:"payout_nft" doc:"Tonstakers: the bill NFT minted to the holder, which pays out after the round"`
	Collection   Address `json:"payout_collection,omitempty" doc:"Tonstakers: the collection of that bill NFT"`
	SourceWallet Address `json:"source_wallet,omitempty" role:"source" doc:"the stake holder's jetton wallet that burnt (Tonstakers) or sent (Ethena) the jettons"`
	TokensWallet Address `json:"tokens_wallet,omitempty" role:"destination" doc:"Ethena: the stake holder's jetton wallet credited with the locked jettons"`
}

func init() {
	declare(
		Type{Value: StakeDeposit{}, Title: "Stake", Describe: describeAs(func(v *StakeDeposit, w *Words) string {
			return "Staked " + w.staked(v.Provider, v.SourceAsset, v.Amount) + " with " + w.provider(v.Provider)
		}),
			Toncenter: "stake_deposit", Protocols: "Tonstakers, nominator pools, Ethena",
			Doc:     "Tonstakers: deposit (0x47d54391) at the pool, which has the tsTON master mint (0x1674b0a0, internal_transfer) to the holder, or mints a bill NFT. A round the pool starts from the same transaction (start_distribution 0x1140a64f, or the tsTON mint for the deposit payouts, whose payload is start_distribution) is not part of the deposit. Nominator pool: a \"d\" comment to the pool. Ethena: USDe sent to the staking pool, which has the tsUSDe master mint (0x642b7d07) to the holder.",
			Failed:  "the pool failed, or the minted jettons did not reach the holder's wallet",
			Differs: "toncenter reports nothing for a Tonstakers deposit that minted no tsTON, and recognizes a nominator pool by its code; we report it (failed, or with the bill NFT) and take any masterchain account told \"d\" by a basechain account for a nominator pool"},
		Type{Value: StakeWithdrawal{}, Title: "Unstake", Describe: describeAs(func(v *StakeWithdrawal, w *Words) string {
			return "Withdrew " + w.staked(v.Provider, v.Asset, v.Amount) + " of stake from " + w.provider(v.Provider)
		}),
			Toncenter: "stake_withdrawal", Protocols: "Tonstakers, nominator pools",
			Doc:     "Tonstakers: tsTON burnt (burn, burn_notification, withdraw 0x319b0cdc at the pool) and paid at once (withdrawal 0x0a77535c); or a bill NFT burnt (0xf127fe4e, burn_notification 0xed58b0b2) and paid (0xdb3b8abd), one action per bill, also when the pool started the round (start_distribution 0x1140a64f) from a holder's deposit or withdrawal, which keeps only its own steps. Nominator pool: a \"w\" comment paid at once, or the pool paying a withdrawal request (op 2).",
			Failed:  "the burn or the pool's step failed",
			Differs: "toncenter recognizes a nominator pool by its code; we take a masterchain account talking to basechain accounts"},
		Type{Value: StakeWithdrawalRequest{}, Title: "Unstake request", Describe: describeAs(func(v *StakeWithdrawalRequest, w *Words) string {
			if v.Amount == "" && v.TokensBurnt != "" {
				return "Asked " + w.provider(v.Provider) + " to unstake, burning " + w.Jetton(v.Asset, v.TokensBurnt)
			}
			return "Asked " + w.provider(v.Provider) + " to withdraw " + w.staked(v.Provider, "", v.Amount) + " of stake"
		}),
			Toncenter: "stake_withdrawal_request", Protocols: "Tonstakers, nominator pools, Ethena",
			Doc:    "Tonstakers: tsTON burnt and a bill NFT minted (0x1674b0a0 at the payout collection, which deploys the item: that item's deploy is an NftMint of its own). Nominator pool: a \"w\" comment not paid at once. Ethena: tsUSDe sent to the staking pool, which has locked USDe minted to the holder (0x642b7d07, then 0xb2583ed5).",
			Failed: "the burn failed, no bill NFT was minted, or the pool failed"},
	)
	addMatcher(OrderProtocol+40, "StakeDeposit/tonstakers", matchTonstakersDeposit)
	addMatcher(OrderProtocol+41, "StakeWithdrawal/tonstakers", matchTonstakersWithdraw)
	addMatcher(OrderProtocol+42, "StakeWithdrawal/tonstakers bill", matchTonstakersBillPayout)
}

// Tonstakers messages without a decoder of their own in tongo's abi.
const (
	// tonstakersDistribute is what the pool sends the payout collection to
	// start paying the bills of a round (toncenter's staking.py).
	tonstakersDistribute = 0x1140a64f
)

// tonstakersDepositFee is what the pool keeps of a deposit (1 TON), as
// toncenter subtracts it.
const tonstakersDepositFee = 1_000_000_000

// matchTonstakersDeposit anchors at the pool taking deposit (0x47d54391).
// The pool asks the tsTON master to mint (0x1674b0a0), which sends
// internal_transfer to the holder's wallet; when deposits wait for the
// round, the pool has its deposit collection mint a bill NFT instead (the
// same op; the item's own deploy stays an NftMint).
func matchTonstakersDeposit(c *classifier, p *node) bool {
	if !p.is(abi.TonstakePoolDepositMsgOpCode) {
		return false
	}
	m := p.in()
	v := &StakeDeposit{Provider: providerTonstakers, StakeHolder: Address(m.Source), Pool: Address(p.tx.Account),
		Amount: nano(0)}
	if m.Value > tonstakersDepositFee {
		v.Amount = nano(m.Value - tonstakersDepositFee)
	}
	d := newDraft(v, m.Hash).withInitiator(p)
	var item *node
	// The mint request is found even when another matcher took it (an NFT
	// matcher may take the bill's collection step): it tells what the
	// deposit became.
	mint := requestMint(p)
	d.ok = p.ok() && mint != nil && mint.ok()
	if mint != nil {
		if w := anyChild(mint, abi.JettonInternalTransferMsgOpCode); w != nil {
			v.Asset, v.TokensWallet = Address(w.in().Source), Address(w.tx.Account)
			if _, amt, ok := internalTransferHead(w); ok {
				v.TokensMinted = amt
			}
			d.ok = d.ok && w.ok()
		} else if item = anyChild(mint, abi.TonstakeNftInitMsgOpCode); item != nil {
			v.PayoutNft, v.Collection = Address(item.tx.Account), Address(mint.tx.Account)
		} else {
			d.ok = false
		}
	}
	d.claimBelow(p, append(roundStarts(p), item)...)
	c.add(d)
	return true
}

// matchTonstakersWithdraw anchors at burn (0x595f07bc) at the holder's
// tsTON wallet: burn_notification at the master, withdraw (0x319b0cdc) at
// the pool, then either withdrawal (0x0a77535c) paying the holder at once,
// or mint (0x1674b0a0) at the payout collection, which deploys a bill NFT
// for the holder (that deploy and its ownership_assigned stay NftMint and
// NftItemTransfer, as toncenter reports them). A pool that answered neither
// way leaves the burn to the JettonBurn matcher.
func matchTonstakersWithdraw(c *classifier, w *node) bool {
	if !w.is(abi.JettonBurnMsgOpCode) {
		return false
	}
	burn, ok := bodyAs[abi.JettonBurnMsgBody](w)
	if !ok {
		return false
	}
	notify := w.child(abi.JettonBurnNotificationMsgOpCode)
	if notify == nil {
		return false
	}
	req := notify.child(abi.TonstakePoolWithdrawMsgOpCode)
	if req == nil {
		return false
	}
	holder, wallet, pool, master := w.in().Source, w.tx.Account, req.tx.Account, req.in().Source
	key := w.in().Hash
	chainOK := w.ok() && notify.ok() && req.ok()
	if pay := req.child(abi.TonstakePoolWithdrawalMsgOpCode); pay != nil {
		v := &StakeWithdrawal{Provider: providerTonstakers, StakeHolder: Address(holder), Pool: Address(pool),
			TokensBurnt: amount(burn.Amount), Asset: Address(master), SourceWallet: Address(wallet),
			Amount: nano(pay.in().Value)}
		// The payout carries back what is left of the value sent with the
		// request; the withdrawn amount is the rest.
		if got, sent := pay.in().Value, req.in().Value; got >= sent {
			v.Amount = nano(got - sent)
		}
		d := newDraft(v, key).withInitiator(w)
		d.claimBelow(w, roundStarts(req)...)
		d.ok = chainOK
		c.add(d)
		return true
	}
	mint := requestMint(req)
	if mint == nil {
		return false
	}
	v := &StakeWithdrawalRequest{Provider: providerTonstakers, StakeHolder: Address(holder), Pool: Address(pool),
		TokensBurnt: amount(burn.Amount), Asset: Address(master), SourceWallet: Address(wallet),
		Collection: Address(mint.tx.Account)}
	item := anyChild(mint, abi.TonstakeNftInitMsgOpCode)
	if item != nil {
		v.PayoutNft = Address(item.tx.Account)
	}
	d := newDraft(v, key).withInitiator(w)
	d.claimBelow(w, append(roundStarts(req), item)...)
	d.ok = chainOK && mint.ok() && item != nil
	c.add(d)
	return true
}

// tonstakersBillBurnt is burn_notification#ed58b0b2 query_id:uint64
// amount:Coins owner:MsgAddress index:uint64, which a bill NFT sends its
// collection when burnt.
type tonstakersBillBurnt struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	Owner   tlb.MsgAddress
}

// matchTonstakersBillPayout anchors at the payout (0xdb3b8abd) the payout
// collection sends a bill's owner once the bill NFT was burnt (0xf127fe4e)
// and reported its tsTON (burn_notification 0xed58b0b2): one withdrawal per
// bill. Bills of a round are burnt one after the other: a burnt bill asks
// the next bill to burn before it notifies the collection (the payout
// collection's items in liquid-staking-contract), so the next bill's burn
// hangs below this one and stays its own (a chain hung below the
// notification is read the same way).
func matchTonstakersBillPayout(c *classifier, pay *node) bool {
	if !pay.is(abi.TonstakeNftPayoutMsgOpCode) {
		return false
	}
	notify := pay.parent
	if notify == nil || notify.used || !notify.is(abi.TonstakeNftBurnNotificationMsgOpCode) {
		return false
	}
	burnt := notify.parent
	if burnt == nil || burnt.used || !burnt.is(abi.TonstakeNftBurnMsgOpCode) {
		return false
	}
	var body tonstakersBillBurnt
	if !notify.decode(&body) {
		return false
	}
	v := &StakeWithdrawal{Provider: providerTonstakers, StakeHolder: Address(addr(body.Owner)),
		Pool: Address(tonstakersBillPool(burnt)), Amount: nano(pay.in().Value),
		PayoutNft: Address(notify.in().Source), Collection: Address(notify.tx.Account),
		TokensBurnt: amount(body.Amount)}
	d := newDraft(v, pay.in().Hash, burnt, notify)
	for _, n := range []*node{burnt, notify} {
		for _, ch := range n.children {
			if !ch.used && (ch.is(abi.ExcessMsgOpCode) || ch.in().Bounced) {
				d.nodes = append(d.nodes, ch)
			}
		}
	}
	d.claimBelow(pay, nil)
	d.ok = burnt.ok() && notify.ok()
	c.add(d)
	return true
}

// tonstakersBillPool walks up from a bill's burn through the chain of
// earlier bills to what started the payouts: the pool's distribution
// request to the collection (its sender is the pool), or the pool itself
// taking a withdrawal.
func tonstakersBillPool(burnt *node) string {
	for a := burnt.parent; a != nil && a.in() != nil; a = a.parent {
		switch {
		case a.hasOp && a.op == tonstakersDistribute && !a.in().Bounced:
			return a.in().Source
		case a.is(abi.TonstakePoolWithdrawMsgOpCode):
			return a.tx.Account
		case a.is(abi.TonstakeNftBurnNotificationMsgOpCode, abi.TonstakeNftBurnMsgOpCode, abi.TonstakeNftPayoutMsgOpCode):
			continue
		}
		return ""
	}
	return ""
}

// anyChild finds the first child whose in-message has the op, claimed or
// not: a step that belongs to another action but tells this one a fact.
func anyChild(n *node, op abi.MsgOpCode) *node {
	for _, ch := range n.children {
		if ch.is(op) {
			return ch
		}
	}
	return nil
}

// claimBelow adds n and every unclaimed transaction below it, except the
// subtrees of skip (steps reported as actions of their own; nil skips
// nothing).
func (d *draft) claimBelow(n *node, skip ...*node) {
	if n.used || slices.Contains(skip, n) {
		return
	}
	d.nodes = append(d.nodes, n)
	for _, ch := range n.children {
		d.claimBelow(ch, skip...)
	}
}

// roundStarts lists what a Tonstakers pool sent from a transaction to
// start paying a finished round: start_distribution (0x1140a64f) to the
// withdrawal payout collection, and the mint (0x1674b0a0) of tsTON for the
// deposit payout collection, whose payload is start_distribution. The pool
// rotates its round inside whatever request it takes (update_round in the
// pool's contract), before it answers the request, so a holder's deposit or
// withdrawal can start paying the bills of the round: those payouts are
// actions of their own holders, not steps of the request.
func roundStarts(pool *node) []*node {
	var out []*node
	for _, ch := range pool.children {
		if ch.in().Bounced {
			continue
		}
		var mint tonstakersMint
		switch {
		case ch.hasOp && ch.op == tonstakersDistribute:
			out = append(out, ch)
		case ch.is(abi.TonstakePayoutMintJettonsMsgOpCode) && ch.decode(&mint) && mint.Payload != nil:
			if p := boc.Cell(*mint.Payload); p.BitsAvailableForRead() >= 32 {
				if op, err := p.ReadUint(32); err == nil && op == tonstakersDistribute {
					out = append(out, ch)
				}
			}
		}
	}
	return out
}

// tonstakersMint is the pool's mint request (0x1674b0a0) with its payload:
// mint query_id destination amount:Coins notification:Coins
// forward:Coins payload:(Maybe ^Cell).
type tonstakersMint struct {
	Op           uint32
	QueryID      uint64
	Destination  tlb.MsgAddress
	Amount       tlb.Grams
	Notification tlb.Grams
	Forward      tlb.Grams
	Payload      *tlb.Any `tlb:"maybe^"`
}

// requestMint is the mint (0x1674b0a0) a Tonstakers pool sent for the
// holder's own request, claimed or not (it tells what the request became):
// not one that starts a round's payouts, which the pool sends first when
// the request rotated the round.
func requestMint(pool *node) *node {
	starts := roundStarts(pool)
	for _, ch := range pool.children {
		if ch.is(abi.TonstakePayoutMintJettonsMsgOpCode) && !slices.Contains(starts, ch) {
			return ch
		}
	}
	return nil
}
