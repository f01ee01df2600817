package actions

import (
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// TonTransfer: TON sent from one account to another, maybe with a comment.
type TonTransfer struct {
	Sender           Address         `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the coins"`
	Recipient        Address         `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"who received them"`
	Amount           BigInt          `json:"amount,omitempty" tc:"value" doc:"nanotons"`
	Comment          Text            `json:"comment,omitempty" tc:"comment" doc:"the text comment, when the message carries one"`
	Encrypted        *bool           `json:"encrypted,omitempty" tc:"encrypted" doc:"true when the comment is encrypted (its text is then absent)"`
	ExtraCurrencies  []ExtraCurrency `json:"extra_currencies,omitempty" tc:"value_extra_currencies" doc:"extra currencies sent beside TON (a message that carries some is an ExtraCurrencyTransfer, with this transfer as its step; a wallet request that was never sent is a TonTransfer alone)"`
	EncryptedComment Text            `json:"encrypted_comment,omitempty" tc:"comment" doc:"the encrypted comment's bytes after the op code, base64, when the comment is encrypted"`
}

// ExtraCurrencyTransfer: a message that carries extra currencies (config
// 7), with or without an op code. Toncenter's API shows the ton_transfer
// or call_contract it would otherwise be under this type.
type ExtraCurrencyTransfer struct {
	Sender           Address         `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the currencies"`
	Recipient        Address         `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"who received them"`
	ExtraCurrencies  []ExtraCurrency `json:"extra_currencies,omitempty" tc:"extra_currencies" doc:"the extra currencies sent, by id"`
	Amount           BigInt          `json:"amount,omitempty" tc:"value" doc:"nanotons sent beside them"`
	Opcode           Text            `json:"opcode,omitempty" tc:"opcode" doc:"op code of the message, 0x + 8 hex digits, when it is a call rather than a plain transfer or comment"`
	Comment          Text            `json:"comment,omitempty" tc:"comment" doc:"the text comment, when the message carries one"`
	Encrypted        *bool           `json:"encrypted,omitempty" tc:"encrypted" doc:"for a plain transfer: true when the comment is encrypted"`
	EncryptedComment Text            `json:"encrypted_comment,omitempty" doc:"the encrypted comment's bytes after the op code, base64, when the comment is encrypted"`
}

// ExtraCurrency is an amount of one extra currency (config 7).
type ExtraCurrency struct {
	ID     uint32 `json:"id" doc:"currency id"`
	Amount BigInt `json:"amount" doc:"amount in the currency's smallest units"`
}

// SmartContractExec: a call of a contract with an op code that no other
// type explains (toncenter's call_contract).
type SmartContractExec struct {
	Sender          Address         `json:"sender,omitempty" role:"sender" tc:"source" doc:"the caller"`
	Contract        Address         `json:"contract,omitempty" role:"contract" tc:"destination" doc:"the called contract"`
	Opcode          Text            `json:"opcode,omitempty" tc:"opcode" doc:"op code of the message, 0x + 8 hex digits"`
	Amount          BigInt          `json:"amount,omitempty" tc:"value" doc:"nanotons attached to the call"`
	ExtraCurrencies []ExtraCurrency `json:"extra_currencies,omitempty" tc:"extra_currencies" doc:"extra currencies attached"`
}

// ContractDeploy: an account the trace made active.
type ContractDeploy struct {
	Address  Address `json:"address,omitempty" role:"contract" tc:"destination" doc:"the deployed account"`
	Deployer Address `json:"deployer,omitempty" role:"sender" tc:"source" doc:"who sent the deploying message"`
	Opcode   Text    `json:"opcode,omitempty" tc:"opcode" doc:"op code of the deploying message, 0x + 8 hex digits, when it has one"`
	Amount   BigInt  `json:"amount,omitempty" tc:"value" doc:"nanotons the deploying message carried"`
}

func init() {
	declare(
		Type{Value: TonTransfer{}, Title: "TON transfer", Describe: describeAs(func(v *TonTransfer, w *Words) string {
			return with("Sent "+w.TON(v.Amount)+" to "+w.Account(v.Recipient), w.comment(v.Comment, v.Encrypted))
		}),
			Toncenter: "ton_transfer", Aliases: []string{"NativeTransfer"},
			Protocols: "any account", Doc: "TON sent with no op code, or with a (possibly encrypted) text comment.",
			Failed: "as toncenter decides it: the recipient's transaction aborted and the message was bounceable; a non-bounceable one that aborted is failed too, unless the recipient stayed uninit or its compute phase was skipped for lack of gas; or the wallet never sent the message"},
		Type{Value: SmartContractExec{}, Title: "Contract call", Describe: describeAs(func(v *SmartContractExec, w *Words) string {
			s := "Called " + w.Account(v.Contract) + " with " + w.Opcode(v.Opcode) + " and " + w.TON(v.Amount)
			if len(v.ExtraCurrencies) > 0 {
				s += " and " + w.extraCurrencies(v.ExtraCurrencies)
			}
			return s
		}),
			Toncenter: "call_contract",
			Protocols: "any contract", Doc: "A message with an op code that no other type explains.",
			Failed:  "the called contract's transaction aborted, except (as toncenter decides it) a call that carried no value at all: nothing was lost",
			Differs: "a request a wallet was asked for but never sent (its action phase skipped it) is failed whatever its value; toncenter applies its zero-value exception there too"},
		Type{Value: ExtraCurrencyTransfer{}, Title: "Extra currency transfer", Describe: describeAs(func(v *ExtraCurrencyTransfer, w *Words) string {
			what := w.extraCurrencies(v.ExtraCurrencies)
			if v.Amount != "" && v.Amount != "0" {
				what += " and " + w.TON(v.Amount)
			}
			if v.Opcode != "" {
				return "Called " + w.Account(v.Recipient) + " with " + w.Opcode(v.Opcode) + " and " + what
			}
			return with("Sent "+what+" to "+w.Account(v.Recipient), w.comment(v.Comment, v.Encrypted))
		}),
			Toncenter: "extra_currency_transfer",
			Protocols: "any account", Doc: "A message that carries extra currencies: what would otherwise be a TonTransfer or a SmartContractExec (toncenter's API renames those the same way), which is its step: a client that does not support this type is shown the transfer or call, as toncenter's API shows it.",
			Failed: "for a plain transfer or comment, the TonTransfer rule; for a call, the called contract's transaction aborted"},
		Type{Value: ContractDeploy{}, Title: "Contract deployed", Describe: describeAs(func(v *ContractDeploy, w *Words) string {
			return with("Deployed contract "+w.Account(v.Address), if1(v.Amount != "", w.TON(v.Amount)))
		}),
			Toncenter: "contract_deploy",
			Protocols: "any contract", Doc: "An account the trace brought from nonexist or uninit to active, beside whatever action its message was part of.",
			Failed: "never"},
	)
	addMatcher(OrderFallback+50, "TonTransfer", matchTonTransfer)
	addMatcher(OrderFallback+90, "SmartContractExec", matchContractExec)
}

// tonTransferFailed is toncenter's status of a value transfer: the
// recipient's transaction aborted, and the message was bounceable (the
// coins came back) or, non-bounceable, neither left the recipient uninit
// (coins credited to an account with no code) nor was skipped for lack of
// gas (coins credited, nothing to run).
func tonTransferFailed(n *node) bool {
	tx := n.tx
	if !tx.Aborted && tx.Success() {
		return false
	}
	switch {
	case n.in().Bounce:
		return true
	case tx.EndStatus == chain.AccountUninit:
		return false
	case computeSkippedNoGas(tx):
		return false
	}
	return true
}

// callFailed is toncenter's status of a call: the called contract's
// transaction aborted, except when the message carried nothing (no TON, no
// extra currencies): a free call that fails costs the caller nothing.
func callFailed(n *node) bool {
	tx := n.tx
	if !tx.Aborted && tx.Success() {
		return false
	}
	m := n.in()
	return !(m.Value == 0 && n.hasOp && n.op != 0 && len(m.ExtraCurrencies) == 0)
}

// computeSkippedNoGas reports a compute phase skipped because the message
// could not buy gas. The raw transaction says why it was skipped; without
// it (toncenter's files), an account that was active had code to run, so
// its skip can only have been for gas.
func computeSkippedNoGas(tx *chain.Transaction) bool {
	if !tx.ComputeSkipped {
		return false
	}
	if len(tx.BOC) > 0 {
		if d, ok := txDescr(tx); ok {
			if d.SumType == "TransOrd" && d.TransOrd.ComputePh.SumType == "TrPhaseComputeSkipped" {
				return d.TransOrd.ComputePh.TrPhaseComputeSkipped.Reason == tlb.ComputeSkipReasonNoGas
			}
			return false
		}
	}
	return tx.OrigStatus == chain.AccountActive
}

// txDescr decodes the description of a transaction from its raw BOC.
func txDescr(tx *chain.Transaction) (d tlb.TransactionDescr, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	cells, err := boc.DeserializeBoc(tx.BOC)
	if err != nil || len(cells) != 1 {
		return d, false
	}
	var t tlb.Transaction
	if tlb.Unmarshal(cells[0], &t) != nil {
		return d, false
	}
	return t.Description, true
}

// matchTonTransfer: a message without op code, or with a (possibly
// encrypted) comment. Bounced replies and excesses are change returned to
// the caller of some other step, not actions of their own.
func matchTonTransfer(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced {
		return false
	}
	if n.hasOp && n.op != uint32(abi.TextCommentMsgOpCode) && n.op != uint32(abi.EncryptedTextCommentMsgOpCode) {
		return false
	}
	v := newTonTransfer(m.Source, m.Destination, m.Value, m.Body, n.hasOp, n.op)
	d := newDraft(v, m.Hash, n).withInitiator(n)
	d.ok = !tonTransferFailed(n)
	c.addExtraCurrencies(d, m, n, &v.ExtraCurrencies)
	return true
}

// addExtraCurrencies adds d, a TonTransfer or SmartContractExec of n's
// message m, or, when m carries extra currencies, the ExtraCurrencyTransfer
// with d (which lists them too) as its step: toncenter's API shows such a
// message under the newer type and, to a client that does not support it,
// as the transfer or call its classifier made of it.
func (c *classifier) addExtraCurrencies(d *draft, m *chain.Message, n *node, list *[]ExtraCurrency) {
	ec := extraCurrencies(m.ExtraCurrencies)
	if len(ec) == 0 {
		c.add(d)
		return
	}
	*list = ec
	e := newDraft(newExtraCurrencyTransfer(m, n.hasOp, n.op, ec), m.Hash, n).withInitiator(n)
	e.ok = d.ok
	c.addWithSteps(e, d)
}

func newTonTransfer(from, to string, value uint64, body []byte, hasOp bool, op uint32) *TonTransfer {
	v := &TonTransfer{Sender: Address(from), Recipient: Address(to), Amount: nano(value),
		Encrypted: flag(hasOp && op == uint32(abi.EncryptedTextCommentMsgOpCode))}
	if hasOp && op == uint32(abi.TextCommentMsgOpCode) {
		if text, ok := commentOf(body); ok {
			v.Comment = Text(text)
		}
	}
	if hasOp && op == uint32(abi.EncryptedTextCommentMsgOpCode) {
		v.EncryptedComment = Text(encryptedCommentOf(body))
	}
	return v
}

// newExtraCurrencyTransfer describes message m, which carries the extra
// currencies ec: a plain transfer (maybe a comment) or a call.
func newExtraCurrencyTransfer(m *chain.Message, hasOp bool, op uint32, ec []ExtraCurrency) *ExtraCurrencyTransfer {
	v := &ExtraCurrencyTransfer{Sender: Address(m.Source), Recipient: Address(m.Destination),
		ExtraCurrencies: ec, Amount: nano(m.Value)}
	if isTonTransferOp(hasOp, op) {
		t := newTonTransfer(m.Source, m.Destination, m.Value, m.Body, hasOp, op)
		v.Comment, v.Encrypted, v.EncryptedComment = t.Comment, t.Encrypted, t.EncryptedComment
	} else {
		v.Opcode = Text(opcodeString(op))
	}
	return v
}

// isTonTransferOp: no op code, a text comment or an encrypted comment.
func isTonTransferOp(hasOp bool, op uint32) bool {
	return !hasOp || op == uint32(abi.TextCommentMsgOpCode) || op == uint32(abi.EncryptedTextCommentMsgOpCode)
}

// extraCurrencies lists a message's extra currencies by id.
func extraCurrencies(m map[uint32]string) []ExtraCurrency {
	if len(m) == 0 {
		return nil
	}
	out := make([]ExtraCurrency, 0, len(m))
	for id, amount := range m {
		out = append(out, ExtraCurrency{ID: id, Amount: BigInt(amount)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// commentOf reads a text comment as toncenter does: bytes that are not
// UTF-8 are written as \xNN, NUL characters are dropped.
func commentOf(body []byte) (string, bool) {
	var v struct {
		Op   uint32
		Text tlb.Bytes
	}
	if !decodePrefix(body, &v) {
		return "", false
	}
	var b strings.Builder
	for rest := []byte(v.Text); len(rest) > 0; {
		r, size := utf8.DecodeRune(rest)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\x%02x", rest[0])
		case r != 0:
			b.WriteRune(r)
		}
		rest = rest[max(size, 1):]
	}
	return b.String(), true
}

// TextComment reads a payload (a BOC) that is a text comment (op 0), as
// toncenter writes one; ok false for anything else.
func TextComment(payload []byte) (text string, ok bool) {
	var v struct{ Op uint32 }
	if !decodePrefix(payload, &v) || v.Op != uint32(abi.TextCommentMsgOpCode) {
		return "", false
	}
	return commentOf(payload)
}

// encryptedCommentOf returns the bytes of an encrypted comment after its op
// code (a snake of cells), base64; "" when they are not whole bytes.
func encryptedCommentOf(body []byte) string {
	var v struct {
		Op   uint32
		Data tlb.Bytes
	}
	if !decodePrefix(body, &v) || len(v.Data) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(v.Data)
}

// matchContractExec: any other call that no pattern explained.
func matchContractExec(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced || !n.hasOp || n.op == uint32(abi.ExcessMsgOpCode) {
		return false
	}
	v := &SmartContractExec{Sender: Address(m.Source), Contract: Address(m.Destination),
		Opcode: Text(opcodeString(n.op)), Amount: nano(m.Value)}
	d := newDraft(v, m.Hash, n).withInitiator(n)
	d.ok = !callFailed(n)
	c.addExtraCurrencies(d, m, n, &v.ExtraCurrencies)
	return true
}

// matchDeploys adds a ContractDeploy for every account the trace brought
// to life, beside whatever action its message was part of.
func matchDeploys(c *classifier) {
	for _, n := range c.nodes {
		tx := n.tx
		if !isDeploy(tx) {
			continue
		}
		key := tx.Hash
		if tx.InMsg != nil {
			key = tx.InMsg.Hash
		}
		v := &ContractDeploy{Address: Address(tx.Account)}
		if m := tx.InMsg; m != nil {
			v.Deployer = Address(m.Source)
			if !m.IsExternalIn() {
				v.Amount = nano(m.Value)
			}
			if m.Opcode != nil {
				v.Opcode = Text(opcodeString(*m.Opcode))
			}
		}
		c.drafts = append(c.drafts, newDraft(v, key, n))
	}
}

// nano writes a coin amount (or any unsigned number) as a BigInt.
func nano(v uint64) BigInt { return BigInt(strconv.FormatUint(v, 10)) }

// flag is a known boolean fact.
func flag(b bool) *bool { return &b }

// opcodeString is how op codes are shown: 0x + 8 hex digits.
func opcodeString(op uint32) string { return fmt.Sprintf("0x%08x", op) }

// readQueryIDAddress reads op:uint32 query_id:uint64 addr:MsgAddress from
// the start of a body, the common prefix of many requests.
func readQueryIDAddress(body []byte) string {
	var v struct {
		Op      uint32
		QueryID uint64
		Addr    tlb.MsgAddress
	}
	if !decodePrefix(body, &v) {
		return ""
	}
	return addr(v.Addr)
}

// decodePrefix decodes the start of a body into v, ignoring what follows.
func decodePrefix(body []byte, v any) bool {
	return unmarshalCell(readBody(body), v)
}

// unmarshalCell decodes the start of a cell into v; bad input is "no",
// never a panic.
func unmarshalCell(c *boc.Cell, v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if c == nil {
		return false
	}
	resetCell(c)
	return tlb.Unmarshal(c, v) == nil
}

// resetCell rewinds every cursor of a cell tree, as boc's ResetCounters
// does, without its per-call map for the small trees of message bodies
// (matchers rewind the same bodies thousands of times a second). Shared
// cells are visited once, so a crafted DAG cannot make it exponential.
func resetCell(c *boc.Cell) {
	var stackBuf, seenBuf [128]*boc.Cell
	stack, seen := append(stackBuf[:0], c), seenBuf[:0]
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if slices.Contains(seen, x) {
			continue
		}
		if len(seen) == cap(seenBuf) {
			c.ResetCounters() // a big tree: the map is worth it
			return
		}
		seen = append(seen, x)
		x.ShallowResetCounters()
		for _, r := range x.Refs() {
			if r != nil {
				stack = append(stack, r)
			}
		}
	}
}
