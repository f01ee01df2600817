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

// JettonEvent is a jetton wallet right after one of its stored
// transactions: one per transaction of an account the token registry
// knows as a jetton wallet when the event is read, at the second place
// after the transaction's (store.TxSlotJettons), replayed from the
// transactions' index like StateEvent. The registry keeps each wallet's
// latest state only, so the balance and hashes are told only when its row
// was read at this transaction (toncenter.RenderJettonWalletAfter). A
// subscription watching the wallet or its owner gets it (Accounts).
type JettonEvent struct {
	Tx *chain.Transaction
	// Wallet is the registry's row of Tx's account when the event was read.
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
		j.rendered = toncenter.RenderJettonWalletAfter(&j.Wallet, j.Tx)
		j.page = jettonPage{TransactionHash: j.Tx.Hash.Base64(), TransactionLt: strconv.FormatUint(j.Tx.Lt, 10),
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

// prepareJettons makes the jettons_change events of stored transactions
// (numbered with their derived events' places) whose place is after
// `after` and whose account the registry knows as a jetton wallet: one
// registry read by address for all of them and one of the address book.
func prepareJettons(ctx context.Context, o *Options, rows []store.SeqTx, after uint64) ([]*Event, error) {
	var take []store.SeqTx
	var accounts []string
	for _, r := range rows {
		if r.Slots && r.Seq+store.TxSlotJettons > after {
			take = append(take, r)
			accounts = append(accounts, r.Account)
		}
	}
	if len(take) == 0 {
		return nil, nil
	}
	slices.Sort(accounts)
	wallets, err := o.Store.JettonWalletsAt(ctx, slices.Compact(accounts))
	if err != nil || len(wallets) == 0 {
		return nil, err
	}
	var addrs []string
	for _, w := range wallets {
		addrs = append(addrs, w.Address, w.Owner, w.Jetton)
	}
	slices.Sort(addrs)
	b, md, err := o.Book(ctx, slices.Compact(addrs))
	if err != nil {
		return nil, err
	}
	var out []*Event
	for _, r := range take {
		if w, ok := wallets[r.Account]; ok {
			out = append(out, &Event{Seq: r.Seq + store.TxSlotJettons, Jetton: &JettonEvent{Tx: r.Transaction, Wallet: w, book: b, tokens: md}})
		}
	}
	return out, nil
}
