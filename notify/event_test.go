package notify

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// An event's two views carry the metadata of the tokens they show: the
// value's addresses without the accounts list, and the participants' too
// with it; a token the event does not show is never listed. The JSON is
// the one /api/v3/actions writes for the same page.
func TestEventViewsCarryTheirTokens(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	name := "Tonstakers TON"
	master, participant, other := "0:"+strings.Repeat("01", 32), "0:"+strings.Repeat("02", 32), "0:"+strings.Repeat("03", 32)
	tokens := chain.Metadata{
		master:      {Kind: chain.TokenJettonMaster, Valid: true, Name: &name, FetchedAt: &at},
		participant: {Kind: chain.TokenNftItem, Reason: "pending"},
		other:       {Kind: chain.TokenNftCollection, Reason: "pending"},
	}
	a := &chain.Action{ActionID: "a", Type: "JettonTransfer", Status: "ok", Value: chain.RawJSON(`{"jetton_master":"` + master + `"}`),
		Addresses: []string{master}, Accounts: []string{master, participant}}
	book := chain.AddressBook{}
	for _, addr := range []string{master, participant, other} {
		e, ok := chain.NewAddressBookEntry(addr, chain.AddressFacts{}, false)
		require.True(t, ok)
		book[addr] = e
	}
	e := &Event{Action: a, book: book, tokens: tokens}
	for _, with := range []bool{false, true} {
		l := e.List(with)
		want := chain.Metadata{master: tokens[master]}
		if with {
			want[participant] = tokens[participant]
		}
		require.Equal(t, want, l.Metadata, "accounts %t", with)
		raw, err := e.JSON(with)
		require.NoError(t, err)
		var page struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
		}
		require.NoError(t, json.Unmarshal(raw, &page))
		require.Len(t, page.Metadata, len(want))
		require.JSONEq(t, string(want.AppendJSON(nil)), string(mustJSON(t, page.Metadata)))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
