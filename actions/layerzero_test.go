package actions_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
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
	build := func(status uint64, connFails bool) *chain.Trace {
		answer := &lzsTx{account: proxy, from: conn, op: lztVerifyCb, value: 5_000_000,
			body: lzBody(lztVerifyCb, conn, clDeclare("MdObj",
				clRef(clDeclare("veristatus", clUint(6, 194), clUint(5, status))), clRef(boc.NewCell())))}
		connTx := &lzsTx{account: conn, from: uln, op: lztConnVerify, value: 20_000_000, failed: connFails,
			body: lzBody(lztConnVerify, uln, clDeclare("extendedMd", clRef(verification), clRef(boc.NewCell()), clAddr(proxy)))}
		if !connFails {
			connTx.kids = []*lzsTx{
				{account: sink, from: conn, op: lztEvent, failed: true, body: lzBody(lztEvent, conn, clDeclare("event", clUint(8, 1)))},
				answer,
			}
		}
		return lzsTrace(&lzsTx{account: admin, external: true, kids: []*lzsTx{
			{account: dvn, from: admin, op: lztDvnVerify, value: 100_000_000,
				body: lzBody(lztDvnVerify, admin, clDeclare("signedReq", clRef(boc.NewCell()))),
				kids: []*lzsTx{{account: proxy, from: dvn, op: lztProxyCall, value: 90_000_000,
					body: lzBody(lztProxyCall, dvn, clDeclare("execParams", clAddr(uln))),
					kids: []*lzsTx{{account: uln, from: proxy, op: lztUlnVerify, value: 80_000_000,
						body: lzBody(lztUlnVerify, proxy, clDeclare("MdAddr", clRef(verification), clAddr(conn))),
						kids: []*lzsTx{connTx}}}}}},
		}})
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
			got := actions.Classify(build(tc.code, tc.connFails), nil)
			if len(got) != 1 || got[0].Type != "LayerzeroDvnVerify" {
				t.Fatalf("got %v, want one LayerzeroDvnVerify", kindsOf(got))
			}
			a := got[0]
			var v actions.LayerzeroDvnVerify
			if err := json.Unmarshal(a.Value, &v); err != nil {
				t.Fatal(err)
			}
			want := actions.LayerzeroDvnVerify{Sender: admin, Dvn: dvn, Proxy: proxy, Uln: uln, UlnConnection: conn, Nonce: 194, Status: actions.Text(tc.wantStatus)}
			if v != want || a.Status != tc.status || len(a.Transactions) != tc.txs {
				t.Errorf("got %+v %s over %d txs, want %+v %s over %d", v, a.Status, len(a.Transactions), want, tc.status, tc.txs)
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
	packet := clDeclare("Packet", clRef(path), clRef(bytesCell([]byte{1, 2, 3})), clUint(6, 0), clUint(8, 0))
	lzSend := clDeclare("lzSend", clUint(6, 0), clUint(8, 0), clUint(8, 0), clUint(8, 0), clRef(packet),
		clUint(7, 5_000_000_000), clUint(7, 0), clRef(boc.NewCell()), clRef(boc.NewCell()), clRef(boc.NewCell()))
	receipt := clDeclare("MsgReceipt", clRef(lzSend), clUint(7, 0), clUint(7, 0), clUint(4, 1234))
	tr := lzsTrace(&lzsTx{account: user, external: true, kids: []*lzsTx{
		{account: oapp, from: user, op: 0x12345678, value: 6_000_000_000, body: lzBody(0x12345678, user, boc.NewCell()),
			kids: []*lzsTx{{account: endpoint, from: oapp, op: lztEndpointSend, value: 5_900_000_000, body: lzBody(lztEndpointSend, oapp, lzSend),
				kids: []*lzsTx{{account: channel, from: endpoint, op: lztChannelSend, value: 5_800_000_000,
					body: lzBody(lztChannelSend, endpoint, clDeclare("MdObj", clRef(lzSend), clRef(boc.NewCell()))),
					kids: []*lzsTx{{account: oapp, from: channel, op: lztOAppCallback, value: 5_700_000_000,
						body: lzBody(lztOAppCallback, channel, clDeclare("MdObj", clRef(receipt), clRef(boc.NewCell())))}}}}}}},
	}})
	var send *chain.Action
	for _, a := range actions.Classify(tr, nil) {
		if a.Type == "LayerzeroSend" {
			send = &a
		}
	}
	if send == nil {
		t.Fatal("no LayerzeroSend")
	}
	var v actions.LayerzeroSend
	if err := json.Unmarshal(send.Value, &v); err != nil {
		t.Fatal(err)
	}
	if send.Status != chain.StatusFailed || v.ErrorCode != 1234 || v.Sender != oapp || v.Endpoint != endpoint ||
		v.Channel != channel || v.NativeFee != "5000000000" || v.Packet == nil || v.Packet.DstOapp != "0xabcdef" ||
		v.Packet.DstEid != 30101 || v.Packet.Message != "0x010203" || v.Packet.Nonce != 0 || len(send.Transactions) != 3 {
		t.Errorf("got %s %+v %+v over %d txs", send.Status, v, v.Packet, len(send.Transactions))
	}
}

func kindsOf(list []chain.Action) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.Type+":"+a.Status)
	}
	return out
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

func bytesCell(b []byte) *boc.Cell {
	c := boc.NewCell()
	must(c.WriteBytes(b))
	return c
}

// lzBody is a LayerZero message body: op, query id, donation (0), origin
// and the md object as the first reference.
func lzBody(op uint32, origin string, md *boc.Cell) *boc.Cell {
	c := boc.NewCell()
	must(c.WriteUint(uint64(op), 32))
	must(c.WriteUint(42, 64))
	must(c.WriteUint(0, 4))
	writeAddr(c, origin)
	must(c.AddRef(md))
	return c
}

// writeAddr writes addr_std$10 anycast:0 workchain:int8 address:bits256.
func writeAddr(c *boc.Cell, raw string) {
	id := ton.MustParseAccountID(raw)
	must(c.WriteUint(0b100, 3))
	must(c.WriteInt(int64(id.Workchain), 8))
	must(c.WriteBytes(id.Address[:]))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// lzsTx is a transaction of a trace built by a test: the account, who sent
// its in-message (none: an external message), the op code and body, and
// the transactions its out-messages caused.
type lzsTx struct {
	account, from string
	external      bool
	op            uint32
	body          *boc.Cell
	value         uint64
	failed        bool
	bounced       bool
	kids          []*lzsTx
}

// lzsTrace builds a trace from a tree of transactions, with hashes and lts
// in pre-order.
func lzsTrace(root *lzsTx) *chain.Trace {
	seq := 0
	var build func(x *lzsTx) *chain.TraceNode
	build = func(x *lzsTx) *chain.TraceNode {
		seq++
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(seq))
		tx := &chain.Transaction{Hash: sha256.Sum256(append([]byte("tx"), b[:]...)), Account: x.account,
			Lt: uint64(1000 + seq), Utime: 1700000000, OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
			ComputeSuccess: !x.failed, ActionSuccess: !x.failed, Aborted: x.failed}
		m := &chain.Message{Hash: sha256.Sum256(append([]byte("msg"), b[:]...)), Destination: x.account}
		if !x.external {
			m.Source, m.Value, m.Bounce, m.Bounced = x.from, x.value, true, x.bounced
			if x.body != nil {
				op := x.op
				m.Opcode = &op
				boc, err := x.body.ToBoc()
				must(err)
				m.Body = boc
			}
		}
		tx.InMsg = m
		n := &chain.TraceNode{Tx: tx}
		for _, k := range x.kids {
			n.Children = append(n.Children, build(k))
		}
		return n
	}
	tn := build(root)
	tr := &chain.Trace{ID: tn.Tx.Hash, Root: tn, StartLt: tn.Tx.Lt, StartUtime: tn.Tx.Utime, Complete: true}
	tn.Walk(func(n *chain.TraceNode) bool {
		tr.Transactions++
		tr.EndLt, tr.EndUtime = max(tr.EndLt, n.Tx.Lt), n.Tx.Utime
		return true
	})
	return tr
}
