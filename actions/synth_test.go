package actions_test

// The toolkit of the tests that build traces by hand, for the flows the
// fixtures lack: addresses, message bodies (a cell written field by field,
// TEP-74 jetton messages), a tree of transactions made into a chain.Trace,
// and the checks on what Classify makes of it.
//
//	root := ext(wallet,
//		call(router, 300_000_000, cellOf(op(0x12345678), u64(1), coins(5), addr(pool)),
//			call(pool, 290_000_000, nil).fails(100)))
//	a := classify(t, root, nil).only(t, "SmartContractExec")
//	a.want(t, map[string]any{"contract": router})
//
// Messages are bounceable unless said otherwise; transactions succeed
// unless said otherwise; hashes and lts are numbered parents first.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// ---- addresses ----

// acct is the basechain address numbered i: 0:00..0i.
func acct(i int) string { return fmt.Sprintf("0:%064X", i) }

// named is a basechain address made from a name (its SHA-256).
func named(name string) string {
	return chain.RawAddress(ton.AccountID{Workchain: 0, Address: sha256.Sum256([]byte(name))})
}

// msgAddr is a raw address as a TL-B MsgAddress; "" is addr_none.
func msgAddr(raw string) tlb.MsgAddress {
	if raw == "" {
		return tlb.MsgAddress{SumType: "AddrNone"}
	}
	id := ton.MustParseAccountID(raw)
	return id.ToMsgAddress()
}

// varCoins is an amount as the VarUInteger 16 of tongo's layouts.
func varCoins(v uint64) tlb.VarUInteger16 { return tlb.VarUInteger16(*new(big.Int).SetUint64(v)) }

// ---- cells ----

// part writes one field of a cell.
type part func(c *boc.Cell) error

// cellOf is a new cell with the parts written in order.
func cellOf(parts ...part) *boc.Cell {
	c := boc.NewCell()
	for _, p := range parts {
		must(p(c))
	}
	return c
}

// op is a 32-bit op code.
func op(code uint32) part { return u(uint64(code), 32) }

// u is an unsigned integer of the width (up to 256 bits).
func u(v uint64, bits int) part {
	if bits > 64 {
		return func(c *boc.Cell) error { return c.WriteBigUint(new(big.Int).SetUint64(v), bits) }
	}
	return func(c *boc.Cell) error { return c.WriteUint(v, bits) }
}

// u64 is a 64-bit unsigned integer, such as a query id.
func u64(v uint64) part { return u(v, 64) }

// u256 is a 256-bit unsigned integer written in hex digits ("0x" optional).
func u256(hexDigits string) part {
	v, ok := new(big.Int).SetString(strings.TrimPrefix(hexDigits, "0x"), 16)
	if !ok {
		panic("u256: not hex: " + hexDigits)
	}
	return func(c *boc.Cell) error { return c.WriteBigUint(v, 256) }
}

func bit(b bool) part { return func(c *boc.Cell) error { return c.WriteBit(b) } }

// coins is an amount as Coins (VarUInteger 16).
func coins(v uint64) part { return tlbOf(tlb.Grams(v)) }

// addr is a MsgAddress; "" is addr_none.
func addr(raw string) part { return tlbOf(msgAddr(raw)) }

// ref is a reference to another cell.
func ref(r *boc.Cell) part { return func(c *boc.Cell) error { return c.AddRef(r) } }

// maybeRef is Maybe ^Cell (and the ^Cell arm of Either X ^Cell): a 0 bit
// for nil, else a 1 bit and the reference.
func maybeRef(r *boc.Cell) part {
	if r == nil {
		return bit(false)
	}
	return func(c *boc.Cell) error {
		if err := c.WriteBit(true); err != nil {
			return err
		}
		return c.AddRef(r)
	}
}

// text is the bytes of s, as a comment's tail.
func text(s string) part { return raw([]byte(s)) }

// raw is whole bytes.
func raw(b []byte) part { return func(c *boc.Cell) error { return c.WriteBytes(b) } }

// tlbOf is v as tongo's TL-B encoder writes it (tongo's abi bodies, or a
// struct of tlb types in the layout's order).
func tlbOf(v any) part { return func(c *boc.Cell) error { return tlb.Marshal(c, v) } }

// comment is a text comment body.
func comment(s string) *boc.Cell { return cellOf(op(0), text(s)) }

// opQuery is a body of an op code and a query id alone.
func opQuery(code uint32, query uint64) *boc.Cell { return cellOf(op(code), u64(query)) }

// excesses is excesses#d53276db query_id.
func excesses(query uint64) *boc.Cell { return opQuery(abi.ExcessMsgOpCode, query) }

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// jetton is what the TEP-74 messages of one jetton move say; each layout
// writes the fields it has.
type jetton struct {
	query    uint64
	amount   uint64
	to       string    // transfer: the destination owner
	from     string    // internal_transfer: from; transfer_notification and burn_notification: sender
	response string    // response_destination, where the excess goes
	forward  uint64    // forward_ton_amount
	payload  *boc.Cell // forward_payload in a reference; nil: empty, inline
}

// forwardPayload is the Either Cell ^Cell of the payload.
func (j jetton) forwardPayload() tlb.EitherRef[abi.JettonPayload] {
	if j.payload == nil {
		return tlb.EitherRef[abi.JettonPayload]{Value: abi.JettonPayload{SumType: abi.EmptyJettonOp}}
	}
	return tlb.EitherRef[abi.JettonPayload]{IsRight: true, Value: abi.JettonPayload{SumType: abi.UnknownJettonOp, Value: *j.payload}}
}

// transfer is transfer#0f8a7ea5 query_id amount destination
// response_destination custom_payload:none forward_ton_amount forward_payload.
func (j jetton) transfer() *boc.Cell {
	return cellOf(op(abi.JettonTransferMsgOpCode), tlbOf(abi.JettonTransferMsgBody{QueryId: j.query, Amount: varCoins(j.amount),
		Destination: msgAddr(j.to), ResponseDestination: msgAddr(j.response), ForwardTonAmount: varCoins(j.forward),
		ForwardPayload: j.forwardPayload()}))
}

// internal is internal_transfer#178d4519 query_id amount from
// response_address forward_ton_amount forward_payload.
func (j jetton) internal() *boc.Cell {
	return cellOf(op(abi.JettonInternalTransferMsgOpCode), tlbOf(abi.JettonInternalTransferMsgBody{QueryId: j.query,
		Amount: varCoins(j.amount), From: msgAddr(j.from), ResponseAddress: msgAddr(j.response),
		ForwardTonAmount: varCoins(j.forward), ForwardPayload: j.forwardPayload()}))
}

// notify is transfer_notification#7362d09c query_id amount sender forward_payload.
func (j jetton) notify() *boc.Cell {
	return cellOf(op(abi.JettonNotifyMsgOpCode), tlbOf(abi.JettonNotifyMsgBody{QueryId: j.query, Amount: varCoins(j.amount),
		Sender: msgAddr(j.from), ForwardPayload: j.forwardPayload()}))
}

// burn is burn#595f07bc query_id amount response_destination custom_payload:none.
func (j jetton) burn() *boc.Cell {
	return cellOf(op(abi.JettonBurnMsgOpCode), tlbOf(abi.JettonBurnMsgBody{QueryId: j.query, Amount: varCoins(j.amount),
		ResponseDestination: msgAddr(j.response)}))
}

// burnNotification is burn_notification#7bdd97de query_id amount sender response_destination.
func (j jetton) burnNotification() *boc.Cell {
	return cellOf(op(abi.JettonBurnNotificationMsgOpCode), tlbOf(abi.JettonBurnNotificationMsgBody{QueryId: j.query,
		Amount: varCoins(j.amount), Sender: msgAddr(j.from), ResponseDestination: msgAddr(j.response)}))
}

// jettonLeg is a whole jetton transfer, the transaction of j.from's
// message to its wallet: the transfer at fromWallet (0.1 TON), the
// internal_transfer at toWallet (0.09), the notification to j.to (0.05),
// with then as its children, and the excess to j.response (0.01).
func jettonLeg(j jetton, fromWallet, toWallet string, then ...*stx) *stx {
	return call(fromWallet, 100_000_000, j.transfer(),
		call(toWallet, 90_000_000, j.internal(),
			call(j.to, 50_000_000, j.notify(), then...),
			call(j.response, 10_000_000, excesses(j.query))))
}

// ---- traces ----

// stx is a transaction of a synthetic trace before the trace is made: the
// account, the message it consumed (from its parent's account, from outside
// the trace, or external), how it ended, and the transactions its
// out-messages caused, in the order it sent them. Its methods change it and
// return it, to be chained.
type stx struct {
	account  string
	kind     int    // msgInternal, msgExternal or msgNone
	sender   string // the sender of a root's internal message
	msg      chain.Message
	body     *boc.Cell
	init     *boc.Cell // the StateInit the message carries
	tx       chain.Transaction
	kids     []*stx
	toSender bool        // a kid whose account is its parent's sender (a bounce)
	extOut   []*boc.Cell // external out-messages (logs)
	unseen   []*stx      // out-messages whose transactions are not in the trace
	edits    []func(*chain.Transaction)
}

const (
	msgInternal = iota
	msgExternal
	msgNone
)

func newStx(account string, kind int, value uint64, body *boc.Cell, kids []*stx) *stx {
	return &stx{account: account, kind: kind, body: body, kids: kids,
		msg: chain.Message{Value: value, Bounce: kind == msgInternal},
		tx: chain.Transaction{OrigStatus: chain.AccountActive, EndStatus: chain.AccountActive,
			ComputeSuccess: true, ActionSuccess: true}}
}

// ext is account's transaction on an external message (no body).
func ext(account string, kids ...*stx) *stx { return newStx(account, msgExternal, 0, nil, kids) }

// tickTock is account's transaction with no in-message.
func tickTock(account string, kids ...*stx) *stx { return newStx(account, msgNone, 0, nil, kids) }

// call is account's transaction on a bounceable internal message of value
// and body (nil: none) from its parent's account; a root's comes from
// outside the trace (see from).
func call(account string, value uint64, body *boc.Cell, kids ...*stx) *stx {
	return newStx(account, msgInternal, value, body, kids)
}

// from names the sender of a root's internal message.
func (x *stx) from(sender string) *stx { x.sender = sender; return x }

// withBody gives an external message a body.
func (x *stx) withBody(body *boc.Cell) *stx { x.body = body; return x }

// bounceable sets the message's bounce flag.
func (x *stx) bounceable(b bool) *stx { x.msg.Bounce = b; return x }

// extra has the message carry extra currencies (id -> decimal amount).
func (x *stx) extra(currencies map[uint32]string) *stx { x.msg.ExtraCurrencies = currencies; return x }

// then adds transactions caused by x's later out-messages.
func (x *stx) then(kids ...*stx) *stx { x.kids = append(x.kids, kids...); return x }

// fails aborts the transaction: its compute phase failed with the exit code.
func (x *stx) fails(exit int32) *stx {
	x.tx.Aborted, x.tx.ComputeSuccess, x.tx.ActionSuccess, x.tx.ComputeExitCode = true, false, false, exit
	return x
}

// bouncesBack has the transaction bounce its message: the sender gets value
// back in a bounced, non-bounceable message with the body (nil:
// 0xffffffff alone), as x's last out-message.
func (x *stx) bouncesBack(value uint64, body *boc.Cell) *stx {
	if body == nil {
		body = cellOf(op(0xffffffff))
	}
	back := call("", value, body).bounceable(false)
	back.msg.Bounced, back.toSender = true, true
	x.tx.Bounced = true
	return x.then(back)
}

// deploys has the message deploy the account: it did not exist, and the
// message carries a StateInit of code 0xC0DE and the data (nil: none).
func (x *stx) deploys(data *boc.Cell) *stx {
	x.init = cellOf(tlbOf(stateInit(data)))
	return x.status(chain.AccountNonexist, chain.AccountActive)
}

func stateInit(data *boc.Cell) tlb.StateInit {
	si := tlb.StateInit{}
	si.Code.Exists, si.Code.Value.Value = true, *cellOf(u(0xC0DE, 16))
	if data != nil {
		si.Data.Exists, si.Data.Value.Value = true, *data
	}
	return si
}

// status sets the account's status before and after the transaction.
func (x *stx) status(orig, end string) *stx { x.tx.OrigStatus, x.tx.EndStatus = orig, end; return x }

// edit changes the made transaction (for what no method says).
func (x *stx) edit(fn func(tx *chain.Transaction)) *stx { x.edits = append(x.edits, fn); return x }

// logs adds external out-messages (a contract's logs) with the bodies.
func (x *stx) logs(bodies ...*boc.Cell) *stx { x.extOut = append(x.extOut, bodies...); return x }

// sendsUnseen adds an out-message to account whose transaction is not in
// the trace: the trace is incomplete.
func (x *stx) sendsUnseen(account string, value uint64, body *boc.Cell) *stx {
	x.unseen = append(x.unseen, call(account, value, body))
	return x
}

// traceOf makes the trace: transactions numbered parents first (hashes,
// lts), each message created just after its sender's lt, every
// out-message listed. It is complete unless a message was sent unseen (a
// root's message from outside counts as seen).
func traceOf(root *stx) *chain.Trace {
	if root.kind == msgInternal && root.sender == "" {
		panic("traceOf: a root's internal message needs its sender (from)")
	}
	m := &maker{tr: &chain.Trace{Complete: true, StartUtime: synthUtime, EndUtime: synthUtime}}
	m.tr.Root = m.node(root, root.account, root.sender, 0)
	m.tr.ID, m.tr.StartLt = m.tr.Root.Tx.Hash, m.tr.Root.Tx.Lt
	m.tr.Root.Walk(func(n *chain.TraceNode) bool {
		n.Tx.TraceID = m.tr.ID
		return true
	})
	return m.tr
}

const synthUtime = 1_700_000_000

type maker struct {
	tr  *chain.Trace
	seq uint64
}

func (m *maker) hash(kind string) chain.Hash {
	m.seq++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], m.seq)
	return sha256.Sum256(append([]byte(kind), b[:]...))
}

// message is x's in-message, to account, as sender sent it at createdLt.
func (m *maker) message(x *stx, account, sender string, createdLt uint64) chain.Message {
	msg := x.msg
	msg.Hash, msg.Source, msg.Destination, msg.CreatedLt = m.hash("msg"), sender, account, createdLt
	if x.kind == msgExternal {
		msg.Source = ""
	}
	if x.body != nil {
		msg.Opcode, msg.Body = opcodeOf(x.body), bocOf(x.body)
	}
	if x.init != nil {
		msg.InitState = bocOf(x.init)
	}
	return msg
}

// node makes x's transaction, at account, and those it caused.
func (m *maker) node(x *stx, account, sender string, createdLt uint64) *chain.TraceNode {
	tx := x.tx
	tx.Hash, tx.Account, tx.Utime = m.hash("tx"), account, synthUtime
	tx.Lt = 1_000_000 + 10*m.seq
	m.tr.Transactions++
	m.tr.EndLt = max(m.tr.EndLt, tx.Lt)
	if x.kind != msgNone {
		if createdLt == 0 {
			createdLt = tx.Lt - 1
		}
		in := m.message(x, account, sender, createdLt)
		tx.InMsg = &in
	}
	n := &chain.TraceNode{Tx: &tx}
	nextLt := func() uint64 { return tx.Lt + uint64(len(tx.OutMsgs)) + 1 }
	for _, k := range x.kids {
		to := k.account
		if k.toSender {
			to = tx.InMsg.Source
		}
		c := m.node(k, to, account, nextLt())
		tx.OutMsgs = append(tx.OutMsgs, *c.Tx.InMsg)
		n.Children = append(n.Children, c)
	}
	for _, k := range x.unseen {
		tx.OutMsgs = append(tx.OutMsgs, m.message(k, k.account, account, nextLt()))
		m.tr.Complete = false
	}
	for _, b := range x.extOut {
		tx.OutMsgs = append(tx.OutMsgs, chain.Message{Hash: m.hash("log"), Source: account, CreatedLt: nextLt(),
			Opcode: opcodeOf(b), Body: bocOf(b)})
	}
	for _, e := range x.edits {
		e(&tx)
	}
	return n
}

// opcodeOf is the first 32 bits of a body, when it has them.
func opcodeOf(body *boc.Cell) *uint32 {
	body.ResetCounters()
	defer body.ResetCounters()
	if body.BitsAvailableForRead() < 32 {
		return nil
	}
	v, _ := body.PickUint(32)
	code := uint32(v)
	return &code
}

func bocOf(c *boc.Cell) []byte {
	b, err := c.ToBoc()
	must(err)
	return b
}

// ---- what Classify makes of it ----

// result is an action with its value decoded.
type result struct {
	chain.Action
	v map[string]any
}

// results are the actions of a trace, in Classify's order.
type results []result

// classify classifies the synthetic trace: its top-level actions.
func classify(t testing.TB, root *stx, known chain.KnownContracts) results {
	t.Helper()
	return classifyAll(t, root, known).top()
}

// classifyAll is every action of the synthetic trace, steps included.
func classifyAll(t testing.TB, root *stx, known chain.KnownContracts) results {
	t.Helper()
	return resultsOf(t, actions.Classify(traceOf(root), known))
}

// top drops the steps.
func (rs results) top() results {
	var out results
	for _, a := range rs {
		if a.ParentActionID == "" {
			out = append(out, a)
		}
	}
	return out
}

// stepsOf is the steps of parent, in Classify's order.
func (rs results) stepsOf(parent result) results {
	var out results
	for _, a := range rs {
		if a.ParentActionID == parent.ActionID {
			out = append(out, a)
		}
	}
	return out
}

// classifyFile classifies every trace of a toncenter fixture file, after
// edit (nil: none) changed what the file holds.
func classifyFile(t testing.TB, path string, edit func(*chain.ToncenterTrace)) []chain.Action {
	t.Helper()
	tr, err := chain.ParseToncenterFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(tr)
	}
	var out []chain.Action
	for _, trace := range chain.NewAssembler().Add(tr.Transactions) {
		out = append(out, actions.Classify(trace, tr.Known)...)
	}
	return out
}

// topLevel drops the steps of newer actions (steps.go; steps_test.go
// checks them): what a client that knows every type is shown.
func topLevel(list []chain.Action) []chain.Action {
	out := list[:0:0]
	for _, a := range list {
		if a.ParentActionID == "" {
			out = append(out, a)
		}
	}
	return out
}

// resultsOf decodes the actions' values.
func resultsOf(t testing.TB, list []chain.Action) results {
	t.Helper()
	out := make(results, len(list))
	for i, a := range list {
		out[i].Action = a
		if err := json.Unmarshal(a.Value, &out[i].v); err != nil {
			t.Fatalf("%s: %v", a.Type, err)
		}
	}
	return out
}

// kinds is "Type:status" of each action, in order.
func (rs results) kinds() []string {
	out := make([]string, len(rs))
	for i, a := range rs {
		out[i] = a.Type + ":" + a.Status
	}
	return out
}

// expect fails unless the actions are the kinds ("Type:status"), in any order.
func (rs results) expect(t testing.TB, kinds ...string) {
	t.Helper()
	got := slices.Sorted(slices.Values(rs.kinds()))
	if want := slices.Sorted(slices.Values(kinds)); !slices.Equal(got, want) {
		t.Fatalf("actions %v, want %v", got, want)
	}
}

// ofKind is the actions of the kind, in order: "Type", or "Type:status".
func (rs results) ofKind(kind string) results {
	var out results
	for _, a := range rs {
		if a.Type == kind || a.Type+":"+a.Status == kind {
			out = append(out, a)
		}
	}
	return out
}

// one is the only action of the kind ("Type", or "Type:status"); others
// may stand beside it.
func (rs results) one(t testing.TB, kind string) result {
	t.Helper()
	found := rs.ofKind(kind)
	if len(found) != 1 {
		t.Fatalf("%d %s actions in %v, want 1", len(found), kind, rs.kinds())
	}
	return found[0]
}

// only is the one action the trace decodes to, of the kind ("Type", or
// "Type:status").
func (rs results) only(t testing.TB, kind string) result {
	t.Helper()
	if len(rs) != 1 || len(rs.ofKind(kind)) != 1 {
		t.Fatalf("actions %v, want one %s", rs.kinds(), kind)
	}
	return rs[0]
}

// want checks value fields: each as JSON equals the wanted one (60 and
// float64(60) alike); nil wants the field absent.
func (r result) want(t testing.TB, fields map[string]any) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		got, ok := r.v[k]
		if fields[k] == nil {
			if ok {
				t.Errorf("%s.%s = %v, want absent", r.Type, k, got)
			}
			continue
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(fields[k])
		if !ok || string(g) != string(w) {
			t.Errorf("%s.%s = %s, want %s", r.Type, k, g, w)
		}
	}
}

// wantTxs checks how many transactions the action covers.
func (r result) wantTxs(t testing.TB, txs int) {
	t.Helper()
	if r.txs() != txs {
		t.Errorf("%s over %d transactions, want %d", r.Type, r.txs(), txs)
	}
}

// decode decodes the value into v.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Value, v); err != nil {
		t.Fatal(err)
	}
}

// txs is the number of transactions the action covers.
func (r result) txs() int { return len(r.Transactions) }

// actionCase is a trace that decodes to one action of the kind ("Type", or
// "Type:status"), over txs transactions (0: any number), whose value has
// the fields want names.
type actionCase struct {
	name string
	root *stx
	kind string
	txs  int
	want map[string]any
}

// runCases checks each case in a subtest of its name.
func runCases(t *testing.T, known chain.KnownContracts, cases []actionCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := classify(t, tc.root, known).only(t, tc.kind)
			if tc.txs > 0 {
				a.wantTxs(t, tc.txs)
			}
			a.want(t, tc.want)
		})
	}
}
