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

// TypeAccountState is the event of an account's state after one of its
// transactions (toncenter's streaming v2 AccountStateNotification).
const TypeAccountState = "account_state_change"

// StateEvent is an account's state right after one of its stored
// transactions: one per transaction, at the seq after the transaction's
// (store.TxSlotState), so it needs no counter of its own and is replayed
// from the transactions' index. What the store knows of that state is
// told (toncenter.RenderStateAfter): the status and hash always (the hash
// only with the raw transaction), the balance and the code, data and
// frozen hashes only while the stored state is the one after this
// transaction; the rest is null.
type StateEvent struct {
	Tx *chain.Transaction
	// Stored is the account's stored state when it is the one right after
	// Tx; nil otherwise.
	Stored *chain.AccountState
	book   chain.AddressBook

	once     sync.Once
	rendered *toncenter.StreamAccountState
	page     statePage
	json     []byte
	err      error
}

// statePage is the event as our own format and webhooks show it: the
// account, the transaction after which, its state, and the account's
// address book entry.
type statePage struct {
	Account         string                        `json:"account"`
	TransactionHash string                        `json:"transaction_hash"`
	TransactionLt   string                        `json:"transaction_lt"`
	State           *toncenter.StreamAccountState `json:"state"`
	AddressBook     chain.AddressBook             `json:"address_book"`
}

func (s *StateEvent) make() {
	s.once.Do(func() {
		if s.rendered, s.err = toncenter.RenderStateAfter(s.Tx, s.Stored); s.err != nil {
			return
		}
		s.page = statePage{Account: s.Tx.Account, TransactionHash: s.Tx.Hash.Base64(),
			TransactionLt: strconv.FormatUint(s.Tx.Lt, 10), State: s.rendered, AddressBook: s.book.Only([]string{s.Tx.Account})}
		s.json, s.err = json.Marshal(&s.page)
	})
}

// Rendered is the state in toncenter's shape and the account's address
// book entry.
func (s *StateEvent) Rendered() (*toncenter.StreamAccountState, chain.AddressBook, error) {
	s.make()
	return s.rendered, s.page.AddressBook, s.err
}

// JSON is the event as statePage.
func (s *StateEvent) JSON() ([]byte, error) {
	s.make()
	return s.json, s.err
}

// prepareStates makes the state events of stored transactions numbered
// with their derived events' places (store.SeqTx.Slots) whose place is
// after `after`: one read of the stored states and one of the address
// book for all of them.
func prepareStates(ctx context.Context, o *Options, rows []store.SeqTx, after uint64) ([]*Event, error) {
	var take []store.SeqTx
	var at []store.TxAt
	for _, r := range rows {
		if r.Slots && r.Seq+store.TxSlotState > after {
			take = append(take, r)
			at = append(at, store.TxAt{Account: r.Account, Lt: r.Lt})
		}
	}
	if len(take) == 0 {
		return nil, nil
	}
	states, err := o.Store.AccountStatesAfter(ctx, at)
	if err != nil {
		return nil, err
	}
	addrs := make([]string, len(take))
	for i, r := range take {
		addrs[i] = r.Account
	}
	slices.Sort(addrs)
	b, _, err := o.Book(ctx, slices.Compact(addrs))
	if err != nil {
		return nil, err
	}
	out := make([]*Event, len(take))
	for i, r := range take {
		out[i] = &Event{Seq: r.Seq + store.TxSlotState,
			State: &StateEvent{Tx: r.Transaction, Stored: states[store.TxAt{Account: r.Account, Lt: r.Lt}], book: b}}
	}
	return out, nil
}
