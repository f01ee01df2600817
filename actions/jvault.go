package actions

import (
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// JVault staking (jvault.xyz): a pool (an NFT item of JVault's collection)
// takes jettons and records each staker's stake in a stake wallet, itself a
// jetton wallet of the pool's stake jetton. Op codes and layouts are those
// of toncenter's messages/jvault.py and jvault.py.
const (
	jvaultReceiveJettons        = 0xd68a4ac1 // pool -> stake wallet: record a stake
	jvaultStakeCancelled        = 0x9eada1d9 // stake wallet -> pool: stake refused, jettons go back
	jvaultUnstakeJettons        = 0x499a9262 // staker -> stake wallet
	jvaultUnstakeRequest        = 0x0168d4b7 // staker -> stake wallet
	jvaultClaimRewards          = 0x78d9f109 // staker -> stake wallet
	jvaultSendClaimedRewards    = 0x44bc1fe3 // stake wallet -> pool
	jvaultRequestUpdateRewards  = 0xf5c5baa3 // stake wallet -> pool
	jvaultUpdateRewards         = 0xae9307ce // pool -> stake wallet
	jvaultRequestUpdateReferrer = 0x55c35b40
	jvaultUpdateReferrer        = 0x076ee4e0
	jvaultSetData               = 0x383411ea // pool -> referrer wallet
)

// JvaultStake: jettons staked in a JVault pool.
type JvaultStake struct {
	Sender             Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who staked"`
	SenderWallet       Address `json:"sender_wallet,omitempty" role:"source" tc:"source_jetton_wallet" doc:"the staker's jetton wallet"`
	Pool               Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool"`
	StakeWallet        Address `json:"stake_wallet,omitempty" tc:"stake_wallet" doc:"the staker's stake wallet at the pool"`
	Asset              Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the jetton staked (its master), when known"`
	StakingAsset       Address `json:"staking_asset,omitempty" role:"master" doc:"the pool's stake jetton the stake wallet holds (its master), when known"`
	Amount             BigInt  `json:"amount,omitempty" tc:"amount" doc:"jettons staked"`
	Period             *int64  `json:"period,omitempty" tc:"period" doc:"lock period in seconds, as the transfer's forward payload names it"`
	MintedStakeJettons BigInt  `json:"minted_stake_jettons,omitempty" tc:"minted_stake_jettons" doc:"stake jettons the stake wallet was credited (receive_jettons' received_jettons); absent when the stake was refused"`
}

// JvaultUnstake: staked jettons taken out of a JVault pool.
type JvaultUnstake struct {
	Sender       Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who unstaked"`
	StakeWallet  Address `json:"stake_wallet,omitempty" tc:"stake_wallet" doc:"the staker's stake wallet"`
	Pool         Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"stake jettons unstaked"`
	Asset        Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the jetton paid back (its master), when known"`
	StakingAsset Address `json:"staking_asset,omitempty" role:"master" tc:"staking_asset" doc:"the pool's stake jetton (its master), when known"`
	UnstakeFee   BigInt  `json:"unstake_fee,omitempty" doc:"nanotons the pool took as the unstake fee"`
	Force        *bool   `json:"force,omitempty" doc:"true when the staker forced the unstake before the lock ended"`
	ExitCode     *int64  `json:"exit_code,omitempty" tc:"exit_code" doc:"the stake wallet's exit code, when it did not pass the request to the pool"`
}

// JvaultUnstakeRequest: an unstake of a JVault stake asked for.
type JvaultUnstakeRequest struct {
	Sender       Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who asked"`
	StakeWallet  Address `json:"stake_wallet,omitempty" tc:"stake_wallet" doc:"the staker's stake wallet"`
	Pool         Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"stake jettons to unstake"`
	Asset        Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the jetton staked (its master), when known"`
	StakingAsset Address `json:"staking_asset,omitempty" role:"master" tc:"staking_asset" doc:"the pool's stake jetton (its master), when known"`
	ExitCode     *int64  `json:"exit_code,omitempty" tc:"exit_code" doc:"the stake wallet's exit code, when it did not pass the request to the pool"`
}

// JvaultClaim: staking rewards claimed from a JVault pool.
type JvaultClaim struct {
	Sender         Address               `json:"sender,omitempty" role:"sender" tc:"source" doc:"who claimed"`
	StakeWallet    Address               `json:"stake_wallet,omitempty" tc:"stake_wallet" doc:"the staker's stake wallet"`
	Pool           Address               `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the staking pool"`
	ClaimedRewards []JvaultClaimedReward `json:"claimed_rewards,omitempty" tc:"claimed_rewards" doc:"one entry per reward jetton claimed"`
}

// JvaultClaimedReward is one jetton of a claim.
type JvaultClaimedReward struct {
	Jetton       Address `json:"jetton,omitempty" tc:"jetton" doc:"the pool's jetton wallet of the reward, as the claim names it"`
	JettonMaster Address `json:"jetton_master,omitempty" role:"master" doc:"the reward jetton (its master), when known"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"jettons paid out"`
}

func init() {
	declare(
		Type{Value: JvaultStake{}, Title: "JVault stake", Describe: describeAs(func(v *JvaultStake, w *Words) string {
			return "Staked " + w.Jetton(v.Asset, v.Amount) + " in JVault pool " + w.Account(v.Pool)
		}),
			Toncenter: "jvault_stake", Protocols: "JVault",
			Doc:    "A jetton transfer to a pool whose forward payload names the lock period; the pool has the staker's stake wallet record it (receive_jettons 0xd68a4ac1), which reports to the pool (request_update_rewards 0xf5c5baa3), with referral updates, or refuses and has the jettons sent back (0x9eada1d9).",
			Failed: "the stake wallet refused the stake (the jettons went back), or a step failed"},
		Type{Value: JvaultUnstake{}, Title: "JVault unstake", Describe: describeAs(func(v *JvaultUnstake, w *Words) string {
			return "Unstaked " + w.Jetton(v.Asset, v.Amount) + " from JVault pool " + w.Account(v.Pool)
		}),
			Toncenter: "jvault_unstake", Protocols: "JVault",
			Doc:    "unstake_jettons (0x499a9262) at the stake wallet, which asks the pool (0xf5c5baa3); the pool sends the jettons back, takes its fee and updates the stake wallet. A stake wallet that did not ask the pool is reported with its exit code when its pool is known.",
			Failed: "never: like toncenter, an unstake the stake wallet refused is reported with its exit_code"},
		Type{Value: JvaultUnstakeRequest{}, Title: "JVault unstake request", Describe: describeAs(func(v *JvaultUnstakeRequest, w *Words) string {
			return "Asked JVault pool " + w.Account(v.Pool) + " to unstake " + w.Jetton(v.StakingAsset, v.Amount)
		}),
			Toncenter: "jvault_unstake_request", Protocols: "JVault",
			Doc:    "unstake_request (0x0168d4b7) at the stake wallet, which reports it to the pool (0xf5c5baa3) and gets its rewards updated (0xae9307ce).",
			Failed: "the stake wallet or the pool failed, or the stake wallet did not reach the pool (exit_code)"},
		Type{Value: JvaultClaim{}, Title: "JVault rewards", Describe: describeAs(func(v *JvaultClaim, w *Words) string {
			parts := make([]string, 0, len(v.ClaimedRewards))
			for _, r := range v.ClaimedRewards {
				parts = append(parts, w.Jetton(r.JettonMaster, r.Amount))
			}
			if len(parts) == 0 {
				return "Claimed rewards from JVault pool " + w.Account(v.Pool)
			}
			return "Claimed " + w.and(parts...) + " from JVault pool " + w.Account(v.Pool)
		}),
			Toncenter: "jvault_claim", Protocols: "JVault",
			Doc:    "claim_rewards (0x78d9f109) at the stake wallet, which asks the pool (0x44bc1fe3) to pay the rewards out as jetton transfers.",
			Failed: "the stake wallet, the pool or a reward transfer failed"},
	)
	addMatcher(OrderProtocol+60, "JvaultStake", matchJvaultStake)
	addMatcher(OrderProtocol+61, "JvaultUnstake", matchJvaultUnstake)
	addMatcher(OrderProtocol+62, "JvaultUnstakeRequest", matchJvaultUnstakeRequest)
	addMatcher(OrderProtocol+63, "JvaultClaim", matchJvaultClaim)
}

// jvaultReceive is receive_jettons#d68a4ac1 query_id:uint64
// min_deposit:Coins max_deposit:Coins unstake_commission:uint16
// unstake_fee:Coins whitelist:(HashmapE 267 Bit) received_jettons:Coins.
type jvaultReceive struct {
	Op                uint32
	QueryID           uint64
	MinDeposit        tlb.VarUInteger16
	MaxDeposit        tlb.VarUInteger16
	UnstakeCommission uint16
	UnstakeFee        tlb.VarUInteger16
	Whitelist         tlb.Maybe[tlb.Ref[boc.Cell]]
	Received          tlb.VarUInteger16
}

// matchJvaultStake anchors at the staker's jetton transfer to the pool.
// Like toncenter, it needs the stake wallet's answer to the pool (the
// report or the refusal): without it the transfer is a plain one.
func matchJvaultStake(c *classifier, n *node) bool {
	l, ok := c.followTransfer(n)
	if !ok || l.notify == nil {
		return false
	}
	pool := l.notify
	recv := pool.child(jvaultReceiveJettons)
	if recv == nil {
		return false
	}
	report, refused := recv.child(jvaultRequestUpdateRewards), recv.child(jvaultStakeCancelled)
	if report == nil && refused == nil {
		return false
	}
	v := &JvaultStake{Sender: Address(l.owner), SenderWallet: Address(l.sourceWallet), Pool: Address(pool.tx.Account),
		StakeWallet: Address(recv.tx.Account), Asset: Address(l.master), Amount: l.amount,
		StakingAsset: Address(c.masterOf(recv.tx.Account))}
	if p, ok := jvaultStakePeriod(l.send.in().Body); ok {
		v.Period = &p
	}
	d := newDraft(v, l.send.in().Hash, l.nodes()...).withInitiator(n)
	d.claimBelow(pool, nil)
	if refused != nil {
		d.ok = false
	} else {
		var b jvaultReceive
		if recv.decode(&b) {
			v.MintedStakeJettons = amount(b.Received)
		}
		update := report.child(jvaultUpdateRewards)
		d.ok = l.ok && recv.ok() && report.ok() && update != nil && update.ok()
	}
	c.add(d)
	return true
}

// jvaultStakePeriod reads the lock period from a stake transfer's forward
// payload: op:uint32 period:uint32.
func jvaultStakePeriod(body []byte) (int64, bool) {
	root := readBody(body)
	if root == nil || !unmarshalCell(root, &jettonTransferHead{}) {
		return 0, false
	}
	fwd := eitherPayload(root)
	if fwd == nil || fwd.BitsAvailableForRead() < 64 {
		return 0, false
	}
	if _, err := fwd.ReadUint(32); err != nil {
		return 0, false
	}
	p, err := fwd.ReadUint(32)
	if err != nil {
		return 0, false
	}
	return int64(p), true
}

// jvaultUnstakeBody is unstake_request#0168d4b7 query_id:uint64
// jettons_to_unstake:Coins; unstake_jettons#499a9262 adds force_unstake:Bool.
type jvaultUnstakeBody struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
}

// jvaultWalletFacts is what a stake wallet's data tells (toncenter reads
// it the same way): the pool, the stake jetton's master, and, from the
// pool's data, the jetton staked (the master of the pool's lock wallet).
type jvaultWalletFacts struct {
	pool, stakingAsset, asset string
}

func (c *classifier) jvaultWallet(stakeWallet string) jvaultWalletFacts {
	f := jvaultWalletFacts{stakingAsset: c.masterOf(stakeWallet)}
	var w struct {
		Pool, Minter tlb.MsgAddress
	}
	if k, ok := c.known[stakeWallet]; !ok || len(k.DataBOC) == 0 || !decodePrefix(k.DataBOC, &w) {
		return f
	}
	f.pool = addr(w.Pool)
	if f.stakingAsset == "" {
		f.stakingAsset = addr(w.Minter)
	}
	f.asset = c.jvaultPoolAsset(f.pool)
	return f
}

// jvaultPoolAsset is the jetton a pool takes: the master of its lock
// wallet, which its data names after a flag, a 32-bit field and the admin's
// and creator's addresses.
func (c *classifier) jvaultPoolAsset(pool string) string {
	var p struct {
		Flag           bool
		Index          uint32
		Admin, Creator tlb.MsgAddress
		LockWallet     tlb.MsgAddress
	}
	if k, ok := c.known[pool]; !ok || len(k.DataBOC) == 0 || !decodePrefix(k.DataBOC, &p) {
		return ""
	}
	return c.masterOf(addr(p.LockWallet))
}

// matchJvaultUnstake anchors at unstake_jettons at the stake wallet. The
// wallet asks the pool (0xf5c5baa3), which pays the jettons back, may take
// a fee in TON, runs referral updates and updates the wallet (0xae9307ce).
// A wallet that did not get that far is reported, as toncenter does, when
// its data tells its pool, with its exit code.
func matchJvaultUnstake(c *classifier, n *node) bool {
	if !n.is(jvaultUnstakeJettons) {
		return false
	}
	var body struct {
		Op      uint32
		QueryID uint64
		Amount  tlb.VarUInteger16
		Force   bool
	}
	m := n.in()
	v := &JvaultUnstake{Sender: Address(m.Source), StakeWallet: Address(n.tx.Account)}
	var short jvaultUnstakeBody
	if decodePrefix(m.Body, &body) {
		v.Amount, v.Force = amount(body.Amount), flag(body.Force)
	} else if decodePrefix(m.Body, &short) {
		v.Amount = amount(short.Amount)
	}
	facts := c.jvaultWallet(n.tx.Account)
	v.Asset, v.StakingAsset = Address(facts.asset), Address(facts.stakingAsset)
	d := newDraft(v, m.Hash).withInitiator(n)
	report := n.child(jvaultRequestUpdateRewards)
	var payout *jettonLeg
	var update *node
	if report != nil {
		update = report.child(jvaultUpdateRewards)
		for _, ch := range report.children {
			if l, ok := c.followTransfer(ch); ok && !ch.used && payout == nil {
				payout = l
			} else if !ch.used && plainTransfer(ch) && v.UnstakeFee == "" {
				v.UnstakeFee = nano(ch.in().Value)
			}
		}
	}
	if report == nil || payout == nil || update == nil {
		if facts.pool == "" {
			return false
		}
		v.Pool, v.UnstakeFee = Address(facts.pool), ""
		code := int64(n.tx.ComputeExitCode)
		v.ExitCode = &code
	} else {
		v.Pool = Address(report.tx.Account)
		if payout.master != "" {
			v.Asset = Address(payout.master)
		}
	}
	d.claimBelow(n, nil)
	c.add(d)
	return true
}

// matchJvaultUnstakeRequest anchors at unstake_request at the stake
// wallet, which reports it to the pool and gets its rewards updated.
func matchJvaultUnstakeRequest(c *classifier, n *node) bool {
	if !n.is(jvaultUnstakeRequest) {
		return false
	}
	m := n.in()
	v := &JvaultUnstakeRequest{Sender: Address(m.Source), StakeWallet: Address(n.tx.Account)}
	var body jvaultUnstakeBody
	if decodePrefix(m.Body, &body) {
		v.Amount = amount(body.Amount)
	}
	facts := c.jvaultWallet(n.tx.Account)
	v.Asset, v.StakingAsset = Address(facts.asset), Address(facts.stakingAsset)
	d := newDraft(v, m.Hash).withInitiator(n)
	report := n.child(jvaultRequestUpdateRewards)
	var update *node
	if report != nil {
		update = report.child(jvaultUpdateRewards)
	}
	if report == nil || update == nil {
		if facts.pool == "" {
			return false
		}
		v.Pool = Address(facts.pool)
		code := int64(n.tx.ComputeExitCode)
		v.ExitCode = &code
		d.ok = false
	} else {
		v.Pool = Address(report.tx.Account)
		d.ok = n.ok() && report.ok()
	}
	d.claimBelow(n, nil)
	c.add(d)
	return true
}

// jvaultClaimBody is claim_rewards#78d9f109 query_id:uint64
// jettons_to_claim:(HashmapE 267 Bit), keyed by the pool's jetton wallets.
type jvaultClaimBody struct {
	Op      uint32
	QueryID uint64
	Jettons tlb.HashmapE[jvaultAddrKey, struct{}]
}

// jvaultAddrKey is a dictionary key that is an address (267 bits).
type jvaultAddrKey string

func (jvaultAddrKey) FixedSize() int { return 267 }

func (k jvaultAddrKey) Equal(other any) bool {
	o, ok := other.(jvaultAddrKey)
	return ok && o == k
}

func (k jvaultAddrKey) Compare(other any) (int, bool) {
	o, ok := other.(jvaultAddrKey)
	if !ok {
		return 0, false
	}
	switch {
	case k < o:
		return -1, true
	case k > o:
		return 1, true
	}
	return 0, true
}

func (k *jvaultAddrKey) UnmarshalTLB(c *boc.Cell, d *tlb.Decoder) error {
	var a tlb.MsgAddress
	if err := d.Unmarshal(c, &a); err != nil {
		return err
	}
	*k = jvaultAddrKey(addr(a))
	return nil
}

// matchJvaultClaim anchors at claim_rewards at the stake wallet; the pool
// (asked with 0x44bc1fe3) pays each reward out with a jetton transfer and
// updates the stake wallet. Like toncenter, it needs a payout and the
// update.
func matchJvaultClaim(c *classifier, n *node) bool {
	if !n.is(jvaultClaimRewards) {
		return false
	}
	send := n.child(jvaultSendClaimedRewards)
	if send == nil {
		return false
	}
	update := send.child(jvaultUpdateRewards)
	var legs []*jettonLeg
	for _, ch := range send.children {
		if l, ok := c.followTransfer(ch); ok && !ch.used {
			legs = append(legs, l)
		}
	}
	if update == nil || len(legs) == 0 {
		return false
	}
	m := n.in()
	v := &JvaultClaim{Sender: Address(m.Source), StakeWallet: Address(n.tx.Account), Pool: Address(send.tx.Account)}
	var wallets []string
	var body jvaultClaimBody
	if decodePrefix(m.Body, &body) {
		for _, k := range body.Jettons.Keys() {
			wallets = append(wallets, string(k))
		}
	}
	if len(wallets) == 0 {
		for _, l := range legs {
			wallets = append(wallets, l.sourceWallet)
		}
	}
	ok := n.ok() && send.ok() && update.ok()
	for _, w := range wallets {
		r := JvaultClaimedReward{Jetton: Address(w), JettonMaster: Address(c.masterOf(w))}
		for _, l := range legs {
			if l.sourceWallet == w {
				r.Amount = l.amount
				ok = ok && l.ok
				if l.master != "" {
					r.JettonMaster = Address(l.master)
				}
				break
			}
		}
		v.ClaimedRewards = append(v.ClaimedRewards, r)
	}
	d := newDraft(v, m.Hash).withInitiator(n)
	d.claimBelow(n, nil)
	d.ok = ok
	c.add(d)
	return true
}
