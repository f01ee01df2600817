package actions_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
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

// evSynth builds a trace by hand: transactions with bodies written from the
// protocol's documented layouts.
type evSynth struct{ n uint64 }

func (s *evSynth) hash() chain.Hash {
	s.n++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], s.n)
	return chain.Hash(sha256.Sum256(b[:]))
}

// msg is an internal message (src "" makes it external) with a body cell.
func (s *evSynth) msg(src, dst string, value uint64, body *boc.Cell) *chain.Message {
	m := &chain.Message{Hash: s.hash(), Source: src, Destination: dst, Value: value, Bounce: true}
	if body != nil {
		body.ResetCounters()
		if body.BitsAvailableForRead() >= 32 {
			op, _ := body.PickUint(32)
			op32 := uint32(op)
			m.Opcode = &op32
		}
		b, err := body.ToBoc()
		if err != nil {
			panic(err)
		}
		m.Body = b
	}
	return m
}

// tx is a successful transaction of account that consumed in.
func (s *evSynth) tx(account string, in *chain.Message, children ...*chain.TraceNode) *chain.TraceNode {
	s.n++
	tx := &chain.Transaction{Hash: s.hash(), Account: account, Lt: s.n * 10, Utime: 1700000000,
		OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive, ComputeSuccess: true, ActionSuccess: true, InMsg: in}
	return &chain.TraceNode{Tx: tx, Children: children}
}

func (s *evSynth) trace(root *chain.TraceNode) *chain.Trace {
	return &chain.Trace{ID: root.Tx.Hash, Root: root, Complete: true}
}

// evAcct makes a raw address from a name.
func evAcct(name string) string {
	h := sha256.Sum256([]byte(name))
	return chain.RawAddress(ton.AccountID{Workchain: 0, Address: h})
}

func evMsgAddr(raw string) tlb.MsgAddress {
	if raw == "" {
		return tlb.MsgAddress{SumType: "AddrNone"}
	}
	id := ton.MustParseAccountID(raw)
	return id.ToMsgAddress()
}

// evCell writes a cell field by field: unsigned integers of any width,
// bits, addresses, 256-bit ids, coins, refs.
type evCell struct{ c *boc.Cell }

func evNewCell() *evCell                       { return &evCell{c: boc.NewCell()} }
func (w *evCell) u(v uint64, bits int) *evCell { evMust(w.c.WriteUint(v, bits)); return w }
func (w *evCell) bit(b bool) *evCell           { evMust(w.c.WriteBit(b)); return w }
func (w *evCell) addr(raw string) *evCell      { evMust(tlb.Marshal(w.c, evMsgAddr(raw))); return w }
func (w *evCell) id(hexID string) *evCell {
	v, ok := new(big.Int).SetString(strings.TrimPrefix(hexID, "0x"), 16)
	if !ok {
		panic(hexID)
	}
	b := make([]byte, 32)
	v.FillBytes(b)
	evMust(w.c.WriteBytes(b))
	return w
}
func (w *evCell) coins(v uint64) *evCell {
	evMust(tlb.Marshal(w.c, tlb.VarUInteger16(*new(big.Int).SetUint64(v))))
	return w
}
func (w *evCell) ref(r *evCell) *evCell { evMust(w.c.AddRef(r.c)); return w }
func (w *evCell) empty() *evCell        { return w.ref(evNewCell()) }

// userHeader: user_version:Coins upgrade_info:(Maybe ^Cell) upgrade_exec:uint2.
func (w *evCell) userHeader() *evCell { return w.coins(6).bit(false).u(0, 2) }

func evMust(err error) {
	if err != nil {
		panic(err)
	}
}

const (
	evaaTonID    = "0x1a4219fe5e60d63af2a3cc7dce6fec69b45c6b5718497a6148e7c232ac87bd8a"
	evaaUsdtID   = "0xb387968236197958ca4ac55e9b5be38e688c7631af84c86756431f49a878ef33"
	evUsdtMaster = "0:729C13B6DF2C07CBF0A06AB63D34AF454F3D320EC1BCD8FB5C6D24D0806A17C2"
)

// evJettonTransfer: transfer#0f8a7ea5 query_id amount destination
// response_destination custom_payload:(Maybe ^Cell) forward_ton_amount
// forward_payload:(Either Cell ^Cell).
func evJettonTransfer(amount uint64, dest, response string, fwd *evCell) *evCell {
	w := evNewCell().u(0x0f8a7ea5, 32).u(1, 64).coins(amount).addr(dest).addr(response).bit(false).coins(50000000)
	if fwd == nil {
		return w.bit(false)
	}
	return w.bit(true).ref(fwd)
}

func evInternalTransfer(amount uint64, from, response string, fwd *evCell) *evCell {
	w := evNewCell().u(0x178d4519, 32).u(1, 64).coins(amount).addr(from).addr(response).coins(50000000)
	if fwd == nil {
		return w.bit(false)
	}
	return w.bit(true).ref(fwd)
}

func evNotify(amount uint64, sender string, fwd *evCell) *evCell {
	w := evNewCell().u(0x7362d09c, 32).u(1, 64).coins(amount).addr(sender)
	if fwd == nil {
		return w.bit(false)
	}
	return w.bit(true).ref(fwd)
}

func evExcess() *evCell { return evNewCell().u(0xd53276db, 32).u(1, 64) }

func evComment(text string) *evCell {
	w := evNewCell().u(0, 32)
	evMust(w.c.WriteBytes([]byte(text)))
	return w
}

// jettonPayout is a jetton leg from wallet `from` (owned by `owner`) to `to`'s wallet.
func (s *evSynth) jettonPayout(owner, from, to, toWallet string, amount uint64) *chain.TraceNode {
	return s.tx(from, s.msg(owner, from, 100000000, evJettonTransfer(amount, to, to, nil).c),
		s.tx(toWallet, s.msg(from, toWallet, 90000000, evInternalTransfer(amount, owner, to, nil).c),
			s.tx(to, s.msg(toWallet, to, 50000000, evNotify(amount, owner, nil).c)),
			s.tx(to, s.msg(toWallet, to, 10000000, evExcess().c))))
}

// evLiquidateMasterTon is liquidate_master as EVAA v6 writes it for TON:
// op query_id borrower liquidator collateral_asset_id min_collateral_amount
// include_user_code liquidate_incoming_amount ^[forward_ton_amount
// custom_response_payload] ^prices.
func evLiquidateMasterTon(borrower, liquidator, collateral string, amount uint64) *evCell {
	return evNewCell().u(3, 32).u(77, 64).addr(borrower).addr(liquidator).id(collateral).u(0, 64).u(0, 2).u(amount, 64).
		ref(evNewCell().u(0, 64).empty()).empty()
}

// evLiquidateUser: header liquidate_user#31 query_id configs dynamics
// ^[ ^prices collateral_asset_id min_collateral liquidator transferred_asset_id
// transferred_amount forward_ton_amount ^custom ].
func evLiquidateUser(collateral, liquidator, transferred string, amount uint64) *evCell {
	return evNewCell().userHeader().u(0x31, 32).u(77, 64).bit(false).bit(false).
		ref(evNewCell().empty().id(collateral).u(0, 64).addr(liquidator).id(transferred).u(amount, 64).u(0, 64).empty())
}

// evLiquidateSatisfied: op query_id owner liquidator transferred_asset_id
// ^[ delta_loan liquidatable gift new_loan collateral_asset_id
// delta_collateral collateral_reward ... ].
func evLiquidateSatisfied(owner, liquidator, transferred, collateral string, liquidatable, reward uint64) *evCell {
	return evNewCell().u(0x311, 32).u(77, 64).addr(owner).addr(liquidator).id(transferred).
		ref(evNewCell().u(liquidatable, 64).u(liquidatable, 64).u(0, 64).u(0, 64).id(collateral).u(reward, 64).u(reward, 64).
			u(0, 64).u(0, 64).u(0, 64).empty())
}

// evLiquidateUnsatisfied: op query_id owner liquidator transferred_asset_id
// ^[ transferred_amount collateral_asset_id min_collateral forward_ton_amount
// ^custom error:uint32 ].
func evLiquidateUnsatisfied(owner, liquidator, transferred, collateral string, amount uint64, code uint64) *evCell {
	return evNewCell().u(0x31f, 32).u(77, 64).addr(owner).addr(liquidator).id(transferred).
		ref(evNewCell().u(amount, 64).id(collateral).u(0, 64).u(0, 64).empty().u(code, 32))
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

// evOnly returns the single action of the type, failing on anything else
// but contract deploys.
func evOnly(t *testing.T, got []chain.Action, typ string, v any) chain.Action {
	t.Helper()
	var found []chain.Action
	for _, a := range got {
		switch a.Type {
		case typ:
			found = append(found, a)
		case "ContractDeploy":
		default:
			t.Errorf("unexpected %s %s: %s", a.Type, a.Status, a.Value)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s actions, want 1", len(found), typ)
	}
	t.Logf("%s %s over %d transactions: %s", typ, found[0].Status, len(found[0].Transactions), found[0].Value)
	if err := json.Unmarshal(found[0].Value, v); err != nil {
		t.Fatal(err)
	}
	return found[0]
}

// TestEvaaLiquidate: the fixtures hold no liquidation, so its flows are
// built from the layouts toncenter reads and EVAA's SDK (v6) writes.
func TestEvaaLiquidate(t *testing.T) {
	liq, borrower, user := evAcct("liquidator"), evAcct("borrower"), evAcct("borrower user contract")
	masterUsdt, liqUsdt, liqWallet2 := evAcct("master usdt wallet"), evAcct("liquidator usdt wallet"), evAcct("liquidator tsTON wallet")
	masterTs := evAcct("master tsTON wallet")

	t.Run("ton debt, jetton collateral, satisfied", func(t *testing.T) {
		s := &evSynth{}
		root := s.tx(liq, s.msg("", liq, 0, nil),
			s.tx(evaaMaster, s.msg(liq, evaaMaster, 5300000000, evLiquidateMasterTon(borrower, liq, evaaUsdtID, 5000000000).c),
				s.tx(user, s.msg(evaaMaster, user, 300000000, evLiquidateUser(evaaUsdtID, liq, evaaTonID, 5000000000).c),
					s.tx(evaaMaster, s.msg(user, evaaMaster, 250000000, evLiquidateSatisfied(borrower, liq, evaaTonID, evaaUsdtID, 4000000000, 1234).c),
						s.tx(user, s.msg(evaaMaster, user, 50000000, evNewCell().userHeader().u(0x311a, 32).u(77, 64).c),
							s.tx(liq, s.msg(user, liq, 10000000, evComment("EVAA liquidation.").c))),
						s.jettonPayout(evaaMaster, masterUsdt, liq, liqUsdt, 1234)))))
		var v evLiq
		a := evOnly(t, actions.Classify(s.trace(root), nil), "EvaaLiquidate", &v)
		if a.Status != chain.StatusOK || v.Amount != "1234" || v.DebtAmount != "4000000000" || v.Borrower != borrower ||
			v.BorrowerContract != user || v.Liquidator != liq || v.CollateralJetton != evUsdtMaster || v.DebtAssetID != evaaTonID ||
			v.FailReason != "" || v.QueryID != "77" || v.CollateralIsTon == nil || *v.CollateralIsTon {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
		if len(a.Transactions) != 10 {
			t.Errorf("%d transactions, want all 10", len(a.Transactions))
		}
	})

	t.Run("ton debt, unsatisfied", func(t *testing.T) {
		s := &evSynth{}
		root := s.tx(evaaMaster, s.msg(liq, evaaMaster, 5300000000, evLiquidateMasterTon(borrower, liq, evaaUsdtID, 5000000000).c),
			s.tx(user, s.msg(evaaMaster, user, 300000000, evLiquidateUser(evaaUsdtID, liq, evaaTonID, 5000000000).c),
				s.tx(evaaMaster, s.msg(user, evaaMaster, 250000000, evLiquidateUnsatisfied(borrower, liq, evaaTonID, evaaUsdtID, 5000000000, 0x31F2).c),
					s.tx(liq, s.msg(evaaMaster, liq, 5100000000, evNewCell().u(0x311f, 32).u(77, 64).c)))))
		var v evLiq
		a := evOnly(t, actions.Classify(s.trace(root), nil), "EvaaLiquidate", &v)
		if a.Status != chain.StatusFailed || v.FailReason != "not_liquidatable" || v.Amount != "0" || v.DebtAmount != "5000000000" {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})

	t.Run("rejected at once (bounce)", func(t *testing.T) {
		s := &evSynth{}
		m := s.tx(evaaMaster, s.msg(liq, evaaMaster, 5300000000, evLiquidateMasterTon(borrower, liq, evaaUsdtID, 5000000000).c))
		m.Tx.ComputeSuccess, m.Tx.ComputeExitCode, m.Tx.Aborted, m.Tx.Bounced = false, 1234, true, true
		back := s.msg(evaaMaster, liq, 5200000000, evNewCell().u(0xffffffff, 32).u(3, 32).u(77, 64).c)
		back.Bounced = true
		m.Children = append(m.Children, s.tx(liq, back))
		var v evLiq
		a := evOnly(t, actions.Classify(s.trace(m), nil), "EvaaLiquidate", &v)
		if a.Status != chain.StatusFailed || v.FailReason != "immediate_rejection" || v.Borrower != borrower || v.BorrowerContract != "" {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})

	t.Run("jetton debt (payload without query id), ton collateral", func(t *testing.T) {
		s := &evSynth{}
		// The jetton form of liquidate_master: op borrower liquidator
		// collateral_asset_id min_collateral include_user_code 0 ^[...] ^prices.
		payload := evNewCell().u(3, 32).addr(borrower).addr(liq).id(evaaTonID).u(0, 64).u(0, 2).u(0, 64).
			ref(evNewCell().u(0, 64).empty()).empty()
		tsID := "0x3313e2f57ba870af34480350c789b0987d15b43a53172bfce294de21e7d724e7"
		root := s.tx(liqWallet2, s.msg(liq, liqWallet2, 1000000000, evJettonTransfer(7000, evaaMaster, liq, payload).c),
			s.tx(masterTs, s.msg(liqWallet2, masterTs, 900000000, evInternalTransfer(7000, liq, liq, payload).c),
				s.tx(evaaMaster, s.msg(masterTs, evaaMaster, 800000000, evNotify(7000, liq, payload).c),
					s.tx(user, s.msg(evaaMaster, user, 300000000, evLiquidateUser(evaaTonID, liq, tsID, 7000).c),
						s.tx(evaaMaster, s.msg(user, evaaMaster, 250000000, evLiquidateSatisfied(borrower, liq, tsID, evaaTonID, 6900, 555).c),
							s.tx(user, s.msg(evaaMaster, user, 50000000, evNewCell().userHeader().u(0x311a, 32).u(77, 64).c)),
							s.tx(liq, s.msg(evaaMaster, liq, 555, evNewCell().u(0x311d, 32).u(77, 64).c)))))))
		var v evLiq
		a := evOnly(t, actions.Classify(s.trace(root), nil), "EvaaLiquidate", &v)
		if a.Status != chain.StatusOK || v.Liquidator != liq || v.LiquidatorWallet != liqWallet2 || v.Amount != "555" ||
			v.DebtAmount != "6900" || v.DebtAssetID != tsID || v.CollateralIsTon == nil || !*v.CollateralIsTon || v.CollateralJetton != "" {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})

	t.Run("v9 request without liquidator address, bounced", func(t *testing.T) {
		s := &evSynth{}
		body := evNewCell().u(3, 32).u(9, 64).addr(borrower).id(evaaUsdtID).u(0, 64).u(0, 2).u(1000, 64).empty().empty()
		m := s.tx(evaaMaster, s.msg(liq, evaaMaster, 5300000000, body.c))
		m.Tx.ComputeSuccess, m.Tx.Aborted, m.Tx.Bounced = false, true, true
		back := s.msg(evaaMaster, liq, 5200000000, evNewCell().u(0xffffffff, 32).u(3, 32).c)
		back.Bounced = true
		m.Children = append(m.Children, s.tx(liq, back))
		var v evLiq
		a := evOnly(t, actions.Classify(s.trace(m), nil), "EvaaLiquidate", &v)
		if a.Status != chain.StatusFailed || v.Borrower != borrower || v.DebtAmount != "1000" || v.CollateralAssetID != evaaUsdtID {
			t.Errorf("got %s %s", a.Status, a.Value)
		}
	})
}

// TestEvaaTonPayouts covers the TON sides the fixtures lack: a TON
// withdrawal paid with op 0x211a, and a TON supply refunded after
// supply_fail.
func TestEvaaTonPayouts(t *testing.T) {
	owner, user := evAcct("owner"), evAcct("owner user contract")
	t.Run("ton withdrawal paid", func(t *testing.T) {
		s := &evSynth{}
		req := evNewCell().u(2, 32).u(5, 64).id(evaaTonID).u(3000000000, 64).addr(owner).u(0, 2).u(0, 64).empty().empty()
		root := s.tx(evaaMaster, s.msg(owner, evaaMaster, 400000000, req.c),
			s.tx(user, s.msg(evaaMaster, user, 300000000, evNewCell().userHeader().u(0x21, 32).u(5, 64).id(evaaTonID).u(3000000000, 64).c),
				s.tx(evaaMaster, s.msg(user, evaaMaster, 250000000, evNewCell().u(0x211, 32).u(5, 64).addr(owner).id(evaaTonID).u(2999999999, 64).c),
					s.tx(owner, s.msg(evaaMaster, owner, 2999999999, evNewCell().u(0x211a, 32).u(5, 64).c)),
					s.tx(user, s.msg(evaaMaster, user, 50000000, evNewCell().userHeader().u(0x211a, 32).u(5, 64).c),
						s.tx(owner, s.msg(user, owner, 10000000, nil))))))
		var v struct {
			Amount string `json:"amount"`
			IsTon  *bool  `json:"is_ton"`
			Jetton string `json:"jetton_master"`
		}
		a := evOnly(t, actions.Classify(s.trace(root), nil), "EvaaWithdraw", &v)
		if a.Status != chain.StatusOK || v.Amount != "2999999999" || v.IsTon == nil || !*v.IsTon || v.Jetton != "" || len(a.Transactions) != 6 {
			t.Errorf("got %s %s over %d transactions", a.Status, a.Value, len(a.Transactions))
		}
	})
	t.Run("ton supply refunded", func(t *testing.T) {
		s := &evSynth{}
		req := evNewCell().u(1, 32).u(8, 64).u(0, 2).u(2000000000, 64).addr(owner).u(0, 64).empty()
		root := s.tx(evaaMaster, s.msg(owner, evaaMaster, 2300000000, req.c),
			s.tx(user, s.msg(evaaMaster, user, 300000000, evNewCell().userHeader().u(0x11, 32).u(8, 64).id(evaaTonID).u(2000000000, 64).c),
				s.tx(evaaMaster, s.msg(user, evaaMaster, 250000000, evNewCell().u(0x11f, 32).u(8, 64).addr(owner).id(evaaTonID).u(2000000000, 64).c),
					s.tx(owner, s.msg(evaaMaster, owner, 2200000000, nil)))))
		var v struct {
			Amount    string `json:"amount"`
			Recipient string `json:"recipient"`
			AssetID   string `json:"asset_id"`
		}
		a := evOnly(t, actions.Classify(s.trace(root), nil), "EvaaSupply", &v)
		if a.Status != chain.StatusFailed || v.Amount != "2000000000" || v.Recipient != owner || v.AssetID != evaaTonID || len(a.Transactions) != 4 {
			t.Errorf("got %s %s over %d transactions", a.Status, a.Value, len(a.Transactions))
		}
	})
}
