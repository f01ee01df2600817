package toncenter

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/big"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/testenv"
)

// orderActionFields and orderBodyFields are toncenter's JSON keys, in its
// structs' order, with their kinds (models/actions.go OrderAction and
// models/parsed_bodies.go): s string, n number, b bool, o object, a array;
// "?" also allows null. A renamed, moved or retyped key fails checkShape.
const orderActionFields = "destination:s? value:s? body_raw:s? parsed:b error:s? parsed_body:o? parsed_body_type:s send_mode:n"

var orderBodyFields = map[string]string{
	"ton_transfer": "comment:s encrypted:b",
	"jetton_transfer": "query_id:n amount:s destination:s response:s custom_payload:s? forward_amount:s comment:s " +
		"encrypted_comment:b forward_payload:s? payload_sum_type:s stonfi_swap_body:o?",
	"jetton_burn":                       "query_id:n amount:s response_destination:s",
	"jetton_mint":                       "opcode:n query_id:n to_address:s ton_amount:s master_msg_query_id:n master_msg_jetton_amount:s",
	"nft_transfer":                      "query_id:n new_owner:s response_destination:s custom_payload:s? forward_amount:s forward_payload:s?",
	"jetton_top_up":                     "query_id:n",
	"jetton_change_admin":               "query_id:n new_admin_address:s",
	"jetton_claim_admin":                "query_id:n",
	"jetton_change_content":             "query_id:n new_metadata_url:s",
	"jetton_call_to":                    "query_id:n to_address:s ton_amount:s action_type:s action_data:s?",
	"jetton_set_status":                 "query_id:n new_status:n",
	"single_nominator_withdraw":         "query_id:n coins:s",
	"single_nominator_change_validator": "query_id:n validator_address:s",
	"vesting_internal_transfer":         "query_id:n send_mode:n destination:s? value:s? message_body:s? comment:s",
	"multisig_update_params":            "new_threshold:n new_signers:a? new_proposers:a?",
	"unknown":                           "opcode:n data:s?",
}

const stonfiFields = "jetton_wallet:s min_amount:s user_address:s"

// checkFields checks raw is a JSON object with exactly spec's keys, in
// order, of spec's kinds; it returns the values by key.
func checkFields(t *testing.T, raw []byte, spec, what string) map[string]json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok, what)
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
		keys = append(keys, k.(string))
		vals[k.(string)] = v
	}
	var want []string
	for _, f := range strings.Fields(spec) {
		name, kind, _ := strings.Cut(f, ":")
		want = append(want, name)
		v := vals[name]
		if v == nil {
			continue
		}
		if strings.HasSuffix(kind, "?") && string(v) == "null" {
			continue
		}
		first := map[byte]string{'"': "s", '{': "o", '[': "a", 't': "b", 'f': "b"}[v[0]]
		if v[0] == '-' || (v[0] >= '0' && v[0] <= '9') {
			first = "n"
		}
		require.Equal(t, strings.TrimSuffix(kind, "?"), first, "%s.%s is %s", what, name, v)
	}
	require.Equal(t, want, keys, what)
	return vals
}

// checkShape checks an action's JSON and its body's against toncenter's
// field lists and notes the body type seen.
func checkShape(t *testing.T, a OrderAction, seen map[string]bool) {
	t.Helper()
	raw, err := json.Marshal(a)
	require.NoError(t, err)
	vals := checkFields(t, raw, orderActionFields, "OrderAction")
	if a.ParsedBody == nil {
		require.Equal(t, "null", string(vals["parsed_body"]))
		return
	}
	require.Equal(t, a.ParsedBody.BodyType(), a.ParsedBodyType)
	spec, ok := orderBodyFields[a.ParsedBodyType]
	require.True(t, ok, "no field list for %s", a.ParsedBodyType)
	body := checkFields(t, vals["parsed_body"], spec, a.ParsedBodyType)
	if s := body["stonfi_swap_body"]; s != nil && string(s) != "null" {
		checkFields(t, s, stonfiFields, "stonfi_swap_body")
	}
	if seen != nil {
		seen[a.ParsedBodyType] = true
	}
}

// checkBOC checks a BOC as toncenter writes it: one root, a CRC32C and
// no index, the same cell as want.
func checkBOC(t *testing.T, b []byte, want *boc.Cell) {
	t.Helper()
	require.Equal(t, []byte{0xb5, 0xee, 0x9c, 0x72}, b[:4])
	require.Equal(t, byte(0x40), b[4]&0xf8, "CRC32C, no index, no cache bits")
	p := len(b) - 4
	require.Equal(t, crc32.Checksum(b[:p], crc32.MakeTable(crc32.Castagnoli)), binary.LittleEndian.Uint32(b[p:]))
	require.Equal(t, hashOf(t, want), hashOf(t, cellOf(t, b)))
}

func cellOf(t *testing.T, b []byte) *boc.Cell {
	t.Helper()
	cells, err := boc.DeserializeBoc(b)
	require.NoError(t, err)
	require.Len(t, cells, 1)
	return cells[0]
}

func hashOf(t *testing.T, c *boc.Cell) string {
	t.Helper()
	h, err := c.HashString()
	require.NoError(t, err)
	return h
}

// wantRaw is an address as toncenter writes it, from tongo's own reading.
func wantRaw(t *testing.T, a tlb.MsgAddress) string {
	t.Helper()
	if a.SumType == "AddrNone" {
		return "0:"
	}
	require.Equal(t, "AddrStd", string(a.SumType))
	require.False(t, a.AddrStd.Anycast.Exists)
	id, err := ton.AccountIDFromTlb(a)
	require.NoError(t, err)
	return chain.RawAddress(*id)
}

func decimal(v tlb.VarUInteger16) string { b := big.Int(v); return b.String() }

// traceBodies are the distinct message bodies (BOCs) of the fixture
// traces, by the op code the trace gives (-1: none).
func traceBodies(t *testing.T) map[int64][][]byte {
	t.Helper()
	out := map[int64][][]byte{}
	seen := map[string]bool{}
	for _, m := range testenv.TraceMessages(t) {
		if m.Body == "" {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(m.Body)
		require.NoError(t, err)
		h := hashOf(t, cellOf(t, b))
		if seen[h] {
			continue
		}
		seen[h] = true
		op := int64(-1)
		if m.Opcode != nil {
			op = *m.Opcode & 0xffffffff
		}
		out[op] = append(out[op], b)
	}
	return out
}

var (
	orderDest = ton.MustParseAccountID("0:" + strings.Repeat("5A", 32))
	orderMode = uint8(3)
)

// sendMessage is a send_message action of an internal message carrying
// body (nil: none) to orderDest.
func sendMessage(body *boc.Cell, grams uint64) abi.MultisigSendMessageAction {
	var m abi.MessageRelaxed
	m.SumType = "MessageInternal"
	in := &m.MessageInternal
	in.IhrDisabled, in.Bounce = true, true
	in.Src = tlb.MsgAddress{SumType: "AddrNone"}
	in.Dest = orderDest.ToMsgAddress()
	in.Value.Grams = tlb.Grams(grams)
	in.Body.Value = abi.InMsgBody{SumType: abi.EmptyMsgOp}
	if body != nil {
		body.ResetCounters()
		in.Body.IsRight = true
		in.Body.Value = abi.InMsgBody{SumType: abi.UnknownMsgOp, Value: body}
	}
	return sendMessageOf(m)
}

func sendMessageOf(m abi.MessageRelaxed) abi.MultisigSendMessageAction {
	var a abi.MultisigSendMessageAction
	a.SumType = "SendMessage"
	a.SendMessage.Field0 = abi.SendMessageAction{Mode: orderMode, Message: m}
	return a
}

// orderOf serializes an abi.MultisigOrder of the actions, keys 0, 1, ...
func orderOf(t *testing.T, acts ...abi.MultisigSendMessageAction) []byte {
	t.Helper()
	keys := make([]tlb.Uint8, len(acts))
	vals := make([]tlb.Ref[abi.MultisigSendMessageAction], len(acts))
	for i, a := range acts {
		keys[i], vals[i] = tlb.Uint8(i), tlb.Ref[abi.MultisigSendMessageAction]{Value: a}
	}
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, abi.MultisigOrder{Field0: tlb.NewHashmap(keys, vals)}))
	b, err := c.ToBoc()
	require.NoError(t, err)
	return b
}

// actionsOf parses an order of one send_message per body and checks what
// every such action shares: parsed, no error, destination, value, mode,
// body_raw (the body, as toncenter writes BOCs), toncenter's JSON shape.
func actionsOf(t *testing.T, bodies []*boc.Cell, seen map[string]bool) []OrderAction {
	t.Helper()
	var acts []abi.MultisigSendMessageAction
	for i, b := range bodies {
		acts = append(acts, sendMessage(b, uint64(1000+i)))
	}
	out, err := OrderActions(orderOf(t, acts...))
	require.NoError(t, err)
	require.Len(t, out, len(bodies))
	for i, a := range out {
		require.True(t, a.Parsed)
		require.Nil(t, a.Error)
		require.Equal(t, chain.RawAddress(orderDest), *a.Destination)
		require.Equal(t, fmt.Sprint(1000+i), *a.Value)
		require.Equal(t, orderMode, a.SendMode)
		checkBOC(t, a.BodyRaw, bodies[i])
		checkShape(t, a, seen)
		require.Equal(t, chain.RawAddress(orderDest), a.Addresses()[0])
	}
	return out
}

// bodyOf is op followed by v as tongo writes it.
func bodyOf(t *testing.T, op uint32, v any) *boc.Cell {
	t.Helper()
	c := boc.NewCell()
	require.NoError(t, c.WriteUint(uint64(op), 32))
	require.NoError(t, tlb.Marshal(c, v))
	return c
}

// requireUnknown: the body failed toncenter's decoder: shown whole, op 0.
func requireUnknown(t *testing.T, a OrderAction, body *boc.Cell) {
	t.Helper()
	u, ok := a.ParsedBody.(*UnknownMessage)
	require.True(t, ok, "%T", a.ParsedBody)
	require.Zero(t, u.Opcode)
	require.Equal(t, a.BodyRaw, u.Data)
	require.Equal(t, hashOf(t, body), hashOf(t, cellOf(t, u.Data)))
}

func cells(t *testing.T, bocs [][]byte) []*boc.Cell {
	var out []*boc.Cell
	for _, b := range bocs {
		out = append(out, cellOf(t, b))
	}
	return out
}

func TestOrderActionsOfTongoNewOrder(t *testing.T) {
	_, newOrder := contractfixture.TongoNewOrder(t)
	msgs := newOrder.Order.Field0.Values()
	require.Len(t, msgs, 1)
	send := msgs[0].Value.SendMessage.Field0
	in := send.Message.MessageInternal
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, newOrder.Order))
	order, err := c.ToBoc()
	require.NoError(t, err)

	out, err := OrderActions(order)
	require.NoError(t, err)
	require.Len(t, out, 1)
	a := out[0]
	checkShape(t, a, nil)
	dest := wantRaw(t, in.Dest)
	require.Equal(t, dest, *a.Destination)
	require.Equal(t, fmt.Sprint(uint64(in.Value.Grams)), *a.Value)
	require.Equal(t, "100000000", *a.Value)
	require.Equal(t, send.Mode, a.SendMode)
	require.Equal(t, uint8(1), a.SendMode)
	require.True(t, a.Parsed)
	require.Equal(t, abi.EmptyMsgOp, in.Body.Value.SumType, "the order's message has no body")
	// No body is the empty cell (tonutils reads Either as a cell of the
	// rest) and a plain transfer without comment.
	empty, err := boc.NewCell().ToBocCustom(false, true, false, 0)
	require.NoError(t, err)
	require.Equal(t, empty, a.BodyRaw)
	require.Equal(t, &TonTransferMessage{}, a.ParsedBody)
	require.Equal(t, "ton_transfer", a.ParsedBodyType)
	require.Equal(t, []string{dest}, a.Addresses())
	raw, err := json.Marshal(a)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"destination":%q,"value":"100000000","body_raw":%q,"parsed":true,"error":null,
		"parsed_body":{"comment":"","encrypted":false},"parsed_body_type":"ton_transfer","send_mode":1}`,
		dest, base64.StdEncoding.EncodeToString(empty)), string(raw))
}

// TestOrderActionsBodies: every body type toncenter parses, from real
// bodies of the fixture traces where they have them, else built with
// tongo; each result against tongo's own decoding of the same body.
func TestOrderActionsBodies(t *testing.T) {
	seen := map[string]bool{}
	bodies := traceBodies(t)
	fixture := func(t *testing.T, op int64) []*boc.Cell {
		got := cells(t, bodies[op])
		require.NotEmpty(t, got, "no fixture body of op %#x", op)
		for _, c := range got {
			if op >= 0 {
				v, err := c.PickUint(32)
				require.NoError(t, err)
				require.Equal(t, uint64(op), v)
			}
		}
		return got
	}

	t.Run("jetton_transfer", func(t *testing.T) {
		in := fixture(t, 0x0f8a7ea5)
		kinds := map[string]int{}
		for i, a := range actionsOf(t, in, seen) {
			body := in[i]
			body.ResetCounters()
			_, name, v, err := abi.InternalMessageDecoder(body, nil)
			require.NoError(t, err)
			require.Equal(t, abi.JettonTransferMsgOp, *name)
			want := v.(abi.JettonTransferMsgBody)
			got := a.ParsedBody.(*JettonTransferBody)
			require.Equal(t, want.QueryId, got.QueryID)
			require.Equal(t, decimal(want.Amount), got.Amount)
			require.Equal(t, wantRaw(t, want.Destination), got.Destination)
			require.Equal(t, wantRaw(t, want.ResponseDestination), got.Response)
			require.Equal(t, decimal(want.ForwardTonAmount), got.ForwardAmount)
			require.Equal(t, want.CustomPayload == nil, got.CustomPayload == nil)
			if want.CustomPayload != nil {
				cp := boc.Cell(*want.CustomPayload)
				checkBOC(t, got.CustomPayload, &cp)
			}
			// The forward payload: the ref itself, or the rest of the body
			// (which tongo reads back as the same payload).
			fp := cellOf(t, got.ForwardPayload)
			if want.ForwardPayload.IsRight {
				refs := body.Refs()
				checkBOC(t, got.ForwardPayload, refs[len(refs)-1])
			}
			var again abi.JettonPayload
			require.NoError(t, tlb.Unmarshal(fp, &again))
			j1, _ := json.Marshal(want.ForwardPayload.Value)
			j2, _ := json.Marshal(again)
			require.JSONEq(t, string(j1), string(j2))
			p := want.ForwardPayload.Value
			wantKind := "Unknown"
			switch {
			case fp.BitSize() == 0:
				wantKind = ""
			case p.OpCode == nil:
			case *p.OpCode == 0:
				wantKind = "TextComment"
			case *p.OpCode == 0x2167da4b:
				wantKind = "EncryptedTextComment"
			case *p.OpCode == 0x25938561:
				wantKind = "StonfiSwap"
			}
			require.Equal(t, wantKind, got.PayloadSumType)
			kinds[wantKind]++
			addrs := []string{chain.RawAddress(orderDest)}
			addrs = append(addrs, got.Destination, got.Response)
			switch p.SumType {
			case abi.TextCommentJettonOp:
				require.Equal(t, string(p.Value.(abi.TextCommentJettonPayload).Text), got.Comment)
			case abi.StonfiSwapJettonOp:
				s := p.Value.(abi.StonfiSwapJettonPayload)
				min := new(big.Rat).SetFrac(new(big.Int).Set((*big.Int)(&s.MinOut)), big.NewInt(1e9)).FloatString(9)
				min = strings.TrimRight(strings.TrimRight(min, "0"), ".")
				require.Equal(t, &StonfiSwap{JettonWallet: wantRaw(t, s.TokenWallet), MinAmount: min,
					UserAddress: wantRaw(t, s.ToAddress)}, got.StonfiSwapBody)
				addrs = append(addrs, got.StonfiSwapBody.JettonWallet, got.StonfiSwapBody.UserAddress)
			default:
				require.Nil(t, got.StonfiSwapBody)
			}
			require.False(t, got.EncryptedComment)
			require.ElementsMatch(t, dedup(addrs), a.Addresses())
		}
		t.Logf("forward payloads: %v", kinds)
		for _, k := range []string{"", "TextComment", "StonfiSwap", "Unknown"} {
			require.NotZero(t, kinds[k], "fixtures have a %q payload", k)
		}
	})

	t.Run("jetton_burn", func(t *testing.T) {
		in := fixture(t, 0x595f07bc)
		for i, a := range actionsOf(t, in, seen) {
			var want struct {
				Magic tlb.Magic `tlb:"#595f07bc"`
				Body  abi.JettonBurnMsgBody
			}
			in[i].ResetCounters()
			require.NoError(t, tlb.Unmarshal(in[i], &want))
			require.Equal(t, &JettonBurnBody{QueryID: want.Body.QueryId, Amount: decimal(want.Body.Amount),
				ResponseDestination: wantRaw(t, want.Body.ResponseDestination)}, a.ParsedBody)
			require.ElementsMatch(t, dedup([]string{*a.Destination, wantRaw(t, want.Body.ResponseDestination)}), a.Addresses())
		}
	})

	t.Run("jetton_mint", func(t *testing.T) {
		in := fixture(t, 0x642b7d07)
		parsed := 0
		for i, a := range actionsOf(t, in, seen) {
			master := in[i].Refs()[0]
			master.ResetCounters()
			_, name, v, err := abi.InternalMessageDecoder(master, nil)
			if err != nil || name == nil || *name != abi.JettonInternalTransferMsgOp {
				requireUnknown(t, a, in[i]) // its master message is no internal_transfer
				continue
			}
			var want struct {
				Magic tlb.Magic `tlb:"#642b7d07"`
				Body  abi.JettonMintMsgBody
			}
			in[i].ResetCounters()
			require.NoError(t, tlb.Unmarshal(in[i], &want))
			parsed++
			it := v.(abi.JettonInternalTransferMsgBody)
			to := wantRaw(t, want.Body.ToAddress)
			require.Equal(t, &JettonMinterBody{Opcode: 0x642b7d07, QueryID: want.Body.QueryId, ToAddress: to,
				TonAmount: fmt.Sprint(uint64(want.Body.TonAmount)), MasterMsgQueryID: it.QueryId,
				MasterMsgJettonAmount: decimal(it.Amount)}, a.ParsedBody)
			require.ElementsMatch(t, dedup([]string{*a.Destination, to}), a.Addresses())
		}
		require.NotZero(t, parsed)
	})

	// toncenter's mint decoder insists on op 0x642b7d07, so a mint of op
	// 0x15 is always shown as an unknown body of op 0.
	t.Run("jetton_mint_0x15", func(t *testing.T) {
		in := fixture(t, 0x15)
		for i, a := range actionsOf(t, in, seen) {
			requireUnknown(t, a, in[i])
		}
	})

	t.Run("nft_transfer", func(t *testing.T) {
		in := fixture(t, 0x5fcc3d14)
		for i, a := range actionsOf(t, in, seen) {
			in[i].ResetCounters()
			_, name, v, err := abi.InternalMessageDecoder(in[i], nil)
			require.NoError(t, err)
			require.Equal(t, abi.NftTransferMsgOp, *name)
			want := v.(abi.NftTransferMsgBody)
			got := a.ParsedBody.(*NFTTransferBody)
			require.Equal(t, want.QueryId, got.QueryID)
			require.Equal(t, wantRaw(t, want.NewOwner), got.NewOwner)
			require.Equal(t, wantRaw(t, want.ResponseDestination), got.ResponseDestination)
			require.Equal(t, decimal(want.ForwardAmount), got.ForwardAmount)
			require.Equal(t, want.CustomPayload == nil, got.CustomPayload == nil)
			var again abi.NFTPayload
			require.NoError(t, tlb.Unmarshal(cellOf(t, got.ForwardPayload), &again))
			j1, _ := json.Marshal(want.ForwardPayload.Value)
			j2, _ := json.Marshal(again)
			require.JSONEq(t, string(j1), string(j2))
			require.ElementsMatch(t, dedup([]string{*a.Destination, got.NewOwner, got.ResponseDestination}), a.Addresses())
		}
	})

	// A text comment is its text (toncenter's has the op code's four zero
	// bytes first: docs/API-NOTES.md).
	t.Run("text_comment", func(t *testing.T) {
		in := fixture(t, 0)
		for i, a := range actionsOf(t, in, seen) {
			in[i].ResetCounters()
			_, name, v, err := abi.InternalMessageDecoder(in[i], nil)
			require.NoError(t, err)
			require.Equal(t, abi.TextCommentMsgOp, *name)
			text := string(v.(abi.TextCommentMsgBody).Text)
			require.Equal(t, &TonTransferMessage{Comment: text}, a.ParsedBody)
		}
	})

	t.Run("empty_body", func(t *testing.T) {
		in := fixture(t, -1)
		for i, a := range actionsOf(t, in, seen) {
			require.Less(t, in[i].BitSize(), 32)
			require.Equal(t, "ton_transfer", a.ParsedBodyType)
		}
	})

	// 0x75097f5d is decoded as a vesting internal_transfer; the fixture
	// bodies of that op are multisig executes, whose ref is an order, not
	// a message: toncenter then shows the body whole.
	t.Run("vesting_op_fixture", func(t *testing.T) {
		in := fixture(t, 0x75097f5d)
		for i, a := range actionsOf(t, in, seen) {
			var m tlb.Message
			require.Error(t, tlb.Unmarshal(in[i].Refs()[0], &m), "the ref is no message")
			requireUnknown(t, a, in[i])
		}
	})

	t.Run("unknown_ops", func(t *testing.T) {
		known := map[int64]bool{-1: true, 0: true, 0x0f8a7ea5: true, 0x595f07bc: true, 0x15: true, 0x642b7d07: true,
			0x5fcc3d14: true, 0x2167da4b: true, 0x9fd3: true, 0x6501f354: true, 0xfb88e119: true, 0xcb862902: true,
			0x235caf52: true, 0xeed236d3: true, 0x1000: true, 0x1001: true, 0x75097f5d: true}
		var ops []int64
		for op := range bodies {
			if !known[op] {
				ops = append(ops, op)
			}
		}
		sort.Slice(ops, func(i, j int) bool { return ops[i] < ops[j] })
		require.Greater(t, len(ops), 10)
		var in []*boc.Cell
		for _, op := range ops[:40] {
			in = append(in, fixture(t, op)[0])
		}
		for i, a := range actionsOf(t, in, seen) {
			u := a.ParsedBody.(*UnknownMessage)
			require.Equal(t, uint32(ops[i]), u.Opcode)
			require.Equal(t, a.BodyRaw, u.Data)
			require.Equal(t, []string{*a.Destination}, a.Addresses())
		}
	})

	t.Run("built", func(t *testing.T) { builtBodies(t, seen) })
	t.Run("multisig_update_params", func(t *testing.T) { updateParams(t, seen) })

	for typ := range orderBodyFields {
		require.True(t, seen[typ], "no test produced %s", typ)
	}
}

// dedup is in without repeats and without addresses that name no account
// (addr_none, written "0:"): what Addresses gives for the address book.
func dedup(in []string) []string {
	var out []string
	for _, s := range in {
		if id, err := ton.ParseAccountID(s); err == nil && chain.RawAddress(id) == s && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// snakeOf is op and data as wallets write comments: whole bytes per cell,
// the rest in a chain of refs. (tongo's tlb.Bytes fills each cell to its
// last bit, which toncenter's reader, byte per cell, does not undo.)
func snakeOf(t *testing.T, op uint32, data []byte) *boc.Cell {
	t.Helper()
	root := boc.NewCell()
	require.NoError(t, root.WriteUint(uint64(op), 32))
	c, n := root, 123
	for {
		if n > len(data) {
			n = len(data)
		}
		require.NoError(t, c.WriteBytes(data[:n]))
		if data = data[n:]; len(data) == 0 {
			return root
		}
		next := boc.NewCell()
		require.NoError(t, c.AddRef(next))
		c, n = next, 127
	}
}

// builtBodies: body types the fixtures lack, built with tongo's types.
func builtBodies(t *testing.T, seen map[string]bool) {
	other := ton.MustParseAccountID("-1:" + strings.Repeat("3C", 32))
	otherRaw := chain.RawAddress(other)
	cipher := bytes.Repeat([]byte{0xff, 0x00, 0x81, 'a'}, 60) // 240 bytes: snake over two cells

	encrypted := snakeOf(t, 0x2167da4b, cipher)
	var encJetton abi.JettonTransferMsgBody
	encJetton.QueryId, encJetton.Destination, encJetton.ResponseDestination = 7, other.ToMsgAddress(), tlb.MsgAddress{SumType: "AddrNone"}
	encJetton.Amount = tlb.VarUInteger16(*big.NewInt(5))
	encJetton.ForwardPayload.IsRight = true
	encJetton.ForwardPayload.Value = abi.JettonPayload{SumType: abi.UnknownJettonOp, Value: snakeOf(t, 0x2167da4b, cipher)}
	jettonEnc := bodyOf(t, 0x0f8a7ea5, encJetton)
	changeAdmin := bodyOf(t, 0x6501f354, abi.JettonChangeAdminMsgBody{QueryId: 11, NewAdminAddress: other.ToMsgAddress()})
	claimAdmin := bodyOf(t, 0xfb88e119, abi.JettonClaimAdminMsgBody{QueryId: 12})
	url, urlTail := boc.NewCell(), boc.NewCell() // a snake string of two cells
	require.NoError(t, url.WriteBytes([]byte("https://example.org/")))
	require.NoError(t, urlTail.WriteBytes([]byte("jetton.json")))
	require.NoError(t, url.AddRef(urlTail))
	changeContent := bodyOf(t, 0xcb862902, abi.JettonChangeMetadataMsgBody{QueryId: 13, Metadata: tlb.Any(*url)})
	var force abi.JettonForceAction
	force.SumType = "SetStatus"
	force.SetStatus.QueryId, force.SetStatus.Status = 14, 2
	callTo := bodyOf(t, 0x235caf52, abi.JettonCallToMsgBody{QueryId: 15, ToAddress: other.ToMsgAddress(),
		TonAmount: 42, MasterMsg: force})
	// The stablecoin's status is 4 bits; toncenter reads 8, so a real
	// set_status fails and is shown whole. One with 8 bits to read:
	setStatus4 := bodyOf(t, 0xeed236d3, abi.JettonSetStatusMsgBody{QueryId: 16, Status: 1})
	setStatus8 := bodyOf(t, 0xeed236d3, struct {
		QueryID uint64
		Status  uint8
	}{17, 0x12})
	topUp := bodyOf(t, 0x00009fd3, uint64(18))
	withdraw := bodyOf(t, 0x00001000, struct {
		QueryID uint64
		Coins   tlb.VarUInteger16
	}{19, tlb.VarUInteger16(*new(big.Int).Lsh(big.NewInt(1), 70))})
	validator := bodyOf(t, 0x00001001, struct {
		QueryID   uint64
		Validator tlb.MsgAddress
	}{20, other.ToMsgAddress()})
	// A vesting internal_transfer wrapping an internal message with a
	// comment, and one wrapping an external out message.
	zero := uint32(0)
	inner := abi.MessageRelaxed{SumType: "MessageInternal"}
	inner.MessageInternal.Src, inner.MessageInternal.Dest = tlb.MsgAddress{SumType: "AddrNone"}, other.ToMsgAddress()
	inner.MessageInternal.Value.Grams = 777
	inner.MessageInternal.Body.IsRight = true
	inner.MessageInternal.Body.Value = abi.InMsgBody{SumType: abi.TextCommentMsgOp, OpCode: &zero,
		Value: abi.TextCommentMsgBody{Text: "vested"}}
	type vestingBody struct {
		QueryID  uint64
		SendMode uint8
		Msg      abi.MessageRelaxed `tlb:"^"`
	}
	vesting := bodyOf(t, 0x75097f5d, vestingBody{21, 3, inner})
	innerBody := bodyOf(t, 0, abi.TextCommentMsgBody{Text: "vested"})
	vestingExt := bodyOf(t, 0x75097f5d, struct {
		QueryID  uint64
		SendMode uint8
		Msg      extOutMessage `tlb:"^"`
	}{22, 1, extOutMessage{Src: other.ToMsgAddress(), Dest: tlb.MsgAddress{SumType: "AddrNone"}}})
	// A jetton transfer cut after its amount fails and is shown whole.
	cut := bodyOf(t, 0x0f8a7ea5, struct {
		QueryID uint64
		Amount  tlb.VarUInteger16
	}{23, tlb.VarUInteger16(*big.NewInt(9))})

	in := []*boc.Cell{encrypted, jettonEnc, changeAdmin, claimAdmin, changeContent, callTo, setStatus4, setStatus8,
		topUp, withdraw, validator, vesting, vestingExt, cut}
	out := actionsOf(t, in, seen)
	body := func(i int) ParsedBody { return out[i].ParsedBody }

	require.Equal(t, &TonTransferMessage{Comment: string(cipher), Encrypted: true}, body(0))
	jt := body(1).(*JettonTransferBody)
	require.Equal(t, "EncryptedTextComment", jt.PayloadSumType)
	require.True(t, jt.EncryptedComment)
	require.Equal(t, string(cipher), jt.Comment)
	require.Equal(t, []string{chain.RawAddress(orderDest), otherRaw}, out[1].Addresses(), "addr_none left out")
	require.Equal(t, &JettonChangeAdminBody{QueryID: 11, NewAdminAddr: otherRaw}, body(2))
	require.Equal(t, &JettonClaimAdminBody{QueryID: 12}, body(3))
	require.Equal(t, &JettonChangeContentBody{QueryID: 13, NewMetadataUrl: "https://example.org/jetton.json"}, body(4))
	ct := body(5).(*JettonCallToBody)
	require.Equal(t, uint64(15), ct.QueryID)
	require.Equal(t, otherRaw, ct.ToAddress)
	require.Equal(t, "42", ct.TonAmount)
	require.Equal(t, "JettonSetStatus", ct.ActionType)
	callTo.ResetCounters()
	checkBOC(t, ct.ActionData, callTo.Refs()[0])
	requireUnknown(t, out[6], setStatus4)
	require.Equal(t, &JettonSetStatusBody{QueryID: 17, NewStatus: 0x12}, body(7))
	require.Equal(t, &JettonTopUpBody{QueryID: 18}, body(8))
	require.Equal(t, &SingleNominatorWithdrawBody{QueryID: 19, Coins: new(big.Int).Lsh(big.NewInt(1), 70).String()}, body(9))
	require.Equal(t, &SingleNominatorChangeValidatorBody{QueryID: 20, ValidatorAddress: otherRaw}, body(10))
	v := body(11).(*VestingInternalTransferBody)
	require.Equal(t, uint64(21), v.QueryID)
	require.Equal(t, uint8(3), v.SendMode)
	require.Equal(t, otherRaw, *v.Destination)
	require.Equal(t, "777", *v.Value)
	require.Equal(t, "vested", v.Comment)
	checkBOC(t, v.MessageBody, innerBody)
	require.Equal(t, []string{chain.RawAddress(orderDest), otherRaw}, out[11].Addresses())
	require.Equal(t, &VestingInternalTransferBody{QueryID: 22, SendMode: 1}, body(12))
	requireUnknown(t, out[13], cut)
	for _, i := range []int{2, 5, 10} {
		require.Equal(t, []string{chain.RawAddress(orderDest), otherRaw}, out[i].Addresses())
	}

	// An external out message (abi.MessageRelaxed cannot write one without
	// a body): value 0, the destination's bits as hex.
	bits := boc.NewBitString(12)
	require.NoError(t, bits.WriteUint(0xabc, 12))
	ext := boc.NewCell()
	require.NoError(t, tlb.Marshal(ext, struct {
		Magic tlb.Magic `tlb:"#f1381e5b"`
		Mode  uint8
		Msg   extOutMessage `tlb:"^"`
	}{Mode: orderMode, Msg: extOutMessage{Src: other.ToMsgAddress(),
		Dest: tlb.MsgAddress{SumType: "AddrExtern", AddrExtern: &bits}}}))
	got, err := OrderActions(rawOrder(t, refTo(t, ext)))
	require.NoError(t, err)
	require.Len(t, got, 1)
	checkShape(t, got[0], seen)
	require.Equal(t, "0:"+strings.ToUpper(hex.EncodeToString([]byte{0xab, 0xc0})), *got[0].Destination)
	require.Equal(t, "0", *got[0].Value)
	require.Equal(t, "ton_transfer", got[0].ParsedBodyType)
}

// extOutMessage is an ext_out_msg_info message with no StateInit and an
// empty body.
type extOutMessage struct {
	Magic              tlb.Magic `tlb:"$11"`
	Src, Dest          tlb.MsgAddress
	CreatedLt          uint64
	CreatedAt          uint32
	HasInit, BodyInRef bool
}

// updateParams: an update_multisig_param action with the signers of
// tongo's mainnet multisig, with and without proposers.
func updateParams(t *testing.T, seen map[string]bool) {
	ms := contractfixture.ReadTongoMultisig(t)
	var keys []tlb.Uint8
	var addrs []tlb.MsgAddress
	for i, s := range ms.Signers {
		id, err := ton.ParseAccountID(s)
		require.NoError(t, err)
		keys, addrs = append(keys, tlb.Uint8(i)), append(addrs, id.ToMsgAddress())
	}
	update := func(proposers int) abi.MultisigSendMessageAction {
		var a abi.MultisigSendMessageAction
		a.SumType = "UpdateMultisigParam"
		a.UpdateMultisigParam.Threshold = uint8(ms.Threshold)
		a.UpdateMultisigParam.Signers = tlb.NewHashmap(keys, addrs)
		a.UpdateMultisigParam.Proposers = tlb.NewHashmapE(keys[:proposers], addrs[len(addrs)-proposers:])
		return a
	}
	out, err := OrderActions(orderOf(t, update(1), update(0)))
	require.NoError(t, err)
	require.Len(t, out, 2)
	for i, a := range out {
		checkShape(t, a, seen)
		want := OrderAction{Parsed: true, ParsedBodyType: "multisig_update_params",
			ParsedBody: &MultisigUpdateParamsBody{NewThreshold: uint8(ms.Threshold), NewSigners: ms.Signers}}
		if i == 0 {
			last := ms.Signers[len(ms.Signers)-1]
			want.ParsedBody.(*MultisigUpdateParamsBody).NewProposers = []string{last}
		}
		require.Equal(t, want, a)
		require.Equal(t, dedup(append(append([]string{}, ms.Signers...), ms.Signers[len(ms.Signers)-1:]...)), out[0].Addresses())
	}
	raw, err := json.Marshal(out[1])
	require.NoError(t, err)
	require.Contains(t, string(raw), `"destination":null,"value":null,"body_raw":null,"parsed":true,"error":null`)
	require.Contains(t, string(raw), `"new_proposers":null},"parsed_body_type":"multisig_update_params","send_mode":0}`)
}

// rawOrder is an order whose values are the given cells (a value with no
// ref is no action at all).
func rawOrder(t *testing.T, values ...*boc.Cell) []byte {
	t.Helper()
	var keys []tlb.Uint8
	var vals []tlb.Any
	for i, v := range values {
		keys, vals = append(keys, tlb.Uint8(i)), append(vals, tlb.Any(*v))
	}
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, tlb.NewHashmap(keys, vals)))
	b, err := c.ToBoc()
	require.NoError(t, err)
	return b
}

func refTo(t *testing.T, c *boc.Cell) *boc.Cell {
	t.Helper()
	v := boc.NewCell()
	require.NoError(t, v.AddRef(c))
	return v
}

// TestOrderActionsBadInput: malformed orders are errors, malformed actions
// are actions with their error, never a panic.
func TestOrderActionsBadInput(t *testing.T) {
	actions, err := OrderActions(nil)
	require.NoError(t, err)
	require.Nil(t, actions)
	for _, bad := range [][]byte{[]byte("not a boc"), {0xb5, 0xee, 0x9c, 0x72}} {
		_, err := OrderActions(bad)
		require.Error(t, err)
	}
	empty, err := boc.NewCell().ToBoc()
	require.NoError(t, err)
	_, err = OrderActions(empty)
	require.Error(t, err, "an empty cell is no dictionary")

	good := boc.NewCell()
	require.NoError(t, tlb.Marshal(good, sendMessage(nil, 5)))
	unknown := boc.NewCell()
	require.NoError(t, unknown.WriteUint(0x12345678, 32))
	short := boc.NewCell()
	require.NoError(t, short.WriteUint(0xf1, 8))
	truncated := boc.NewCell() // send_message whose message cell is one bit
	require.NoError(t, truncated.WriteUint(0xf1381e5b, 32))
	require.NoError(t, truncated.WriteUint(1, 8))
	oneBit := boc.NewCell()
	require.NoError(t, oneBit.WriteBit(false))
	require.NoError(t, truncated.AddRef(oneBit))
	noRef := boc.NewCell()
	require.NoError(t, noRef.WriteUint(1, 8))
	out, err := OrderActions(rawOrder(t, refTo(t, good), refTo(t, unknown), refTo(t, short), refTo(t, truncated), noRef))
	require.NoError(t, err)
	require.Len(t, out, 5)
	require.True(t, out[0].Parsed)
	require.Equal(t, "5", *out[0].Value)
	wantErr := []string{"", "failed to parse order action: unknown order action type: 305419896",
		"failed to parse order action: unknown order action type: 0",
		"failed to parse order action: failed to load order action from cell: ",
		"failed to parse order action: failed to load ref cell: "}
	for i, a := range out[1:] {
		checkShape(t, a, nil)
		require.Equal(t, OrderAction{ParsedBodyType: "unknown", Error: a.Error}, a)
		require.True(t, strings.HasPrefix(*a.Error, wantErr[i+1]), *a.Error)
		require.Empty(t, a.Addresses())
	}
	raw, err := json.Marshal(out[1])
	require.NoError(t, err)
	require.JSONEq(t, `{"destination":null,"value":null,"body_raw":null,"parsed":false,
		"error":"failed to parse order action: unknown order action type: 305419896",
		"parsed_body":null,"parsed_body_type":"unknown","send_mode":0}`, string(raw))

	// Every cut and every changed byte of a real order (written without
	// CRC, so the change reaches the cells) is an error or actions.
	_, newOrder := contractfixture.TongoNewOrder(t)
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, newOrder.Order))
	order, err := c.ToBocCustom(false, false, false, 0)
	require.NoError(t, err)
	for i := 1; i < len(order); i++ {
		_, _ = OrderActions(order[:i])
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := append([]byte(nil), order...)
			b[i] ^= x
			_, _ = OrderActions(b)
		}
	}
}
