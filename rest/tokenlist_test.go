package rest

import (
	"encoding/json"
	"testing"

	"github.com/tonql/tonql/chain"
)

// TestTokenListJSON: the hand-written answer of the registry routes is
// byte for byte what json.Marshal made of it as a map, whichever side of
// "address_book" and "metadata" the list's key sorts on.
func TestTokenListJSON(t *testing.T) {
	domain, name := "alice.ton", "Tether \"USD\""
	book := chain.AddressBook{
		"0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE": {UserFriendly: "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", Interfaces: []string{"jetton_master"}},
		"0:0000FF46A25D77FC5D45171F1FD30F721ED8AA60135F028992D14DEAF1B64F3F": {UserFriendly: "UQAAAP9Gol13", Domain: &domain, Interfaces: []string{}},
	}
	md := chain.Metadata{"0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE": {
		Address: "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE", Kind: "jetton_masters", Valid: true, Name: &name}}
	list := []tcJettonWallet{{Address: "0:AB", Owner: "0:CD", Jetton: "0:EF", LastTransactionLt: "1"}}
	for _, key := range []string{"jetton_wallets", "nft_items", "a_first", "zz_last"} {
		for _, l := range []TokenList{{Key: key, List: list, AddressBook: book, Metadata: md}, {Key: key, List: []tcNftItem{}}} {
			want, err := json.Marshal(map[string]any{l.Key: l.List, "address_book": l.AddressBook, "metadata": l.Metadata})
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.AppendJSON([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix"+string(want) {
				t.Errorf("%s:\n got %s\nwant prefix%s", key, got, want)
			}
		}
	}
}
