package actions

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// TonTransfer: TON sent from one account to another, maybe with a comment.
type TonTransfer struct {
	Sender          Address         `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the coins"`
	Recipient       Address         `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"who received them"`
	Amount          BigInt          `json:"amount,omitempty" tc:"value" doc:"nanotons"`
	Comment         string          `json:"comment,omitempty" tc:"comment" doc:"the text comment, when the message carries one"`
	Encrypted       *bool           `json:"encrypted,omitempty" tc:"encrypted" doc:"true when the comment is encrypted (its text is then absent)"`
	ExtraCurrencies []ExtraCurrency `json:"extra_currencies,omitempty" tc:"value_extra_currencies" doc:"extra currencies sent beside TON"`
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
	Opcode          string          `json:"opcode,omitempty" tc:"opcode" doc:"op code of the message, 0x + 8 hex digits"`
	Amount          BigInt          `json:"amount,omitempty" tc:"value" doc:"nanotons attached to the call"`
	ExtraCurrencies []ExtraCurrency `json:"extra_currencies,omitempty" tc:"extra_currencies" doc:"extra currencies attached"`
}

// ContractDeploy: an account the trace made active.
type ContractDeploy struct {
	Address  Address `json:"address,omitempty" role:"contract" tc:"destination" doc:"the deployed account"`
	Deployer Address `json:"deployer,omitempty" role:"sender" tc:"source" doc:"who sent the deploying message"`
	Opcode   string  `json:"opcode,omitempty" tc:"opcode" doc:"op code of the deploying message, 0x + 8 hex digits, when it has one"`
	Amount   BigInt  `json:"amount,omitempty" tc:"value" doc:"nanotons the deploying message carried"`
}

func init() {
	declare(
		Type{Value: TonTransfer{}, Toncenter: "ton_transfer", Aliases: []string{"NativeTransfer"},
			Protocols: "any account", Doc: "TON sent with no op code, or with a (possibly encrypted) text comment.",
			Failed: "the recipient's transaction failed or bounced, or the wallet never sent the message"},
		Type{Value: SmartContractExec{}, Toncenter: "call_contract",
			Protocols: "any contract", Doc: "A message with an op code that no other type explains.",
			Failed: "the called contract failed"},
		Type{Value: ContractDeploy{}, Toncenter: "contract_deploy",
			Protocols: "any contract", Doc: "An account the trace brought from nonexist or uninit to active, beside whatever action its message was part of.",
			Failed: "never"},
	)
	addMatcher(OrderFallback+50, "TonTransfer", matchTonTransfer)
	addMatcher(OrderFallback+90, "SmartContractExec", matchContractExec)
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
	d := newDraft(newTonTransfer(m.Source, m.Destination, m.Value, m.Body, n.hasOp, n.op), m.Hash, n).withInitiator(n)
	d.value.(*TonTransfer).ExtraCurrencies = extraCurrencies(m.ExtraCurrencies)
	d.ok = n.ok()
	c.add(d)
	return true
}

func newTonTransfer(from, to string, value uint64, body []byte, hasOp bool, op uint32) *TonTransfer {
	v := &TonTransfer{Sender: Address(from), Recipient: Address(to), Amount: nano(value),
		Encrypted: flag(hasOp && op == uint32(abi.EncryptedTextCommentMsgOpCode))}
	if hasOp && op == uint32(abi.TextCommentMsgOpCode) {
		if text, ok := commentOf(body); ok {
			v.Comment = text
		}
	}
	return v
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

func commentOf(body []byte) (string, bool) {
	var v struct {
		Op   uint32
		Text tlb.Text
	}
	if !decodePrefix(body, &v) {
		return "", false
	}
	return string(v.Text), true
}

// matchContractExec: any other call that no pattern explained.
func matchContractExec(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced || !n.hasOp || n.op == uint32(abi.ExcessMsgOpCode) {
		return false
	}
	d := newDraft(&SmartContractExec{Sender: Address(m.Source), Contract: Address(m.Destination),
		Opcode: opcodeString(n.op), Amount: nano(m.Value), ExtraCurrencies: extraCurrencies(m.ExtraCurrencies)},
		m.Hash, n).withInitiator(n)
	d.ok = n.ok()
	c.add(d)
	return true
}

// matchDeploys adds a ContractDeploy for every account the trace brought
// to life, beside whatever action its message was part of.
func matchDeploys(c *classifier) {
	for _, n := range c.nodes {
		tx := n.tx
		if tx.EndStatus != chain.AccountActive || (tx.OrigStatus != chain.AccountUninit && tx.OrigStatus != chain.AccountNonexist) {
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
				v.Opcode = opcodeString(*m.Opcode)
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
func decodePrefix(body []byte, v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return false
	}
	return unmarshalCell(cells[0], v)
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
	c.ResetCounters()
	return tlb.Unmarshal(c, v) == nil
}
