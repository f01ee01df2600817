package toncenter

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// storedOnly are tc tags that name a column of toncenter's stored action
// (source_secondary, its marketplace column) which its API's details do
// not carry: documentation of where toncenter keeps the fact, dropped by
// the dialect as toncenter's converter drops it.
var storedOnly = map[string]bool{
	"AuctionBid.auction_type": true, "CocoonClientTopUp.proxy": true, "CocoonGrantRefund.proxy": true,
	"CocoonProxyPayout.excesses_to": true, "CocoonWorkerPayout.worker": true,
	"CocoonWorkerPayout.expected_address": true, "EvaaWithdraw.is_ton": true,
	// an extra-currency transfer is answered as ton_transfer (dialectAs):
	// its currencies move to value_extra_currencies; the op code has no place.
	"ExtraCurrencyTransfer.extra_currencies": true, "ExtraCurrencyTransfer.opcode": true,
}

// TestEveryTCTagIsAToncenterField: each tc tag of an action declaration
// names a field of its toncenter type's details (detailsShapes), so the
// dialect never drops a value for a misspelt name.
func TestEveryTCTagIsAToncenterField(t *testing.T) {
	for _, typ := range actions.Types() {
		name := typ.Toncenter
		if as, ok := dialectAs[name]; ok {
			name = as
		}
		sh, ok := shapeOf(name)
		if !ok {
			continue // answered as toncenter answers a type it lacks
		}
		if name == "jetton_swap" {
			sh, _ = shapeOf("jetton_swap@tonco")
		}
		checkTags(t, typ.Name(), reflect.TypeOf(typ.Value), sh)
	}
}

func checkTags(t *testing.T, where string, rt reflect.Type, sh *shape) {
	for _, f := range planOf(rt).fields {
		for _, path := range f.paths {
			at := sh
			for _, k := range path {
				if at.kind == "list" {
					at = at.elem
				}
				if at.kids[k] == nil && storedOnly[where+"."+f.json] {
					at = nil
					break
				}
				if at.kids[k] == nil {
					t.Errorf("%s.%s: tc %q is no field of toncenter's details", where, f.json, strings.Join(path, "."))
					at = nil
					break
				}
				at = at.kids[k]
			}
			if at != nil && f.sub != nil {
				if at.kind == "list" {
					at = at.elem
				}
				checkTags(t, where+"."+f.json, subType(rt, f.json), at)
			}
		}
	}
}

func subType(rt reflect.Type, json string) reflect.Type {
	for i := range rt.NumField() {
		if n, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); n == json {
			et := rt.Field(i).Type
			for et.Kind() == reflect.Pointer || et.Kind() == reflect.Slice {
				et = et.Elem()
			}
			return et
		}
	}
	return nil
}

// TestEveryTypeRendersAndEncodesAsMarshal renders an example action of
// every declared type (every value field filled) in the dialect: details
// are valid JSON objects of toncenter's shape for the type, and the page's
// AppendJSON writes exactly what json.Marshal writes.
func TestEveryTypeRendersAndEncodesAsMarshal(t *testing.T) {
	page := &chain.ActionList{AddressBook: chain.AddressBook{}, Metadata: chain.Metadata{}}
	mc := uint32(7)
	norm := "bm9ybQ=="
	for i, typ := range actions.Types() {
		v, err := json.Marshal(actions.ExampleValue(typ))
		require.NoError(t, err)
		page.Actions = append(page.Actions, &chain.Action{
			ActionID: "a" + strconv.Itoa(i), TraceID: "t<&>", Type: typ.Name(), Status: chain.StatusOK,
			Value: v, StartLt: 1, EndLt: 2, StartUtime: 3, EndUtime: 4, TraceEndLt: 5, TraceEndUtime: 6,
			Transactions: []string{"h+/="}, McSeqno: &mc, TraceExternalHashNorm: &norm, Accounts: []string{actions.ExampleAlice},
		})
	}
	out, err := RenderActions(page)
	require.NoError(t, err)
	for _, a := range out.Actions {
		var d map[string]any
		require.NoError(t, json.Unmarshal(a.Details, &d), a.Type)
		if sh, ok := shapeOf(a.Type); ok {
			for k := range d {
				require.Contains(t, sh.kids, k, a.Type)
			}
		} else {
			require.Contains(t, d, "error", a.Type)
		}
	}
	want, err := json.Marshal(out)
	require.NoError(t, err)
	got, err := out.AppendJSON(nil)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// TestDetailsShapesParse: every shape of detailsShapes reads (they are
// parsed on first use, where a broken one would panic), each an object.
func TestDetailsShapesParse(t *testing.T) {
	for name := range detailsShapes {
		s, ok := shapeOf(name)
		require.True(t, ok, name)
		require.Equal(t, "object", s.kind, name)
	}
	require.Len(t, parsedShapes(), 81, "toncenter's 80 action types and the tonco swap variant")
}
