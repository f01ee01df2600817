package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
)

// A wallet that asks a plugin already gone to destruct: nothing runs and
// the message bounces. toncenter reports every unsubscribe ok; ours fails
// (the documented difference), over the request and the bounce.
func TestUnsubscribeGonePlugin(t *testing.T) {
	walletA, plugin := acct(1), acct(2)
	root := ext(walletA, call(plugin, 50_000_000, opQuery(uint32(abi.WalletPluginDestructMsgOpCode), 12)).
		status(chain.AccountNonexist, chain.AccountNonexist).fails(0).bouncesBack(45_000_000, nil))
	a := classify(t, root, nil).only(t, "Unsubscribe:failed")
	a.want(t, map[string]any{"subscriber": walletA, "subscription": plugin, "beneficiary": nil, "query_id": "12"})
	a.wantTxs(t, 3)
}

// The wallet sends the plugin more than it asked for (the fees too):
// toncenter's subscribe names the requested amount, not the value sent, and
// spans the payment request, the payment and the forward.
func TestSubscribeAmountFromRequest(t *testing.T) {
	walletA, plugin, beneficiary := acct(1), acct(2), acct(3)
	root := ext(plugin,
		call(walletA, 20_000_000, requestFunds(1_000_000_000),
			call(plugin, 1_050_000_000, opQuery(abi.PaymentConfirmedMsgOpCode, 11),
				call(beneficiary, 990_000_000, cellOf(op(abi.SubscriptionPaymentMsgOpCode))).bounceable(false))))
	a := classify(t, root, nil).only(t, "Subscribe:ok")
	a.want(t, map[string]any{"amount": "1000000000", "subscriber": walletA, "subscription": plugin, "beneficiary": beneficiary})
	a.wantTxs(t, 4) // the plugin's external, the request, the payment, the forward
}
