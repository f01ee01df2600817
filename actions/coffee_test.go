package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

func init() {
	setFloor("CoffeeCreatePool", 1, 1)
	setFloor("CoffeeCreatePoolCreator", 1, 1)
	setFloor("CoffeeCreateVault", 1, 1)
	setFloor("CoffeeMevProtectHoldFunds", 1, 1)
	setFloor("CoffeeStakingDeposit", 2, 2)
	setFloor("CoffeeStakingWithdraw", 1, 1)
	setFloor("CoffeeStakingClaimRewards", 1, 1)
}

// coffeeTrace is a toncenter fixture trace by id.
func coffeeTrace(id string) string { return "toncenter-traces/traces/" + id + ".json" }

func TestGoldenCoffee(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A migration NFT item creates a TON/jetton pool: it sends TON to
			// the native vault (create_pool 0xc0ffee02) and jettons to the
			// jetton vault (forward payload create_pool 0xc0ffee11); each
			// vault sends create_pool_creator_request (0xc0ffee23) to the
			// factory, which deploys (0xc0ffee22) the same pool creator. The
			// jetton branch arrives second: the creator asks the factory for
			// the pool (0xc0ffee25), the pool is deployed, logs its success
			// event and mints 633671618650 LP to the recipient 3E4650..
			// Right: the TON branch is a CoffeeCreatePoolCreator (amount
			// 171205371318, no provided asset: TON), the jetton branch a
			// CoffeeCreatePool with asset_1 = the jetton 67D4C6.. sent
			// (2345368713954) and asset_2 TON (171205371318, the request's
			// amounts swapped since the jetton is the pool's second asset);
			// the NFT collection and item calls above stay SmartContractExec;
			// the jetton vault wallet, creator, pool and LP wallet deploys are
			// ContractDeploy.
			name: "coffee_create_pool",
			file: coffeeTrace("3uecEX5TvThuugPaMO4MqlOxGGHRQpNRErwAP7fL7J4="),
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeCreatePoolRequestMsgOpCode) })
			},
			want: []string{"CoffeeCreatePool:ok", "CoffeeCreatePoolCreator:ok", "ContractDeploy:ok", "ContractDeploy:ok",
				"ContractDeploy:ok", "ContractDeploy:ok", "SmartContractExec:ok", "SmartContractExec:ok"},
		},
		{
			// A wallet sends 15.59 TON to the MEV protector with
			// mev_protect_hold_funds (0x6bc79e7e) and, in the same
			// transaction, 0.045 TON service_fee (0xc0ffeea0). Right: one
			// CoffeeMevProtectHoldFunds of 15590000000 holding the wallet
			// transaction, the hold and the fee (service_fee 45000000).
			name: "coffee_mev_hold_funds",
			file: coffeeTrace("11WhhXiPhXuLm5C85XGw4WYY8BDn6Xnee-nPq-W0tkA="),
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeMevProtectHoldFundsMsgOpCode) })
			},
			want: []string{"CoffeeMevProtectHoldFunds:ok"},
		},
		{
			// A wallet sends 54999439792 jettons A5D12E.. to the staking vault
			// 29F905.. with staking_lock (period 1); the vault sends
			// staking_deposit (0xf9471134) to the master 8CB6B9.., which
			// deploys position NFT #1317 BC36AD.. (staking_initialize
			// 0xbe5a7595, 5499943979200 points, unlocked at 1767835782).
			// Right: one CoffeeStakingDeposit over all 7 transactions (the
			// excess included), plus the NFT's ContractDeploy.
			name: "coffee_staking_deposit",
			file: coffeeTrace("K_PlZB5RlxrIdSTiEdvKqazSqLUWzQ8PB4NzDTxAHk8="),
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.CoffeeStakingDepositMsgOpCode) })
			},
			want: []string{"CoffeeStakingDeposit:ok", "ContractDeploy:ok"},
		},
		{
			// The owner D63BBD.. asks position NFT #451 BB6701.. to withdraw
			// (0xcb03bfaf); the NFT tells the master 8CB6B9.. (owner, 451,
			// 5945779396400 points, the vault wallet and 59457793964), the
			// master tells the vault 29F905.., whose wallet 7C7EDF.. sends
			// 59457793964 jettons to the owner. Right: one
			// CoffeeStakingWithdraw with those facts over 7 transactions.
			name: "coffee_staking_withdraw",
			file: coffeeTrace("T-oXSZb9qU9H5js9gaOZIJ8RicZmZ8l9oV4s_f9pV6g="),
			pick: func(tr *chain.Trace) bool { return true },
			want: []string{"CoffeeStakingWithdraw:ok"},
		},
	})
}

// coffeeClassify classifies a fixture trace after edit (nil: none) changed it.
func coffeeClassify(t *testing.T, id string, edit func(tr *chain.ToncenterTrace)) results {
	t.Helper()
	return resultsOf(t, classifyFile(t, testenv.Fixture(t, coffeeTrace(id)), edit))
}

// TestCoffeeFactsWithoutIndexer: without the indexer's interfaces, the
// facts it gave come from the messages: the jetton of a pool being created
// is the pair's only jetton, and the staking position's index is in the
// item's initial data.
func TestCoffeeFactsWithoutIndexer(t *testing.T) {
	noKnown := func(tr *chain.ToncenterTrace) { tr.Known = nil }
	v := coffeeClassify(t, "3uecEX5TvThuugPaMO4MqlOxGGHRQpNRErwAP7fL7J4=", noKnown).one(t, "CoffeeCreatePool").v
	if v["asset_1"] != "0:67D4C65E197C2FAB68ADBADF4116E82D29200327152B6C8055F265009E8D2A7F" || v["amount_1"] != "2345368713954" ||
		v["asset_2"] != nil || v["amount_2"] != "171205371318" || v["lp_amount"] != "633671618650" {
		t.Errorf("create pool without interfaces: %v", v)
	}
	v = coffeeClassify(t, "K_PlZB5RlxrIdSTiEdvKqazSqLUWzQ8PB4NzDTxAHk8=", noKnown).one(t, "CoffeeStakingDeposit").v
	if v["nft_index"] != "1317" || v["nft"] != "0:BC36AD7C77A596ABF16AB8BCE9D8B682D40B6EE1873D74114E9C151E63E435AC" {
		t.Errorf("staking deposit without interfaces: %v", v)
	}
}

// TestCoffeeStatus: a step that carries the action's meaning failing makes
// it failed; the real traces, with one transaction's outcome changed.
func TestCoffeeStatus(t *testing.T) {
	// failAt fails the transactions whose in-message has the op (and, when
	// from is set, comes from that account).
	failAt := func(op abi.MsgOpCode, from string) func(tr *chain.ToncenterTrace) {
		return func(tr *chain.ToncenterTrace) {
			for _, tx := range tr.Transactions {
				if m := tx.InMsg; m != nil && m.Opcode != nil && *m.Opcode == uint32(op) && (from == "" || m.Source == from) {
					tx.ComputeSuccess, tx.ComputeExitCode = false, 500
				}
			}
		}
	}
	cases := []struct {
		name, id, typ string
		op            abi.MsgOpCode
		from          string
	}{
		{"position not minted", "K_PlZB5RlxrIdSTiEdvKqazSqLUWzQ8PB4NzDTxAHk8=", "CoffeeStakingDeposit", abi.CoffeeStakingInitMsgOpCode, ""},
		{"vault did not pay", "T-oXSZb9qU9H5js9gaOZIJ8RicZmZ8l9oV4s_f9pV6g=", "CoffeeStakingWithdraw", abi.JettonInternalTransferMsgOpCode, ""},
		{"master failed", "0HIS6vA7Hk0SdwNB5P2i0zovRDZLpWyQBzpBsJAX1sg=", "CoffeeStakingClaimRewards", abi.CoffeeStakingClaimRewardsMsgOpCode, ""},
		{"protector rejected", "11WhhXiPhXuLm5C85XGw4WYY8BDn6Xnee-nPq-W0tkA=", "CoffeeMevProtectHoldFunds", abi.CoffeeMevProtectHoldFundsMsgOpCode, ""},
		{"vault not deployed", "_7TiwVoy-w5U7lbbF5_RD0yGAauPKFCjMcuYRX4eeoU=", "CoffeeCreateVault", abi.CoffeeDeployMsgOpCode, ""},
		// The new pool's LP mint (from the pool 8FE5F7..) failing.
		{"no LP minted", "3uecEX5TvThuugPaMO4MqlOxGGHRQpNRErwAP7fL7J4=", "CoffeeCreatePool", abi.JettonInternalTransferMsgOpCode,
			"0:8FE5F74378278AB42C80772AF2551A0ECE02C599DACB115BA1C1F2F9678521ED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := coffeeClassify(t, tc.id, nil).one(t, tc.typ)
			if a.Status != chain.StatusOK {
				t.Fatalf("unchanged trace: %s", a.Status)
			}
			a = coffeeClassify(t, tc.id, failAt(tc.op, tc.from)).one(t, tc.typ)
			if a.Status != chain.StatusFailed {
				t.Errorf("status %s, want failed", a.Status)
			}
		})
	}
}

// Synthetic traces, for mev_protect_failed_swap (no labelled trace holds
// one). The layouts are tongo's abi (schemas/swap_coffee.xml) and toncenter's
// messages/coffee.py: mev_protect_failed_swap#ee51ce51 query_id:uint64
// recipient:MsgAddressInt, at the protector as a message with TON, or as the
// forward payload of a jetton transfer to it.

const (
	synWallet    = "0:1111111111111111111111111111111111111111111111111111111111111111"
	synDex       = "0:2222222222222222222222222222222222222222222222222222222222222222"
	synProtector = "0:3333333333333333333333333333333333333333333333333333333333333333"
	synRecipient = "0:4444444444444444444444444444444444444444444444444444444444444444"
	synDexWallet = "0:5555555555555555555555555555555555555555555555555555555555555555"
	synMevWallet = "0:6666666666666666666666666666666666666666666666666666666666666666"
	synMaster    = "0:7777777777777777777777777777777777777777777777777777777777777777"
)

func failedSwapPayload(recipient string) *boc.Cell {
	return cellOf(op(abi.CoffeeMevProtectFailedSwapMsgOpCode), u64(77), addr(recipient))
}

func TestCoffeeMevFailedSwapTON(t *testing.T) {
	for _, fail := range []bool{false, true} {
		protector := call(synProtector, 5_000_000_000, failedSwapPayload(synRecipient))
		if fail {
			protector.fails(100)
		} else {
			protector.then(call(synRecipient, 4_900_000_000, nil))
		}
		rs := classify(t, ext(synWallet, call(synDex, 5_100_000_000, cellOf(op(0x12345678), u(1, 32)), protector)), nil)
		a := rs.one(t, "CoffeeMevProtectFailedSwap")
		a.want(t, map[string]any{"recipient": synRecipient, "mev_contract": synProtector, "sender": synDex,
			"amount": "5000000000", "query_id": "77", "asset": nil})
		if fail {
			rs.expect(t, "CoffeeMevProtectFailedSwap:failed", "SmartContractExec:ok")
		} else {
			// The protector's return of the funds stays a transfer of its own.
			rs.expect(t, "CoffeeMevProtectFailedSwap:ok", "SmartContractExec:ok", "TonTransfer:ok")
		}
		if a.txs() != 1 {
			t.Errorf("fail=%v: %d transactions, want the protector's only", fail, a.txs())
		}
	}
}

func TestCoffeeMevFailedSwapJetton(t *testing.T) {
	j := jetton{query: 9, amount: 1234567, to: synProtector, from: synDex, response: synProtector, forward: 50_000_000,
		payload: failedSwapPayload(synRecipient)}
	root := ext(synWallet,
		call(synDex, 200_000_000, cellOf(op(0x12345678), u(1, 32)),
			call(synDexWallet, 100_000_000, j.transfer(),
				call(synMevWallet, 90_000_000, j.internal(),
					call(synProtector, 50_000_000, j.notify())))))
	known := chain.KnownContracts{synDexWallet: {Kind: "jetton_wallet", Jetton: synMaster, Owner: synDex}}

	rs := classify(t, root, known)
	a := rs.one(t, "CoffeeMevProtectFailedSwap:ok")
	a.want(t, map[string]any{"recipient": synRecipient, "mev_contract": synProtector, "mev_contract_wallet": synMevWallet,
		"sender": synDex, "sender_wallet": synDexWallet, "asset": synMaster, "amount": "1234567", "query_id": "77"})
	// Over the 3 of the jetton leg, which is no JettonTransfer too.
	a.wantTxs(t, 3)
	for _, x := range rs.ofKind("JettonTransfer") {
		t.Errorf("the leg is also a JettonTransfer: %s", x.Value)
	}
}

// TestMevRefundOfAnsweredSwap: when a Tonco pool refuses a swap made for
// the MEV protector (tExchange stands for it), the router's refund carries
// mev_protect_failed_swap; as toncenter's swap matchers run before its MEV
// one, that refund is the failed JettonSwap's outgoing leg, not a
// CoffeeMevProtectFailedSwap. Without the pool's answer the refund is left
// to the MEV action.
func TestMevRefundOfAnsweredSwap(t *testing.T) {
	build := func(answered bool) *stx {
		refund := leg(tRouter, tRouterA, tExchangeA, tExchange, 1000, failedSwapPayload(synRecipient))
		var below *stx
		if answered {
			below = call(tcPool1, 300_000_000, tcSwap(tRouterA, 1000, 0),
				call(tRouter, 250_000_000, tcPayTo(0xfffe, 0, tRouterA, 0, tRouterB), refund))
		} else {
			below = call(tRouter, 250_000_000, cellOf(op(0x12345678), u64(1)), refund)
		}
		return ext(tUser, leg(tUser, tUserWallet, tRouterA, tRouter, 1000, tcRequest(tRouterB, 0, nil), below))
	}
	rs := classify(t, build(true), tcKnown())
	swap := rs.one(t, "JettonSwap:failed")
	if v := swapOf(t, swap); v.DexOutgoingTransfer == nil || v.DexOutgoingTransfer.Destination != actions.Address(tExchange) {
		t.Errorf("the refund is not the swap's outgoing leg: %+v", v.DexOutgoingTransfer)
	}
	if n := len(rs.ofKind("CoffeeMevProtectFailedSwap")); n != 0 {
		t.Errorf("%d CoffeeMevProtectFailedSwap beside the failed swap", n)
	}
	classify(t, build(false), tcKnown()).one(t, "CoffeeMevProtectFailedSwap:ok")
}
