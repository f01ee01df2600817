package actions_test

import (
	"math/big"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

func init() {
	setFloor("LayerzeroSend", 2, 2)
	setFloor("LayerzeroSendTokens", 1, 1)
	setFloor("LayerzeroReceive", 1, 1)
	setFloor("LayerzeroCommitPacket", 1, 1)
}

// LayerZero op codes of the tests (crc32 of their names in
// LayerZero-Labs/LayerZero-v2, packages/layerzero-v2/ton).
const (
	lztEndpointSend = 0xdd4ea3b4
	lztChannelSend  = 0x536feb09
	lztChannelRecv  = 0x22f3ac09
	lztOAppCallback = 0xa2b5fbae
	lztEvent        = 0xe33b9873
	lztDvnVerify    = 0xa0d51a8d
	lztProxyCall    = 0x09f047d9
	lztUlnVerify    = 0x994aaf4e
	lztConnVerify   = 0x4ec8f80a
	lztVerifyCb     = 0x3cb38090
	lztVerifyOK     = 0x3bbc306b // crc32 "UlnConnection::ULN_CONNECTION_VERIFY_SUCCEEDED"
	lztNonceRange   = 0x7fcbb4ac // ...ULN_CONNECTION_VERIFY_FAILED::NONCE_OUT_OF_RANGE
)

func TestGoldenLayerzero(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// An OFT bridge of USDT to Ethereum: the user's wallet sends
			// 10000 jettons to the OFT (0:1707...), whose transfer_notification
			// makes it call its endpoint (endpoint_send 0xdd4ea3b4); the
			// channel numbers the request (531), the ULN prices it, the
			// channel pays the workers and answers the OFT with the packet
			// (nonce 517, dst eid 30101). Right: one LayerzeroSendTokens, ok,
			// over all 19 transactions (the jetton leg, the LayerZero chain,
			// the worker payments, events and refunds): sender = the user,
			// oapp = the OFT, amount 10000, the send facts and packet as
			// toncenter labels them (layerzero.yaml "send usdt to eth").
			name: "layerzero_send_tokens",
			file: "toncenter-traces/traces/KEbatIe0U3ZHIx6sYTg4O1tgYP9L6hMiHJ8nNnZdyBE=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, lztEndpointSend) }) &&
					hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.JettonNotifyMsgOpCode) })
			},
			want: []string{"LayerzeroSendTokens:ok"},
		},
		{
			// An executor delivers packet 729 from Ethereum to the OFT: the
			// channel's lz_receive_prepare, the OFT's prepare and lock, the
			// channel's lz_receive_execute, and the OFT's callback saying its
			// lz_receive succeeded. The OFT pays out 80949282885 USDT to the
			// recipient on receiving: that jetton transfer is an action of
			// its own. Right: LayerzeroReceive ok (executor 0:0750..., oapp
			// the OFT, channel 0:25EC..., the packet as labelled) and a
			// JettonTransfer ok from the OFT.
			name: "layerzero_receive",
			file: "toncenter-traces/traces/1lRaVzUa7EjqG228WiDTg_2b_HSGlO5apCmj2JEAHxA=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, lztChannelRecv) })
			},
			want: []string{"JettonTransfer:ok", "LayerzeroReceive:ok"},
		},
	})
}

// TestLayerzeroDvnVerify checks the DVN verification, which no labelled
// trace has, on traces built from the documented flow
// (workers/dvn/handler.fc verify, workers/proxy/handler.fc callContract,
// uln/handler.fc ulnVerify, ulnConnection/handler.fc ulnConnectionVerify):
// an admin's verify at the DVN, call_contract to its proxy, uln_verify at
// the ULN (md MdAddress(UlnVerification(nonce, attestation), connection)),
// uln_connection_verify at the connection, which emits an event and
// answers the proxy with MdObj(VerificationStatus(nonce, status)).
func TestLayerzeroDvnVerify(t *testing.T) {
	const (
		admin = "0:1111111111111111111111111111111111111111111111111111111111111111"
		dvn   = "0:2222222222222222222222222222222222222222222222222222222222222222"
		proxy = "0:3333333333333333333333333333333333333333333333333333333333333333"
		uln   = "0:4444444444444444444444444444444444444444444444444444444444444444"
		conn  = "0:5555555555555555555555555555555555555555555555555555555555555555"
		sink  = "0:6666666666666666666666666666666666666666666666666666666666666666"
	)
	verification := clDeclare("UlnVerify", clUint(6, 194), clRef(clDeclare("attest", clUint(8, 7), clUint(6, 15))))
	build := func(status uint64, connFails bool) *stx {
		connTx := call(conn, 20_000_000, lzBody(lztConnVerify, uln, clDeclare("extendedMd", clRef(verification), clRef(boc.NewCell()), clAddr(proxy))))
		if connFails {
			connTx.fails(0)
		} else {
			connTx.then(
				call(sink, 0, lzBody(lztEvent, conn, clDeclare("event", clUint(8, 1)))).fails(0),
				call(proxy, 5_000_000, lzBody(lztVerifyCb, conn, clDeclare("MdObj",
					clRef(clDeclare("veristatus", clUint(6, 194), clUint(5, status))), clRef(boc.NewCell())))))
		}
		return ext(admin,
			call(dvn, 100_000_000, lzBody(lztDvnVerify, admin, clDeclare("signedReq", clRef(boc.NewCell()))),
				call(proxy, 90_000_000, lzBody(lztProxyCall, dvn, clDeclare("execParams", clAddr(uln))),
					call(uln, 80_000_000, lzBody(lztUlnVerify, proxy, clDeclare("MdAddr", clRef(verification), clAddr(conn))),
						connTx))))
	}
	for _, tc := range []struct {
		name, status, wantStatus string
		code                     uint64
		connFails                bool
		txs                      int
	}{
		{"succeeded", chain.StatusOK, "succeeded", lztVerifyOK, false, 7},
		{"nonce out of range", chain.StatusOK, "nonce_out_of_range", lztNonceRange, false, 7},
		{"unknown code", chain.StatusOK, "unknown_7", 7, false, 7},
		{"connection failed", chain.StatusFailed, "", 0, true, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := classify(t, build(tc.code, tc.connFails), nil).only(t, "LayerzeroDvnVerify")
			var v actions.LayerzeroDvnVerify
			a.decode(t, &v)
			want := actions.LayerzeroDvnVerify{Sender: admin, Dvn: dvn, Proxy: proxy, Uln: uln, UlnConnection: conn, Nonce: 194, Status: actions.Text(tc.wantStatus)}
			if v != want || a.Status != tc.status || a.txs() != tc.txs {
				t.Errorf("got %+v %s over %d txs, want %+v %s over %d", v, a.Status, a.txs(), want, tc.status, tc.txs)
			}
		})
	}
}

// TestLayerzeroSendRefused: the channel answers the OApp at once with a
// receipt carrying an error code (channel/handler.fc channelSend: no send
// msglib configured, Channel::ERROR::MsglibBlocked), without asking a
// message library. The packet was not sent: LayerzeroSend failed, with the
// error code and the OApp's request facts.
func TestLayerzeroSendRefused(t *testing.T) {
	const (
		user     = "0:1111111111111111111111111111111111111111111111111111111111111111"
		oapp     = "0:2222222222222222222222222222222222222222222222222222222222222222"
		endpoint = "0:3333333333333333333333333333333333333333333333333333333333333333"
		channel  = "0:4444444444444444444444444444444444444444444444444444444444444444"
	)
	path := clDeclare("path", clUint(5, 30343), clUint(8, 0x2222), clUint(5, 30101), clUint(8, 0xabcdef))
	packet := clDeclare("Packet", clRef(path), clRef(cellOf(raw([]byte{1, 2, 3}))), clUint(6, 0), clUint(8, 0))
	lzSend := clDeclare("lzSend", clUint(6, 0), clUint(8, 0), clUint(8, 0), clUint(8, 0), clRef(packet),
		clUint(7, 5_000_000_000), clUint(7, 0), clRef(boc.NewCell()), clRef(boc.NewCell()), clRef(boc.NewCell()))
	receipt := clDeclare("MsgReceipt", clRef(lzSend), clUint(7, 0), clUint(7, 0), clUint(4, 1234))
	root := ext(user,
		call(oapp, 6_000_000_000, lzBody(0x12345678, user, boc.NewCell()),
			call(endpoint, 5_900_000_000, lzBody(lztEndpointSend, oapp, lzSend),
				call(channel, 5_800_000_000, lzBody(lztChannelSend, endpoint, clDeclare("MdObj", clRef(lzSend), clRef(boc.NewCell()))),
					call(oapp, 5_700_000_000, lzBody(lztOAppCallback, channel, clDeclare("MdObj", clRef(receipt), clRef(boc.NewCell()))))))))
	send := classify(t, root, nil).one(t, "LayerzeroSend")
	var v actions.LayerzeroSend
	send.decode(t, &v)
	if send.Status != chain.StatusFailed || v.ErrorCode != 1234 || v.Sender != oapp || v.Endpoint != endpoint ||
		v.Channel != channel || v.NativeFee != "5000000000" || v.Packet == nil || v.Packet.DstOapp != "0xabcdef" ||
		v.Packet.DstEid != 30101 || v.Packet.Message != "0x010203" || v.Packet.Nonce != 0 || send.txs() != 3 {
		t.Errorf("got %s %+v %+v over %d txs", send.Status, v, v.Packet, send.txs())
	}
}

// clField is a field of a LayerZero classlib object under construction.
type clField struct {
	typ int // 0..8: a number of 1<<typ bits; 9: a reference
	val *big.Int
	ref *boc.Cell
}

func clUint(typ int, v uint64) clField { return clField{typ: typ, val: new(big.Int).SetUint64(v)} }

// clAddr is a TON address as LayerZero stores it: its 256-bit account id.
func clAddr(raw string) clField {
	id := ton.MustParseAccountID(raw)
	return clField{typ: 8, val: new(big.Int).SetBytes(id.Address[:])}
}

func clRef(c *boc.Cell) clField { return clField{typ: 9, ref: c} }

// clDeclare builds an object the way LayerZero's cl::declare does
// (src/funC++/classlib.fc): the 80-bit name, 18-bit field descriptors
// padded with ones to 350 bits, the fields filling the root (at most two
// refs) and then up to two more cells, linked as the root's refs 2 and 3.
func clDeclare(name string, fields ...clField) *boc.Cell {
	type cellData struct {
		writes []func(*boc.Cell)
		refs   []*boc.Cell
	}
	cells := []*cellData{nil, {}}
	header := boc.NewCell()
	must(header.WriteBigUint(new(big.Int).SetBytes([]byte(name)), 80))
	curData, curRef, maxRefs, dataOff, refOff := 1, 1, 2, 350, 0
	grow := func(i int) {
		for len(cells) <= i {
			cells = append(cells, &cellData{})
		}
	}
	for _, f := range fields {
		width := 0
		if f.typ <= 8 {
			width = 1 << f.typ
		}
		if width > 0 {
			if dataOff+width > 1023 {
				curData, dataOff = curData+1, 0
				grow(curData)
			}
			v, w := f.val, width
			cells[curData].writes = append(cells[curData].writes, func(c *boc.Cell) { must(c.WriteBigUint(v, w)) })
		} else {
			if refOff+1 > maxRefs {
				curRef, refOff, maxRefs = curRef+1, 0, 4
				grow(curRef)
			}
			cells[curRef].refs = append(cells[curRef].refs, f.ref)
		}
		idx := curData
		if width == 0 {
			idx = curRef
		}
		if idx == 1 {
			idx = 0
		}
		must(header.WriteUint(uint64(f.typ), 4))
		must(header.WriteUint(uint64(idx), 2))
		if width > 0 {
			must(header.WriteUint(uint64(dataOff), 10))
			must(header.WriteUint(3, 2))
			dataOff += width
		} else {
			must(header.WriteUint(1023, 10))
			must(header.WriteUint(uint64(refOff), 2))
			refOff++
		}
	}
	root := boc.NewCell()
	bits := header.RawBitString()
	for i := 0; i < header.BitSize(); i++ {
		b := bits.Buffer()[i/8]>>(7-uint(i%8))&1 == 1
		must(root.WriteBit(b))
	}
	for root.BitSize() < 350 {
		must(root.WriteBit(true))
	}
	fill := func(c *boc.Cell, d *cellData) {
		for _, w := range d.writes {
			w(c)
		}
		for _, r := range d.refs {
			must(c.AddRef(r))
		}
	}
	fill(root, cells[1])
	if len(cells) > 2 {
		for root.RefsSize() < 2 {
			must(root.AddRef(boc.NewCell()))
		}
		for _, d := range cells[2:] {
			c := boc.NewCell()
			fill(c, d)
			must(root.AddRef(c))
		}
	}
	return root
}

// lzBody is a LayerZero message body: op, query id, donation (0), origin
// and the md object as the first reference.
func lzBody(code uint32, origin string, md *boc.Cell) *boc.Cell {
	return cellOf(op(code), u64(42), coins(0), addr(origin), ref(md))
}

// TestLayerzeroSendTokensNeedsEvent: jettons reach an OApp whose
// transfer_notification makes it call its endpoint. An OFT also logs an
// event (0xe33b9873) on taking the jettons, and toncenter requires that
// event to merge the jetton transfer and the send into
// layerzero_send_tokens; without it the two are reported apart.
func TestLayerzeroSendTokensNeedsEvent(t *testing.T) {
	const (
		user       = "0:1111111111111111111111111111111111111111111111111111111111111111"
		userWallet = "0:2222222222222222222222222222222222222222222222222222222222222222"
		oapp       = "0:3333333333333333333333333333333333333333333333333333333333333333"
		oappWallet = "0:4444444444444444444444444444444444444444444444444444444444444444"
		endpoint   = "0:5555555555555555555555555555555555555555555555555555555555555555"
		channel    = "0:6666666666666666666666666666666666666666666666666666666666666666"
	)
	path := clDeclare("path", clUint(5, 30343), clUint(8, 0x3333), clUint(5, 30101), clUint(8, 0xabcdef))
	packet := clDeclare("Packet", clRef(path), clRef(cellOf(raw([]byte{1}))), clUint(6, 7), clUint(8, 0x99))
	lzSend := clDeclare("lzSend", clUint(6, 5), clUint(8, 0), clUint(8, 0), clUint(8, 0), clRef(packet),
		clUint(7, 1_000_000), clUint(7, 0), clRef(boc.NewCell()), clRef(boc.NewCell()), clRef(boc.NewCell()))
	receipt := clDeclare("MsgReceipt", clRef(lzSend), clUint(7, 0), clUint(7, 0), clUint(4, 0))
	send := func() *stx {
		return call(endpoint, 30_000_000, lzBody(lztEndpointSend, oapp, lzSend),
			call(channel, 20_000_000, lzBody(lztChannelSend, endpoint, clDeclare("MdObj", clRef(lzSend), clRef(boc.NewCell()))),
				call(oapp, 10_000_000, lzBody(lztOAppCallback, channel, clDeclare("MdObj", clRef(receipt), clRef(boc.NewCell()))))))
	}
	j := jetton{query: 1, amount: 10_000, to: oapp, from: user, response: user, forward: 50_000_000}
	for _, tc := range []struct {
		name   string
		logged bool
		want   []string
	}{
		{"with the OApp's event", true, []string{"LayerzeroSendTokens:ok"}},
		{"without it", false, []string{"JettonTransfer:ok", "LayerzeroSend:ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			then := []*stx{send()}
			if tc.logged {
				then = append(then, call(oapp, 0, lzBody(lztEvent, oapp, clDeclare("event", clUint(8, 1)))))
			}
			rs := classify(t, ext(user, jettonLeg(j, userWallet, oappWallet, then...)), nil)
			rs.expect(t, tc.want...)
		})
	}
}
