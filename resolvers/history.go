package resolvers

import (
	"context"
	"maps"
	"slices"
	"sort"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// The stored chain data as toncenter's v3 routes read it: transactions,
// messages and the address book of the accounts they name. The REST
// routes call these (GraphQL reads the store through its own resolvers,
// which keep the chain types); transactions, traces and messages come
// back rendered in toncenter's shape.

// FindTransactions returns a page of stored transactions in toncenter's
// shape and the address book of their accounts and counterparties. The
// messages of a transaction with its raw BOC are decoded from the BOC,
// not read again from their rows (store.MessagesWithoutBOC).
func (r *Resolver) FindTransactions(ctx context.Context, f store.TxFilter) ([]*toncenter.Transaction, chain.AddressBook, error) {
	if r.Store == nil {
		return nil, nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	f.Messages = store.MessagesWithoutBOC
	txs, err := r.Store.FindTransactions(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	return r.renderTransactions(ctx, txs)
}

// AdjacentTransactions returns the transactions linked to hash by a
// message, in toncenter's shape: the sender of its in-message ("in"), the
// receivers of its out-messages ("out"), or both (""). As on
// FindTransactions, a raw transaction's messages come from its BOC.
func (r *Resolver) AdjacentTransactions(ctx context.Context, hash, direction string) ([]*toncenter.Transaction, chain.AddressBook, error) {
	if r.Store == nil {
		return nil, nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	txs, err := r.Store.AdjacentTransactions(ctx, hash, direction, store.MessagesWithoutBOC)
	if err != nil {
		return nil, nil, err
	}
	return r.renderTransactions(ctx, txs)
}

// renderTransactions renders txs in toncenter's shape, with the address
// book of what they name.
func (r *Resolver) renderTransactions(ctx context.Context, txs []*chain.Transaction) ([]*toncenter.Transaction, chain.AddressBook, error) {
	out := make([]*toncenter.Transaction, len(txs))
	for i, t := range txs {
		rt, err := toncenter.RenderTransaction(t)
		if err != nil {
			return nil, nil, undecodable(err)
		}
		out[i] = rt
	}
	book, err := r.addressBook(ctx, txAddresses(out))
	return out, book, err
}

// undecodable is the error of a stored transaction whose BOC does not
// decode: the store's fault, never the client's.
func undecodable(err error) error {
	return apperr.Wrap(apperr.Internal, err, "a stored transaction does not decode")
}

// FindMessages returns a page of stored messages in toncenter's shape
// and the address book of their ends.
func (r *Resolver) FindMessages(ctx context.Context, f store.MsgFilter) ([]*toncenter.Message, chain.AddressBook, error) {
	if r.Store == nil {
		return nil, nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	msgs, err := r.Store.Messages(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*toncenter.Message, len(msgs))
	var addrs []string
	for i := range msgs {
		sm := &msgs[i]
		m, err := toncenter.RenderStoredMessage(&sm.Message, toncenter.MessageEnd{TxHash: sm.TxHash, Account: sm.TxAccount,
			Direction: sm.Direction, Seq: sm.Seq, BOC: sm.TxBOC, OtherTxHash: sm.OtherTxHash})
		if err != nil {
			return nil, nil, undecodable(err)
		}
		out[i] = m
		addrs = append(addrs, sm.Message.Source, sm.Message.Destination)
	}
	book, err := r.addressBook(ctx, distinct(addrs))
	return out, book, err
}

// txAddresses are the accounts a page of transactions names, as
// toncenter's book holds them: each account, its in-message's source and
// its out-messages' destinations.
func txAddresses(txs []*toncenter.Transaction) []string {
	var addrs []string
	for _, t := range txs {
		addrs = append(addrs, t.Account)
		if t.InMsg != nil && t.InMsg.Source != nil {
			addrs = append(addrs, *t.InMsg.Source)
		}
		for _, m := range t.OutMsgs {
			if m.Destination != nil {
				addrs = append(addrs, *m.Destination)
			}
		}
	}
	return distinct(addrs)
}

// distinct drops empty and repeated addresses, sorted.
func distinct(addrs []string) []string {
	seen := map[string]bool{}
	out := addrs[:0:0]
	for _, a := range addrs {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// FindTraces returns a page of stored traces in toncenter's shape, with
// their transactions (their messages decoded from the BOCs, as
// FindTransactions does), and the address book of every account they
// name.
func (r *Resolver) FindTraces(ctx context.Context, f store.TraceFilter) ([]*toncenter.Trace, chain.AddressBook, error) {
	if r.Store == nil {
		return nil, nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	f.Messages = store.MessagesWithoutBOC
	traces, err := r.Store.FindTraces(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*toncenter.Trace, len(traces))
	var txs []*toncenter.Transaction
	for i := range traces {
		st := &traces[i]
		tr, err := toncenter.RenderTrace(&toncenter.TraceData{ID: st.ID, StartLt: st.StartLt, EndLt: st.EndLt,
			StartUtime: st.StartUtime, EndUtime: st.EndUtime, Complete: st.Complete, Transactions: st.Transactions})
		if err != nil {
			return nil, nil, undecodable(err)
		}
		out[i] = tr
		txs = slices.AppendSeq(txs, maps.Values(tr.Transactions))
	}
	book, err := r.addressBook(ctx, txAddresses(txs))
	return out, book, err
}

// StoredAccount is an account's stored state, decoded, and what the
// store knows of its code (interfaces).
type StoredAccount struct {
	State      *chain.AccountState
	Info       *accountinfo.Info
	Interfaces []string
}

// StoredAccounts returns the stored states of the addresses (raw), in the
// order given, skipping those the store holds no state of, with the
// address book of them all.
func (r *Resolver) StoredAccounts(ctx context.Context, addrs []string) ([]StoredAccount, chain.AddressBook, error) {
	if r.Store == nil {
		return nil, nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	addrs = distinct(addrs)
	facts, err := r.facts(ctx, addrs)
	if err != nil {
		return nil, nil, err
	}
	var out []StoredAccount
	for _, a := range addrs {
		st, err := r.Store.Account(ctx, a)
		if err != nil {
			return nil, nil, err
		}
		if st == nil || len(st.ShardAccountBOC) == 0 {
			continue
		}
		info, err := accountinfo.Decode(st)
		if err != nil {
			return nil, nil, apperr.Wrap(apperr.Internal, err, "internal error")
		}
		out = append(out, StoredAccount{State: st, Info: info, Interfaces: facts[a].Interfaces})
	}
	book, _, err := r.addressBookWith(ctx, addrs, facts, r.facts)
	return out, book, err
}

// TopAccountsByBalance ranks the accounts whose state the store holds by
// balance (toncenter's /api/v3/topAccountsByBalance).
func (r *Resolver) TopAccountsByBalance(ctx context.Context, limit, offset int) ([]store.AccountBalance, error) {
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	return r.Store.TopAccountsByBalance(ctx, limit, offset)
}
