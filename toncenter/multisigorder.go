package toncenter

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// The `actions` of /api/v3/multisig/orders?parse_actions=true as
// toncenter's ton-index-go gives them (the bodies: orderbodies.go).
// toncenter decodes with tonutils-go, so some of its results follow that
// library rather than the TL-B schemas; they are kept on purpose and each
// is marked "as toncenter" (the few differences: docs/API-NOTES.md).

// OrderAction is toncenter's OrderAction: one action of a multisig order.
// A send_message action has every field; an update_multisig_param action
// only parsed_body (destination, value and body_raw null, send_mode 0); an
// action that cannot be read has parsed false, error and
// parsed_body_type "unknown".
type OrderAction struct {
	Destination *string `json:"destination"`
	Value       *string `json:"value"` // nanotons, decimal
	// BodyRaw is the message body's BOC (bocOf); base64 in JSON.
	BodyRaw        []byte     `json:"body_raw"`
	Parsed         bool       `json:"parsed"`
	Error          *string    `json:"error"`
	ParsedBody     ParsedBody `json:"parsed_body"`
	ParsedBodyType string     `json:"parsed_body_type"`
	SendMode       uint8      `json:"send_mode"`
}

// OrderActions parses an order: orderBOC is the BOC of the order cell
// get_order_data answers (the root of a Hashmap 8 ^MultisigSendMessageAction,
// tongo's abi.MultisigOrder), its first root when it has several. Empty
// input has no actions. A BOC that is no dictionary is an error; an action
// that cannot be read is an action with its error, as toncenter.
func OrderActions(orderBOC []byte) (actions []OrderAction, err error) {
	if len(orderBOC) == 0 {
		return nil, nil
	}
	// tongo's BOC reader can panic on hostile bytes (a cut header does);
	// toncenter recovers at this boundary too.
	defer func() {
		if r := recover(); r != nil {
			actions, err = nil, fmt.Errorf("failed to parse order: %v", r)
		}
	}()
	roots, err := boc.DeserializeBoc(orderBOC)
	if err != nil {
		return nil, fmt.Errorf("failed to parse BOC: %w", err)
	}
	if len(roots) == 0 {
		return nil, errors.New("failed to parse BOC: no root")
	}
	if roots[0].IsExotic() {
		return nil, errors.New("failed to load dictionary: exotic root")
	}
	// Values stay raw cells so that one bad action does not fail the order
	// (abi.MultisigOrder would decode them all or nothing).
	var dict tlb.Hashmap[tlb.Uint8, tlb.Any]
	if err := tlb.Unmarshal(roots[0], &dict); err != nil {
		return nil, fmt.Errorf("failed to load dictionary: %w", err)
	}
	for _, v := range dict.Values() {
		c := boc.Cell(v)
		actions = append(actions, orderAction(&c))
	}
	return actions, nil
}

// orderAction reads one dictionary value (a ref to the action). A panic
// inside tongo while reading it fails that action only, as a decoding
// error does.
func orderAction(v *boc.Cell) (a OrderAction) {
	defer func() {
		if r := recover(); r != nil {
			a = failedAction(fmt.Errorf("%v", r))
		}
	}()
	a, err := readOrderAction(v)
	if err != nil {
		return failedAction(err)
	}
	return a
}

func failedAction(err error) OrderAction {
	msg := "failed to parse order action: " + err.Error()
	return OrderAction{Error: &msg, ParsedBodyType: "unknown"}
}

const (
	opSendMessage  = 0xf1381e5b
	opUpdateParams = 0x1d0cfbd3
)

func readOrderAction(v *boc.Cell) (OrderAction, error) {
	ref, err := v.NextRef()
	if err != nil {
		return OrderAction{}, fmt.Errorf("failed to load ref cell: %w", err)
	}
	ref.ResetCounters()
	tag, _ := ref.PickUint(32) // under 32 bits reads as type 0, as toncenter
	switch tag {
	case opSendMessage:
		var act struct {
			Magic   tlb.Magic `tlb:"#f1381e5b"`
			Mode    uint8
			Message relaxedMessage `tlb:"^"`
		}
		if err := tlb.Unmarshal(ref, &act); err != nil {
			return OrderAction{}, fmt.Errorf("failed to load order action from cell: %w", err)
		}
		body := act.Message.body()
		raw, err := bocOf(body)
		if err != nil {
			return OrderAction{}, err
		}
		parsed, err := parseMessageBody(body)
		if err != nil {
			// A body that fails to decode is shown whole, as toncenter.
			parsed = &UnknownMessage{Data: raw}
		}
		dest, value := act.Message.destination(), act.Message.value()
		return OrderAction{Destination: &dest, Value: &value, BodyRaw: raw, Parsed: true,
			ParsedBody: parsed, ParsedBodyType: parsed.BodyType(), SendMode: act.Mode}, nil
	case opUpdateParams:
		var act abi.MultisigSendMessageAction
		if err := tlb.Unmarshal(ref, &act); err != nil {
			return OrderAction{}, fmt.Errorf("failed to load order action from cell: %w", err)
		}
		p := act.UpdateMultisigParam
		body := &MultisigUpdateParamsBody{NewThreshold: p.Threshold}
		for _, s := range p.Signers.Values() {
			body.NewSigners = append(body.NewSigners, rawAddr(s))
		}
		for _, s := range p.Proposers.Values() {
			body.NewProposers = append(body.NewProposers, rawAddr(s))
		}
		return OrderAction{Parsed: true, ParsedBody: body, ParsedBodyType: body.BodyType()}, nil
	}
	return OrderAction{}, fmt.Errorf("unknown order action type: %d", tag)
}

// relaxedMessage is a Message as tonutils-go reads it: any of the three
// headers; extra currencies, StateInit and the library dict are skipped
// without being decoded.
type relaxedMessage struct {
	Info struct {
		tlb.SumType
		Internal struct {
			IhrDisabled, Bounce, Bounced bool
			Src, Dest                    tlb.MsgAddress
			Value                        tlb.VarUInteger16
			ExtraCurrencies              tlb.Maybe[tlb.Ref[boc.Cell]]
			IhrFee, FwdFee               tlb.VarUInteger16
			CreatedLt                    uint64
			CreatedAt                    uint32
		} `tlbSumType:"$0"`
		ExtIn struct {
			Src, Dest tlb.MsgAddress
			ImportFee tlb.VarUInteger16
		} `tlbSumType:"$10"`
		ExtOut struct {
			Src, Dest tlb.MsgAddress
			CreatedLt uint64
			CreatedAt uint32
		} `tlbSumType:"$11"`
	}
	Init tlb.Maybe[tlb.EitherRef[struct {
		SplitDepth tlb.Maybe[tlb.Uint5]
		Special    tlb.Maybe[tlb.TickTock]
		Code, Data tlb.Maybe[tlb.Ref[boc.Cell]]
		Library    tlb.Maybe[tlb.Ref[boc.Cell]]
	}]]
	Body tlb.EitherRef[tlb.Any]
}

func (m *relaxedMessage) body() *boc.Cell {
	c := boc.Cell(m.Body.Value)
	return &c
}

func (m *relaxedMessage) isInternal() bool { return m.Info.SumType == "Internal" }

func (m *relaxedMessage) destination() string {
	switch m.Info.SumType {
	case "Internal":
		return rawAddr(m.Info.Internal.Dest)
	case "ExtIn":
		return rawAddr(m.Info.ExtIn.Dest)
	}
	return rawAddr(m.Info.ExtOut.Dest)
}

// value is the message's nanotons; "0" for external ones, as toncenter.
func (m *relaxedMessage) value() string {
	if !m.isInternal() {
		return "0"
	}
	return coins(m.Info.Internal.Value)
}

func coins(v tlb.VarUInteger16) string {
	b := big.Int(v)
	return b.String()
}

// rawAddr writes an address as toncenter's formatAddress does: workchain,
// colon, upper-case hex of the address bits. So addr_none is "0:", an
// external address "0:" and its bits, an anycast's prefix is not applied.
func rawAddr(a tlb.MsgAddress) string {
	switch a.SumType {
	case "AddrStd":
		return chain.RawAddress(ton.AccountID{Workchain: int32(a.AddrStd.WorkchainId), Address: a.AddrStd.Address})
	case "AddrVar":
		return fmt.Sprintf("%d:%s", a.AddrVar.WorkchainId, strings.ToUpper(hex.EncodeToString(bitBytes(a.AddrVar.Address))))
	case "AddrExtern":
		return "0:" + strings.ToUpper(hex.EncodeToString(bitBytes(*a.AddrExtern)))
	}
	return "0:"
}

// bitBytes is a bit string's bits as bytes, the last one padded with zeros.
func bitBytes(s boc.BitString) []byte {
	s.ResetCounter()
	n := s.BitsAvailableForRead()
	out, _ := s.ReadBytes(n / 8)
	if r := n % 8; r > 0 {
		v, _ := s.ReadUint(r)
		out = append(out, byte(v<<(8-r)))
	}
	return out
}

// snake reads the rest of c and the chain of single refs below it, as
// tonutils-go's LoadStringSnake: each cell's bits as whole bytes (a partial
// last byte padded with zeros), an error when a cell has two refs or more.
func snake(c *boc.Cell) (string, error) {
	var out []byte
	for {
		bs := c.ReadRemainingBits()
		out = append(out, bitBytes(bs)...)
		if c.RefsAvailableForRead() > 1 {
			return "", errors.New("more than one ref, it is not snake string")
		}
		if c.RefsAvailableForRead() == 0 {
			return string(out), nil
		}
		c, _ = c.NextRef()
		c.ResetCounters()
	}
}
