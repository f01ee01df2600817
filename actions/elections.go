package actions

import (
	"encoding/hex"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// The elector (config param 1) and its messages, from ton-blockchain's
// crypto/smartcont/elector-code.fc (toncenter's messages/staking.py has the
// same op codes).
const (
	electorAddress = "-1:3333333333333333333333333333333333333333333333333333333333333333"

	electorNewStake       = 0x4e73744b // new_stake: a validator's stake for the next election
	electorNewStakeOK     = 0xf374484c // the elector accepted the stake (0xee6f454c: returned it)
	electorRecoverStake   = 0x47657424 // recover_stake: ask for a freed stake back
	electorRecoverStakeOK = 0xf96f7324 // the elector pays the stake back (0xfffffffe: nothing to recover)
)

// ElectionDeposit: a validator's stake sent to the elector.
type ElectionDeposit struct {
	StakeHolder     Address `json:"stake_holder,omitempty" role:"sender" tc:"stake_holder" doc:"who sent the stake (a validator's wallet or a pool's controller)"`
	Elector         Address `json:"elector,omitempty" role:"contract" doc:"the elector"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons sent with the stake"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
	ValidatorPubkey Text    `json:"validator_pubkey,omitempty" doc:"the validator's public key, 64 hex digits"`
	ElectionID      int64   `json:"election_id,omitempty" doc:"the election the stake is for (stake_at, unix time)"`
	MaxFactor       int64   `json:"max_factor,omitempty" doc:"the largest stake ratio accepted, times 65536"`
	AdnlAddress     Text    `json:"adnl_address,omitempty" doc:"the validator's ADNL address, 64 hex digits"`
}

// ElectionRecover: a freed validator stake asked back from the elector.
type ElectionRecover struct {
	StakeHolder Address `json:"stake_holder,omitempty" role:"recipient" tc:"stake_holder" doc:"who asked for the stake back"`
	Elector     Address `json:"elector,omitempty" role:"contract" doc:"the elector"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons the elector paid back; absent when it had nothing to return"`
	QueryID     BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

func init() {
	declare(
		Type{Value: ElectionDeposit{}, Title: "Validator stake", Describe: describeAs(func(v *ElectionDeposit, w *Words) string {
			return "Deposited " + w.TON(v.Amount) + " as a validator stake with the elector"
		}),
			Toncenter: "election_deposit", Protocols: "the elector",
			Doc:    "new_stake (0x4e73744b) to the elector and its confirmation (0xf374484c); a refusal (0xee6f454c, the stake sent back) stays a call of its own, as toncenter leaves it.",
			Failed: "the elector did not confirm the stake"},
		Type{Value: ElectionRecover{}, Title: "Validator stake recovered", Describe: describeAs(func(v *ElectionRecover, w *Words) string {
			return "Recovered " + w.TON(v.Amount) + " of validator stake from the elector"
		}),
			Toncenter: "election_recover", Protocols: "the elector",
			Doc:    "recover_stake (0x47657424) to the elector and its payment of the stake (0xf96f7324); the answer that there is none (0xfffffffe) stays a call of its own, as toncenter leaves it.",
			Failed: "the elector paid nothing back"},
	)
	addMatcher(OrderProtocol+50, "ElectionDeposit/ElectionRecover", matchElection)
}

// newStakeBody is new_stake#4e73744b query_id:uint64 validator_pubkey:bits256
// stake_at:uint32 max_factor:uint32 adnl_addr:bits256 signature:^bits512.
type newStakeBody struct {
	Op        uint32
	QueryID   uint64
	Pubkey    tlb.Bits256
	StakeAt   uint32
	MaxFactor uint32
	Adnl      tlb.Bits256
}

// matchElection: a new_stake or recover_stake request to the elector, with
// the elector's confirmation; without one the request failed.
func matchElection(c *classifier, n *node) bool {
	if n.tx.Account != electorAddress || !n.hasOp || n.in().Bounced {
		return false
	}
	m := n.in()
	var head struct {
		Op      uint32
		QueryID uint64
	}
	var queryID BigInt
	if decodePrefix(m.Body, &head) {
		queryID = nano(head.QueryID)
	}
	var d *draft
	switch n.op {
	case electorNewStake:
		v := &ElectionDeposit{StakeHolder: Address(m.Source), Elector: Address(n.tx.Account),
			Amount: nano(m.Value), QueryID: queryID}
		var b newStakeBody
		if decodePrefix(m.Body, &b) {
			v.ValidatorPubkey, v.AdnlAddress = Text(hex.EncodeToString(b.Pubkey[:])), Text(hex.EncodeToString(b.Adnl[:]))
			v.ElectionID, v.MaxFactor = int64(b.StakeAt), int64(b.MaxFactor)
		}
		d = newDraft(v, m.Hash, n).withInitiator(n)
		d.ok = electorConfirmation(d, n, electorNewStakeOK) != nil
	case electorRecoverStake:
		v := &ElectionRecover{StakeHolder: Address(m.Source), Elector: Address(n.tx.Account), QueryID: queryID}
		d = newDraft(v, m.Hash, n).withInitiator(n)
		ok := electorConfirmation(d, n, electorRecoverStakeOK)
		if ok != nil {
			v.Amount = nano(ok.in().Value)
		}
		d.ok = ok != nil
	default:
		return false
	}
	c.add(d)
	return true
}

// electorConfirmation adds the elector's confirmation of a request (and a
// bounce of the request) to d and returns it, nil when there is none. The
// elector's refusals (the stake sent back, nothing to recover) stay calls
// of their own, as toncenter's matchers take only the confirmation.
func electorConfirmation(d *draft, n *node, okOp abi.MsgOpCode) *node {
	var ok *node
	for _, ch := range n.children {
		switch {
		case ch.used:
		case ch.is(okOp) && ok == nil:
			ok = ch
			d.nodes = append(d.nodes, ch)
		case ch.in().Bounced:
			d.nodes = append(d.nodes, ch)
		}
	}
	return ok
}
