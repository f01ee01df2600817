package toncenter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// Action is toncenter's Action (ton-index-go models): the stored action in
// toncenter's dialect. See docs/API-NOTES.md for what differs.
type Action struct {
	TraceID               *string         `json:"trace_id"`
	ActionID              string          `json:"action_id"`
	StartLt               string          `json:"start_lt"`
	EndLt                 string          `json:"end_lt"`
	StartUtime            int64           `json:"start_utime"`
	EndUtime              int64           `json:"end_utime"`
	TraceEndLt            string          `json:"trace_end_lt"`
	TraceEndUtime         int64           `json:"trace_end_utime"`
	TraceMcSeqnoEnd       int64           `json:"trace_mc_seqno_end"`
	Transactions          []string        `json:"transactions"`
	Success               *bool           `json:"success"`
	Type                  string          `json:"type"`
	Details               json.RawMessage `json:"details"`
	TraceExternalHash     *string         `json:"trace_external_hash,omitempty"`
	TraceExternalHashNorm *string         `json:"trace_external_hash_norm,omitempty"`
	Accounts              []string        `json:"accounts,omitempty"`
	TransactionsFull      []*Transaction  `json:"transactions_full,omitempty"`
	Finality              string          `json:"finality"`
}

// ActionsResponse is toncenter's ActionsResponse.
type ActionsResponse struct {
	Actions     []*Action         `json:"actions"`
	AddressBook chain.AddressBook `json:"address_book"`
	Metadata    chain.Metadata    `json:"metadata"`
}

// dialectAs names the toncenter type we answer for our types toncenter's
// API has no details for: an extra-currency transfer is toncenter's
// ton_transfer (whose value_extra_currencies carries them). Every other
// type toncenter lacks (coffee_mev_protect_failed_swap, unknown) is
// answered as toncenter answers a type its API does not know: the name,
// and details {"error": "unsupported action type: '<name>'"}.
var dialectAs = map[string]string{"extra_currency_transfer": "ton_transfer"}

// RenderActions renders a page of stored actions in toncenter's dialect.
func RenderActions(l *chain.ActionList) (*ActionsResponse, error) {
	out := &ActionsResponse{Actions: make([]*Action, 0, len(l.Actions)), AddressBook: l.AddressBook, Metadata: l.Metadata}
	for _, a := range l.Actions {
		ra, err := RenderAction(a)
		if err != nil {
			return nil, err
		}
		out.Actions = append(out.Actions, ra)
	}
	return out, nil
}

// RenderAction renders one stored action in toncenter's dialect: its
// type's snake_case name, success for status, string lts and the value's
// fields under toncenter's details names (the tc tags of the type's
// declaration in package actions) in toncenter's details shape.
func RenderAction(a *chain.Action) (*Action, error) {
	t, ok := actions.Lookup(a.Type)
	if !ok {
		return nil, fmt.Errorf("toncenter: action %s has undeclared type %q", a.ActionID, a.Type)
	}
	name := t.Toncenter
	if as, ok := dialectAs[name]; ok {
		name = as
	}
	details, err := renderDetails(t, name, a.Value)
	if err != nil {
		return nil, fmt.Errorf("toncenter: action %s: %w", a.ActionID, err)
	}
	traceID := a.TraceID
	success := a.Status == chain.StatusOK
	out := &Action{
		TraceID: &traceID, ActionID: a.ActionID,
		StartLt: strconv.FormatUint(a.StartLt, 10), EndLt: strconv.FormatUint(a.EndLt, 10),
		StartUtime: int64(a.StartUtime), EndUtime: int64(a.EndUtime),
		TraceEndLt: strconv.FormatUint(a.TraceEndLt, 10), TraceEndUtime: int64(a.TraceEndUtime),
		Transactions: a.Transactions, Success: &success, Type: name, Details: details,
		TraceExternalHash: a.TraceExternalHash, TraceExternalHashNorm: a.TraceExternalHashNorm, Accounts: a.Accounts,
		Finality: "finalized", // only finished traces are stored
	}
	if out.Transactions == nil {
		out.Transactions = []string{}
	}
	if a.McSeqno != nil {
		out.TraceMcSeqnoEnd = int64(*a.McSeqno)
	}
	return out, nil
}

// renderDetails moves the value's fields to their toncenter paths and
// writes them in the shape of the toncenter type's details.
func renderDetails(t actions.Type, name string, value []byte) (json.RawMessage, error) {
	shape, ok := shapeOf(name)
	if !ok {
		return json.Marshal(map[string]string{"error": fmt.Sprintf("unsupported action type: '%s'", name)})
	}
	var v map[string]any
	if len(value) > 0 {
		d := json.NewDecoder(bytes.NewReader(value))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
	}
	tree := planOf(reflect.TypeOf(t.Value)).move(v)
	if name == "jetton_swap" && tree["dex"] == "tonco" {
		shape, _ = shapeOf("jetton_swap@tonco")
	}
	spell(name, tree)
	return shape.write(nil, tree), nil
}

// spell writes the few values toncenter's converter spells its own way
// (ton-index-go index/parse/actions.go): the lists it always allocates,
// its staking provider alias, the purchase flag of nft_purchase, the uln
// of a LayerZero commit (its ULN connection), an extra-currency transfer's
// map, payload BOCs with a CRC, and the
// LayerZero message library addresses, which its classifier stores as
// 0x and hex of the address's number.
func spell(name string, tree map[string]any) {
	withCRC(tree)
	switch name {
	case "jetton_swap":
		if tree["peer_swaps"] == nil {
			tree["peer_swaps"] = []any{}
		}
	case "dex_deposit_liquidity":
		if tree["vault_excesses"] == nil {
			tree["vault_excesses"] = []any{}
		}
	case "stake_deposit", "stake_withdrawal", "stake_withdrawal_request":
		if tree["provider"] == "tonstakers" {
			tree["provider"] = "liquid_staking"
		}
	case "ton_transfer":
		// an extra-currency transfer (dialectAs): toncenter's map of id
		// to amount; its op code has no place in ton_transfer
		if l, ok := tree["extra_currencies"].([]any); ok {
			tree["value_extra_currencies"] = currencyMap(l)
		}
	case "layerzero_commit_packet":
		// toncenter's uln repeats the ULN connection (docs/ACTIONS.md)
		tree["uln"] = tree["uln_connection"]
	case "nft_purchase":
		tree["is_purchase"] = true
	case "layerzero_send", "layerzero_send_tokens":
		if send, ok := tree["layerzero_send_data"].(map[string]any); ok {
			for _, k := range []string{"msglib", "msglib_manager"} {
				if a, ok := send[k].(string); ok {
					send[k] = hexNumber(a)
				}
			}
		}
	}
}

// withCRC re-serializes the payload BOCs of details (custom and forward
// payloads) as toncenter's indexer stores them: with a CRC32C and no index
// (its message and order BOCs have none, as ours). The cells are the
// same; a BOC that does not decode is kept.
func withCRC(tree map[string]any) {
	for k, x := range tree {
		switch x := x.(type) {
		case map[string]any:
			withCRC(x)
		case string:
			if !strings.HasSuffix(k, "_payload") {
				continue
			}
			if c, err := boc.DeserializeSinglRootBase64(x); err == nil {
				if b, err := c.ToBocBase64Custom(false, true, false, 0); err == nil {
					tree[k] = b
				}
			}
		}
	}
}

// currencyMap turns our extra currencies list ([{id, amount}]) into
// toncenter's {"id": "amount"}.
func currencyMap(l []any) map[string]any {
	out := make(map[string]any, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out[fmt.Sprint(m["id"])] = m["amount"]
		}
	}
	return out
}

// hexNumber writes a raw address's account id as 0x and lower-case hex
// without leading zeros; anything else is kept.
func hexNumber(raw string) string {
	_, hex, ok := strings.Cut(raw, ":")
	if !ok {
		return raw
	}
	hex = strings.TrimLeft(strings.ToLower(hex), "0")
	if hex == "" {
		hex = "0"
	}
	return "0x" + hex
}

// plan says where each json field of a value struct goes in toncenter's
// details: its tc tag, a dotted path (or several, comma-separated); a struct (or list of structs) field
// is moved by its own plan.
type plan struct {
	fields []planField
}

type planField struct {
	json  string
	paths [][]string // a field toncenter writes twice (amount and withdraw_amount) has two
	sub   *plan
}

var plans sync.Map // reflect.Type -> *plan

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := &plan{}
	for i := range t.NumField() {
		f := t.Field(i)
		tc := f.Tag.Get("tc")
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tc == "" || name == "" || name == "-" {
			continue
		}
		pf := planField{json: name}
		for _, path := range strings.Split(tc, ",") {
			pf.paths = append(pf.paths, strings.Split(path, "."))
		}
		et := f.Type
		for et.Kind() == reflect.Pointer || et.Kind() == reflect.Slice {
			et = et.Elem()
		}
		if et.Kind() == reflect.Struct && hasTC(et) {
			pf.sub = planOf(et)
		}
		p.fields = append(p.fields, pf)
	}
	plans.Store(t, p)
	return p
}

func hasTC(t reflect.Type) bool {
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("tc") != "" {
			return true
		}
	}
	return false
}

// move builds the details tree of one value object. A field already set
// (two of our fields naming one toncenter field, a flat field and the
// nested object that holds it too) keeps its first value.
func (p *plan) move(v map[string]any) map[string]any {
	out := map[string]any{}
	for _, f := range p.fields {
		x, ok := v[f.json]
		if !ok || x == nil {
			continue
		}
		if f.sub != nil {
			x = f.sub.moveAny(x)
		}
		for _, path := range f.paths {
			set(out, path, x)
		}
	}
	return out
}

func (p *plan) moveAny(x any) any {
	switch x := x.(type) {
	case map[string]any:
		return p.move(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = p.moveAny(e)
		}
		return out
	}
	return x
}

func set(m map[string]any, path []string, x any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	k := path[len(path)-1]
	if old, ok := m[k].(map[string]any); ok {
		if nm, ok := x.(map[string]any); ok {
			for nk, nv := range nm {
				if _, had := old[nk]; !had {
					old[nk] = nv
				}
			}
		}
		return
	}
	if _, had := m[k]; !had {
		m[k] = x
	}
}
