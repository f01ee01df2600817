package actions_test

import (
	"bytes"
	"strings"
	"testing"
)

const (
	elector         = "-1:3333333333333333333333333333333333333333333333333333333333333333"
	validatorWallet = "-1:8888888888888888888888888888888888888888888888888888888888888888"
)

// TestElections: no fixture has an election. The messages are those of the
// elector (ton-blockchain's elector-code.fc; toncenter's elections.py
// matches the same op codes): new_stake#4e73744b query_id validator_pubkey
// stake_at max_factor adnl_addr ^signature, answered by a confirmation
// (0xf374484c) or the stake sent back (0xee6f454c); recover_stake#47657424
// query_id, answered by the stake (0xf96f7324) or 0xfffffffe when there is
// none.
func TestElections(t *testing.T) {
	key, adnl := bytes.Repeat([]byte{0x01}, 32), bytes.Repeat([]byte{0xab}, 32)
	newStake := func(value uint64, reply uint32, replyValue uint64) *stx {
		b := cellOf(op(0x4e73744b), u64(42), raw(key), u(1700000000, 32), u(196608, 32), raw(adnl),
			ref(cellOf(raw(make([]byte, 64))))) // signature
		return call(elector, value, b, call(validatorWallet, replyValue, opQuery(reply, 42))).from(validatorWallet)
	}
	recoverStake := func(reply uint32, replyValue uint64) *stx {
		return call(elector, 1_000_000_000, opQuery(0x47657424, 43), call(validatorWallet, replyValue, opQuery(reply, 43))).from(validatorWallet)
	}
	// A confirmation belongs to the request: each over both transactions.
	runCases(t, nil, []actionCase{
		{"stake accepted", newStake(700_000_000_000_000, 0xf374484c, 1_000_000_000), "ElectionDeposit:ok", 2,
			map[string]any{"stake_holder": validatorWallet, "elector": elector, "amount": "700000000000000", "query_id": "42",
				"validator_pubkey": strings.Repeat("01", 32), "adnl_address": strings.Repeat("ab", 32),
				"election_id": 1700000000, "max_factor": 196608}},
		{"stake recovered", recoverStake(0xf96f7324, 712_000_000_000_000), "ElectionRecover:ok", 2,
			map[string]any{"stake_holder": validatorWallet, "amount": "712000000000000", "query_id": "43"}},
	})
	// A refusal is not part of the request: toncenter's matchers take only
	// the confirmation, so the elector's answer is a call of its own.
	for _, tc := range []struct {
		name, kind string
		root       *stx
		want       map[string]any
		reply      string
	}{
		{"stake returned", "ElectionDeposit:failed", newStake(10_000_000_000, 0xee6f454c, 9_900_000_000),
			map[string]any{"amount": "10000000000"}, "9900000000"},
		{"nothing to recover", "ElectionRecover:failed", recoverStake(0xfffffffe, 990_000_000),
			map[string]any{"amount": nil}, "990000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classify(t, tc.root, nil)
			got.expect(t, tc.kind, "SmartContractExec:ok")
			a := got.one(t, tc.kind)
			a.wantTxs(t, 1)
			a.want(t, tc.want)
			got.one(t, "SmartContractExec").want(t, map[string]any{"amount": tc.reply})
		})
	}
	t.Run("the same op to another contract is no election", func(t *testing.T) {
		root := recoverStake(0xf96f7324, 1)
		root.account = validator
		if got := classify(t, root, nil).ofKind("ElectionRecover"); len(got) != 0 {
			t.Fatalf("got %v", got.kinds())
		}
	})
}
