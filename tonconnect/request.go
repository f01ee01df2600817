// Package tonconnect turns a TON Connect sendTransaction request (what a
// dApp hands a wallet before the user signs) into the external message
// that wallet would send: the sender's wallet is recognized from its state,
// the body is built with its real seqno and wallet id, and the signature
// is left zero, so the preview runs with the signature check skipped.
package tonconnect

import (
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// Network ids of TON Connect's "network" field (the global id).
const (
	Mainnet int32 = -239
	Testnet int32 = -3
)

// MaxMessages is the most messages a request may carry: what TON Connect
// wallets accept and toncenter's emulateTonConnect allows. A wallet may
// allow fewer (Build checks its own limit).
const MaxMessages = 4

// Message is one message of a request, as TON Connect writes it.
type Message struct {
	Address   string `json:"address"`
	Amount    string `json:"amount"` // nanotons, decimal
	Payload   string `json:"payload,omitempty"`
	StateInit string `json:"stateInit,omitempty"`
}

// Params is a request as a transport hands it over (JSON fields, GraphQL
// arguments). ValidUntil 0 means absent.
type Params struct {
	From       string
	ValidUntil int64
	Network    string
	// StateInit is the sender wallet's own StateInit (TON Connect's
	// walletStateInit): needed only when the sender is not deployed yet.
	StateInit string
	Messages  []Message
}

// Request is a validated Params.
type Request struct {
	From       ton.AccountID
	ValidUntil uint32 // 0: none given
	Network    int32
	StateInit  []byte // BOC; nil when not given
	Messages   []message
}

type message struct {
	dest      ton.AccountID
	bounce    bool
	amount    uint64
	payload   []byte // BOC or nil
	stateInit []byte // BOC or nil
}

// IsRequest reports whether a JSON object body is a TON Connect request
// (it has messages or from) rather than the estimateFee fields.
func IsRequest(raw []byte) bool {
	var probe struct {
		From     json.RawMessage `json:"from"`
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return false
	}
	return probe.From != nil || probe.Messages != nil
}

// DecodeParams reads a JSON body (toncenter's emulateTonConnect fields and
// TON Connect's sendTransaction fields). Types are strict; errors name the
// field. Unknown fields are ignored, as toncenter does.
func DecodeParams(raw []byte) (Params, error) {
	var in struct {
		From       *string         `json:"from"`
		ValidUntil json.RawMessage `json:"valid_until"`
		Network    json.RawMessage `json:"network"`
		StateInit  *string         `json:"state_init"`
		Messages   []struct {
			Address   *string         `json:"address"`
			Amount    json.RawMessage `json:"amount"`
			Payload   *string         `json:"payload"`
			StateInit *string         `json:"stateInit"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Params{}, apperr.Field(te.Field, "must be %s", kindOf(te.Type.String()))
		}
		return Params{}, apperr.New(apperr.BadRequest, "request body is not valid JSON")
	}
	var p Params
	if in.From != nil {
		p.From = *in.From
	}
	if in.StateInit != nil {
		p.StateInit = *in.StateInit
	}
	if len(in.ValidUntil) > 0 && string(in.ValidUntil) != "null" {
		v, err := strconv.ParseInt(unquote(in.ValidUntil), 10, 64)
		if err != nil {
			return p, apperr.Field("valid_until", "must be a unix time in seconds")
		}
		p.ValidUntil = v
	}
	if len(in.Network) > 0 && string(in.Network) != "null" {
		p.Network = unquote(in.Network)
	}
	for i, m := range in.Messages {
		field := "messages[" + strconv.Itoa(i) + "]"
		var out Message
		if m.Address != nil {
			out.Address = *m.Address
		}
		if len(m.Amount) > 0 && string(m.Amount) != "null" {
			out.Amount = unquote(m.Amount)
		} else {
			return p, apperr.Field(field+".amount", "required (nanotons, a decimal string)")
		}
		if m.Payload != nil {
			out.Payload = *m.Payload
		}
		if m.StateInit != nil {
			out.StateInit = *m.StateInit
		}
		p.Messages = append(p.Messages, out)
	}
	return p, nil
}

// unquote is a JSON string's text or a JSON number's digits: TON Connect
// writes amounts and the network as strings, some clients as numbers.
func unquote(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

func kindOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.HasPrefix(goType, "struct"):
		return "an object"
	}
	return "of another type"
}

// Parse validates every field: addresses, amounts, BOCs, the network and
// the number of messages.
func Parse(p Params) (Request, error) {
	var r Request
	if p.From == "" {
		return r, apperr.Field("from", "required (the sender wallet's address)")
	}
	from, _, err := address(p.From)
	if err != nil {
		return r, apperr.Field("from", "%v", err)
	}
	r.From = from
	if p.ValidUntil < 0 || p.ValidUntil > 1<<32-1 {
		return r, apperr.Field("valid_until", "must be a unix time in seconds")
	}
	r.ValidUntil = uint32(p.ValidUntil)
	switch p.Network {
	case "", "-239":
		r.Network = Mainnet
	case "-3":
		r.Network = Testnet
	default:
		return r, apperr.Field("network", "must be -239 (mainnet) or -3 (testnet)")
	}
	if p.StateInit != "" {
		if r.StateInit, err = fees.CheckBOC("state_init", p.StateInit); err != nil {
			return r, err
		}
	}
	if len(p.Messages) == 0 {
		return r, apperr.Field("messages", "required: at least one message")
	}
	if len(p.Messages) > MaxMessages {
		return r, apperr.Field("messages", "%d messages; a TON Connect request carries at most %d", len(p.Messages), MaxMessages)
	}
	for i, m := range p.Messages {
		field := "messages[" + strconv.Itoa(i) + "]"
		var out message
		if m.Address == "" {
			return r, apperr.Field(field+".address", "required")
		}
		if out.dest, out.bounce, err = address(m.Address); err != nil {
			return r, apperr.Field(field+".address", "%v", err)
		}
		a, ok := new(big.Int).SetString(m.Amount, 10)
		if !ok || a.Sign() < 0 || !a.IsUint64() {
			return r, apperr.Field(field+".amount", "must be nanotons as a decimal string (0 to 2^64-1)")
		}
		out.amount = a.Uint64()
		if m.Payload != "" {
			if out.payload, err = fees.CheckBOC(field+".payload", m.Payload); err != nil {
				return r, err
			}
		}
		if m.StateInit != "" {
			if out.stateInit, err = fees.CheckBOC(field+".stateInit", m.StateInit); err != nil {
				return r, err
			}
		}
		r.Messages = append(r.Messages, out)
	}
	return r, nil
}

// address parses a raw or user-friendly address of workchain 0 or -1 and
// says whether a message to it bounces: the friendly form's flag (0x51:
// non-bounceable), raw addresses bounce (what TON Connect wallets do).
func address(s string) (ton.AccountID, bool, error) {
	s = strings.TrimSpace(s)
	if len(s) > 100 {
		return ton.AccountID{}, false, errors.New("too long to be an address")
	}
	id, err := chain.ParseAddress(s)
	if err != nil {
		return id, false, err
	}
	if id.Workchain != 0 && id.Workchain != -1 {
		return id, false, errors.New("workchain " + strconv.Itoa(int(id.Workchain)) + " does not exist (only 0 and -1)")
	}
	bounce := true
	if !strings.Contains(s, ":") {
		if b, err := chain.DecodeBase64(s); err == nil && len(b) > 0 {
			bounce = b[0]&0x40 == 0
		}
	}
	return id, bounce, nil
}
