package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Op codes of the TON Foundation vesting wallet (ton-blockchain/vesting-contract,
// contracts/vesting_wallet.fc): the owner asks it to send a message, the
// vesting sender adds addresses to its whitelist; each answers the caller
// with its response op code (the request's with the top nibble 0xf) and the
// request's query id.
const (
	vestingSendOp              abi.MsgOpCode = 0xa7733acd
	vestingSendResponseOp      abi.MsgOpCode = 0xf7733acd
	vestingAddWhitelistOp      abi.MsgOpCode = 0x7258a69b
	vestingAddWhitelistRespOp  abi.MsgOpCode = 0xf258a69b
	vestingMaxWhitelistEntries               = 1024
)

// VestingSendMessage: a vesting wallet's owner had it send a message
// (locked coins may only go to whitelisted addresses).
type VestingSendMessage struct {
	Sender      Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who asked the vesting wallet to send (its owner)"`
	Vesting     Address `json:"vesting,omitempty" role:"contract" tc:"vesting" doc:"the vesting wallet"`
	Destination Address `json:"destination,omitempty" role:"recipient" tc:"destination" doc:"where the message the vesting was asked to send goes"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons that message carries"`
	QueryID     BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	MessageBoc  Text    `json:"message_boc,omitempty" tc:"message_boc" doc:"the message the vesting was asked to send, base64 BOC"`
	SendMode    *int64  `json:"send_mode,omitempty" doc:"the send mode the request asked for"`
}

// VestingAddWhitelist: the vesting sender added addresses to a vesting
// wallet's whitelist.
type VestingAddWhitelist struct {
	Sender        Address   `json:"sender,omitempty" role:"sender" tc:"source" doc:"who added them (the vesting sender)"`
	Vesting       Address   `json:"vesting,omitempty" role:"contract" tc:"vesting" doc:"the vesting wallet"`
	AccountsAdded []Address `json:"accounts_added,omitempty" tc:"accounts_added" doc:"the addresses added to the whitelist"`
	QueryID       BigInt    `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
}

func init() {
	declare(
		Type{Value: VestingSendMessage{}, Title: "Vesting payment", Describe: describeAs(func(v *VestingSendMessage, w *Words) string {
			return "Sent " + w.TON(v.Amount) + " from vesting wallet " + w.Account(v.Vesting) + " to " + w.Account(v.Destination)
		}),
			Toncenter: "vesting_send_message", Protocols: "TON Foundation vesting wallet",
			Doc:     "send (0xa7733acd) from the owner to the vesting wallet, which sends the enclosed message and answers 0xf7733acd. The sent message is an action of its own.",
			Failed:  "the vesting wallet failed or did not answer (the sender is not its owner)",
			Differs: "toncenter reports the request only when the vesting answered; one it refused is a failed VestingSendMessage here, a call_contract there"},
		Type{Value: VestingAddWhitelist{}, Title: "Vesting whitelist", Describe: describeAs(func(v *VestingAddWhitelist, w *Words) string {
			return "Added " + count(len(v.AccountsAdded), "account") + " to the whitelist of vesting wallet " + w.Account(v.Vesting)
		}),
			Toncenter: "vesting_add_whitelist", Protocols: "TON Foundation vesting wallet",
			Doc:     "add_whitelist (0x7258a69b) from the vesting sender to the vesting wallet, answered with 0xf258a69b.",
			Failed:  "the vesting wallet failed or did not answer (the sender is not the vesting sender)",
			Differs: "toncenter reports the request only when the vesting answered; one it refused is a failed VestingAddWhitelist here, a call_contract there"},
	)
	addMatcher(OrderProtocol+60, "VestingSendMessage", matchVestingSend)
	addMatcher(OrderProtocol+61, "VestingAddWhitelist", matchVestingAddWhitelist)
}

// matchVestingSend: send#a7733acd query_id:uint64 send_mode:uint8
// message:^MessageRelaxed at the vesting wallet.
func matchVestingSend(c *classifier, n *node) bool {
	if !n.is(vestingSendOp) {
		return false
	}
	var body struct {
		Op       uint32
		QueryID  uint64
		SendMode uint8
		Message  tlb.Ref[boc.Cell]
	}
	if !n.decode(&body) {
		return false
	}
	v := &VestingSendMessage{Sender: Address(n.in().Source), Vesting: Address(n.tx.Account),
		QueryID: nano(body.QueryID), SendMode: int64Of(int64(body.SendMode))}
	msgCell := &body.Message.Value
	v.MessageBoc = Text(cellBase64(msgCell))
	msgCell.ResetCounters()
	var m tlb.Message
	if tlb.Unmarshal(msgCell, &m) == nil && m.Info.SumType == "IntMsgInfo" {
		v.Destination = Address(addr(m.Info.IntMsgInfo.Dest))
		v.Amount = nano(uint64(m.Info.IntMsgInfo.Value.Grams))
	}
	resp := n.child(vestingSendResponseOp)
	d := newDraft(v, n.in().Hash, n, resp, n.bouncedChild()).withInitiator(n)
	d.ok = !n.tx.Aborted && resp != nil
	c.add(d)
	return true
}

// matchVestingAddWhitelist: add_whitelist#7258a69b query_id:uint64, then an
// address in each of a chain of cells (the first in the body, each next one
// in the previous cell's ref).
func matchVestingAddWhitelist(c *classifier, n *node) bool {
	if !n.is(vestingAddWhitelistOp) {
		return false
	}
	added, qid, ok := readWhitelist(n.in().Body)
	if !ok {
		return false
	}
	resp := n.child(vestingAddWhitelistRespOp)
	d := newDraft(&VestingAddWhitelist{Sender: Address(n.in().Source), Vesting: Address(n.tx.Account),
		AccountsAdded: added, QueryID: nano(qid)}, n.in().Hash, n, resp, n.bouncedChild()).withInitiator(n)
	d.ok = !n.tx.Aborted && resp != nil
	c.add(d)
	return true
}

func readWhitelist(body []byte) (out []Address, qid uint64, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return nil, 0, false
	}
	cell := cells[0]
	var head struct {
		Op      uint32
		QueryID uint64
	}
	if tlb.Unmarshal(cell, &head) != nil {
		return nil, 0, false
	}
	for range vestingMaxWhitelistEntries {
		var a tlb.MsgAddress
		if tlb.Unmarshal(cell, &a) != nil {
			return nil, 0, false
		}
		if s := addr(a); s != "" {
			out = append(out, Address(s))
		}
		if cell.RefsAvailableForRead() == 0 {
			break
		}
		if cell, err = cell.NextRef(); err != nil {
			return nil, 0, false
		}
	}
	return out, head.QueryID, true
}

// int64Of is a known integer fact.
func int64Of(v int64) *int64 { return &v }
