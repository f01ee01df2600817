package actions_test

import (
	"strings"
	"testing"

	"github.com/tonql/tonql/chain"
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
	key, adnl := strings.Repeat("\x01", 32), strings.Repeat("\xab", 32)
	newStake := func(value uint64, reply uint32, replyValue uint64) *synth {
		b := body(uint32(0x4e73744b), uint64(42), key, uint32(1700000000), uint32(196608), adnl)
		if err := b.AddRef(body(strings.Repeat("\x00", 64))); err != nil {
			t.Fatal(err)
		}
		return &synth{account: elector, from: validatorWallet, value: value, body: b,
			children: []*synth{{account: validatorWallet, from: elector, value: replyValue, body: body(reply, uint64(42))}}}
	}
	recoverStake := func(reply uint32, replyValue uint64) *synth {
		return &synth{account: elector, from: validatorWallet, value: 1_000_000_000, body: body(uint32(0x47657424), uint64(43)),
			children: []*synth{{account: validatorWallet, from: elector, value: replyValue, body: body(reply, uint64(43))}}}
	}
	cases := []struct {
		name   string
		root   *synth
		typ    string
		status string
		want   map[string]any
	}{
		{"stake accepted", newStake(700_000_000_000_000, 0xf374484c, 1_000_000_000), "ElectionDeposit", chain.StatusOK,
			map[string]any{"stake_holder": validatorWallet, "elector": elector, "amount": "700000000000000", "query_id": "42",
				"validator_pubkey": strings.Repeat("01", 32), "adnl_address": strings.Repeat("ab", 32),
				"election_id": float64(1700000000), "max_factor": float64(196608)}},
		{"stake returned", newStake(10_000_000_000, 0xee6f454c, 9_900_000_000), "ElectionDeposit", chain.StatusFailed,
			map[string]any{"amount": "10000000000"}},
		{"stake recovered", recoverStake(0xf96f7324, 712_000_000_000_000), "ElectionRecover", chain.StatusOK,
			map[string]any{"stake_holder": validatorWallet, "amount": "712000000000000", "query_id": "43"}},
		{"nothing to recover", recoverStake(0xfffffffe, 990_000_000), "ElectionRecover", chain.StatusFailed,
			map[string]any{"amount": nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := classifySynth(t, tc.root, nil)
			if len(got) != 1 || got[0].typ != tc.typ || got[0].status != tc.status || got[0].txs != 2 {
				t.Fatalf("got %v, want one %s %s over both transactions", got, tc.typ, tc.status)
			}
			expectValue(t, got[0], tc.want)
		})
	}
	t.Run("the same op to another contract is no election", func(t *testing.T) {
		root := recoverStake(0xf96f7324, 1)
		root.account, root.children[0].from = validator, validator
		if got := stakeOnly(classifySynth(t, root, nil), "ElectionRecover"); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
}
