package resolvers

import (
	"context"
	"errors"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// account is the Account of a raw address: its address forms now, what the
// store knows of it when a field asks (AccountFacts).
func (r *Resolver) account(raw string) *model.Account {
	id := ton.MustParseAccountID(raw)
	return &model.Account{Address: raw, Bounceable: id.ToHuman(true, r.Testnet), NonBounceable: id.ToHuman(false, r.Testnet)}
}

// AccountFacts is what the store knows of an account, read through the
// request's loader: the facts of every account a response shows are read
// together, once.
func (r *Resolver) AccountFacts(ctx context.Context, a *model.Account) (chain.AddressFacts, error) {
	return r.loaders(ctx).factsLoader().Load(ctx, a.Address)
}

// UserFriendly is the address book's form of the account.
func (r *Resolver) UserFriendly(ctx context.Context, a *model.Account) (string, error) {
	f, err := r.AccountFacts(ctx, a)
	if err != nil {
		return "", err
	}
	return ton.MustParseAccountID(a.Address).ToHuman(f.Bounceable(), r.Testnet), nil
}

// loadAccount is the Account of a raw address (facts read when asked).
func (r *Resolver) loadAccount(_ context.Context, raw string) (*model.Account, error) {
	return r.account(raw), nil
}

// AccountByAddress answers account(address).
func (r *Resolver) AccountByAddress(ctx context.Context, address string) (*model.Account, error) {
	raw, err := chain.NormalizeAddress(address)
	if err != nil {
		return nil, apperr.Field("address", "%v", err)
	}
	return r.loadAccount(ctx, raw)
}

// Details decodes an action's value into its declared struct.
func (r *Resolver) Details(_ context.Context, a *chain.Action) (actions.Details, error) {
	v, err := actions.DecodeValue(a.Type, a.Value)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "action "+a.ActionID)
	}
	return v, nil
}

// TransactionsFull links an action to its transactions, in its order:
// those ListActions read with the page (include_transactions), else read
// through the request's loader, with their messages only when the
// selection shows messages. Either way the objects are the same.
func (r *Resolver) TransactionsFull(ctx context.Context, a *chain.Action) ([]*chain.FullTransaction, error) {
	if a.TransactionsFull != nil {
		return a.TransactionsFull, nil
	}
	txs, err := r.loaders(ctx).transactionsLoader(selects(ctx, messageFields)).LoadAll(ctx, store.TxRefsOf(a))
	if err != nil {
		return nil, err
	}
	return fullTransactions(txs), nil
}

// messageFields are Transaction's fields that need its messages read.
var messageFields = map[string]bool{"in_msg": true, "out_msgs": true}

// attachTransactions reads the transactions of a whole page, with their
// messages, in one batched read (two statements), and puts them on the
// actions: what include_transactions asks for.
func (r *Resolver) attachTransactions(ctx context.Context, page []*chain.Action) error {
	var refs []store.TxRef
	for _, a := range page {
		refs = append(refs, store.TxRefsOf(a)...)
	}
	byHash, err := r.Store.Transactions(ctx, refs, true)
	if err != nil {
		return err
	}
	for _, a := range page {
		txs := make([]*chain.Transaction, len(a.Transactions))
		for i, h := range a.Transactions {
			txs[i] = byHash[h]
		}
		a.TransactionsFull = fullTransactions(txs)
	}
	return nil
}

// fullTransactions shows transactions in their order; a nil one (a
// transaction the store no longer has: a re-assembled trace) is left out.
func fullTransactions(txs []*chain.Transaction) []*chain.FullTransaction {
	out := make([]*chain.FullTransaction, 0, len(txs))
	for _, tx := range txs {
		if tx != nil {
			out = append(out, chain.NewFullTransaction(tx))
		}
	}
	return out
}

// Participants links an action to the accounts taking part and their roles.
func (r *Resolver) Participants(ctx context.Context, a *chain.Action) ([]*model.Participant, error) {
	ps, err := r.loaders(ctx).participantsLoader().Load(ctx, store.RefOf(a))
	if err != nil {
		return nil, err
	}
	out := make([]*model.Participant, 0, len(ps))
	for _, p := range ps {
		acc, err := r.loadAccount(ctx, p.Account)
		if err != nil {
			return nil, err
		}
		out = append(out, &model.Participant{Account: acc, Roles: p.Roles})
	}
	return out, nil
}

// AccountActions pages an account's actions by cursor: the cursor is the
// sort key of the last action seen, so the next page starts right after
// it in the index, whatever its depth.
func (r *Resolver) AccountActions(ctx context.Context, acc *model.Account, in *model.AccountActionFilter, first *int, after *string, sort *model.SortOrder) (*model.ActionConnection, error) {
	f := store.ActionFilter{Account: acc.Address, Limit: DefaultActionsLimit}
	if first != nil {
		if *first < 1 || *first > MaxActionsLimit {
			return nil, apperr.Field("first", "must be between 1 and %d", MaxActionsLimit)
		}
		f.Limit = *first
	}
	if sort != nil {
		if !sort.IsValid() {
			return nil, apperr.Field("sort", "must be asc or desc")
		}
		f.Asc = *sort == model.SortOrderAsc
	}
	if after != nil {
		k, err := decodeCursor(*after)
		if err != nil {
			return nil, apperr.Field("after", "%v", err)
		}
		f.After = &k
	}
	if in != nil {
		var err error
		if f.TxHashes, err = hashes("tx_hash", in.TxHash); err != nil {
			return nil, err
		}
		if f.MsgHashes, err = hashes("msg_hash", in.MsgHash); err != nil {
			return nil, err
		}
		if f.TraceIDs, err = hashes("trace_id", in.TraceID); err != nil {
			return nil, err
		}
		if err := typeTimeFilter(&f, in.ActionType, in.ExcludeActionType, in.StartUtime, in.EndUtime, in.StartLt, in.EndLt); err != nil {
			return nil, err
		}
		if err := applySupported(&f, in.ActionType, in.SupportedActionTypes); err != nil {
			return nil, err
		}
	}
	want := f.Limit
	f.Limit++ // one more tells whether a next page exists
	withBook := selects(ctx, bookFields)
	read, err := r.Store.ListActions(ctx, f, bookOf(false, withBook))
	if err != nil {
		return nil, err
	}
	conn := &model.ActionConnection{PageInfo: &model.PageInfo{HasNextPage: len(read.Actions) > want}}
	page := read.Actions[:min(len(read.Actions), want)]
	list := &chain.ActionList{Actions: page}
	for _, a := range page {
		a.Accounts = nil // REST shows them only when asked; so does the graph
	}
	if withBook {
		if conn.AddressBook, conn.Metadata, err = r.addressBookWith(ctx, list.BookAddresses(), read.Facts, r.facts); err != nil {
			return nil, err
		}
		describe(page, conn.AddressBook, conn.Metadata)
	}
	conn.Edges = make([]*model.ActionEdge, len(page))
	for i, a := range page {
		conn.Edges[i] = &model.ActionEdge{Cursor: encodeCursor(store.ActionKey{EndLt: a.EndLt, ActionID: a.ActionID}), Node: a}
	}
	if len(page) > 0 {
		conn.PageInfo.EndCursor = &conn.Edges[len(page)-1].Cursor
	}
	return conn, nil
}

// describing is off only in BenchmarkActionsPageDescriptions, which
// measures a page with its descriptions against the same page without.
var describing = true

// describe fills the titles and descriptions of actions from the address
// book and metadata their answer shows anyway: no query of its own.
func describe(list []*chain.Action, book chain.AddressBook, md chain.Metadata) {
	if !describing {
		return
	}
	actions.DescribeActions(list, actions.Names{Book: book, Metadata: md})
}

// Describe is an action's title and description: those its page filled
// (a page that read its book), else made now from the facts of the
// value's addresses, read through the request's loader (one query for
// every action of the operation that needs it: a trace's or a
// transaction's actions, a parent, children, a page whose book was not
// selected).
func (r *Resolver) Describe(ctx context.Context, a *chain.Action) (title, description string, err error) {
	if a.Description != "" {
		return a.Title, a.Description, nil
	}
	n := actions.Names{}
	if len(a.Addresses) > 0 && r.Store != nil {
		facts, err := r.loaders(ctx).factsLoader().LoadAll(ctx, a.Addresses)
		if err != nil {
			return "", "", err
		}
		byAddr := make(map[string]chain.AddressFacts, len(facts))
		n.Book = make(chain.AddressBook, len(facts))
		for i, addr := range a.Addresses {
			byAddr[addr] = facts[i]
			if e, ok := chain.NewAddressBookEntry(addr, facts[i], r.Testnet); ok {
				n.Book[addr] = e
			}
		}
		n.Metadata = chain.MetadataOfFacts(a.Addresses, byAddr)
	}
	title, description, ok := actions.Describe(a.Type, a.Status, a.Value, n)
	if !ok {
		return "", "", apperr.Wrap(apperr.Internal, errors.New("no description"), "action "+a.ActionID)
	}
	return title, description, nil
}
