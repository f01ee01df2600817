package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("JvaultStake", 4, 4)
	setFloor("JvaultUnstake", 1, 1)
	setFloor("JvaultUnstakeRequest", 1, 1)
	setFloor("JvaultClaim", 1, 1)
}

// TestGoldenJvault pins two labelled JVault traces whole.
func TestGoldenJvault(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A stake the stake wallet refused: 1638000000000 jettons sent to
			// the pool with a 2592000 s lock; the pool has the new stake
			// wallet record them (receive_jettons), which answers 0x9eada1d9
			// and the pool sends the jettons back (a jetton transfer whose
			// notification to the staker fails for lack of TON). Right: one
			// JvaultStake failed over all 13 transactions (the refund and the
			// referrer's set_data included), pool, stake wallet and period
			// named, no minted stake jettons.
			name: "jvault_stake_refused",
			file: "toncenter-traces/traces/3gHUMt8h1SyaO7pMTIWZ3d0adXpyHbvb7j-0RZQFjiU=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, 0x9eada1d9) })
			},
			want: []string{"JvaultStake:failed"},
		},
		{
			// An unstake request whose referral update failed: the stake
			// wallet reports 258429093190 stake jettons to the pool, which
			// updates it (0xae9307ce, excess to the staker) and tells a
			// referrer wallet that does not exist (bounced). Right: one
			// JvaultUnstakeRequest ok (toncenter's: the referral is no part
			// of the request's outcome) over all 7 transactions; asset = the
			// master of the pool's lock wallet, which only the pool's data
			// names; staking_asset = the stake wallet's own jetton.
			name: "jvault_unstake_request",
			file: "toncenter-traces/traces/4SLKuSOof3oAYQV1RKIMHgSdqKnTFqz4bn4wMlzZHFk=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, 0x0168d4b7) })
			},
			want: []string{"JvaultUnstakeRequest:ok"},
		},
	})
}

// testAddrKey is an address key of a constructed dictionary (267 bits).
type testAddrKey string

func (testAddrKey) FixedSize() int { return 267 }
func (k testAddrKey) Equal(o any) bool {
	x, ok := o.(testAddrKey)
	return ok && x == k
}
func (k testAddrKey) Compare(o any) (int, bool) {
	x, ok := o.(testAddrKey)
	if !ok {
		return 0, false
	}
	switch {
	case k < x:
		return -1, true
	case k > x:
		return 1, true
	}
	return 0, true
}
func (k testAddrKey) MarshalTLB(c *boc.Cell, e *tlb.Encoder) error {
	id := ton.MustParseAccountID(string(k))
	return tlb.Marshal(c, id.ToMsgAddress())
}

const (
	jvStaker      = "0:D94FCAE73C2E76C960834E0F5E739B0AD28D42EB9EE1C6A1BD5E0E7FE8257CCF"
	jvStakeWallet = "0:32F3F3C9881BF73850082C9F5F4D5B654F4062E71EDD93D868BC59447F9AA2AA"
	jvPool        = "0:AA5C2D9CB469BECB874312C79ABC9DA6C2E64C92C108FE31A2F26B00D8134CD7"
	jvPoolWalletA = "0:A048BDFAAC1F51AEAE2C1100CF5F1C1D1D316AD4E013A4030F7E2DF2A4ADE68D"
	jvPoolWalletB = "0:B048BDFAAC1F51AEAE2C1100CF5F1C1D1D316AD4E013A4030F7E2DF2A4ADE68D"
	jvStakerA     = "0:F9BA962A111CBCE8A616759D1F0A2EFC337FF5824D7CB39E04A52C26B2CD5666"
	jvStakerB     = "0:E9BA962A111CBCE8A616759D1F0A2EFC337FF5824D7CB39E04A52C26B2CD5666"
	jvJettonA     = "0:BC16864C941719859E8FAFDB071B21F3905BFDCB60795FDB4DEB546FB9C2D1CC"
	jvMinter      = "0:6686D5CE2FEE0D29705BB4ACD9CF64D165A520E5EAF39D8CAA13D23FA5D15D90"
)

// rewardPayout is the pool paying a reward: transfer at its jetton wallet,
// internal_transfer at the staker's.
func rewardPayout(poolWallet, stakerWallet string, amount uint64) *stx {
	j := jetton{query: 1, amount: amount, to: jvStaker, from: jvPool, response: jvStaker, forward: 1}
	return call(poolWallet, 55_000_000, j.transfer(), call(stakerWallet, 47_000_000, j.internal()))
}

// TestJvaultClaimTwoRewards: the fixture claims one reward; a claim names
// the pool's jetton wallets in a dictionary (claim_rewards#78d9f109
// query_id jettons_to_claim:(HashmapE 267 Bit)) and the pool pays each.
// Each reward gets the amount paid from its own wallet.
func TestJvaultClaimTwoRewards(t *testing.T) {
	claim := cellOf(op(0x78d9f109), u64(1), tlbOf(tlb.NewHashmapE([]testAddrKey{jvPoolWalletA, jvPoolWalletB}, []bool{true, true})))
	root := call(jvStakeWallet, 405_000_000, claim,
		call(jvPool, 400_000_000, opQuery(0x44bc1fe3, 1),
			call(jvStakeWallet, 320_000_000, opQuery(0xae9307ce, 1)),
			rewardPayout(jvPoolWalletB, jvStakerB, 222),
			rewardPayout(jvPoolWalletA, jvStakerA, 111))).from(jvStaker)
	known := chain.KnownContracts{jvPoolWalletA: {Kind: chain.KindJettonWallet, Jetton: jvJettonA, Owner: jvPool}}
	a := classify(t, root, known).only(t, "JvaultClaim:ok")
	a.wantTxs(t, 7)
	a.want(t, map[string]any{"sender": jvStaker, "stake_wallet": jvStakeWallet, "pool": jvPool})
	rewards, _ := a.v["claimed_rewards"].([]any)
	want := []map[string]any{
		{"jetton": jvPoolWalletA, "jetton_master": jvJettonA, "amount": "111"},
		{"jetton": jvPoolWalletB, "amount": "222"},
	}
	if len(rewards) != len(want) {
		t.Fatalf("rewards %v, want %v", rewards, want)
	}
	for i, w := range want {
		r, _ := rewards[i].(map[string]any)
		for k, v := range w {
			if r[k] != v {
				t.Errorf("reward %d %s = %v, want %v", i, k, r[k], v)
			}
		}
	}
}

// TestJvaultRefusedUnstake: a stake wallet that refuses (the lock is not
// over) never reaches the pool. Like toncenter, an unstake is then reported
// when the stake wallet's data names its pool, with the exit code (and, as
// toncenter has it, not failed); an unstake request is failed. Without the
// data nothing tells the pool: the call stays a call.
func TestJvaultRefusedUnstake(t *testing.T) {
	const lockWallet = "0:4734000000000000000000000000000000000000000000000000000000000001"
	known := chain.KnownContracts{
		jvStakeWallet: {DataBOC: bocOf(cellOf(addr(jvPool), addr(jvMinter)))},
		jvPool:        {DataBOC: bocOf(cellOf(u(0, 1), u(5, 32), addr(jvStaker), addr(jvStaker), addr(lockWallet)))},
		lockWallet:    {Kind: chain.KindJettonWallet, Jetton: jvJettonA, Owner: jvPool},
	}
	refused := func(body *boc.Cell) *stx {
		return call(jvStakeWallet, 750_000_000, body).from(jvStaker).fails(709).bouncesBack(740_000_000, nil)
	}
	unstake := refused(cellOf(op(0x499a9262), u64(1), coins(300), bit(false)))
	a := classify(t, unstake, known).only(t, "JvaultUnstake:ok")
	a.wantTxs(t, 2)
	a.want(t, map[string]any{"pool": jvPool, "amount": "300", "exit_code": 709,
		"asset": jvJettonA, "staking_asset": jvMinter, "force": false})

	a = classify(t, refused(cellOf(op(0x0168d4b7), u64(1), coins(400))), known).only(t, "JvaultUnstakeRequest:failed")
	a.want(t, map[string]any{"pool": jvPool, "amount": "400", "exit_code": 709, "asset": jvJettonA})

	if got := classify(t, unstake, nil).ofKind("JvaultUnstake"); len(got) != 0 {
		t.Fatalf("got %v without the stake wallet's data", got.kinds())
	}
}
