package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// EVAA lending protocol (evaa.finance). A user talks to the pool's master
// contract; the master keeps each user's balances in a per-user contract
// ("user contract") and talks to it with messages that start with a user
// header (user_version:Coins upgrade_info:(Maybe ^Cell) upgrade_exec:uint2)
// before the op code. Op codes and layouts: the protocol's schema as
// toncenter's indexer reads it (indexer/events/blocks/messages/evaa.py)
// and EVAA's SDK (evaafi/sdk, the v6 message builders).
const (
	evaaOpSupplyMaster    = 0x1   // owner -> master (TON), or a jetton forward payload
	evaaOpWithdrawMaster  = 0x2   // owner -> master
	evaaOpLiquidateMaster = 0x3   // liquidator -> master (TON), or a jetton forward payload
	evaaOpSupplyUser      = 0x11  // master -> user contract (with header)
	evaaOpSupplySuccess   = 0x11a // user contract -> master
	evaaOpSupplyFail      = 0x11f // user contract -> master
	evaaOpWithdrawUser    = 0x21  // master -> user contract (with header)
	evaaOpCollateralized  = 0x211 // user contract -> master: the withdrawal is covered
	evaaOpWithdrawSuccess = 0x211a
	evaaOpWithdrawFail    = 0x211f // master -> user contract (with header): revert
	evaaOpNoFundsExcess   = 0x211fe8
	evaaOpLiquidateUser   = 0x31  // master -> user contract (with header)
	evaaOpSatisfied       = 0x311 // user contract -> master
	evaaOpUnsatisfied     = 0x31f // user contract -> master, with an error code
	evaaOpLiquidateOK     = 0x311a
	evaaOpSuccessReport   = 0x311d // master -> liquidator (TON)
	evaaOpLiquidateFail   = 0x311f
)

// evaaWithdrawRefusals are the user contract's answers to the owner when it
// refuses a withdrawal before asking the master to pay.
var evaaWithdrawRefusals = map[uint32]string{
	0x21e6: "withdraw_locked_excess",
	0x21e7: "withdraw_not_collateralized_excess",
	0x21e8: "withdraw_missing_prices_excess",
	0x21ec: "withdraw_execution_crashed",
}

// evaaLiquidationErrors are the error codes of liquidate_unsatisfied:
// toncenter's table (0xE001-0xE009) and the codes EVAA's own liquidator bot
// reads (evaafi/liquidator-bot-v2-pub, src/services/indexer/helpers.ts),
// under toncenter's names.
var evaaLiquidationErrors = map[uint32]string{
	0xE001: "master_liquidating_too_much",
	0xE002: "user_withdraw_in_progress",
	0xE003: "not_liquidatable",
	0xE004: "execution_crashed",
	0xE005: "min_collateral_not_satisfied",
	0xE006: "user_not_enough_collateral",
	0xE007: "user_liquidating_too_much",
	0xE008: "master_not_enough_liquidity",
	0xE009: "liquidation_prices_missing",
	0x30F1: "master_liquidating_too_much",
	0x31F0: "user_withdraw_in_progress",
	0x31F2: "not_liquidatable",
	0x31FE: "execution_crashed",
	0x31F3: "min_collateral_not_satisfied",
	0x31F4: "user_not_enough_collateral",
	0x31F5: "user_liquidating_too_much",
	0x31F6: "master_not_enough_liquidity",
	0x31F7: "liquidation_prices_missing",
}

// evaaTonAssetID is EVAA's id of TON: sha256("TON"), in toncenter's hex form.
const evaaTonAssetID = "0x1a4219fe5e60d63af2a3cc7dce6fec69b45c6b5718497a6148e7c232ac87bd8a"

// evaaAssetMasters maps EVAA asset ids (sha256 of the asset's name) to the
// jetton masters of mainnet. Source: toncenter's ton-index-go
// (index/parse/actions.go, EVAA_ASSET_ID_MAP_MAINNET), which resolves
// liquidation assets with it.
var evaaAssetMasters = map[string]string{
	"0xb387968236197958ca4ac55e9b5be38e688c7631af84c86756431f49a878ef33": "0:729C13B6DF2C07CBF0A06AB63D34AF454F3D320EC1BCD8FB5C6D24D0806A17C2",
	"0x83d916c68510802104d1f75aa6ce30eb1e477aede0d380eee2188e0e56581fc6": "0:7E30FC2B7751BA58A3642F3FD59D5E96A810DDD78D8A310BFE8353BEF10500DF",
	"0x495668e908644f30322b997de8faaafc21f05aa52f8982f042dac1fe0b4d09d0": "0:CD872FA7C5816052ACDF5332260443FAEC9AACC8C21CCA4D92E7F47034D11892",
	"0x3313e2f57ba870af34480350c789b0987d15b43a53172bfce294de21e7d724e7": "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000",
	"0xca9006bd3fb03d355daeeff93b24be90afaa6e3ca0073ff5720f8a852c933278": "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE",
	"0xe025e6a575f174da6d62577c1fe204ccaa5d1e47c55c6b20c67daee56c357b60": "0:3E5FFCA8DDFCF36C36C9FF46F31562AAB51B9914845AD6C26CBDE649D58A5588",
	"0x9c77a4d798a8f500dcfb877a07227c4ca9d6782504cdc7ce2ad0051e5641c032": "0:8D636010DD90D8C0902AC7F9F397D8BD5E177F131EE2CCA24CE894F15D19CEEA",
	"0x6bfa124cc1343d14ba57ded299f6f514f5f26777099e3c378922ce4081ecbf91": "0:AEA78C710AE94270DC263A870CF47B4360F53CC5ED38E3DB502E9E9AFB904B11",
	"0xe08b1f092e7240fb61bf8249d71aa635102acdd50122138105c35dd2896b5331": "0:FE72F474373E97032441BDB873F9A6D3AD10BAB08E6DBC7BEFA5E42B695F5400",
	"0x70930360b81e5f4ef2e06d2bf64978b44d4b87fb85d78788e001cdf8812d13d1": "0:AFC49CB8786F21C87045B19EDE78FC6B46C51048513F8E9A6D44060199C1BF0C",
	"0x8be3365cabaa6a0f90d2e64f03fa78268c135fe0b0758b576b447e9b2068d75d": "0:2F956143C461769579BAEF2E32CC2D7BC18283F40D20BB03E432CD603AC33FFC",
	"0xb372eaca5210612d285f3fdd30e87a0c3a443f1bb7578e16da72563241997ca1": "0:1F1798F724C2296652E6002BFB51BED11FB5A689532E5788AF7203581EF367A8",
	"0xb8a51f42ccbb912d973e58a22dda26decc7dfc83718c325c24432045ad78dc5a": "0:E8CB571401B1AADB9DEFC1FA0F72A4A5A0E0D5016903067891D763C91541E72B",
	"0xc585bac25948a5feea8f2a9e052eb45995882b15dfb784b37cd271cc163f3aea": "0:5EE20B5240CC4CE51A4C60BAF8C9D358EF617C26463E89C6571B534972C8EEF1",
	"0xd9496f9b279a4e26c49eb65d5c47c79b6dfdea16c9baefa9158a7dfbbbcac04a": "0:086FA2A675F74347B08DD4606A549B8FDB98829CB282BC1949D3B12FBAED9DCC",
	"0x4a4bae807cc87355de2ead44b21a739d9d35e9bba9a217f5cc9c0108197ad137": "0:D0E545323C7ACB7102653C073377F7E3C67F122EB94D430A250739F109D4A57D",
}

// EvaaSupply: an owner supplied TON or jettons to an EVAA pool, credited
// to a recipient's user contract.
type EvaaSupply struct {
	Sender            Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who supplied the asset"`
	SenderWallet      Address `json:"sender_wallet,omitempty" role:"source" tc:"sender_jetton_wallet,source_wallet" doc:"the sender's jetton wallet; absent for TON"`
	Recipient         Address `json:"recipient,omitempty" role:"recipient" tc:"recipient" doc:"whose EVAA balance the supply credits"`
	RecipientContract Address `json:"recipient_contract,omitempty" role:"contract" tc:"recipient_contract" doc:"the recipient's EVAA user contract"`
	RecipientWallet   Address `json:"recipient_wallet,omitempty" tc:"recipient_jetton_wallet" doc:"the recipient's jetton wallet of the asset (the sender's when they are the same owner, else the wallet a refund reached); absent for TON"`
	Master            Address `json:"master,omitempty" role:"contract" tc:"master" doc:"the EVAA pool's master contract"`
	MasterWallet      Address `json:"master_wallet,omitempty" role:"destination" tc:"master_jetton_wallet" doc:"the master's jetton wallet that took the jettons; absent for TON"`
	JettonMaster      Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the jetton supplied (its master); absent for TON"`
	AssetID           Text    `json:"asset_id,omitempty" tc:"asset_id" doc:"EVAA's asset id (sha256 of the asset's name), 0x + hex"`
	IsTon             *bool   `json:"is_ton,omitempty" tc:"is_ton" doc:"true when TON was supplied"`
	Amount            BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount supplied in the asset's smallest units: what the user contract recorded, else what was sent"`
	QueryID           BigInt  `json:"query_id,omitempty" doc:"query id of the supply request (TON supplies)"`
}

// EvaaWithdraw: an owner withdrew an asset from an EVAA pool.
type EvaaWithdraw struct {
	Owner           Address `json:"owner,omitempty" role:"sender" tc:"source" doc:"whose EVAA balance the withdrawal draws on"`
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"recipient" doc:"who the asset is paid to"`
	OwnerContract   Address `json:"owner_contract,omitempty" role:"contract" tc:"owner_contract" doc:"the owner's EVAA user contract"`
	Master          Address `json:"master,omitempty" role:"contract" tc:"master" doc:"the EVAA pool's master contract"`
	MasterWallet    Address `json:"master_wallet,omitempty" role:"source" tc:"master_jetton_wallet" doc:"the master's jetton wallet that paid out; absent for TON or when nothing was paid"`
	RecipientWallet Address `json:"recipient_wallet,omitempty" role:"destination" tc:"recipient_jetton_wallet" doc:"the recipient's jetton wallet credited; absent for TON or when nothing was paid"`
	JettonMaster    Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the jetton withdrawn (its master): the paid-out jetton, else the asset id resolved by EVAA's mainnet asset table; absent for TON"`
	AssetID         Text    `json:"asset_id,omitempty" tc:"asset_id" doc:"EVAA's asset id (sha256 of the asset's name), 0x + hex"`
	IsTon           *bool   `json:"is_ton,omitempty" tc:"is_ton" doc:"true when the asset is TON"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount withdrawn (what the user contract allowed); on a failure the amount requested"`
	RequestedAmount BigInt  `json:"requested_amount,omitempty" doc:"amount the request asked for (2^64-1: everything)"`
	FailReason      Text    `json:"fail_reason,omitempty" tc:"fail_reason" doc:"why it failed: withdraw_locked_excess, withdraw_not_collateralized_excess, withdraw_missing_prices_excess, withdraw_execution_crashed (the user contract refused) or withdraw_no_funds_excess (the master could not pay)"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the withdrawal request"`
}

// EvaaLiquidate: a liquidator repaid part of a borrower's debt to an EVAA
// pool in exchange for some of the borrower's collateral.
type EvaaLiquidate struct {
	Liquidator        Address `json:"liquidator,omitempty" role:"sender" tc:"source" doc:"who sent the debt asset"`
	LiquidatorWallet  Address `json:"liquidator_wallet,omitempty" role:"source" doc:"the liquidator's jetton wallet the debt asset left; absent for TON"`
	Borrower          Address `json:"borrower,omitempty" role:"recipient" tc:"borrower" doc:"the owner of the liquidated position"`
	BorrowerContract  Address `json:"borrower_contract,omitempty" role:"contract" tc:"borrower_contract" doc:"the borrower's EVAA user contract; absent when the master rejected the request at once"`
	Master            Address `json:"master,omitempty" role:"contract" doc:"the EVAA pool's master contract"`
	CollateralAssetID Text    `json:"collateral_asset_id,omitempty" tc:"asset_id" doc:"EVAA's id of the collateral asset, 0x + hex (toncenter's collateral is the same id in decimal)"`
	CollateralJetton  Address `json:"collateral_jetton,omitempty" role:"master" tc:"asset" doc:"the collateral jetton (its master), by EVAA's mainnet asset table; absent for TON or an unknown id"`
	CollateralIsTon   *bool   `json:"collateral_is_ton,omitempty" doc:"true when the collateral is TON"`
	Amount            BigInt  `json:"amount,omitempty" tc:"amount" doc:"collateral the liquidator received, in its smallest units; 0 when the liquidation failed"`
	DebtAssetID       Text    `json:"debt_asset_id,omitempty" doc:"EVAA's id of the debt asset repaid, 0x + hex"`
	DebtJetton        Address `json:"debt_jetton,omitempty" role:"master" doc:"the debt jetton sent (its master): the known master of the wallet, else the debt asset id resolved by EVAA's mainnet asset table; absent for TON"`
	DebtAmount        BigInt  `json:"debt_amount,omitempty" tc:"debt_amount" doc:"debt repaid (liquidatable amount) on success; otherwise the amount the liquidator sent"`
	FailReason        Text    `json:"fail_reason,omitempty" tc:"fail_reason" doc:"immediate_rejection (the master refused at once), master_not_enough_liquidity, or the user contract's error (not_liquidatable, min_collateral_not_satisfied, ...)"`
	QueryID           BigInt  `json:"query_id,omitempty" doc:"query id of the liquidation request (TON liquidations)"`
}

func init() {
	declare(
		Type{Value: EvaaSupply{}, Title: "EVAA supply", Describe: describeAs(func(v *EvaaSupply, w *Words) string {
			return "Supplied " + w.evaa(v.IsTon, v.JettonMaster, v.Amount) + " to EVAA"
		}),
			Toncenter: "evaa_supply", Protocols: "EVAA lending pools",
			Doc:    "supply_master (0x1) to the master, in the message (TON) or in a jetton transfer's forward payload; the master asks the recipient's user contract (supply_user 0x11), which answers supply_success (0x11a) or supply_fail (0x11f, the master refunds).",
			Failed: "the user contract answered supply_fail (the asset is refunded)"},
		Type{Value: EvaaWithdraw{}, Title: "EVAA withdrawal", Describe: describeAs(func(v *EvaaWithdraw, w *Words) string {
			return "Withdrew " + w.evaa(v.IsTon, v.JettonMaster, v.Amount) + " from EVAA"
		}),
			Toncenter: "evaa_withdraw", Protocols: "EVAA lending pools",
			Doc:     "withdraw_master (0x2) to the master, withdraw_user (0x21) to the owner's user contract, withdraw_collateralized (0x211) back; the master pays (TON with op 0x211a, or a jetton transfer) and confirms withdraw_success (0x211a) to the user contract.",
			Failed:  "the user contract refused (0x21e6/0x21e7/0x21e8/0x21ec to the owner), the master could not pay (withdraw_fail 0x211f, then 0x211fe8 to the owner), or the jetton payout bounced",
			Differs: "jetton_master is also given for failed withdrawals, from the asset id (toncenter leaves asset empty there)"},
		Type{Value: EvaaLiquidate{}, Title: "EVAA liquidation", Describe: describeAs(func(v *EvaaLiquidate, w *Words) string {
			return "Liquidated " + w.Account(v.Borrower) + " on EVAA, repaying " + w.Jetton(v.DebtJetton, v.DebtAmount) +
				" for " + w.evaa(v.CollateralIsTon, v.CollateralJetton, v.Amount) + " of collateral"
		}),
			Toncenter: "evaa_liquidate", Protocols: "EVAA lending pools",
			Doc:     "liquidate_master (0x3) to the master, in the message (TON) or in a jetton transfer's forward payload; liquidate_user (0x31) to the borrower's user contract, which answers liquidate_satisfied (0x311) or liquidate_unsatisfied (0x31f); the master then confirms (liquidate_success 0x311a) and pays the collateral with a report (0x311d) or a jetton transfer.",
			Failed:  "the master bounced or returned the request at once, the user contract answered liquidate_unsatisfied, or the master answered liquidate_fail (0x311f)",
			Differs: "debt_amount of a failed jetton liquidation is the jettons sent (toncenter reads 0 from the payload); jetton liquidation payloads are read without a query id, as EVAA's SDK writes them"},
	)
	addMatcher(OrderProtocol+60, "EvaaSupply", matchEvaaSupply)
	addMatcher(OrderProtocol+61, "EvaaWithdraw", matchEvaaWithdraw)
	addMatcher(OrderProtocol+62, "EvaaLiquidate", matchEvaaLiquidate)
}

// evaaUserHeader is what messages to a user contract start with.
type evaaUserHeader struct {
	Version tlb.VarUInteger16
	Upgrade tlb.Maybe[tlb.Ref[boc.Cell]]
	Exec    tlb.Uint2
	Op      uint32
}

// evaaUserIs reports a message to a user contract with the given op code
// after the user header.
func evaaUserIs(n *node, op uint32) bool {
	if n == nil || n.used || n.in() == nil || n.in().Bounced || len(n.in().Body) == 0 {
		return false
	}
	var h evaaUserHeader
	return n.decode(&h) && h.Op == op
}

// evaaUserChild is the first unused child that is a user-contract message
// with the op code.
func evaaUserChild(n *node, op uint32) *node {
	for _, c := range n.children {
		if evaaUserIs(c, op) {
			return c
		}
	}
	return nil
}

// evaaPlainChild is the first unused child whose message carries one of
// the op codes with no header.
func evaaPlainChild(n *node, ops ...uint32) *node {
	for _, c := range n.children {
		if c.used || !c.hasOp || c.in().Bounced {
			continue
		}
		for _, op := range ops {
			if c.op == op {
				return c
			}
		}
	}
	return nil
}

// evaaAssetHex writes an asset id as toncenter does: 0x and lower-case hex
// without leading zeros.
func evaaAssetHex(id tlb.Bits256) string {
	return "0x" + new(big.Int).SetBytes(id[:]).Text(16)
}

// evaaAssetJetton resolves an asset id to its mainnet jetton master.
func evaaAssetJetton(id string) string { return evaaAssetMasters[id] }

// evaaChange collects n's unused children that are change: a plain TON
// transfer, a comment ("EVAA supply." and the like) or excesses.
func evaaChange(n *node) []*node {
	var out []*node
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.used || c.in() == nil || c.in().Bounced {
			continue
		}
		if !c.hasOp || c.op == uint32(abi.TextCommentMsgOpCode) || c.op == uint32(abi.ExcessMsgOpCode) {
			out = append(out, c)
		}
	}
	return out
}

// evaaRequest is a request to the master: a message (TON) or a jetton
// transfer whose forward payload carries it.
type evaaRequest struct {
	master  *node      // the master's transaction
	leg     *jettonLeg // nil for TON
	sender  string
	payload *boc.Cell // the request, from its op code on
	isTon   bool
}

// evaaNotifyHead: transfer_notification#7362d09c query_id:uint64
// amount:(VarUInteger 16) sender:MsgAddress forward_payload:(Either Cell ^Cell).
type evaaNotifyHead struct {
	Op      uint32
	QueryID uint64
	Amount  tlb.VarUInteger16
	Sender  tlb.MsgAddress
	Forward tlb.EitherRef[boc.Cell]
}

// evaaRequestAt reads a request with the op code that m (the master's
// transaction) received: the message itself, or the forward payload of a
// transfer_notification from the master's jetton wallet.
func (c *classifier) evaaRequestAt(m *node, op uint32) (*evaaRequest, bool) {
	if m.in() == nil || m.in().IsExternalIn() || m.in().Bounced || !m.hasOp {
		return nil, false
	}
	if m.op == op {
		cells, err := boc.DeserializeBoc(m.in().Body)
		if err != nil || len(cells) != 1 {
			return nil, false
		}
		return &evaaRequest{master: m, sender: m.in().Source, payload: cells[0], isTon: true}, true
	}
	if m.op != uint32(abi.JettonNotifyMsgOpCode) {
		return nil, false
	}
	var h evaaNotifyHead
	if !m.decode(&h) {
		return nil, false
	}
	fwd := &h.Forward.Value
	fwd.ResetCounters()
	if got, err := fwd.PickUint(32); err != nil || uint32(got) != op {
		return nil, false
	}
	r := &evaaRequest{master: m, sender: addr(h.Sender), payload: fwd}
	if w := m.parent; w != nil && !w.used && w.is(abi.JettonInternalTransferMsgOpCode) {
		if s := w.parent; s != nil && !s.used {
			if l, ok := c.followTransfer(s); ok && l.receive == w {
				r.leg = l
				r.sender = l.owner
			}
		}
	}
	if r.leg == nil {
		// Only the notification is in the trace: the incoming transfer
		// is still the master's jetton wallet's message.
		r.leg = &jettonLeg{notify: m, destWallet: m.in().Source, amount: amount(h.Amount), owner: r.sender,
			master: c.masterOf(m.in().Source)}
	}
	return r, true
}

// nodes of the request: the master's transaction, the jetton leg and the
// wallet request that started it.
func (r *evaaRequest) nodes(d *draft) {
	d.nodes = append(d.nodes, r.master)
	if r.leg != nil {
		d.nodes = append(d.nodes, r.leg.nodes()...)
		if r.leg.send != nil {
			d.withInitiator(r.leg.send)
			return
		}
	}
	d.withInitiator(r.master)
}

// evaaDecodeCell decodes v from the start of a cell (read from its beginning).
func evaaDecodeCell(cell *boc.Cell, v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	cell.ResetCounters()
	return tlb.Unmarshal(cell, v) == nil
}

// ------------------------- supply -------------------------

func matchEvaaSupply(c *classifier, m *node) bool {
	req, ok := c.evaaRequestAt(m, evaaOpSupplyMaster)
	if !ok {
		return false
	}
	v := &EvaaSupply{Sender: Address(req.sender), Master: Address(m.tx.Account), IsTon: flag(req.isTon)}
	if req.isTon {
		// supply_master#00000001 query_id:uint64 include_user_code:BoolExtended
		// supply_amount:uint64 recipient_address:MsgAddressInt ...
		var b struct {
			Op        uint32
			QueryID   uint64
			UserCode  tlb.Uint2
			Amount    uint64
			Recipient tlb.MsgAddress
		}
		if !evaaDecodeCell(req.payload, &b) {
			return false
		}
		v.Recipient, v.Amount, v.QueryID = Address(addr(b.Recipient)), nano(b.Amount), nano(b.QueryID)
	} else {
		// The jetton form has no query id and no amount: op
		// include_user_code:BoolExtended recipient_address:MsgAddressInt ...
		var b struct {
			Op        uint32
			UserCode  tlb.Uint2
			Recipient tlb.MsgAddress
		}
		if !evaaDecodeCell(req.payload, &b) {
			return false
		}
		l := req.leg
		v.Recipient, v.Amount = Address(addr(b.Recipient)), l.amount
		v.SenderWallet, v.MasterWallet, v.JettonMaster = Address(l.sourceWallet), Address(l.destWallet), Address(l.master)
		if v.Recipient == v.Sender {
			v.RecipientWallet = v.SenderWallet
		}
	}
	u := evaaUserChild(m, evaaOpSupplyUser)
	if u == nil {
		return false
	}
	v.RecipientContract = Address(u.tx.Account)
	var ub struct {
		Head    evaaUserHeader
		QueryID uint64
		AssetID tlb.Bits256
	}
	if u.decode(&ub) {
		v.AssetID = Text(evaaAssetHex(ub.AssetID))
	}
	if !req.isTon && v.JettonMaster == "" {
		v.JettonMaster = Address(evaaAssetJetton(string(v.AssetID)))
	}
	d := newDraft(v, m.in().Hash)
	req.nodes(d)
	d.nodes = append(d.nodes, u)
	d.nodes = append(d.nodes, evaaChange(m)...)
	d.nodes = append(d.nodes, evaaChange(u)...)
	if r := evaaPlainChild(u, evaaOpSupplySuccess); r != nil {
		// supply_success#0000011a query_id:uint64 owner_address:MsgAddressInt
		// asset_id:AssetId amount_supplied:Amount ...
		var b struct {
			Op      uint32
			QueryID uint64
			Owner   tlb.MsgAddress
			AssetID tlb.Bits256
			Amount  uint64
		}
		if r.decode(&b) {
			v.Amount = nano(b.Amount)
		}
		d.nodes = append(d.nodes, r)
		d.nodes = append(d.nodes, evaaChange(r)...)
		d.ok = r.ok()
		c.add(d)
		return true
	}
	r := evaaPlainChild(u, evaaOpSupplyFail)
	if r == nil {
		// The user contract may hand the jettons back itself.
		for _, ch := range u.children {
			if l, ok := c.followTransfer(ch); ok && !ch.used {
				d.nodes = append(d.nodes, l.nodes()...)
				d.ok = false
				c.add(d)
				return true
			}
		}
		return false // not finished yet
	}
	d.nodes = append(d.nodes, r)
	d.nodes = append(d.nodes, evaaChange(r)...)
	// The master refunds: jettons through its wallet, or TON.
	for _, ch := range r.children {
		if ch.used {
			continue
		}
		if l, ok := c.followTransfer(ch); ok {
			d.nodes = append(d.nodes, l.nodes()...)
			if v.RecipientWallet == "" && string(v.MasterWallet) == l.sourceWallet {
				v.RecipientWallet = Address(l.destWallet)
			}
		}
	}
	d.ok = false
	c.add(d)
	return true
}

// ------------------------- withdraw -------------------------

func matchEvaaWithdraw(c *classifier, m *node) bool {
	if !m.is(evaaOpWithdrawMaster) || m.in().IsExternalIn() {
		return false
	}
	// withdraw_master#00000002 query_id:uint64 asset_id:AssetId amount:Amount
	// recipient_addr:MsgAddressInt ...
	var b struct {
		Op        uint32
		QueryID   uint64
		AssetID   tlb.Bits256
		Amount    uint64
		Recipient tlb.MsgAddress
	}
	if !m.decode(&b) {
		return false
	}
	u := evaaUserChild(m, evaaOpWithdrawUser)
	if u == nil {
		return false
	}
	assetID := evaaAssetHex(b.AssetID)
	isTon := assetID == evaaTonAssetID
	v := &EvaaWithdraw{Owner: Address(m.in().Source), Recipient: Address(addr(b.Recipient)),
		OwnerContract: Address(u.tx.Account), Master: Address(m.tx.Account), AssetID: Text(assetID),
		IsTon: flag(isTon), Amount: nano(b.Amount), RequestedAmount: nano(b.Amount), QueryID: nano(b.QueryID)}
	if !isTon {
		v.JettonMaster = Address(evaaAssetJetton(assetID))
	}
	d := newDraft(v, m.in().Hash, m, u)
	d.withInitiator(m)
	d.nodes = append(d.nodes, evaaChange(m)...)
	d.nodes = append(d.nodes, evaaChange(u)...)

	if col := evaaPlainChild(u, evaaOpCollateralized); col != nil {
		d.nodes = append(d.nodes, col)
		d.nodes = append(d.nodes, evaaChange(col)...)
		// The master could not pay: it reverts the user contract, which
		// returns the TON to the owner.
		if f := evaaUserChild(col, evaaOpWithdrawFail); f != nil {
			d.nodes = append(d.nodes, f)
			d.nodes = append(d.nodes, evaaChange(f)...)
			if x := evaaPlainChild(f, evaaOpNoFundsExcess); x != nil {
				d.nodes = append(d.nodes, x)
			}
			v.FailReason = "withdraw_no_funds_excess"
			d.ok = false
			c.add(d)
			return true
		}
		// withdraw_collateralized#00000211 query_id:uint64 owner_address:MsgAddressInt
		// asset_id:AssetId withdraw_amount_current:Amount ...
		var cb struct {
			Op      uint32
			QueryID uint64
			Owner   tlb.MsgAddress
			AssetID tlb.Bits256
			Amount  uint64
		}
		if col.decode(&cb) {
			v.Amount = nano(cb.Amount)
		}
		paid, paidOK := false, true
		for _, ch := range col.children {
			if ch.used {
				continue
			}
			if l, ok := c.followTransfer(ch); ok && !isTon {
				d.nodes = append(d.nodes, l.nodes()...)
				v.MasterWallet, v.RecipientWallet = Address(l.sourceWallet), Address(l.destWallet)
				if l.master != "" {
					v.JettonMaster = Address(l.master)
				}
				paid, paidOK = true, l.ok
				break
			}
		}
		if isTon {
			// The TON comes with op 0x211a (no header), or as a plain
			// transfer or comment to the recipient.
			p := evaaPlainChild(col, evaaOpWithdrawSuccess)
			if p == nil {
				for _, ch := range evaaChange(col) {
					if ch.tx.Account == string(v.Recipient) && ch.tx.Account != string(v.OwnerContract) {
						p = ch
						break
					}
				}
			}
			if p != nil {
				d.nodes = append(d.nodes, p)
				d.nodes = append(d.nodes, evaaChange(p)...)
				paid = true
			}
		}
		if s := evaaUserChild(col, evaaOpWithdrawSuccess); s != nil {
			d.nodes = append(d.nodes, s)
			d.nodes = append(d.nodes, evaaChange(s)...)
		}
		if !paid {
			return false // not finished yet
		}
		d.ok = paidOK
		c.add(d)
		return true
	}
	for _, ch := range u.children {
		if ch.used || !ch.hasOp || ch.in().Bounced {
			continue
		}
		if reason, refused := evaaWithdrawRefusals[ch.op]; refused {
			d.nodes = append(d.nodes, ch)
			v.FailReason = Text(reason)
			d.ok = false
			c.add(d)
			return true
		}
	}
	return false
}

// ------------------------- liquidate -------------------------

// evaaLiquidation is what a liquidate_master request says.
type evaaLiquidation struct {
	queryID    BigInt
	borrower   string
	collateral tlb.Bits256
	amount     uint64
}

// readEvaaLiquidation reads liquidate_master: op [query_id:uint64 (TON
// only)] borrower_address:MsgAddressInt liquidator_address:MsgAddressInt
// collateral_asset_id:AssetId min_collateral_amount:Amount
// include_user_code:BoolExtended liquidate_incoming_amount:Amount ...
// Later versions (EVAA v9) dropped liquidator_address: then the body is too
// short for the first layout and is read without it.
func readEvaaLiquidation(payload *boc.Cell, withQueryID bool) (evaaLiquidation, bool) {
	type tail struct {
		Collateral tlb.Bits256
		MinAmount  uint64
		UserCode   tlb.Uint2
		Amount     uint64
	}
	var out evaaLiquidation
	var op, qid uint64
	read := func(withLiquidator bool) bool {
		payload.ResetCounters()
		var err error
		if op, err = payload.ReadUint(32); err != nil {
			return false
		}
		if withQueryID {
			if qid, err = payload.ReadUint(64); err != nil {
				return false
			}
		}
		var borrower, liquidator tlb.MsgAddress
		if !evaaDecodeRest(payload, &borrower) {
			return false
		}
		if withLiquidator && (!evaaDecodeRest(payload, &liquidator) || liquidator.SumType != "AddrStd") {
			return false
		}
		var t tail
		if !evaaDecodeRest(payload, &t) {
			return false
		}
		out = evaaLiquidation{borrower: addr(borrower), collateral: t.Collateral, amount: t.Amount}
		if withQueryID {
			out.queryID = nano(qid)
		}
		return true
	}
	ok := read(true) || read(false)
	return out, ok && uint32(op) == evaaOpLiquidateMaster
}

// evaaDecodeRest decodes v from the cell's current position.
func evaaDecodeRest(cell *boc.Cell, v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return tlb.Unmarshal(cell, v) == nil
}

func matchEvaaLiquidate(c *classifier, m *node) bool {
	req, ok := c.evaaRequestAt(m, evaaOpLiquidateMaster)
	if !ok {
		return false
	}
	lq, ok := readEvaaLiquidation(req.payload, req.isTon)
	if !ok {
		return false
	}
	v := &EvaaLiquidate{Liquidator: Address(req.sender), Borrower: Address(lq.borrower), Master: Address(m.tx.Account),
		QueryID: lq.queryID}
	v.setCollateral(lq.collateral)
	if req.isTon {
		v.DebtAssetID, v.DebtAmount = evaaTonAssetID, nano(lq.amount)
	} else {
		v.LiquidatorWallet, v.DebtJetton = Address(req.leg.sourceWallet), Address(req.leg.master)
		v.DebtAmount = nano(lq.amount)
		if lq.amount == 0 {
			// Jetton liquidations carry no amount: the jettons sent are it.
			v.DebtAmount = req.leg.amount
		}
	}
	d := newDraft(v, m.in().Hash)
	req.nodes(d)
	d.nodes = append(d.nodes, evaaChange(m)...)
	v.Amount = "0"
	add := func(ok bool) bool {
		if v.DebtJetton == "" && v.DebtAssetID != evaaTonAssetID {
			v.DebtJetton = Address(evaaAssetJetton(string(v.DebtAssetID)))
		}
		d.ok = ok
		c.add(d)
		return true
	}

	u := evaaUserChild(m, evaaOpLiquidateUser)
	if u == nil {
		// Rejected at once: the master bounced the TON or returned the jettons.
		if b := m.bouncedChild(); b != nil && req.isTon && !b.used {
			d.nodes = append(d.nodes, b)
		} else if l, found := c.evaaJettonChild(m); found && !req.isTon {
			d.nodes = append(d.nodes, l.nodes()...)
		} else {
			return false
		}
		v.FailReason = "immediate_rejection"
		return add(false)
	}
	v.BorrowerContract = Address(u.tx.Account)
	d.nodes = append(d.nodes, u)
	d.nodes = append(d.nodes, evaaChange(u)...)
	// liquidate_user#00000031 query_id:uint64 asset_config_collection
	// asset_dynamics_collection ^[ prices_packed:^PricesPacked
	// collateral_asset_id:AssetId min_collateral_amount:Amount
	// liquidator_address:MsgAddressInt transferred_asset_id:AssetId ... ]
	var ub struct {
		Head     evaaUserHeader
		QueryID  uint64
		Configs  tlb.Maybe[tlb.Ref[boc.Cell]]
		Dynamics tlb.Maybe[tlb.Ref[boc.Cell]]
		Inner    tlb.Ref[struct {
			Prices      tlb.Ref[boc.Cell]
			Collateral  tlb.Bits256
			MinAmount   uint64
			Liquidator  tlb.MsgAddress
			Transferred tlb.Bits256
		}]
	}
	if u.decode(&ub) {
		v.DebtAssetID = Text(evaaAssetHex(ub.Inner.Value.Transferred))
	}

	if s := evaaPlainChild(u, evaaOpSatisfied); s != nil {
		d.nodes = append(d.nodes, s)
		d.nodes = append(d.nodes, evaaChange(s)...)
		report := c.evaaReport(s, d)
		if okNode := evaaUserChild(s, evaaOpLiquidateOK); okNode != nil && report {
			d.nodes = append(d.nodes, okNode)
			d.nodes = append(d.nodes, evaaChange(okNode)...)
			// liquidate_satisfied#00000311 query_id:uint64 owner_address:MsgAddressInt
			// liquidator_address:MsgAddressInt transferred_asset_id:AssetId
			// ^[ delta_loan_principal:Principal liquidatable_amount:Amount
			//    protocol_gift:Amount new_user_loan_principal:Principal
			//    collateral_asset_id:AssetId delta_collateral_principal:Principal
			//    collateral_reward:Amount ... ]
			var sb struct {
				Op          uint32
				QueryID     uint64
				Owner       tlb.MsgAddress
				Liquidator  tlb.MsgAddress
				Transferred tlb.Bits256
				Inner       tlb.Ref[struct {
					DeltaLoan    uint64
					Liquidatable uint64
					Gift         uint64
					NewLoan      uint64
					Collateral   tlb.Bits256
					DeltaColl    uint64
					Reward       uint64
				}]
			}
			if s.decode(&sb) {
				if o := addr(sb.Owner); o != "" {
					v.Borrower = Address(o)
				}
				v.DebtAssetID = Text(evaaAssetHex(sb.Transferred))
				v.setCollateral(sb.Inner.Value.Collateral)
				v.Amount, v.DebtAmount = nano(sb.Inner.Value.Reward), nano(sb.Inner.Value.Liquidatable)
			}
			return add(okNode.ok())
		}
		fail := evaaUserChild(s, evaaOpLiquidateFail)
		if fail == nil {
			fail = evaaPlainChild(s, evaaOpLiquidateFail)
		}
		if fail != nil && report {
			d.nodes = append(d.nodes, fail)
			d.nodes = append(d.nodes, evaaChange(fail)...)
			v.FailReason = "master_not_enough_liquidity"
			return add(false)
		}
		return false // not finished yet
	}
	if s := evaaPlainChild(u, evaaOpUnsatisfied); s != nil {
		d.nodes = append(d.nodes, s)
		d.nodes = append(d.nodes, evaaChange(s)...)
		if !c.evaaReport(s, d) {
			return false
		}
		v.FailReason = Text(evaaLiquidationError(s.in().Body))
		return add(false)
	}
	return false
}

// setCollateral fills the collateral asset facts from its id.
func (v *EvaaLiquidate) setCollateral(id tlb.Bits256) {
	v.CollateralAssetID = Text(evaaAssetHex(id))
	v.CollateralIsTon = flag(v.CollateralAssetID == evaaTonAssetID)
	v.CollateralJetton = Address(evaaAssetJetton(string(v.CollateralAssetID)))
}

// evaaReport adds what the master sent the liquidator after the user
// contract's answer s: a report (liquidate_success_report 0x311d or
// liquidate_fail 0x311f, with TON) or a jetton transfer. It reports whether
// there was one.
func (c *classifier) evaaReport(s *node, d *draft) bool {
	if r := evaaPlainChild(s, evaaOpSuccessReport, evaaOpLiquidateFail); r != nil {
		d.nodes = append(d.nodes, r)
		d.nodes = append(d.nodes, evaaChange(r)...)
		return true
	}
	if l, ok := c.evaaJettonChild(s); ok {
		d.nodes = append(d.nodes, l.nodes()...)
		return true
	}
	return false
}

// evaaJettonChild is a jetton transfer the master started (its jetton
// wallet paying out).
func (c *classifier) evaaJettonChild(n *node) (*jettonLeg, bool) {
	for _, ch := range n.children {
		if ch.used {
			continue
		}
		if l, ok := c.followTransfer(ch); ok {
			return l, true
		}
	}
	return nil, false
}

// evaaLiquidationError reads the error code at the end of
// liquidate_unsatisfied#0000031f query_id:uint64 owner_address:MsgAddressInt
// liquidator_address:MsgAddressInt transferred_asset_id:AssetId
// ^[ transferred_amount:Amount collateral_asset_id:AssetId
// min_collateral_amount:Amount forward_ton_amount:Amount
// custom_response_payload:^Cell error:LiquidationError ]; older contracts
// leave out forward_ton_amount and custom_response_payload.
func evaaLiquidationError(body []byte) string {
	var b struct {
		Op          uint32
		QueryID     uint64
		Owner       tlb.MsgAddress
		Liquidator  tlb.MsgAddress
		Transferred tlb.Bits256
		Inner       tlb.Ref[boc.Cell]
	}
	if !decodePrefix(body, &b) {
		return "liquidation_error"
	}
	inner := &b.Inner.Value
	inner.ResetCounters()
	var head struct {
		Amount     uint64
		Collateral tlb.Bits256
		MinAmount  uint64
	}
	if !evaaDecodeRest(inner, &head) {
		return "liquidation_error"
	}
	if inner.RefsAvailableForRead() > 0 {
		var fwd struct {
			Forward uint64
			Custom  tlb.Ref[boc.Cell]
		}
		if !evaaDecodeRest(inner, &fwd) {
			return "parse_error"
		}
	}
	code, err := inner.ReadUint(32)
	if err != nil {
		return "parse_error"
	}
	if reason, known := evaaLiquidationErrors[uint32(code)]; known {
		return reason
	}
	return "unknown"
}
