package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// jettonLeg is one jetton move: transfer -> internal_transfer ->
// notification/excesses. Swaps reuse it for their incoming and outgoing legs.
type jettonLeg struct {
	send, receive, notify, excess *node // send: the sender's jetton wallet
	owner, recipient              string
	sourceWallet, destWallet      string
	master                        string
	amount                        BigInt
	ok                            bool
	body                          abi.JettonTransferMsgBody
}

// followTransfer reads the leg that starts where a jetton wallet (n)
// receives a transfer request from its owner.
func (c *classifier) followTransfer(n *node) (*jettonLeg, bool) {
	if !n.is(abi.JettonTransferMsgOpCode) {
		return nil, false
	}
	body, ok := bodyAs[abi.JettonTransferMsgBody](n)
	if !ok {
		return nil, false
	}
	l := &jettonLeg{send: n, body: body, owner: n.in().Source, sourceWallet: n.tx.Account,
		recipient: addr(body.Destination), amount: amount(body.Amount)}
	l.receive = n.child(abi.JettonInternalTransferMsgOpCode)
	if l.receive != nil {
		l.destWallet = l.receive.tx.Account
		// The jettons belong to whoever owns the wallet that took them: a
		// wallet whose code derives the receiving wallet otherwise than
		// from the request's destination credits someone else, and
		// toncenter names that owner too.
		if owner := c.ownerOf(l.destWallet); owner != "" {
			l.recipient = owner
		}
		l.notify = l.receive.child(abi.JettonNotifyMsgOpCode)
		l.excess = l.receive.child(abi.ExcessMsgOpCode)
	} else if l.notify = n.child(abi.JettonNotifyMsgOpCode); l.notify != nil {
		// A wallet that notifies the recipient itself (STON.fi's pTON: the
		// "jettons" are TON it holds) has no second wallet to accept them.
		l.ok = n.ok()
	}
	// The jettons moved when both wallets accepted the messages; a receiver
	// that failed bounces them back to the sender.
	l.ok = l.ok || n.ok() && l.receive != nil && l.receive.ok()
	l.master = c.masterOf(l.sourceWallet, l.destWallet)
	return l, true
}

// masterOf is the jetton master of any of the wallets, when known.
func (c *classifier) masterOf(wallets ...string) string {
	for _, w := range wallets {
		if k, ok := c.known[w]; ok && k.Jetton != "" {
			return k.Jetton
		}
	}
	return ""
}

func (c *classifier) ownerOf(wallet string) string {
	if k, ok := c.known[wallet]; ok {
		return k.Owner
	}
	return ""
}

func (l *jettonLeg) nodes() []*node {
	return []*node{l.send, l.receive, l.notify, l.excess}
}

// JettonTransfer: jettons moved from one owner's wallet to another's.
type JettonTransfer struct {
	Sender              Address `json:"sender,omitempty" role:"sender" tc:"sender" doc:"owner of the jettons sent"`
	Recipient           Address `json:"recipient,omitempty" role:"recipient" tc:"receiver" doc:"new owner of the jettons"`
	SenderWallet        Address `json:"sender_wallet,omitempty" role:"source" tc:"sender_jetton_wallet" doc:"the sender's jetton wallet"`
	RecipientWallet     Address `json:"recipient_wallet,omitempty" role:"destination" tc:"receiver_jetton_wallet" doc:"the recipient's jetton wallet"`
	JettonMaster        Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the jetton (its master), when known"`
	Amount              BigInt  `json:"amount,omitempty" tc:"amount" doc:"in the jetton's smallest units, as the internal_transfer to the recipient's wallet carried it (the request's amount when there is none)"`
	RequestedAmount     BigInt  `json:"requested_amount,omitempty" doc:"the amount the owner's request named, when the wallet sent another (a jetton that takes a fee or tax on transfers)"`
	QueryID             BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the transfer request"`
	ForwardAmount       BigInt  `json:"forward_amount,omitempty" tc:"forward_amount" doc:"nanotons forwarded to the recipient with the notification, as the internal_transfer carried it (else as requested)"`
	ResponseDestination Address `json:"response_destination,omitempty" tc:"response_destination" doc:"where the excess TON goes"`
	Comment             Text    `json:"comment,omitempty" tc:"comment" doc:"the forward payload's text comment"`
	Encrypted           *bool   `json:"encrypted,omitempty" tc:"is_encrypted_comment" doc:"true when the forward payload is an encrypted comment"`
	ForwardPayload      Text    `json:"forward_payload,omitempty" tc:"forward_payload" doc:"the forward payload as a base64 BOC, when not empty"`
	CustomPayload       Text    `json:"custom_payload,omitempty" tc:"custom_payload" doc:"the custom payload as a base64 BOC, when present"`
}

// JettonBurn: an owner destroyed jettons through their wallet.
type JettonBurn struct {
	Owner               Address `json:"owner,omitempty" role:"sender" tc:"owner" doc:"owner of the burnt jettons"`
	JettonWallet        Address `json:"jetton_wallet,omitempty" role:"source" tc:"owner_jetton_wallet" doc:"the owner's jetton wallet"`
	JettonMaster        Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the jetton (its master)"`
	Amount              BigInt  `json:"amount,omitempty" tc:"amount" doc:"in the jetton's smallest units"`
	QueryID             BigInt  `json:"query_id,omitempty" doc:"query id of the burn request"`
	ResponseDestination Address `json:"response_destination,omitempty" doc:"where the excess TON goes"`
}

// JettonMint: a jetton master created jettons in a wallet.
type JettonMint struct {
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"receiver" doc:"owner of the new jettons"`
	RecipientWallet Address `json:"recipient_wallet,omitempty" role:"destination" tc:"receiver_jetton_wallet" doc:"the jetton wallet credited"`
	JettonMaster    Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the minting jetton master"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"in the jetton's smallest units"`
	QueryID         BigInt  `json:"query_id,omitempty" doc:"query id of the internal transfer"`
	TonAmount       BigInt  `json:"ton_amount,omitempty" tc:"ton_amount" doc:"for a mint#642b7d07 or 0x15 request, its ton_amount field (nanotons the master is to send along), read by that standard layout as toncenter reads it; for other minters, the nanotons the master sent along to the wallet"`
	Minter          Address `json:"minter,omitempty" role:"sender" doc:"who asked the master to mint"`
	WalletValue     BigInt  `json:"wallet_value,omitempty" doc:"for a mint#642b7d07 or 0x15 request, the nanotons the internal_transfer carried to the wallet"`
}

func init() {
	declare(
		Type{Value: JettonTransfer{}, Title: "Jetton transfer", Describe: describeAs(func(v *JettonTransfer, w *Words) string {
			return with("Sent "+w.Jetton(v.JettonMaster, v.Amount)+" to "+w.Account(v.Recipient), w.comment(v.Comment, v.Encrypted))
		}),
			Toncenter: "jetton_transfer", Protocols: "TEP-74 jetton wallets",
			Doc:    "transfer (0x0f8a7ea5) at the sender's wallet, internal_transfer (0x178d4519) to the recipient's wallet, then transfer_notification and excesses.",
			Failed: "the receiver's wallet failed (the jettons bounced back), or the owner's wallet never sent the request; a request the sender's jetton wallet refused moved nothing and is a failed SmartContractExec, as toncenter reports it"},
		Type{Value: JettonBurn{}, Title: "Jetton burn", Describe: describeAs(func(v *JettonBurn, w *Words) string {
			return "Burned " + w.Jetton(v.JettonMaster, v.Amount)
		}),
			Toncenter: "jetton_burn", Protocols: "TEP-74 jetton wallets",
			Doc:    "burn (0x595f07bc) at the owner's wallet, burn_notification (0x7bdd97de) at the master.",
			Failed: "the wallet failed or the master rejected the notification"},
		Type{Value: JettonMint{}, Title: "Jetton mint", Describe: describeAs(func(v *JettonMint, w *Words) string {
			return "Minted " + w.Jetton(v.JettonMaster, v.Amount) + " to " + w.Account(v.Recipient)
		}),
			Toncenter: "jetton_mint", Protocols: "TEP-74 jetton masters",
			Doc: "A contract that did not itself receive a transfer sends internal_transfer to a jetton wallet: it is the master minting. " +
				"A standard mint request (mint#642b7d07, or the older minter's 0x15) belongs to the mint, and one that the master refused or that sent no internal_transfer is a failed mint; " +
				"another minter's incoming message (a protocol's own call) is a call of its own.",
			Failed: "the receiving wallet failed, or the master failed or sent no internal_transfer for a standard mint request",
			Differs: "toncenter reports a mint only for the standard mint requests; we also report any other contract that sends internal_transfer " +
				"without having received a transfer (a staking pool's or bridge's master minting)"},
	)
	addMatcher(OrderToken, "JettonTransfer", matchJettonTransfer)
	addMatcher(OrderToken+10, "JettonBurn", matchJettonBurn)
	addMatcher(OrderToken+20, "JettonMint", matchJettonMint)
}

func matchJettonTransfer(c *classifier, n *node) bool {
	l, ok := c.followTransfer(n)
	if !ok {
		return false
	}
	// A wallet that refused the request (not the owner, too little
	// balance) moved nothing: the request is a failed call, as toncenter
	// reports it, not a jetton transfer.
	if l.receive == nil && l.notify == nil && !n.ok() {
		return false
	}
	d := newDraft(l.value(), n.in().Hash, l.nodes()...).withInitiator(n)
	d.ok = l.ok
	c.add(d)
	return true
}

// value is the JettonTransfer the leg carries out.
func (l *jettonLeg) value() *JettonTransfer {
	v := &JettonTransfer{
		Sender: Address(l.owner), Recipient: Address(l.recipient),
		SenderWallet: Address(l.sourceWallet), RecipientWallet: Address(l.destWallet),
		JettonMaster: Address(l.master), Amount: l.amount, QueryID: nano(l.body.QueryId),
		ForwardAmount:       amount(l.body.ForwardTonAmount),
		ResponseDestination: Address(addr(l.body.ResponseDestination)),
	}
	// What the recipient's wallet was credited, as toncenter reports it:
	// the internal_transfer's amounts, which a wallet taking a fee makes
	// differ from the request's.
	if l.receive != nil {
		if _, amt, ok := internalTransferHead(l.receive); ok {
			v.Amount = amt
		}
		if b, ok := bodyAs[abi.JettonInternalTransferMsgBody](l.receive); ok {
			v.ForwardAmount = amount(b.ForwardTonAmount)
		}
		if v.Amount != l.amount {
			v.RequestedAmount = l.amount
		}
	}
	p := jettonPayloads(l.send.in().Body)
	v.ForwardPayload, v.CustomPayload = Text(p.forward), Text(p.custom)
	p.setComment(&v.Comment, &v.Encrypted)
	return v
}

// matchJettonBurn: burn at the owner's wallet -> burn_notification at the master.
func matchJettonBurn(c *classifier, n *node) bool {
	if !n.is(abi.JettonBurnMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.JettonBurnMsgBody](n)
	if !ok {
		return false
	}
	notify := n.child(abi.JettonBurnNotificationMsgOpCode)
	var excess *node
	master := c.masterOf(n.tx.Account)
	if notify != nil {
		excess = notify.child(abi.ExcessMsgOpCode)
		master = notify.tx.Account
	}
	d := newDraft(&JettonBurn{Owner: Address(n.in().Source), JettonWallet: Address(n.tx.Account),
		JettonMaster: Address(master), Amount: amount(body.Amount), QueryID: nano(body.QueryId),
		ResponseDestination: Address(addr(body.ResponseDestination))},
		n.in().Hash, n, notify, excess).withInitiator(n)
	d.ok = n.ok() && notify != nil && notify.ok()
	c.add(d)
	return true
}

// matchJettonMint: a contract that did not receive a jetton transfer sends
// internal_transfer to a jetton wallet: the contract is the master minting.
// n is the master's transaction. A standard mint request that sent no
// internal_transfer is a failed mint.
func matchJettonMint(c *classifier, n *node) bool {
	if n.in() == nil || n.is(abi.JettonTransferMsgOpCode, abi.JettonInternalTransferMsgOpCode) {
		return false
	}
	req, isReq := readMintRequest(n)
	matched := false
	for _, w := range n.children {
		if w.used || !w.is(abi.JettonInternalTransferMsgOpCode) {
			continue
		}
		qid, amt, ok := internalTransferHead(w)
		if !ok {
			continue
		}
		notify := w.child(abi.JettonNotifyMsgOpCode)
		excess := w.child(abi.ExcessMsgOpCode)
		recipient := c.ownerOf(w.tx.Account)
		if recipient == "" && notify != nil {
			recipient = notify.tx.Account
		}
		if recipient == "" {
			recipient = mintTarget(n)
		}
		v := &JettonMint{Recipient: Address(recipient), RecipientWallet: Address(w.tx.Account),
			JettonMaster: Address(n.tx.Account), Amount: amt, QueryID: nano(qid),
			TonAmount: nano(w.in().Value), Minter: Address(n.in().Source)}
		if isReq {
			v.TonAmount, v.WalletValue = req.tonAmount, nano(w.in().Value)
		}
		d := newDraft(v, w.in().Hash, w, notify, excess)
		// A standard mint request is the mint's; another minter's incoming
		// message (a protocol's own call) is a call of its own, as toncenter
		// leaves it.
		if !matched && isReq {
			d.nodes = append(d.nodes, n)
			d.withInitiator(n)
		}
		d.ok = w.ok()
		c.add(d)
		matched = true
	}
	if !matched && isReq {
		// The master refused the request or minted nothing.
		d := newDraft(&JettonMint{Recipient: Address(req.to), JettonMaster: Address(n.tx.Account),
			Amount: req.amount, QueryID: nano(req.queryID), TonAmount: req.tonAmount,
			Minter: Address(n.in().Source)}, n.in().Hash, n, n.bouncedChild()).withInitiator(n)
		d.ok = false
		c.add(d)
		matched = true
	}
	return matched
}

// mintRequest is a standard request to a jetton master: mint#642b7d07 (or
// the older minter's #15) query_id:uint64 to_address:MsgAddress
// ton_amount:Coins master_msg:^Cell, master_msg being the internal_transfer
// the master is to send to the new owner's wallet.
type mintRequest struct {
	queryID   uint64
	to        string // "" when to_address is not an internal address
	tonAmount BigInt
	amount    BigInt // the master_msg's amount, "" when it is not an internal_transfer
}

// mintOpLegacy is the older jetton minter's mint op code (21).
const mintOpLegacy abi.MsgOpCode = 0x15

// readMintRequest reads a standard mint request as toncenter does: the head
// by the standard layout whatever the minter (a minter with another layout
// gives what that layout reads); 0x15, a short op code, only when its
// master_msg is an internal_transfer too.
func readMintRequest(n *node) (mintRequest, bool) {
	if !n.is(abi.JettonMintMsgOpCode, mintOpLegacy) {
		return mintRequest{}, false
	}
	var head struct {
		Op        uint32
		QueryID   uint64
		To        tlb.MsgAddress
		TonAmount tlb.VarUInteger16
	}
	if !n.decode(&head) {
		return mintRequest{}, false
	}
	r := mintRequest{queryID: head.QueryID, to: addr(head.To), tonAmount: amount(head.TonAmount)}
	var full struct {
		Op        uint32
		QueryID   uint64
		To        tlb.MsgAddress
		TonAmount tlb.VarUInteger16
		Master    tlb.Ref[boc.Cell]
	}
	if n.decode(&full) {
		var it struct {
			Op      uint32
			QueryID uint64
			Amount  tlb.VarUInteger16
		}
		if tlb.Unmarshal(&full.Master.Value, &it) == nil && it.Op == uint32(abi.JettonInternalTransferMsgOpCode) {
			r.amount = amount(it.Amount)
		}
	}
	if n.op == uint32(mintOpLegacy) && (r.amount == "" || r.to == "") {
		return mintRequest{}, false
	}
	return r, true
}

// mintTarget reads the recipient from a mint request. Minters differ in op
// code but commonly start with query_id:uint64 to_address:MsgAddress.
func mintTarget(master *node) string {
	if b, ok := bodyAs[abi.JettonMintMsgBody](master); ok {
		return addr(b.ToAddress)
	}
	return readQueryIDAddress(master.in().Body)
}

// internalTransferHead reads query_id and amount of an internal_transfer.
// Minters put custom forward payloads there that the full schema rejects,
// so the fixed head is read on its own when needed.
func internalTransferHead(n *node) (uint64, BigInt, bool) {
	if b, ok := bodyAs[abi.JettonInternalTransferMsgBody](n); ok {
		return b.QueryId, amount(b.Amount), true
	}
	var head struct {
		Op      uint32
		QueryID uint64
		Amount  tlb.VarUInteger16
	}
	if !n.decode(&head) {
		return 0, "", false
	}
	return head.QueryID, amount(head.Amount), true
}
