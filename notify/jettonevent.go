package notify

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// TypeJettons is the event of a jetton wallet after one of its
// transactions (toncenter's streaming v2 JettonsNotification).
const TypeJettons = "jettons_change"

// JettonEvent is a jetton wallet's state as the token registry read it
// after one of its transactions: one per state the registry stored as
// newer, at the seq SaveTokens gave it in the registry's own commit
// (store.JettonChangesAfter reads them, live and on replay alike), so the
// balance and hashes are the get method's at that transaction. A
// subscription watching the wallet or its owner gets it (Accounts).
type JettonEvent struct {
	// Wallet is the state read; LastTxLt and LastTxHash name the
	// transaction after which.
	Wallet chain.JettonWallet
	book   chain.AddressBook
	tokens chain.Metadata

	once     sync.Once
	rendered toncenter.JettonWallet
	page     jettonPage
	json     []byte
	err      error
}

// jettonPage is the event as our own format and webhooks show it: the
// transaction after which, the wallet in toncenter's shape, the address
// book of the wallet, its owner and master, and the metadata of the owner
// and the master (toncenter's choice of each).
type jettonPage struct {
	TransactionHash string                 `json:"transaction_hash"`
	TransactionLt   string                 `json:"transaction_lt"`
	Jetton          toncenter.JettonWallet `json:"jetton"`
	AddressBook     chain.AddressBook      `json:"address_book"`
	Metadata        chain.Metadata         `json:"metadata"`
}

func (j *JettonEvent) make() {
	j.once.Do(func() {
		j.rendered = toncenter.RenderJettonWallet(&j.Wallet)
		j.page = jettonPage{TransactionHash: j.Wallet.LastTxHash.Base64(), TransactionLt: strconv.FormatUint(j.Wallet.LastTxLt, 10),
			Jetton: j.rendered, AddressBook: j.book.Only([]string{j.Wallet.Address, j.Wallet.Owner, j.Wallet.Jetton})}
		j.page.Metadata = j.tokens.Only([]string{j.Wallet.Owner, j.Wallet.Jetton})
		j.json, j.err = json.Marshal(&j.page)
	})
}

// Rendered is the wallet in toncenter's shape, with the address book of
// the wallet, owner and master and the metadata of the owner and master.
func (j *JettonEvent) Rendered() (toncenter.JettonWallet, chain.AddressBook, chain.Metadata) {
	j.make()
	return j.rendered, j.page.AddressBook, j.page.Metadata
}

// JSON is the event as jettonPage.
func (j *JettonEvent) JSON() ([]byte, error) {
	j.make()
	return j.json, j.err
}

// prepareJettons makes the jettons_change events of the wallet states the
// registry logged: one read of the address book for all of them.
func prepareJettons(ctx context.Context, o *Options, rows []store.SeqJettonChange) ([]*Event, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var addrs []string
	for _, r := range rows {
		addrs = append(addrs, r.Address, r.Owner, r.Jetton)
	}
	slices.Sort(addrs)
	b, md, err := o.Book(ctx, slices.Compact(addrs))
	if err != nil {
		return nil, err
	}
	out := make([]*Event, len(rows))
	for i, r := range rows {
		out[i] = &Event{Seq: r.Seq, Jetton: &JettonEvent{Wallet: r.JettonWallet, book: b, tokens: md}}
	}
	return out, nil
}
