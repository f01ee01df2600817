package actions_test

import (
	"strings"
	"testing"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("TgbtcMint", 2, 2)
	setFloor("TgbtcBurn", 2, 2)
	setFloor("TgbtcBurnFallback", 1, 1)
	setFloor("TgbtcNewKey", 2, 2)
	setFloor("TgbtcDkgLogFallback", 1, 1)
}

func TestGoldenTgbtc(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A tgBTC mint: a wallet sends the deposit proof (0x3f781d24)
			// to the teleport contract, which checks it through a chain of
			// calls (a light client, a verifier, a deposit contract) down
			// to its last step (0xe42a879b); that logs the mint (external
			// 0x77a80ef3: 1660350 satoshi to the wallet, with the Bitcoin
			// txid) and has the tgBTC master mint to the wallet's jetton
			// wallet. Right: one TgbtcMint, ok, over all 17 transactions
			// (the checks belong to it, as toncenter merges them), sender
			// = the proof's sender, bitcoin_tx_id in Bitcoin's byte order;
			// the contract the teleport deploys on the way (0x642a879b) is a
			// ContractDeploy beside it.
			name: "tgbtc_mint",
			file: "toncenter-traces/traces/1rMRvEYh8TtCNox3P4VG6wcGLWX4YrU7jc55iqxzo6c=.json",
			pick: func(tr *chain.Trace) bool { return hasLog(tr, 0x77a80ef3) },
			want: []string{"ContractDeploy:ok", "TgbtcMint:ok"},
		},
		{
			// A tgBTC burn whose master reports to the teleport contract
			// with 0x587643a2; it logs the burn (external 0xca444ce6) with
			// a peg-out address written as an anycast addr_std, and starts
			// the peg-out contract (deployed here). Right: one TgbtcBurn,
			// ok, amount 1000 (the burn; the log's number is larger),
			// pegout 15:8A69... as the bits stand (toncenter's form).
			name: "tgbtc_burn_anycast_pegout",
			file: "toncenter-traces/traces/TDsLHsBMnAQGQ0nLSoy5wfUXjMjc28aCc241U9U9D2M=.json",
			pick: func(tr *chain.Trace) bool { return hasLog(tr, 0xca444ce6) },
			want: []string{"ContractDeploy:ok", "TgbtcBurn:ok"},
		},
	})
}

// TestTgbtcLogFallbacks: a mint log and a new-key log with nothing around
// them (no labelled traces have them) are reported beside the call that
// explains their transaction.
func TestTgbtcLogFallbacks(t *testing.T) {
	teleport, coordinator, caller, recipient, pegout := named("teleport"), named("coordinator"), named("caller"), named("recipient"), named("pegout")
	txid := "00ff000000000000000000000000000000000000000000000000000000000011"
	// fallback is the action of the log, beside the call's SmartContractExec.
	fallback := func(root *stx, typ string) result {
		t.Helper()
		rs := classify(t, root, nil)
		if len(rs) != 2 || len(rs.ofKind("SmartContractExec")) != 1 {
			t.Fatalf("got %v, want a fallback beside the call", rs.kinds())
		}
		return rs.one(t, typ)
	}

	// mint#77a80ef3 amount:Coins recipient:MsgAddress bitcoin_txid:uint256
	mint := call(teleport, 1000000000, cellOf(op(0x12345678))).from(caller).
		logs(cellOf(op(0x77a80ef3), coins(9700), addr(recipient), u256(txid)))
	// The txid is the logged number's bytes reversed.
	fallback(mint, "TgbtcMintFallback").want(t, map[string]any{"teleport": teleport, "recipient": recipient, "amount": "9700",
		"bitcoin_tx_id": "11" + strings.Repeat("00", 29) + "ff00"})

	// event 0x27756729 amount:Coins new_internal_pubkey:uint256 pegout_address:MsgAddress;
	// the key has leading zeros, which toncenter's hex leaves out.
	key := call(coordinator, 1000000000, cellOf(op(0x12345678))).from(caller).
		logs(cellOf(op(0x27756729), coins(425489053588), u256(txid), addr(pegout)))
	fallback(key, "TgbtcNewKeyFallback").want(t, map[string]any{"coordinator": coordinator, "pegout": pegout,
		"pubkey": "ff000000000000000000000000000000000000000000000000000000000011", "amount": "425489053588"})

	// burn#ca444ce6 amount:Coins sender:MsgAddress pegout:MsgAddress, its
	// peg-out address cut short (an old log): the sender is kept.
	burn := call(teleport, 1000000000, cellOf(op(0x12345678))).from(caller).
		logs(cellOf(op(0xca444ce6), coins(5000), addr(recipient), u(2, 2)))
	fallback(burn, "TgbtcBurnFallback").want(t, map[string]any{"sender": recipient, "amount": "5000", "pegout": nil})
}

// TestTgbtcMintStatus: as toncenter has it, a mint the teleport logged is
// done whatever the master and the recipient's wallet then did; whether the
// tokens were credited is not_credited and the JettonMint step's status.
// A master that failed on a standard mint request still makes the mint (not
// a fallback), without a recipient wallet.
func TestTgbtcMintStatus(t *testing.T) {
	relayer, teleport, checker, master, wallet, recipient := named("relayer"), named("teleport"), named("checker"), named("master"), named("wallet"), named("recipient")
	txid := "00ff000000000000000000000000000000000000000000000000000000000011"
	j := jetton{query: 1, amount: 9700, to: recipient, from: teleport, response: recipient}
	for _, tc := range []struct {
		name        string
		mint        *stx // the teleport's message to the master
		notCredited bool
		wallet      string
	}{
		{"credited", call(master, 100_000_000, cellOf(op(0x22222222), u64(1)), call(wallet, 50_000_000, j.internal())), false, wallet},
		{"wallet fails", call(master, 100_000_000, cellOf(op(0x22222222), u64(1)), call(wallet, 50_000_000, j.internal()).fails(0)), true, wallet},
		{"master fails", call(master, 100_000_000, cellOf(op(0x642b7d07), u64(1))).fails(0), true, ""},
	} {
		root := ext(relayer,
			call(teleport, 1_000_000_000, cellOf(op(0x3f781d24), u64(1)),
				call(checker, 900_000_000, cellOf(op(0x11111111), u64(1)),
					call(teleport, 800_000_000, cellOf(op(0xe42a879b), u64(1)), tc.mint).
						logs(cellOf(op(0x77a80ef3), coins(9700), addr(recipient), u256(txid))))))
		res := classifyAll(t, root, nil)
		mint := res.top().one(t, "TgbtcMint")
		if mint.Status != chain.StatusOK {
			t.Errorf("%s: TgbtcMint %s, want ok", tc.name, mint.Status)
		}
		want := map[string]any{"sender": relayer, "recipient": recipient, "jetton_master": master, "teleport": teleport, "amount": "9700"}
		if tc.wallet != "" {
			want["recipient_wallet"] = tc.wallet
		}
		if tc.notCredited {
			want["not_credited"] = true
		}
		mint.want(t, want)
		if got := mint.v["not_credited"] != nil; got != tc.notCredited {
			t.Errorf("%s: not_credited present %v, want %v", tc.name, got, tc.notCredited)
		}
		if n := len(res.top().ofKind("TgbtcMintFallback")); n != 0 {
			t.Errorf("%s: %d TgbtcMintFallback beside the mint", tc.name, n)
		}
	}
}
