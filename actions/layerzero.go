package actions

import (
	"strconv"

	"github.com/tonkeeper/tongo/abi"
)

// LayerZero v2 on TON: op codes of the messages the patterns are built of,
// as LayerZero-Labs/LayerZero-v2 (packages/layerzero-v2/ton) defines them
// (crc32 of "Endpoint::OP::ENDPOINT_SEND" and so on).
const (
	lzOpEvent = 0xe33b9873 // BaseInterface::OP::EVENT: to an event sink
	// send: OApp -> endpoint -> channel -> msglib connection -> ULN -> channel -> OApp
	lzOpEndpointSend         = 0xdd4ea3b4
	lzOpChannelSend          = 0x536feb09
	lzOpMsglibConnectionSend = 0x4002b790
	lzOpUlnSend              = 0x5de68393
	lzOpMsglibSendCallback   = 0x421c1a25
	lzOpChannelSendCallback  = 0xa2b5fbae // Layerzero::OP::CHANNEL_SEND_CALLBACK, to the OApp
	// receive: executor -> channel -> OApp -> channel -> OApp -> channel
	lzOpChannelLzReceivePrepare  = 0x22f3ac09
	lzOpOAppLzReceivePrepare     = 0x97df404c
	lzOpChannelLzReceiveLock     = 0xb7680bc6
	lzOpOAppLzReceiveExecute     = 0x0c7b8418
	lzOpChannelLzReceiveCallback = 0xcaae25a1 // Channel::OP::LZ_RECEIVE_EXECUTE_CALLBACK
	// commit: executor -> ULN -> ULN connection -> endpoint -> channel -> ULN connection
	lzOpUlnCommitPacket                    = 0x28b97077
	lzOpUlnConnectionCommitPacket          = 0xf9d37b80
	lzOpEndpointCommitPacket               = 0x5dab749a
	lzOpChannelCommitPacket                = 0x5388cd88
	lzOpMsglibConnectionCommitPacketCallbk = 0x5e178f33
	// DVN verification: admin -> DVN -> proxy -> ULN -> ULN connection -> proxy
	lzOpDvnVerify                 = 0xa0d51a8d
	lzOpProxyCallContract         = 0x09f047d9
	lzOpUlnVerify                 = 0x994aaf4e
	lzOpUlnConnectionVerify       = 0x4ec8f80a
	lzOpUlnConnectionVerifyCallbk = 0x3cb38090
	lzOpProxyHandleCallback       = 0x2051c71f
)

// Verification statuses a ULN connection answers a DVN with
// (UlnConnection::ULN_CONNECTION_VERIFY_*), named as toncenter names them.
var lzVerifyStatus = map[uint64]string{
	0x3bbc306b: "succeeded",
	0x7fcbb4ac: "nonce_out_of_range",
	0x29c53fab: "dvn_not_configured",
}

// LayerzeroPacket is a LayerZero packet: its path (source and destination
// endpoint ids and OApps), its nonce and guid, and the message it carries.
type LayerzeroPacket struct {
	SrcOapp Text   `json:"src_oapp,omitempty" tc:"src_oapp" doc:"the sending OApp as a 256-bit id, 0x and hex without leading zeros (a TON account id, or an EVM address)"`
	DstOapp Text   `json:"dst_oapp,omitempty" tc:"dst_oapp" doc:"the receiving OApp, likewise"`
	SrcEid  uint32 `json:"src_eid,omitempty" tc:"src_eid" doc:"LayerZero endpoint id of the source chain (TON: 30343)"`
	DstEid  uint32 `json:"dst_eid,omitempty" tc:"dst_eid" doc:"LayerZero endpoint id of the destination chain (Ethereum: 30101)"`
	Nonce   uint64 `json:"nonce,omitempty" tc:"nonce" doc:"the packet's sequence number on its path; absent before the channel assigned one"`
	Guid    Text   `json:"guid,omitempty" tc:"guid" doc:"the packet's global id (keccak of nonce and path), 0x and hex without leading zeros"`
	Message Text   `json:"message,omitempty" tc:"message" doc:"the message the OApp sent, 0x and hex"`
}

// LayerzeroSend: an OApp sent a LayerZero message from TON.
type LayerzeroSend struct {
	Sender           Address          `json:"sender,omitempty" role:"sender" tc:"initiator" doc:"the OApp that asked its endpoint to send"`
	Endpoint         Address          `json:"endpoint,omitempty" role:"contract" tc:"layerzero_send_data.endpoint" doc:"the endpoint of the destination chain"`
	Channel          Address          `json:"channel,omitempty" tc:"layerzero_send_data.channel" doc:"the channel of the OApp's path, which numbers the packets"`
	MsglibConnection Address          `json:"msglib_connection,omitempty" doc:"the message library connection that took the packet"`
	Uln              Address          `json:"uln,omitempty" tc:"layerzero_send_data.uln" doc:"the ultra light node (message library) that priced and sent it"`
	MsglibManager    Address          `json:"msglib_manager,omitempty" tc:"layerzero_send_data.msglib_manager" doc:"the message library manager (toncenter writes it as 0x and hex)"`
	Msglib           Address          `json:"msglib,omitempty" tc:"layerzero_send_data.msglib" doc:"the message library the channel chose (toncenter writes it as 0x and hex)"`
	SendRequestID    BigInt           `json:"send_request_id,omitempty" tc:"layerzero_send_data.send_request_id" doc:"the channel's number for the send request"`
	NativeFee        BigInt           `json:"native_fee,omitempty" tc:"layerzero_send_data.native_fee" doc:"the most nanotons the OApp allowed for fees"`
	ZroFee           BigInt           `json:"zro_fee,omitempty" tc:"layerzero_send_data.zro_fee" doc:"the most ZRO the OApp allowed for fees"`
	NativeFeeQuoted  BigInt           `json:"native_fee_quoted,omitempty" doc:"the nanotons the message library charged, as the channel's receipt says"`
	ZroFeeQuoted     BigInt           `json:"zro_fee_quoted,omitempty" doc:"the ZRO it charged"`
	ErrorCode        uint32           `json:"error_code,omitempty" doc:"the channel's error code when it refused the send (fees above the cap, library blocked, queue congested); absent on success"`
	Packet           *LayerzeroPacket `json:"packet,omitempty" tc:"layerzero_packet_data" doc:"the packet sent"`
}

// LayerzeroSendTokens: jettons sent to an OApp (an OFT) that sent them on
// with LayerZero.
type LayerzeroSendTokens struct {
	Sender           Address          `json:"sender,omitempty" role:"sender" tc:"sender" doc:"owner of the jettons sent"`
	SenderWallet     Address          `json:"sender_wallet,omitempty" role:"source" tc:"sender_wallet" doc:"the sender's jetton wallet"`
	Oapp             Address          `json:"oapp,omitempty" role:"recipient" tc:"oapp" doc:"the OApp that took the jettons and sent the LayerZero message"`
	OappWallet       Address          `json:"oapp_wallet,omitempty" role:"destination" tc:"oapp_wallet" doc:"the OApp's jetton wallet"`
	JettonMaster     Address          `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the jetton, when known"`
	Amount           BigInt           `json:"amount,omitempty" tc:"amount" doc:"jettons sent, in the jetton's smallest units"`
	Endpoint         Address          `json:"endpoint,omitempty" role:"contract" tc:"layerzero_send_data.endpoint" doc:"the endpoint of the destination chain"`
	Channel          Address          `json:"channel,omitempty" tc:"layerzero_send_data.channel" doc:"the channel of the OApp's path"`
	MsglibConnection Address          `json:"msglib_connection,omitempty" doc:"the message library connection that took the packet"`
	Uln              Address          `json:"uln,omitempty" tc:"layerzero_send_data.uln" doc:"the ultra light node that priced and sent it"`
	MsglibManager    Address          `json:"msglib_manager,omitempty" tc:"layerzero_send_data.msglib_manager" doc:"the message library manager (toncenter writes it as 0x and hex)"`
	Msglib           Address          `json:"msglib,omitempty" tc:"layerzero_send_data.msglib" doc:"the message library the channel chose (toncenter writes it as 0x and hex)"`
	SendRequestID    BigInt           `json:"send_request_id,omitempty" tc:"layerzero_send_data.send_request_id" doc:"the channel's number for the send request"`
	NativeFee        BigInt           `json:"native_fee,omitempty" tc:"layerzero_send_data.native_fee" doc:"the most nanotons the OApp allowed for fees"`
	ZroFee           BigInt           `json:"zro_fee,omitempty" tc:"layerzero_send_data.zro_fee" doc:"the most ZRO the OApp allowed for fees"`
	NativeFeeQuoted  BigInt           `json:"native_fee_quoted,omitempty" doc:"the nanotons the message library charged"`
	ZroFeeQuoted     BigInt           `json:"zro_fee_quoted,omitempty" doc:"the ZRO it charged"`
	ErrorCode        uint32           `json:"error_code,omitempty" doc:"the channel's error code when it refused the send; absent on success"`
	Packet           *LayerzeroPacket `json:"packet,omitempty" tc:"layerzero_packet_data" doc:"the packet sent"`
}

// LayerzeroReceive: a LayerZero packet delivered to an OApp on TON.
type LayerzeroReceive struct {
	Executor Address          `json:"executor,omitempty" role:"sender" tc:"sender" doc:"who asked the channel to deliver the packet (lz_receive_prepare)"`
	Oapp     Address          `json:"oapp,omitempty" role:"recipient" tc:"oapp" doc:"the OApp that received it"`
	Channel  Address          `json:"channel,omitempty" role:"contract" tc:"channel" doc:"the OApp's channel for the path"`
	Packet   *LayerzeroPacket `json:"packet,omitempty" tc:"layerzero_packet_data" doc:"the packet delivered"`
}

// LayerzeroCommitPacket: a verified packet committed to its channel on TON,
// ready for execution.
type LayerzeroCommitPacket struct {
	Executor         Address          `json:"executor,omitempty" role:"sender" tc:"sender" doc:"who asked the ULN to commit the packet"`
	Uln              Address          `json:"uln,omitempty" doc:"the ultra light node asked"`
	UlnConnection    Address          `json:"uln_connection,omitempty" tc:"uln_connection" doc:"the ULN connection of the path, which holds the DVNs' verifications"`
	Endpoint         Address          `json:"endpoint,omitempty" tc:"endpoint" doc:"the endpoint of the source chain"`
	Channel          Address          `json:"channel,omitempty" role:"contract" tc:"channel" doc:"the receiving OApp's channel, which records the packet"`
	MsglibConnection Address          `json:"msglib_connection,omitempty" tc:"msglib_connection" doc:"the message library connection the channel answered"`
	Packet           *LayerzeroPacket `json:"packet,omitempty" tc:"layerzero_packet_data" doc:"the packet committed"`
}

// LayerzeroDvnVerify: a DVN submitted its verification of a packet.
type LayerzeroDvnVerify struct {
	Sender        Address `json:"sender,omitempty" role:"sender" tc:"initiator" doc:"the DVN admin that submitted the signed verification"`
	Dvn           Address `json:"dvn,omitempty" role:"contract" tc:"dvn" doc:"the DVN contract"`
	Proxy         Address `json:"proxy,omitempty" tc:"proxy" doc:"the DVN's proxy, which called the ULN"`
	Uln           Address `json:"uln,omitempty" tc:"uln" doc:"the ultra light node"`
	UlnConnection Address `json:"uln_connection,omitempty" tc:"uln_connection" doc:"the ULN connection of the path, which recorded the verification"`
	Nonce         uint64  `json:"nonce,omitempty" tc:"nonce" doc:"nonce of the verified packet"`
	Status        Text    `json:"status,omitempty" tc:"status" doc:"succeeded, nonce_out_of_range, dvn_not_configured or unknown_<code>, as the ULN connection answered"`
}

func init() {
	const protocols = "LayerZero v2 (endpoint, channel, ULN contracts)"
	declare(
		Type{Value: LayerzeroSend{}, Title: "LayerZero send", Describe: describeAs(func(v *LayerzeroSend, w *Words) string {
			return "Sent a LayerZero message" + w.packetPath(v.Packet) + " through endpoint " + w.Account(v.Endpoint)
		}),
			Toncenter: "layerzero_send", Protocols: protocols,
			Doc:     "An OApp's endpoint_send (0xdd4ea3b4) to the endpoint, channel_send to the channel, the message library connection and ULN (uln_send), the ULN's msglib_send_callback to the channel, which pays the workers and answers the OApp with channel_send_callback (0xa2b5fbae) carrying the packet with its nonce and guid.",
			Failed:  "a step of the chain failed, the chain stopped before the channel's answer, or the channel's receipt carries an error code (the packet was not sent)",
			Differs: "toncenter reports every matched send as successful; `message` holds every cell of a multi-cell message (toncenter: the first cell's)"},
		Type{Value: LayerzeroSendTokens{}, Title: "LayerZero bridge", Describe: describeAs(func(v *LayerzeroSendTokens, w *Words) string {
			return "Bridged " + w.Jetton(v.JettonMaster, v.Amount) + " through LayerZero" + w.packetPath(v.Packet)
		}),
			Toncenter: "layerzero_send_tokens", Protocols: protocols + ", OFT jetton OApps",
			Doc:     "A jetton transfer to an OApp whose transfer_notification makes the OApp send a LayerZero message and log an event (0xe33b9873; an OFT bridging the jettons): the jetton leg and the LayerzeroSend chain as one action. Without the event the two are a JettonTransfer and a LayerzeroSend, as toncenter reports them.",
			Failed:  "as LayerzeroSend, or the jetton leg failed",
			Differs: "as LayerzeroSend"},
		Type{Value: LayerzeroReceive{}, Title: "LayerZero delivery", Describe: describeAs(func(v *LayerzeroReceive, w *Words) string {
			return "Delivered a LayerZero packet" + w.packetPath(v.Packet) + " to " + w.Account(v.Oapp)
		}),
			Toncenter: "layerzero_receive", Protocols: protocols,
			Doc:     "lz_receive_prepare (0x22f3ac09) at the channel, lz_receive_prepare to the OApp, lz_receive_lock back, lz_receive_execute (0x0c7b8418) to the OApp with the packet, and the OApp's lz_receive_execute_callback (0xcaae25a1) to the channel. What the OApp does with the message (an OFT paying out jettons) is an action of its own.",
			Failed:  "a step of the chain failed, the OApp never answered, or it answered that its lz_receive failed (the channel then raises an alert and keeps the packet)",
			Differs: "toncenter reports every matched receive as successful"},
		Type{Value: LayerzeroCommitPacket{}, Title: "LayerZero packet committed", Describe: describeAs(func(v *LayerzeroCommitPacket, w *Words) string {
			return "Committed a LayerZero packet" + w.packetPath(v.Packet) + " to channel " + w.Account(v.Channel)
		}),
			Toncenter: "layerzero_commit_packet", Protocols: protocols,
			Doc:     "uln_commit_packet (0x28b97077) at the ULN, uln_connection_commit_packet, endpoint_commit_packet, channel_commit_packet (0x5388cd88) and the channel's callback to the message library connection.",
			Failed:  "a step of the chain failed or the chain stopped before the channel",
			Differs: "toncenter's `uln` repeats the ULN connection; ours is the ULN the executor called"},
		Type{Value: LayerzeroDvnVerify{}, Title: "LayerZero verification", Describe: describeAs(func(v *LayerzeroDvnVerify, w *Words) string {
			s := "Verified LayerZero packet #" + strconv.FormatUint(v.Nonce, 10) + " as DVN " + w.Account(v.Dvn)
			if v.Status != "" {
				s += " (" + string(v.Status) + ")"
			}
			return s
		}),
			Toncenter: "layerzero_dvn_verify", Protocols: protocols + ", DVN workers",
			Doc:    "verify (0xa0d51a8d) at a DVN, call_contract (0x09f047d9) to its proxy, uln_verify (0x994aaf4e) at the ULN, uln_connection_verify at the ULN connection, which answers the proxy with the verification status (0x3cb38090).",
			Failed: "a step of the chain failed or the chain stopped before the ULN connection's answer (a status other than succeeded is a fact, not a failure)"},
	)
	addMatcher(OrderProtocol+60, "LayerzeroSend", matchLayerzeroSend)
	addMatcher(OrderProtocol+61, "LayerzeroReceive", matchLayerzeroReceive)
	addMatcher(OrderProtocol+62, "LayerzeroCommitPacket", matchLayerzeroCommitPacket)
	addMatcher(OrderProtocol+63, "LayerzeroDvnVerify", matchLayerzeroDvnVerify)
}

// lzIs reports a (not bounced) in-message with the op code.
func lzIs(n *node, op uint32) bool { return n.is(abi.MsgOpCode(op)) }

// lzChild is the first unclaimed child of n with the op code, nil if none.
func lzChild(n *node, op uint32) *node {
	if n == nil {
		return nil
	}
	return n.child(abi.MsgOpCode(op))
}

// lzFlow gathers the transactions of a LayerZero chain of calls.
type lzFlow struct {
	nodes []*node
	ok    bool
}

// step adds a step of the chain: the chain is ok while every step is.
func (f *lzFlow) step(n *node) {
	if n == nil {
		f.ok = false
		return
	}
	f.nodes = append(f.nodes, n)
	f.ok = f.ok && n.ok()
}

// tail adds the unclaimed children of n that belong to its step: excesses
// and bounces always, events (to an event sink; they often fail there,
// which is no failure of the chain), and, when transfers is set, plain TON
// transfers (payments to workers, the refund of unused gas).
func (f *lzFlow) tail(n *node, events, transfers bool) {
	if n == nil {
		return
	}
	for _, ch := range n.children {
		m := ch.in()
		if ch.used || m == nil {
			continue
		}
		switch {
		case m.Bounced, ch.is(abi.ExcessMsgOpCode):
		case events && lzIs(ch, lzOpEvent):
		case transfers && (!ch.hasOp || ch.op == 0):
		default:
			continue
		}
		f.nodes = append(f.nodes, ch)
	}
}

// lzPacket reads a Packet object.
func lzPacket(o lzObj) *LayerzeroPacket {
	p := &LayerzeroPacket{}
	if path, ok := o.obj(0, "path"); ok {
		if v, ok := path.u64(0); ok {
			p.SrcEid = uint32(v)
		}
		if v, ok := path.uint(1); ok {
			p.SrcOapp = Text(lzHex(v))
		}
		if v, ok := path.u64(2); ok {
			p.DstEid = uint32(v)
		}
		if v, ok := path.uint(3); ok {
			p.DstOapp = Text(lzHex(v))
		}
	}
	if c, ok := o.ref(1); ok {
		p.Message = Text(lzMessageHex(c))
	}
	if v, ok := o.u64(2); ok {
		p.Nonce = v
	}
	if v, ok := o.uint(3); ok && v.Sign() != 0 {
		p.Guid = Text(lzHex(v))
	}
	return p
}

// lzSendFacts are what a send's LzSend object and the channel's receipt say.
type lzSendFacts struct {
	requestID, nativeFee, zroFee, nativeQuoted, zroQuoted BigInt
	msglibManager, msglib, msglibConnection               Address
	errorCode                                             uint32
	packet                                                *LayerzeroPacket
	receipt                                               bool // the channel's receipt was read
}

// readLzSend reads an LzSend object (md::LzSend).
func (s *lzSendFacts) readLzSend(o lzObj) {
	if v, ok := o.uint(0); ok && v.Sign() != 0 {
		s.requestID = BigInt(v.String())
	}
	if v, ok := o.uint(1); ok {
		s.msglibManager = lzAddress(v)
	}
	if v, ok := o.uint(2); ok {
		s.msglib = lzAddress(v)
	}
	if v, ok := o.uint(3); ok {
		s.msglibConnection = lzAddress(v)
	}
	if p, ok := o.obj(4, "Packet"); ok {
		s.packet = lzPacket(p)
	}
	if v, ok := o.uint(5); ok {
		s.nativeFee = BigInt(v.String())
	}
	if v, ok := o.uint(6); ok {
		s.zroFee = BigInt(v.String())
	}
}

// lzSendFactsOf reads the send's facts from the most complete message the
// chain reached: the channel's receipt to the OApp (the packet has its nonce
// and guid), else the request the channel passed to the message library,
// else the OApp's request to the endpoint.
func lzSendFactsOf(e, c, m, oc *node) lzSendFacts {
	var s lzSendFacts
	if md, ok := lzMd(oc, "MdObj"); ok {
		if r, ok := md.obj(0, "MsgReceipt"); ok {
			s.receipt = true
			if ls, ok := r.obj(0, "lzSend"); ok {
				s.readLzSend(ls)
			}
			if v, ok := r.uint(1); ok {
				s.nativeQuoted = BigInt(v.String())
			}
			if v, ok := r.uint(2); ok {
				s.zroQuoted = BigInt(v.String())
			}
			if v, ok := r.u64(3); ok {
				s.errorCode = uint32(v)
			}
			return s
		}
	}
	if ls, ok := lzMd(m, "lzSend"); ok {
		s.readLzSend(ls)
		return s
	}
	if md, ok := lzMd(c, "MdObj"); ok {
		if ls, ok := md.obj(0, "lzSend"); ok {
			s.readLzSend(ls)
			return s
		}
	}
	if ls, ok := lzMd(e, "lzSend"); ok {
		s.readLzSend(ls)
	}
	return s
}

// matchLayerzeroSend anchors at an OApp's endpoint_send and follows the
// chain to the channel's answer. When the OApp sent because jettons reached
// it (its transfer_notification is the call's parent), the jetton leg and
// the send are one LayerzeroSendTokens.
func matchLayerzeroSend(c *classifier, e *node) bool {
	if !lzIs(e, lzOpEndpointSend) {
		return false
	}
	f := &lzFlow{ok: true}
	f.step(e)
	ch := lzChild(e, lzOpChannelSend)
	var m, u, cb, oc *node
	if ch != nil {
		f.step(ch)
		if m = lzChild(ch, lzOpMsglibConnectionSend); m != nil {
			f.step(m)
			if u = lzChild(m, lzOpUlnSend); u != nil {
				f.step(u)
				if cb = lzChild(u, lzOpMsglibSendCallback); cb != nil {
					f.step(cb)
					f.tail(cb, true, true)
					oc = lzChild(cb, lzOpChannelSendCallback)
				}
			}
		}
		if oc == nil { // the channel refused before asking the library
			oc = lzChild(ch, lzOpChannelSendCallback)
		}
		f.tail(ch, true, false)
	}
	if oc != nil {
		f.nodes = append(f.nodes, oc)
		f.tail(oc, true, true)
	} else {
		f.ok = false
	}
	f.tail(e, true, false)
	s := lzSendFactsOf(e, ch, m, oc)
	ok := f.ok && s.errorCode == 0
	if m != nil && s.msglibConnection == "" {
		s.msglibConnection = Address(m.tx.Account)
	}
	var uln, channel Address
	if u != nil {
		uln = Address(u.tx.Account)
	}
	if ch != nil {
		channel = Address(ch.tx.Account)
	}
	sv := &LayerzeroSend{Sender: Address(e.in().Source), Endpoint: Address(e.tx.Account), Channel: channel,
		Uln: uln, MsglibConnection: s.msglibConnection, MsglibManager: s.msglibManager, Msglib: s.msglib,
		SendRequestID: s.requestID, NativeFee: s.nativeFee, ZroFee: s.zroFee,
		NativeFeeQuoted: s.nativeQuoted, ZroFeeQuoted: s.zroQuoted, ErrorCode: s.errorCode, Packet: s.packet}
	sd := newDraft(sv, e.in().Hash, f.nodes...).withInitiator(e)
	sd.ok = ok
	if l, isLeg := c.lzJettonLeg(e); isLeg {
		v := &LayerzeroSendTokens{Sender: Address(l.owner), SenderWallet: Address(l.sourceWallet),
			Oapp: Address(e.in().Source), OappWallet: Address(l.destWallet), JettonMaster: Address(l.master),
			Amount: l.amount, Endpoint: Address(e.tx.Account), Channel: channel, Uln: uln,
			MsglibConnection: s.msglibConnection, MsglibManager: s.msglibManager, Msglib: s.msglib,
			SendRequestID: s.requestID, NativeFee: s.nativeFee, ZroFee: s.zroFee,
			NativeFeeQuoted: s.nativeQuoted, ZroFeeQuoted: s.zroQuoted, ErrorCode: s.errorCode, Packet: s.packet}
		d := newDraft(v, l.send.in().Hash, append(l.nodes(), f.nodes...)...)
		// The OApp's own events on taking the jettons.
		for _, sib := range l.notify.children {
			if sib != e && !sib.used && lzIs(sib, lzOpEvent) {
				d.nodes = append(d.nodes, sib)
			}
		}
		d.withInitiator(l.send)
		d.ok = ok && l.ok
		// The send itself is its step, as toncenter nests layerzero_send
		// in layerzero_send_tokens (the jetton leg is another).
		c.addWithSteps(d, sd)
		return true
	}
	c.add(sd)
	return true
}

// lzJettonLeg is the jetton transfer whose notification to the OApp made
// it call the endpoint (e), when there is one. The OApp must also have
// logged an event on taking the jettons (an OFT does): toncenter's
// layerzero_send_tokens requires that event beside the send and otherwise
// reports the jetton transfer and the send apart.
func (c *classifier) lzJettonLeg(e *node) (*jettonLeg, bool) {
	notify := e.parent
	if notify == nil || notify.used || !notify.is(abi.JettonNotifyMsgOpCode) {
		return nil, false
	}
	logged := false
	for _, sib := range notify.children {
		logged = logged || sib != e && !sib.used && lzIs(sib, lzOpEvent)
	}
	if !logged {
		return nil, false
	}
	recv := notify.parent
	if recv == nil || recv.used || !recv.is(abi.JettonInternalTransferMsgOpCode) || recv.parent == nil || recv.parent.used {
		return nil, false
	}
	l, ok := c.followTransfer(recv.parent)
	if !ok || l.notify != notify {
		return nil, false
	}
	return l, true
}

// matchLayerzeroReceive anchors at the channel's lz_receive_prepare and
// follows the delivery to the OApp's answer.
func matchLayerzeroReceive(c *classifier, p *node) bool {
	if !lzIs(p, lzOpChannelLzReceivePrepare) {
		return false
	}
	prep := lzChild(p, lzOpOAppLzReceivePrepare)
	if prep == nil {
		return false
	}
	f := &lzFlow{ok: true}
	f.step(p)
	f.tail(p, true, true)
	f.step(prep)
	f.tail(prep, true, false)
	lock := lzChild(prep, lzOpChannelLzReceiveLock)
	var exec, cb *node
	if f.step(lock); lock != nil {
		f.tail(lock, true, false)
		if exec = lzChild(lock, lzOpOAppLzReceiveExecute); exec != nil {
			f.step(exec)
			f.tail(exec, true, false)
			if cb = lzChild(exec, lzOpChannelLzReceiveCallback); cb != nil {
				f.step(cb)
				f.tail(cb, true, true)
			} else {
				f.ok = false
			}
		} else {
			f.ok = false
		}
	}
	v := &LayerzeroReceive{Executor: Address(p.in().Source), Channel: Address(p.tx.Account), Oapp: Address(prep.tx.Account)}
	// The packet: as lz_receive_execute carries it, else as the OApp was
	// asked to prepare it.
	if md, ok := lzMd(exec, "MdObj"); ok {
		if pk, ok := md.obj(0, "Packet"); ok {
			v.Packet = lzPacket(pk)
		}
	}
	if v.Packet == nil {
		if pk, ok := lzMd(prep, "Packet"); ok {
			v.Packet = lzPacket(pk)
		}
	}
	// The OApp's answer says whether its lz_receive succeeded.
	if st, ok := lzMd(cb, "LzRecvSts"); ok {
		if v, ok := st.u64(0); ok && v == 0 {
			f.ok = false
		}
	}
	d := newDraft(v, p.in().Hash, f.nodes...).withInitiator(p)
	d.ok = f.ok
	c.add(d)
	return true
}

// matchLayerzeroCommitPacket anchors at the ULN's uln_commit_packet and
// follows the commit to the channel.
func matchLayerzeroCommitPacket(c *classifier, u *node) bool {
	if !lzIs(u, lzOpUlnCommitPacket) {
		return false
	}
	uc := lzChild(u, lzOpUlnConnectionCommitPacket)
	if uc == nil {
		return false
	}
	f := &lzFlow{ok: true}
	f.step(u)
	f.tail(u, true, false)
	f.step(uc)
	f.tail(uc, true, false)
	v := &LayerzeroCommitPacket{Executor: Address(u.in().Source), Uln: Address(u.tx.Account), UlnConnection: Address(uc.tx.Account)}
	ep := lzChild(uc, lzOpEndpointCommitPacket)
	var ch *node
	if f.step(ep); ep != nil {
		v.Endpoint = Address(ep.tx.Account)
		f.tail(ep, true, false)
		if ch = lzChild(ep, lzOpChannelCommitPacket); ch != nil {
			v.Channel = Address(ch.tx.Account)
			f.step(ch)
			f.tail(ch, true, false)
			if cb := lzChild(ch, lzOpMsglibConnectionCommitPacketCallbk); cb != nil {
				v.MsglibConnection = Address(cb.tx.Account)
				f.nodes = append(f.nodes, cb)
				f.tail(cb, true, true)
			}
		} else {
			f.ok = false
		}
	}
	// The packet: as the channel got it, else as the endpoint or the ULN did.
	if md, ok := lzMd(ch, "extendedMd"); ok {
		if pk, ok := md.obj(0, "Packet"); ok {
			v.Packet = lzPacket(pk)
		}
		if v.MsglibConnection == "" {
			if a, ok := md.uint(2); ok {
				v.MsglibConnection = lzAddress(a)
			}
		}
	}
	if v.Packet == nil {
		if pk, ok := lzMd(ep, "Packet"); ok {
			v.Packet = lzPacket(pk)
		} else if md, ok := lzMd(u, "MdAddr"); ok {
			if pk, ok := md.obj(0, "Packet"); ok {
				v.Packet = lzPacket(pk)
			}
		}
	}
	d := newDraft(v, u.in().Hash, f.nodes...).withInitiator(u)
	d.ok = f.ok
	c.add(d)
	return true
}

// matchLayerzeroDvnVerify anchors at a DVN's verify and follows the call
// through its proxy and the ULN to the ULN connection's answer.
func matchLayerzeroDvnVerify(c *classifier, dv *node) bool {
	if !lzIs(dv, lzOpDvnVerify) {
		return false
	}
	px := lzChild(dv, lzOpProxyCallContract)
	if px == nil {
		return false
	}
	f := &lzFlow{ok: true}
	f.step(dv)
	f.tail(dv, true, false)
	f.step(px)
	f.tail(px, true, false)
	v := &LayerzeroDvnVerify{Sender: Address(dv.in().Source), Dvn: Address(dv.tx.Account), Proxy: Address(px.tx.Account)}
	uv := lzChild(px, lzOpUlnVerify)
	if f.step(uv); uv != nil {
		v.Uln = Address(uv.tx.Account)
		f.tail(uv, true, false)
		// The ULN's request names the packet's nonce and the connection.
		if md, ok := lzMd(uv, "MdAddr"); ok {
			if ver, ok := md.obj(0, "UlnVerify"); ok {
				if n, ok := ver.u64(0); ok {
					v.Nonce = n
				}
			}
			if a, ok := md.uint(1); ok {
				v.UlnConnection = lzAddress(a)
			}
		}
		ucv := lzChild(uv, lzOpUlnConnectionVerify)
		if f.step(ucv); ucv != nil {
			v.UlnConnection = Address(ucv.tx.Account)
			f.tail(ucv, true, false)
			cb := lzChild(ucv, lzOpUlnConnectionVerifyCallbk)
			if cb != nil {
				f.nodes = append(f.nodes, cb)
				f.tail(cb, true, true)
				// A proxy with callbacks on hands the answer to its admin.
				if h := lzChild(cb, lzOpProxyHandleCallback); h != nil {
					f.nodes = append(f.nodes, h)
					f.tail(h, true, true)
				}
				if md, ok := lzMd(cb, "MdObj"); ok {
					if st, ok := md.obj(0, "veristatus"); ok {
						if n, ok := st.u64(0); ok {
							v.Nonce = n
						}
						if code, ok := st.u64(1); ok {
							v.Status = Text(lzVerifyStatus[code])
							if v.Status == "" {
								v.Status = Text("unknown_" + strconv.FormatUint(code, 10))
							}
						}
					}
				}
			} else {
				f.ok = false
			}
		}
	}
	d := newDraft(v, dv.in().Hash, f.nodes...).withInitiator(dv)
	d.ok = f.ok
	c.add(d)
	return true
}
