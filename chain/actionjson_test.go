package chain_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tonql/tonql/chain"
)

// AppendJSON must write exactly what json.Marshal writes, for every field
// set or not, and for strings that need escaping.
func TestActionJSONMatchesMarshal(t *testing.T) {
	hash, seqno := "q+/=", uint32(7)
	full := &chain.Action{ActionID: "id/+=", TraceID: "t", TxHash: "x", Type: "JettonSwap", Status: "ok",
		Value: chain.RawJSON(`{"a":"b","n":[1,2]}`), StartLt: 1, StartUtime: 2, EndLt: 3, EndUtime: 4,
		Transactions: []string{"a", "b"}, TraceEndLt: 5, TraceEndUtime: 6, TraceExternalHashNorm: &hash,
		McSeqno: &seqno, Accounts: []string{"0:AB", "0:CD"}, Title: "Swap", Description: `Swapped 10 TON for 21.3 USDT on STON.fi, "quoted" <&>`}
	cases := []*chain.Action{
		{},
		full,
		{ActionID: "quote\" back\\ <tag> & é \u0001", Transactions: []string{}, Value: chain.RawJSON(`{}`)},
	}
	for i, a := range cases {
		want, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
	list := &chain.ActionList{Actions: []*chain.Action{full, cases[0]},
		AddressBook: chain.AddressBook{"0:AB": {UserFriendly: "EQ..", Interfaces: []string{"wallet_v4r2"}}}}
	want, _ := json.Marshal(list)
	got, err := list.AppendJSON(nil)
	if err != nil || string(got) != string(want) {
		t.Errorf("list:\n got %s\nwant %s", got, want)
	}
	empty := &chain.ActionList{Actions: []*chain.Action{}}
	want, _ = json.Marshal(empty)
	if got, _ := empty.AppendJSON(nil); string(got) != string(want) {
		t.Errorf("empty list:\n got %s\nwant %s", got, want)
	}
}

// The address book writes what json.Marshal writes of the plain map: keys
// sorted, null and set domains, nil and empty interfaces, escaping.
func TestAddressBookJSON(t *testing.T) {
	d, odd := "alice.ton", "<b>&\"é\u2028"
	books := []chain.AddressBook{
		nil,
		{},
		{"0:CD": {UserFriendly: "UQ..", Domain: &d, Interfaces: []string{"wallet_v5r1", "x"}},
			"0:AB":  {UserFriendly: "EQ..", Interfaces: []string{}},
			"-1:00": {UserFriendly: odd, Domain: &odd},
			odd:     {}},
	}
	for i, b := range books {
		want, err := json.Marshal(map[string]chain.AddressBookEntry(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := b.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("book %d:\n got %s\nwant %s", i, got, want)
		}
		if got, _ := json.Marshal(b); string(got) != string(want) {
			t.Errorf("book %d through MarshalJSON:\n got %s\nwant %s", i, got, want)
		}
		// MarshalGQL appends after what a bytes.Buffer holds, and writes the
		// same to any other writer; GraphQL's book is never null.
		if b == nil {
			want = []byte("{}")
		}
		buf := bytes.NewBufferString(`{"address_book":`)
		b.MarshalGQL(buf)
		if got := buf.String(); got != `{"address_book":`+string(want) {
			t.Errorf("book %d through MarshalGQL into a buffer:\n got %s", i, got)
		}
		var sb strings.Builder
		b.MarshalGQL(&sb)
		if got := sb.String(); got != string(want) {
			t.Errorf("book %d through MarshalGQL:\n got %s\nwant %s", i, got, want)
		}
	}
}
