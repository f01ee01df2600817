package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// Ethena on TON. The jetton masters are the ones toncenter's
// ethena_staking.py checks a deposit against; the staking pool is the one
// tonkeeper's opentonapi names (pkg/references/protocols.go).
const (
	ethenaUSDe   = "0:086FA2A675F74347B08DD4606A549B8FDB98829CB282BC1949D3B12FBAED9DCC"
	ethenaTsUSDe = "0:D0E545323C7ACB7102653C073377F7E3C67F122EB94D430A250739F109D4A57D"
	// ethenaLockedTransfer is how the master of the locked USDe credits a
	// holder's wallet on a withdrawal request (an internal_transfer-like
	// message: op query_id:uint64 amount:Coins ...).
	ethenaLockedTransfer = 0xb2583ed5
)

func init() {
	addMatcher(OrderProtocol+43, "StakeDeposit/ethena", matchEthenaStake)
}

// matchEthenaStake anchors at a jetton transfer to Ethena's staking pool
// (recognized by what it does: notified of the jettons, it asks a master to
// mint, 0x642b7d07). When the master credits the holder's wallet with a
// locked transfer (0xb2583ed5), it is a withdrawal request of tsUSDe (the
// jettons may go straight to their master rather than to a pool's wallet:
// toncenter expects that); when the master is tsUSDe's and sends the
// holder's wallet internal_transfer, it is a deposit of USDe.
func matchEthenaStake(c *classifier, n *node) bool {
	l, ok := c.followTransfer(n)
	if !ok || l.notify == nil {
		return false
	}
	pool := l.notify
	mint := pool.child(abi.JettonMintMsgOpCode)
	if mint == nil {
		return false
	}
	// What the master sends tells the two apart; the masters' addresses
	// confirm a deposit.
	if locked := mint.child(ethenaLockedTransfer); locked != nil {
		return ethenaWithdrawRequest(c, l, pool, mint, locked)
	}
	if mint.tx.Account == ethenaTsUSDe && (l.master == "" || l.master == ethenaUSDe) {
		return ethenaDeposit(c, l, pool, mint)
	}
	return false
}

func ethenaDeposit(c *classifier, l *jettonLeg, pool, mint *node) bool {
	v := &StakeDeposit{Provider: providerEthena, StakeHolder: Address(l.owner), Pool: Address(pool.tx.Account),
		Amount: l.amount, Asset: Address(mint.tx.Account), SourceAsset: Address(l.master),
		SourceWallet: Address(l.sourceWallet)}
	d := newDraft(v, l.send.in().Hash, l.nodes()...).withInitiator(l.send)
	w := mint.child(abi.JettonInternalTransferMsgOpCode)
	d.ok = l.ok && pool.ok() && mint.ok() && w != nil && w.ok()
	if w != nil {
		v.TokensWallet = Address(w.tx.Account)
		if _, amt, ok := internalTransferHead(w); ok {
			v.TokensMinted = amt
		}
	}
	d.claimBelow(pool, nil)
	c.add(d)
	return true
}

func ethenaWithdrawRequest(c *classifier, l *jettonLeg, pool, mint, locked *node) bool {
	// toncenter checks that both wallets are the holder's: the one that
	// sent the jettons, and the one credited with the locked ones.
	if o := c.ownerOf(locked.tx.Account); o != "" && o != l.owner {
		return false
	}
	if m := c.masterOf(locked.tx.Account); m != "" && m != mint.tx.Account {
		return false
	}
	v := &StakeWithdrawalRequest{Provider: providerEthena, StakeHolder: Address(l.owner),
		Pool: Address(mint.in().Source), Amount: l.amount, Asset: Address(l.master),
		SourceWallet: Address(l.sourceWallet), TokensWallet: Address(locked.tx.Account)}
	if l.receive != nil {
		if _, amt, ok := internalTransferHead(l.receive); ok {
			v.Amount = amt
		}
	}
	var head struct {
		Op      uint32
		QueryID uint64
		Amount  tlb.VarUInteger16
	}
	if locked.decode(&head) {
		v.TokensMinted = amount(head.Amount)
	}
	d := newDraft(v, l.send.in().Hash, l.nodes()...).withInitiator(l.send)
	d.claimBelow(pool, nil)
	d.ok = l.ok && pool.ok() && mint.ok() && locked.ok()
	c.add(d)
	return true
}
