package toncenter

import (
	"math/big"
	"slices"
	"strings"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
)

// The parsed bodies of an order's messages (OrderAction.ParsedBody), as
// toncenter's ton-index-go parses them by op code.

// ParsedBody is one of the body types below; BodyType is its
// parsed_body_type.
type ParsedBody interface{ BodyType() string }

// The body types, with toncenter's JSON names, kinds and order. Addresses
// are raw upper case; coin amounts are decimal strings; query ids, op codes
// and small integers are JSON numbers; BOCs ([]byte) are base64 or null.

// TonTransferMessage is a plain transfer: no body, a text comment, or an
// encrypted comment (its bytes as a string).
type TonTransferMessage struct {
	Comment   string `json:"comment"`
	Encrypted bool   `json:"encrypted"`
}

type JettonTransferBody struct {
	QueryID          uint64      `json:"query_id"`
	Amount           string      `json:"amount"`
	Destination      string      `json:"destination"`
	Response         string      `json:"response"`
	CustomPayload    []byte      `json:"custom_payload"`
	ForwardAmount    string      `json:"forward_amount"`
	Comment          string      `json:"comment"`
	EncryptedComment bool        `json:"encrypted_comment"`
	ForwardPayload   []byte      `json:"forward_payload"`
	PayloadSumType   string      `json:"payload_sum_type"`
	StonfiSwapBody   *StonfiSwap `json:"stonfi_swap_body"`
}

// StonfiSwap is a jetton transfer's STON.fi v1 swap payload (toncenter
// writes it from a map, so its keys are in alphabetical order).
type StonfiSwap struct {
	JettonWallet string `json:"jetton_wallet"`
	MinAmount    string `json:"min_amount"` // in TON, not nanotons, as toncenter
	UserAddress  string `json:"user_address"`
}

type JettonBurnBody struct {
	QueryID             uint64 `json:"query_id"`
	Amount              string `json:"amount"`
	ResponseDestination string `json:"response_destination"`
}

// JettonMinterBody is a mint (op 0x642b7d07). toncenter routes op 0x15 here
// too, but its decoder insists on 0x642b7d07, so a 0x15 mint always ends as
// an UnknownMessage with opcode 0: as toncenter.
type JettonMinterBody struct {
	Opcode                uint32 `json:"opcode"`
	QueryID               uint64 `json:"query_id"`
	ToAddress             string `json:"to_address"`
	TonAmount             string `json:"ton_amount"`
	MasterMsgQueryID      uint64 `json:"master_msg_query_id"`
	MasterMsgJettonAmount string `json:"master_msg_jetton_amount"`
}

type NFTTransferBody struct {
	QueryID             uint64 `json:"query_id"`
	NewOwner            string `json:"new_owner"`
	ResponseDestination string `json:"response_destination"`
	CustomPayload       []byte `json:"custom_payload"`
	ForwardAmount       string `json:"forward_amount"`
	ForwardPayload      []byte `json:"forward_payload"`
}

type JettonTopUpBody struct {
	QueryID uint64 `json:"query_id"`
}

type JettonChangeAdminBody struct {
	QueryID      uint64 `json:"query_id"`
	NewAdminAddr string `json:"new_admin_address"`
}

type JettonClaimAdminBody struct {
	QueryID uint64 `json:"query_id"`
}

type JettonChangeContentBody struct {
	QueryID        uint64 `json:"query_id"`
	NewMetadataUrl string `json:"new_metadata_url"`
}

type JettonCallToBody struct {
	QueryID    uint64 `json:"query_id"`
	ToAddress  string `json:"to_address"`
	TonAmount  string `json:"ton_amount"`
	ActionType string `json:"action_type"` // "" when the action has under 32 bits
	ActionData []byte `json:"action_data"`
}

type JettonSetStatusBody struct {
	QueryID   uint64 `json:"query_id"`
	NewStatus uint8  `json:"new_status"`
}

type SingleNominatorWithdrawBody struct {
	QueryID uint64 `json:"query_id"`
	Coins   string `json:"coins"`
}

type SingleNominatorChangeValidatorBody struct {
	QueryID          uint64 `json:"query_id"`
	ValidatorAddress string `json:"validator_address"`
}

// VestingInternalTransferBody: destination, value and message_body are
// null when the wrapped message is not an internal one.
type VestingInternalTransferBody struct {
	QueryID     uint64  `json:"query_id"`
	SendMode    uint8   `json:"send_mode"`
	Destination *string `json:"destination"`
	Value       *string `json:"value"`
	MessageBody []byte  `json:"message_body"`
	Comment     string  `json:"comment"`
}

// MultisigUpdateParamsBody: new_proposers is null when the action names
// none. toncenter lists signers in Go map order (random); here in index
// order.
type MultisigUpdateParamsBody struct {
	NewThreshold uint8    `json:"new_threshold"`
	NewSigners   []string `json:"new_signers"`
	NewProposers []string `json:"new_proposers"`
}

// UnknownMessage is a body of another op code, or one that failed to
// decode (then opcode is 0).
type UnknownMessage struct {
	Opcode uint32 `json:"opcode"`
	Data   []byte `json:"data"`
}

func (*TonTransferMessage) BodyType() string          { return "ton_transfer" }
func (*JettonTransferBody) BodyType() string          { return "jetton_transfer" }
func (*JettonBurnBody) BodyType() string              { return "jetton_burn" }
func (*JettonMinterBody) BodyType() string            { return "jetton_mint" }
func (*NFTTransferBody) BodyType() string             { return "nft_transfer" }
func (*JettonTopUpBody) BodyType() string             { return "jetton_top_up" }
func (*JettonChangeAdminBody) BodyType() string       { return "jetton_change_admin" }
func (*JettonClaimAdminBody) BodyType() string        { return "jetton_claim_admin" }
func (*JettonChangeContentBody) BodyType() string     { return "jetton_change_content" }
func (*JettonCallToBody) BodyType() string            { return "jetton_call_to" }
func (*JettonSetStatusBody) BodyType() string         { return "jetton_set_status" }
func (*SingleNominatorWithdrawBody) BodyType() string { return "single_nominator_withdraw" }
func (*SingleNominatorChangeValidatorBody) BodyType() string {
	return "single_nominator_change_validator"
}
func (*VestingInternalTransferBody) BodyType() string { return "vesting_internal_transfer" }
func (*MultisigUpdateParamsBody) BodyType() string    { return "multisig_update_params" }
func (*UnknownMessage) BodyType() string              { return "unknown" }

// Addresses returns the raw addresses the action names, as toncenter's
// collectMultisigOrderAddresses gathers them for the address book: the
// destination and the addresses inside the parsed body. addr_none, which
// toncenter writes "0:" (and its book keeps), and external addresses name
// no account and are left out.
func (a OrderAction) Addresses() []string {
	var out []string
	add := func(s string) {
		// Only a whole raw address in the stored form: chain's strict parser
		// refuses "0:" (tongo's reads it as workchain 0 and zeros).
		if n, err := chain.NormalizeAddress(s); err != nil || n != s || slices.Contains(out, s) {
			return
		}
		out = append(out, s)
	}
	if a.Destination != nil {
		add(*a.Destination)
	}
	switch b := a.ParsedBody.(type) {
	case *JettonTransferBody:
		add(b.Destination)
		add(b.Response)
		if b.StonfiSwapBody != nil {
			add(b.StonfiSwapBody.JettonWallet)
			add(b.StonfiSwapBody.UserAddress)
		}
	case *NFTTransferBody:
		add(b.NewOwner)
		add(b.ResponseDestination)
	case *JettonBurnBody:
		add(b.ResponseDestination)
	case *JettonMinterBody:
		add(b.ToAddress)
	case *JettonChangeAdminBody:
		add(b.NewAdminAddr)
	case *JettonCallToBody:
		add(b.ToAddress)
	case *SingleNominatorChangeValidatorBody:
		add(b.ValidatorAddress)
	case *VestingInternalTransferBody:
		if b.Destination != nil {
			add(*b.Destination)
		}
	case *MultisigUpdateParamsBody:
		for _, s := range b.NewSigners {
			add(s)
		}
		for _, s := range b.NewProposers {
			add(s)
		}
	}
	return out
}

// parseMessageBody dispatches on the op code as toncenter does.
func parseMessageBody(body *boc.Cell) (ParsedBody, error) {
	body.ResetCounters()
	if body.BitsAvailableForRead() < 32 {
		return simpleMessage(body), nil
	}
	op, _ := body.PickUint(32)
	if parse := plainBodies[op]; parse != nil {
		return parse(body)
	}
	switch op {
	case 0x0f8a7ea5:
		return parseJettonTransfer(body)
	case 0x00000015, 0x642b7d07:
		var b struct {
			Magic     tlb.Magic `tlb:"#642b7d07"` // for 0x15 too, as toncenter
			QueryID   uint64
			To        tlb.MsgAddress
			TonAmount tlb.VarUInteger16
			MasterMsg struct {
				Opcode       uint32
				QueryID      uint64
				JettonAmount tlb.VarUInteger16
			} `tlb:"^"`
		}
		if err := tlb.Unmarshal(body, &b); err != nil {
			return nil, err
		}
		return &JettonMinterBody{Opcode: uint32(op), QueryID: b.QueryID, ToAddress: rawAddr(b.To),
			TonAmount: coins(b.TonAmount), MasterMsgQueryID: b.MasterMsg.QueryID,
			MasterMsgJettonAmount: coins(b.MasterMsg.JettonAmount)}, nil
	case 0x5fcc3d14:
		var b struct {
			Magic          tlb.Magic `tlb:"#5fcc3d14"`
			QueryID        uint64
			NewOwner       tlb.MsgAddress
			Response       tlb.MsgAddress
			CustomPayload  *tlb.Any `tlb:"maybe^"`
			ForwardAmount  tlb.VarUInteger16
			ForwardPayload tlb.EitherRef[tlb.Any]
		}
		if err := tlb.Unmarshal(body, &b); err != nil {
			return nil, err
		}
		out := &NFTTransferBody{QueryID: b.QueryID, NewOwner: rawAddr(b.NewOwner),
			ResponseDestination: rawAddr(b.Response), ForwardAmount: coins(b.ForwardAmount)}
		var err error
		if out.CustomPayload, err = bocOfAny(b.CustomPayload); err != nil {
			return nil, err
		}
		fp := boc.Cell(b.ForwardPayload.Value)
		if out.ForwardPayload, err = bocOf(&fp); err != nil {
			return nil, err
		}
		return out, nil
	case 0x2167da4b: // an encrypted comment: its bytes, as toncenter
		_, _ = body.ReadUint(32)
		s, err := snake(body)
		if err != nil {
			return nil, err
		}
		return &TonTransferMessage{Comment: s, Encrypted: true}, nil
	case 0xcb862902:
		_, _ = body.ReadUint(32)
		q, err := body.ReadUint(64)
		if err != nil {
			return nil, err
		}
		url, err := snake(body)
		if err != nil {
			return nil, err
		}
		return &JettonChangeContentBody{QueryID: q, NewMetadataUrl: url}, nil
	case 0x235caf52:
		return parseJettonCallTo(body)
	case 0x75097f5d:
		return parseVestingTransfer(body)
	case 0:
		// A text comment: the text follows the op code. (toncenter reads
		// it from the first bit, so its comments start with four NUL
		// characters; a difference on purpose, docs/API-NOTES.md.)
		_, _ = body.ReadUint(32)
		return simpleMessage(body), nil
	}
	data, err := bocOf(body)
	if err != nil {
		return nil, err
	}
	return &UnknownMessage{Opcode: uint32(op), Data: data}, nil
}

// plainBodies are the bodies read by their TL-B layout alone, by op code.
var plainBodies = map[uint64]func(*boc.Cell) (ParsedBody, error){
	0x595f07bc: parseAs[burnTLB],
	0x00009fd3: parseAs[topUpTLB],
	0x6501f354: parseAs[changeAdminTLB],
	0xfb88e119: parseAs[claimAdminTLB],
	0xeed236d3: parseAs[setStatusTLB],
	0x00001000: parseAs[withdrawTLB],
	0x00001001: parseAs[changeValidatorTLB],
}

// parseAs reads body as the layout T and gives its parsed body.
func parseAs[T interface{ parsed() ParsedBody }](body *boc.Cell) (ParsedBody, error) {
	var b T
	if err := tlb.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	return b.parsed(), nil
}

type burnTLB struct {
	Magic    tlb.Magic `tlb:"#595f07bc"`
	QueryID  uint64
	Amount   tlb.VarUInteger16
	Response tlb.MsgAddress
}

func (b burnTLB) parsed() ParsedBody {
	return &JettonBurnBody{QueryID: b.QueryID, Amount: coins(b.Amount), ResponseDestination: rawAddr(b.Response)}
}

type topUpTLB struct {
	Magic   tlb.Magic `tlb:"#00009fd3"`
	QueryID uint64
}

func (b topUpTLB) parsed() ParsedBody { return &JettonTopUpBody{QueryID: b.QueryID} }

type changeAdminTLB struct {
	Magic    tlb.Magic `tlb:"#6501f354"`
	QueryID  uint64
	NewAdmin tlb.MsgAddress
}

func (b changeAdminTLB) parsed() ParsedBody {
	return &JettonChangeAdminBody{QueryID: b.QueryID, NewAdminAddr: rawAddr(b.NewAdmin)}
}

type claimAdminTLB struct {
	Magic   tlb.Magic `tlb:"#fb88e119"`
	QueryID uint64
}

func (b claimAdminTLB) parsed() ParsedBody { return &JettonClaimAdminBody{QueryID: b.QueryID} }

type setStatusTLB struct {
	Magic     tlb.Magic `tlb:"#eed236d3"`
	QueryID   uint64
	NewStatus uint8 // 8 bits where the stablecoin schema has 4: as toncenter
}

func (b setStatusTLB) parsed() ParsedBody {
	return &JettonSetStatusBody{QueryID: b.QueryID, NewStatus: b.NewStatus}
}

type withdrawTLB struct {
	Magic   tlb.Magic `tlb:"#00001000"`
	QueryID uint64
	Coins   tlb.VarUInteger16
}

func (b withdrawTLB) parsed() ParsedBody {
	return &SingleNominatorWithdrawBody{QueryID: b.QueryID, Coins: coins(b.Coins)}
}

type changeValidatorTLB struct {
	Magic     tlb.Magic `tlb:"#00001001"`
	QueryID   uint64
	Validator tlb.MsgAddress
}

func (b changeValidatorTLB) parsed() ParsedBody {
	return &SingleNominatorChangeValidatorBody{QueryID: b.QueryID, ValidatorAddress: rawAddr(b.Validator)}
}

// simpleMessage is an empty body, one under 32 bits, or a text comment's
// text (its op code read). Bodies of a partial byte or of two refs have no
// comment, as toncenter.
func simpleMessage(body *boc.Cell) *TonTransferMessage {
	n := body.BitsAvailableForRead()
	if n >= 8 && n%8 == 0 && body.RefsAvailableForRead() <= 1 {
		if s, err := snake(body); err == nil {
			return &TonTransferMessage{Comment: s}
		}
	}
	return &TonTransferMessage{}
}

func parseJettonTransfer(body *boc.Cell) (ParsedBody, error) {
	var b struct {
		Magic          tlb.Magic `tlb:"#0f8a7ea5"`
		QueryID        uint64
		Amount         tlb.VarUInteger16
		Destination    tlb.MsgAddress
		Response       tlb.MsgAddress
		CustomPayload  *tlb.Any `tlb:"maybe^"`
		ForwardAmount  tlb.VarUInteger16
		ForwardPayload tlb.EitherRef[tlb.Any]
	}
	if err := tlb.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	out := &JettonTransferBody{QueryID: b.QueryID, Amount: coins(b.Amount),
		Destination: rawAddr(b.Destination), Response: rawAddr(b.Response),
		ForwardAmount: coins(b.ForwardAmount)}
	var err error
	if out.CustomPayload, err = bocOfAny(b.CustomPayload); err != nil {
		return nil, err
	}
	fp := boc.Cell(b.ForwardPayload.Value)
	if out.ForwardPayload, err = bocOf(&fp); err != nil {
		return nil, err
	}
	fp.ResetCounters()
	forwardPayload(&fp, out)
	return out, nil
}

// forwardPayload names a jetton transfer's forward payload by its first 32
// bits and reads a comment or a STON.fi swap from it; nothing when empty,
// "Unknown" when shorter than an op code or of another op.
func forwardPayload(p *boc.Cell, out *JettonTransferBody) {
	if p.BitsAvailableForRead() == 0 {
		return
	}
	op, err := p.ReadUint(32)
	if err != nil {
		out.PayloadSumType = "Unknown"
		return
	}
	switch op {
	case 0:
		out.PayloadSumType = "TextComment"
		out.Comment, _ = snake(p)
	case 0x2167da4b:
		out.PayloadSumType = "EncryptedTextComment"
		out.EncryptedComment = true
		out.Comment, _ = snake(p)
	case 0x25938561:
		out.PayloadSumType = "StonfiSwap"
		// A truncated swap keeps the type and has no body, as toncenter.
		var s struct {
			Wallet    tlb.MsgAddress
			MinAmount tlb.VarUInteger16
			User      tlb.MsgAddress
		}
		if tlb.Unmarshal(p, &s) == nil {
			min := big.Int(s.MinAmount)
			out.StonfiSwapBody = &StonfiSwap{JettonWallet: rawAddr(s.Wallet),
				MinAmount: tonDecimal(&min), UserAddress: rawAddr(s.User)}
		}
	default:
		out.PayloadSumType = "Unknown"
	}
}

// tonDecimal writes nanotons in TON, trailing zeros cut ("1.5", "0.000000123").
func tonDecimal(n *big.Int) string {
	s := n.String()
	if s == "0" {
		return s
	}
	if len(s) <= 9 {
		s = "0." + strings.Repeat("0", 9-len(s)) + s
	} else {
		s = s[:len(s)-9] + "." + s[len(s)-9:]
	}
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

func parseJettonCallTo(body *boc.Cell) (ParsedBody, error) {
	var b struct {
		Magic     tlb.Magic `tlb:"#235caf52"`
		QueryID   uint64
		To        tlb.MsgAddress
		TonAmount tlb.VarUInteger16
		Action    tlb.Any `tlb:"^"`
	}
	if err := tlb.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	action := boc.Cell(b.Action)
	data, err := bocOf(&action)
	if err != nil {
		return nil, err
	}
	kind := ""
	action.ResetCounters()
	if op, err := action.ReadUint(32); err == nil {
		switch op {
		case 0xeed236d3:
			kind = "JettonSetStatus"
		case 0x0f8a7ea5:
			kind = "JettonTransfer"
		case 0x595f07bc:
			kind = "JettonBurn"
		default:
			kind = "Unknown"
		}
	}
	return &JettonCallToBody{QueryID: b.QueryID, ToAddress: rawAddr(b.To), TonAmount: coins(b.TonAmount),
		ActionType: kind, ActionData: data}, nil
}

func parseVestingTransfer(body *boc.Cell) (ParsedBody, error) {
	var b struct {
		Magic    tlb.Magic `tlb:"#75097f5d"`
		QueryID  uint64
		SendMode uint8
		Msg      tlb.Any `tlb:"^"`
	}
	if err := tlb.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	var msg relaxedMessage
	mc := boc.Cell(b.Msg)
	mc.ResetCounters()
	if err := tlb.Unmarshal(&mc, &msg); err != nil {
		return nil, err
	}
	out := &VestingInternalTransferBody{QueryID: b.QueryID, SendMode: b.SendMode}
	if !msg.isInternal() {
		return out, nil
	}
	dest, value := msg.destination(), msg.value()
	out.Destination, out.Value = &dest, &value
	inner := msg.body()
	var err error
	if out.MessageBody, err = bocOf(inner); err != nil {
		return nil, err
	}
	inner.ResetCounters()
	if op, err := inner.ReadUint(32); err == nil && op == 0 {
		out.Comment, _ = snake(inner)
	}
	return out, nil
}

func bocOfAny(a *tlb.Any) ([]byte, error) {
	if a == nil {
		return nil, nil
	}
	c := boc.Cell(*a)
	return bocOf(&c)
}

// bocOf writes a cell as toncenter's answers carry cells: one root, a
// CRC32C, no index. toncenter's serializer (tonutils-go) numbers the cells
// breadth-first, tongo as the C++ node does: the cells are the same, the
// bytes of a tree three levels deep may differ (docs/API-NOTES.md).
func bocOf(root *boc.Cell) ([]byte, error) { return root.ToBocCustom(false, true, false, 0) }
