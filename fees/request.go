// Package fees estimates the fees of an external message exactly, by running
// it through the real TON transaction emulator on the account's current state
// and the current blockchain config, then following the trace it starts.
package fees

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// Request is a validated estimateFee request. BOCs are kept as bytes, not
// cells: a tongo cell has a read cursor, so every estimate decodes its own.
type Request struct {
	Account      ton.AccountID
	Body         []byte // BOC, one root
	InitCode     []byte // BOC or nil when absent
	InitData     []byte // BOC or nil when absent
	IgnoreChksig bool
	// Message is a whole external message (BOC), used as it is instead of
	// one built from Body and the init fields: what TON Connect hands a
	// dApp. Account is its destination; Body is the message's bytes too
	// (the seed and the cache key read it).
	Message []byte
	// State, when set, is the account state the message was built on (a
	// TON Connect request reads the sender's seqno from it): the emulation
	// runs on that same state instead of reading it again, so the seqno in
	// the message and the state it runs on cannot disagree.
	State *chain.AccountState
	// ValidUntil, when not zero, is the message's expiry (unix time): an
	// estimate whose chain time is past it is refused naming valid_until,
	// rather than reported as the wallet's exit code.
	ValidUntil uint32
	// At, when set, runs the request at a past block instead of now: at
	// its chain time, on the states and config the source holds for it.
	// Such answers are not cached.
	At *At

	// checked is set by ParseParams once every BOC passed decodeRoot, so
	// that building the message does not check the same bytes again. A
	// Request made any other way is checked when it is built.
	checked bool
}

// At is a past block to run a request at: its chain time and what is held
// of it (store.BlockStates). A destination the source has no state of
// stops the trace there, as for any unknown account.
type At struct {
	Time   ChainTime
	Source StateSource
}

// decode turns one of the request's BOCs into a fresh root cell.
func (r Request) decode(b []byte) (*boc.Cell, error) {
	if r.checked {
		return deserializeRoot(b)
	}
	return decodeRoot(b)
}

// Params is the request as a transport hands it over (GraphQL arguments,
// decoded JSON). IgnoreChksig nil means the default, true.
type Params struct {
	Address      string
	Body         string
	InitCode     string
	InitData     string
	IgnoreChksig *bool
	// Boc is a whole signed external message, the other way to say what to
	// emulate (POST /api/v3/emulate, GraphQL emulateMessage); it excludes
	// the four fields above.
	Boc string
}

// maxStringLen bounds every string field before it is decoded, so that no
// error message or decoder ever works on more than this.
const maxStringLen = 1 << 20

// DecodeRequest parses the JSON body of POST /api/v2/estimateFee (or the
// params of the JSON-RPC method). Field types are strict: a number where a
// string belongs is an error naming the field. Unknown fields are ignored,
// as toncenter does; a JSON null counts as absent.
func DecodeRequest(raw []byte) (Request, error) {
	p, err := DecodeParams(raw)
	if err != nil {
		return Request{}, err
	}
	return ParseParams(p)
}

// DecodeParams is DecodeRequest's first half: JSON types only, so that a
// transport can hand the params to the shared resolver, which validates.
func DecodeParams(raw []byte) (Params, error) {
	// One pass: Unmarshal validates as it decodes, so a syntax error is
	// "not JSON" and a type error is valid JSON that is not an object. (A
	// map, not a struct: field names match exactly, as in toncenter.)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return Params{}, apperr.Field("params", "must be a JSON object")
		}
		return Params{}, apperr.New(apperr.BadRequest, "request body is not valid JSON")
	}
	if fields == nil { // JSON null
		return Params{}, apperr.Field("params", "must be a JSON object")
	}
	var p Params
	var err error
	if p.Address, err = stringField(fields, "address"); err != nil {
		return Params{}, err
	}
	if p.Body, err = stringField(fields, "body"); err != nil {
		return Params{}, err
	}
	if p.InitCode, err = stringField(fields, "init_code"); err != nil {
		return Params{}, err
	}
	if p.InitData, err = stringField(fields, "init_data"); err != nil {
		return Params{}, err
	}
	if p.Boc, err = stringField(fields, "boc"); err != nil {
		return Params{}, err
	}
	if v, ok := fields["ignore_chksig"]; ok && !isNull(v) {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return Params{}, apperr.Field("ignore_chksig", "must be a boolean")
		}
		p.IgnoreChksig = &b
	}
	return p, nil
}

func isNull(v json.RawMessage) bool { return string(v) == "null" }

func stringField(fields map[string]json.RawMessage, name string) (string, error) {
	v, ok := fields[name]
	if !ok || isNull(v) {
		return "", nil
	}
	if len(v) < 2 || v[0] != '"' {
		return "", apperr.Field(name, "must be a string")
	}
	if bytes.IndexByte(v, '\\') < 0 {
		// no escapes (base64 and addresses never have any): the bytes
		// between the quotes are the string, already validated as JSON
		return string(v[1 : len(v)-1]), nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", apperr.Field(name, "must be a string")
	}
	return s, nil
}

// ParseParams validates every field and decodes the BOCs once, so that a
// request that passes here can only fail later for reasons of the chain.
func ParseParams(p Params) (Request, error) {
	if p.Boc != "" {
		if p.Address != "" || p.Body != "" || p.InitCode != "" || p.InitData != "" {
			return Request{}, apperr.Field("boc", "give either boc (a whole external message) or address and body, not both")
		}
		return parseMessage(p.Boc, p.IgnoreChksig)
	}
	var r Request
	if p.Address == "" {
		return r, apperr.Field("address", "required")
	}
	if len(p.Address) > 100 {
		return r, apperr.Field("address", "too long to be an address")
	}
	id, err := chain.ParseAddress(strings.TrimSpace(p.Address))
	if err != nil {
		return r, apperr.Field("address", "%v", err)
	}
	if id.Workchain != 0 && id.Workchain != -1 {
		return r, apperr.Field("address", "workchain %d does not exist (only 0 and -1)", id.Workchain)
	}
	r.Account = id
	if p.Body == "" {
		return r, apperr.Field("body", "required (base64 of a BOC)")
	}
	if r.Body, err = checkBOC("body", p.Body); err != nil {
		return r, err
	}
	if p.InitCode != "" {
		if r.InitCode, err = checkBOC("init_code", p.InitCode); err != nil {
			return r, err
		}
	}
	if p.InitData != "" {
		if p.InitCode == "" {
			return r, apperr.Field("init_data", "given without init_code")
		}
		if r.InitData, err = checkBOC("init_data", p.InitData); err != nil {
			return r, err
		}
	}
	r.IgnoreChksig = p.IgnoreChksig == nil || *p.IgnoreChksig
	r.checked = true
	return r, nil
}
