package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// Coffee swaps of the fixtures, as they are and edited: toncenter reports a
// Coffee swap only when every pool of the route logged
// swap_successful_event (0xc0ffee30) and the route reached a payout; it
// reads TON paid with notification#c0ffee36 at the message's value.
const (
	coffeeUsdtToTon    = "toncenter-traces/traces/p1-SZ1wV7yEe2qf1SQujTW5OMifEPuuX-jPPrPNiKxw=.json" // one pool, payout#c0ffee32
	coffeeUsdtTonToCes = "toncenter-traces/traces/dp1xdxzIC7tCyZfy80VTW5be7SimpOOTnuf3_8BZjb0=.json" // two pools, jettons out
)

func swapClassify(t *testing.T, file string, edit func(tr *chain.ToncenterTrace)) results {
	t.Helper()
	return resultsOf(t, classifyFile(t, testenv.Fixture(t, file), edit))
}

// dropLogs removes the external out-messages with the op code from the
// transactions whose in-message has the op code in and, when lt is not
// zero, whose lt is lt.
func dropLogs(log, in abi.MsgOpCode, lt uint64) func(tr *chain.ToncenterTrace) {
	return func(tr *chain.ToncenterTrace) {
		for _, tx := range tr.Transactions {
			if m := tx.InMsg; m == nil || m.Opcode == nil || *m.Opcode != uint32(in) || lt != 0 && tx.Lt != lt {
				continue
			}
			kept := tx.OutMsgs[:0]
			for _, o := range tx.OutMsgs {
				if o.Destination != "" || o.Opcode == nil || *o.Opcode != uint32(log) {
					kept = append(kept, o)
				}
			}
			tx.OutMsgs = kept
		}
	}
}

func TestCoffeeSwapReported(t *testing.T) {
	t.Run("as it is", func(t *testing.T) {
		swapClassify(t, coffeeUsdtToTon, nil).one(t, "JettonSwap:ok")
		swapClassify(t, coffeeUsdtTonToCes, nil).one(t, "JettonSwap:ok")
	})
	t.Run("the pool logged no swap", func(t *testing.T) {
		// No swap: the jettons into the vault are a transfer of their own.
		rs := swapClassify(t, coffeeUsdtToTon, dropLogs(abi.CoffeeSwapSucceededExtOutMsgOpCode, abi.CoffeeSwapInternalMsgOpCode, 0))
		if n := len(rs.ofKind("JettonSwap")); n != 0 {
			t.Errorf("%d JettonSwaps in %v, want none", n, rs.kinds())
		}
		rs.one(t, "JettonTransfer:ok")
	})
	t.Run("the second pool logged no swap", func(t *testing.T) {
		// Neither the route nor its second pool alone (asked by the first
		// pool, not by a vault) is a swap.
		rs := swapClassify(t, coffeeUsdtTonToCes, dropLogs(abi.CoffeeSwapSucceededExtOutMsgOpCode, abi.CoffeeSwapInternalMsgOpCode, 58055477000001))
		if n := len(rs.ofKind("JettonSwap")); n != 0 {
			t.Errorf("%d JettonSwaps in %v, want none", n, rs.kinds())
		}
	})
	t.Run("TON paid with a notification", func(t *testing.T) {
		// The vault's payout#c0ffee32 made a notification#c0ffee36: the
		// TON out is the message's 1798597794, from the vault.
		toNotification := func(tr *chain.ToncenterTrace) {
			for _, tx := range tr.Transactions {
				if m := tx.InMsg; m != nil && m.Opcode != nil && *m.Opcode == uint32(abi.CoffeePayoutMsgOpCode) {
					code := uint32(abi.CoffeeNotificationMsgOpCode)
					m.Opcode = &code
				}
			}
		}
		a := swapClassify(t, coffeeUsdtToTon, toNotification).one(t, "JettonSwap:ok")
		v := swapOf(t, a)
		if out := v.DexOutgoingTransfer; out == nil || out.Amount != "1798597794" || out.Asset != "" ||
			out.Source != "0:DB2EA4FFCE1C691118F41275C6DA2AABD60EF53836FF5E873BE11F11CD448494" {
			t.Errorf("outgoing %+v", out)
		}
	})
}
