package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("EvaaSupply", 2, 2)
	setFloor("EvaaWithdraw", 4, 4)
}

// evaaMaster is EVAA's main pool master on mainnet.
const evaaMaster = "0:BCAD466A47FA565750729565253CD073CA24D856804499090C2100D95C809F9E"

func TestGoldenEvaa(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A jetton supply (USDT, 1500000000) that the user contract
			// refused: transfer at the user's wallet, internal_transfer to
			// the master's wallet, notification to the master with
			// supply_master (0x1) in the forward payload, supply_user
			// (0x11, after the user header) to the user contract, which
			// answers supply_fail (0x11f); the master sends the jettons
			// back through the same wallets (the user's wallet then fails
			// to notify its owner with 1 nanoton, which does not undo the
			// refund). Right: one EvaaSupply, failed, over all 10
			// transactions: the refund is part of it, not a JettonTransfer
			// of its own; recipient_wallet = the sender's wallet (same
			// owner), master_wallet = the master's USDT wallet.
			name: "evaa_supply_jetton_failed",
			file: "toncenter-traces/traces/ww5gZmgoXhHJ1a1wukBU5Dp1LxufRT1pzfniQTgUXxE=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, 0x11f) })
			},
			want: []string{"EvaaSupply:failed"},
		},
		{
			// A tsTON withdrawal: withdraw_master (0x2) from the wallet,
			// withdraw_user to its user contract, withdraw_collateralized
			// (0x211) back; the master's tsTON wallet pays 1000000040 to
			// the owner's wallet and withdraw_success updates the user
			// contract, whose change goes back to the owner. Right: one
			// EvaaWithdraw, ok, amount = withdraw_amount_current of 0x211
			// (the request asked for everything, 2^64-1), over all 9
			// transactions; the payout is no JettonTransfer of its own.
			name: "evaa_withdraw_jetton",
			file: "toncenter-traces/traces/OyAQgEdEKZcuU2-3dAkKpk_RFjTYJXXQYxCKoZSB7uA=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, 0x211) })
			},
			want: []string{"EvaaWithdraw:ok"},
		},
	})
}

// ---- synthetic traces, for flows the fixtures lack ----

const (
	evaaTonID    = "0x1a4219fe5e60d63af2a3cc7dce6fec69b45c6b5718497a6148e7c232ac87bd8a"
	evaaUsdtID   = "0xb387968236197958ca4ac55e9b5be38e688c7631af84c86756431f49a878ef33"
	evUsdtMaster = "0:729C13B6DF2C07CBF0A06AB63D34AF454F3D320EC1BCD8FB5C6D24D0806A17C2"
)

// evaaUser is a message to a user contract: the header user_version:Coins
// upgrade_info:(Maybe ^Cell) upgrade_exec:uint2, then the parts.
func evaaUser(parts ...part) *boc.Cell {
	return cellOf(append([]part{coins(6), bit(false), u(0, 2)}, parts...)...)
}

// evaaPayout is the master's jetton payout of amount from its wallet to
// to's wallet.
func evaaPayout(masterWallet, to, toWallet string, amount uint64) *stx {
	return jettonLeg(jetton{query: 1, amount: amount, from: evaaMaster, to: to, response: to, forward: 50000000}, masterWallet, toWallet)
}

// evLiquidateMasterTon is liquidate_master as EVAA v6 writes it for TON:
// op query_id borrower liquidator collateral_asset_id min_collateral_amount
// include_user_code liquidate_incoming_amount ^[forward_ton_amount
// custom_response_payload] ^prices.
func evLiquidateMasterTon(borrower, liquidator, collateral string, amount uint64) *boc.Cell {
	return cellOf(op(3), u64(77), addr(borrower), addr(liquidator), u256(collateral), u64(0), u(0, 2), u64(amount),
		ref(cellOf(u64(0), ref(cellOf()))), ref(cellOf()))
}

// evLiquidateUser: header liquidate_user#31 query_id configs dynamics
// ^[ ^prices collateral_asset_id min_collateral liquidator transferred_asset_id
// transferred_amount forward_ton_amount ^custom ].
func evLiquidateUser(collateral, liquidator, transferred string, amount uint64) *boc.Cell {
	return evaaUser(op(0x31), u64(77), bit(false), bit(false),
		ref(cellOf(ref(cellOf()), u256(collateral), u64(0), addr(liquidator), u256(transferred), u64(amount), u64(0), ref(cellOf()))))
}

// evLiquidateSatisfied: op query_id owner liquidator transferred_asset_id
// ^[ delta_loan liquidatable gift new_loan collateral_asset_id
// delta_collateral collateral_reward ... ].
func evLiquidateSatisfied(owner, liquidator, transferred, collateral string, liquidatable, reward uint64) *boc.Cell {
	return cellOf(op(0x311), u64(77), addr(owner), addr(liquidator), u256(transferred),
		ref(cellOf(u64(liquidatable), u64(liquidatable), u64(0), u64(0), u256(collateral), u64(reward), u64(reward),
			u64(0), u64(0), u64(0), ref(cellOf()))))
}

// evLiquidateUnsatisfied: op query_id owner liquidator transferred_asset_id
// ^[ transferred_amount collateral_asset_id min_collateral forward_ton_amount
// ^custom error:uint32 ].
func evLiquidateUnsatisfied(owner, liquidator, transferred, collateral string, amount uint64, code uint64) *boc.Cell {
	return cellOf(op(0x31f), u64(77), addr(owner), addr(liquidator), u256(transferred),
		ref(cellOf(u64(amount), u256(collateral), u64(0), u64(0), ref(cellOf()), u(code, 32))))
}

type evLiq struct {
	Liquidator        string `json:"liquidator"`
	LiquidatorWallet  string `json:"liquidator_wallet"`
	Borrower          string `json:"borrower"`
	BorrowerContract  string `json:"borrower_contract"`
	Master            string `json:"master"`
	CollateralAssetID string `json:"collateral_asset_id"`
	CollateralJetton  string `json:"collateral_jetton"`
	CollateralIsTon   *bool  `json:"collateral_is_ton"`
	Amount            string `json:"amount"`
	DebtAssetID       string `json:"debt_asset_id"`
	DebtAmount        string `json:"debt_amount"`
	FailReason        string `json:"fail_reason"`
	QueryID           string `json:"query_id"`
}

// TestEvaaLiquidate: the fixtures hold no liquidation, so its flows are
// built from the layouts toncenter reads and EVAA's SDK (v6) writes.
func TestEvaaLiquidate(t *testing.T) {
	liq, borrower, user := named("liquidator"), named("borrower"), named("borrower user contract")
	masterUsdt, liqUsdt, liqWallet2 := named("master usdt wallet"), named("liquidator usdt wallet"), named("liquidator tsTON wallet")
	masterTs := named("master tsTON wallet")

	t.Run("ton debt, jetton collateral, satisfied", func(t *testing.T) {
		root := ext(liq,
			call(evaaMaster, 5300000000, evLiquidateMasterTon(borrower, liq, evaaUsdtID, 5000000000),
				call(user, 300000000, evLiquidateUser(evaaUsdtID, liq, evaaTonID, 5000000000),
					call(evaaMaster, 250000000, evLiquidateSatisfied(borrower, liq, evaaTonID, evaaUsdtID, 4000000000, 1234),
						call(user, 50000000, evaaUser(op(0x311a), u64(77)),
							call(liq, 10000000, comment("EVAA liquidation."))),
						evaaPayout(masterUsdt, liq, liqUsdt, 1234)))))
		var v evLiq
		a := classify(t, root, nil).only(t, "EvaaLiquidate")
		a.decode(t, &v)
		if a.Status != chain.StatusOK || v.Amount != "1234" || v.DebtAmount != "4000000000" || v.Borrower != borrower ||
			v.BorrowerContract != user || v.Liquidator != liq || v.CollateralJetton != evUsdtMaster || v.DebtAssetID != evaaTonID ||
			v.FailReason != "" || v.QueryID != "77" || v.CollateralIsTon == nil || *v.CollateralIsTon {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
		if a.txs() != 10 {
			t.Errorf("%d transactions, want all 10", a.txs())
		}
	})

	t.Run("ton debt, unsatisfied", func(t *testing.T) {
		root := call(evaaMaster, 5300000000, evLiquidateMasterTon(borrower, liq, evaaUsdtID, 5000000000),
			call(user, 300000000, evLiquidateUser(evaaUsdtID, liq, evaaTonID, 5000000000),
				call(evaaMaster, 250000000, evLiquidateUnsatisfied(borrower, liq, evaaTonID, evaaUsdtID, 5000000000, 0x31F2),
					call(liq, 5100000000, opQuery(0x311f, 77))))).from(liq)
		var v evLiq
		a := classify(t, root, nil).only(t, "EvaaLiquidate")
		a.decode(t, &v)
		if a.Status != chain.StatusFailed || v.FailReason != "not_liquidatable" || v.Amount != "0" || v.DebtAmount != "5000000000" {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})

	t.Run("rejected at once (bounce)", func(t *testing.T) {
		root := call(evaaMaster, 5300000000, evLiquidateMasterTon(borrower, liq, evaaUsdtID, 5000000000)).from(liq).
			fails(1234).bouncesBack(5200000000, cellOf(op(0xffffffff), op(3), u64(77)))
		var v evLiq
		a := classify(t, root, nil).only(t, "EvaaLiquidate")
		a.decode(t, &v)
		if a.Status != chain.StatusFailed || v.FailReason != "immediate_rejection" || v.Borrower != borrower || v.BorrowerContract != "" {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})

	t.Run("jetton debt (payload without query id), ton collateral", func(t *testing.T) {
		// The jetton form of liquidate_master: op borrower liquidator
		// collateral_asset_id min_collateral include_user_code 0 ^[...] ^prices.
		payload := cellOf(op(3), addr(borrower), addr(liq), u256(evaaTonID), u64(0), u(0, 2), u64(0),
			ref(cellOf(u64(0), ref(cellOf()))), ref(cellOf()))
		tsID := "0x3313e2f57ba870af34480350c789b0987d15b43a53172bfce294de21e7d724e7"
		j := jetton{query: 1, amount: 7000, to: evaaMaster, from: liq, response: liq, forward: 50000000, payload: payload}
		root := call(liqWallet2, 1000000000, j.transfer(),
			call(masterTs, 900000000, j.internal(),
				call(evaaMaster, 800000000, j.notify(),
					call(user, 300000000, evLiquidateUser(evaaTonID, liq, tsID, 7000),
						call(evaaMaster, 250000000, evLiquidateSatisfied(borrower, liq, tsID, evaaTonID, 6900, 555),
							call(user, 50000000, evaaUser(op(0x311a), u64(77))),
							call(liq, 555, opQuery(0x311d, 77))))))).from(liq)
		var v evLiq
		a := classify(t, root, nil).only(t, "EvaaLiquidate")
		a.decode(t, &v)
		if a.Status != chain.StatusOK || v.Liquidator != liq || v.LiquidatorWallet != liqWallet2 || v.Amount != "555" ||
			v.DebtAmount != "6900" || v.DebtAssetID != tsID || v.CollateralIsTon == nil || !*v.CollateralIsTon || v.CollateralJetton != "" {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})

	t.Run("v9 request without liquidator address, bounced", func(t *testing.T) {
		body := cellOf(op(3), u64(9), addr(borrower), u256(evaaUsdtID), u64(0), u(0, 2), u64(1000), ref(cellOf()), ref(cellOf()))
		root := call(evaaMaster, 5300000000, body).from(liq).fails(0).bouncesBack(5200000000, cellOf(op(0xffffffff), op(3)))
		var v evLiq
		a := classify(t, root, nil).only(t, "EvaaLiquidate")
		a.decode(t, &v)
		if a.Status != chain.StatusFailed || v.Borrower != borrower || v.DebtAmount != "1000" || v.CollateralAssetID != evaaUsdtID {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})
}

// TestEvaaTonPayouts covers the TON sides the fixtures lack: a TON
// withdrawal paid with op 0x211a, and a TON supply refunded after
// supply_fail.
func TestEvaaTonPayouts(t *testing.T) {
	owner, user := named("owner"), named("owner user contract")
	t.Run("ton withdrawal paid", func(t *testing.T) {
		req := cellOf(op(2), u64(5), u256(evaaTonID), u64(3000000000), addr(owner), u(0, 2), u64(0), ref(cellOf()), ref(cellOf()))
		root := call(evaaMaster, 400000000, req,
			call(user, 300000000, evaaUser(op(0x21), u64(5), u256(evaaTonID), u64(3000000000)),
				call(evaaMaster, 250000000, cellOf(op(0x211), u64(5), addr(owner), u256(evaaTonID), u64(2999999999)),
					call(owner, 2999999999, opQuery(0x211a, 5)),
					call(user, 50000000, evaaUser(op(0x211a), u64(5)),
						call(owner, 10000000, nil))))).from(owner)
		var v struct {
			Amount string `json:"amount"`
			IsTon  *bool  `json:"is_ton"`
			Jetton string `json:"jetton_master"`
		}
		a := classify(t, root, nil).only(t, "EvaaWithdraw")
		a.decode(t, &v)
		if a.Status != chain.StatusOK || v.Amount != "2999999999" || v.IsTon == nil || !*v.IsTon || v.Jetton != "" || a.txs() != 6 {
			t.Errorf("got %s %s over %d transactions", a.Status, a.Value, a.txs())
		}
	})
	t.Run("ton supply refunded", func(t *testing.T) {
		req := cellOf(op(1), u64(8), u(0, 2), u64(2000000000), addr(owner), u64(0), ref(cellOf()))
		root := call(evaaMaster, 2300000000, req,
			call(user, 300000000, evaaUser(op(0x11), u64(8), u256(evaaTonID), u64(2000000000)),
				call(evaaMaster, 250000000, cellOf(op(0x11f), u64(8), addr(owner), u256(evaaTonID), u64(2000000000)),
					call(owner, 2200000000, nil)))).from(owner)
		var v struct {
			Amount    string `json:"amount"`
			Recipient string `json:"recipient"`
			AssetID   string `json:"asset_id"`
		}
		a := classify(t, root, nil).only(t, "EvaaSupply")
		a.decode(t, &v)
		if a.Status != chain.StatusFailed || v.Amount != "2000000000" || v.Recipient != owner || v.AssetID != evaaTonID || a.txs() != 4 {
			t.Errorf("got %s %s over %d transactions", a.Status, a.Value, a.txs())
		}
	})
}
