package resolvers

import (
	"context"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// Paging bounds of the actions list (docs/API-NOTES.md, the schema).
const (
	DefaultActionsLimit = 10
	MaxActionsLimit     = 1000
	// maxFilterValues bounds repeated filter values, so one request cannot
	// make a query with an unbounded IN list.
	maxFilterValues = 100
)

// ListActions validates a query, reads one page, and builds its address
// book. GraphQL's actions field and GET /api/v3/actions both end here.
func (r *Resolver) ListActions(ctx context.Context, in *model.ActionFilter, limit, offset *int, sort *model.SortOrder) (*chain.ActionList, error) {
	f, err := storeFilter(in, limit, offset, sort)
	if err != nil {
		return nil, err
	}
	list, err := r.listPage(ctx, f, in != nil && isTrue(in.IncludeAccounts), selects(ctx, bookFields))
	if err != nil || in == nil || !isTrue(in.IncludeTransactions) {
		return list, err
	}
	if err := cost.Rows(len(list.Actions), txCount(list.Actions)); err != nil {
		return nil, err
	}
	if err := r.attachTransactions(ctx, list.Actions); err != nil {
		return nil, err
	}
	return list, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// txCount is how many transactions a page shows with include_transactions.
func txCount(page []*chain.Action) int {
	n := 0
	for _, a := range page {
		n += len(a.Transactions)
	}
	return n
}

// bookFields are the fields of a page that show its address book or its
// tokens' metadata (read with the book's facts).
var bookFields = map[string]bool{"address_book": true, "address_book_entries": true, "metadata": true}

// selects tells whether the field being resolved shows any of fields:
// outside GraphQL (REST, JSON-RPC), whose answers have every field, it
// does.
func selects(ctx context.Context, fields map[string]bool) bool {
	return selectsBelow(ctx, nil, fields)
}

// selectsBelow is selects for a field under the one being resolved, by
// path (a connection's "edges", then "node").
func selectsBelow(ctx context.Context, path []string, fields map[string]bool) bool {
	return !inGraphQL(ctx) || selectsAny(ctx, path, fields)
}

// inGraphQL tells whether ctx is a GraphQL field's.
func inGraphQL(ctx context.Context) bool {
	return graphql.GetFieldContext(ctx) != nil && graphql.HasOperationContext(ctx)
}

// selectsAny tells whether the GraphQL field being resolved selects any of
// fields, in the selection of path's last field when path is given.
func selectsAny(ctx context.Context, path []string, fields map[string]bool) bool {
	level := graphql.CollectFieldsCtx(ctx, nil)
	for _, name := range path {
		var next []graphql.CollectedField
		for _, f := range level {
			if f.Name == name {
				next = append(next, graphql.CollectFields(graphql.GetOperationContext(ctx), f.Selections, nil)...)
			}
		}
		level = next
	}
	for _, f := range level {
		if fields[f.Name] {
			return true
		}
	}
	return false
}

// bookOf is the part of the address book a page reads with its rows.
func bookOf(includeAccounts, withBook bool) store.Book {
	switch {
	case !withBook:
		return store.NoBook
	case includeAccounts:
		return store.BookOfValuesAndAccounts
	}
	return store.BookOfValues
}

// listPage reads a page with its address book's facts (one statement on
// Postgres); accounts are shown only when asked for, and then the book
// names them too. Without withBook (a GraphQL page that does not select
// its book) no book is read or built.
func (r *Resolver) listPage(ctx context.Context, f store.ActionFilter, includeAccounts, withBook bool) (*chain.ActionList, error) {
	page, err := r.Store.ListActions(ctx, f, bookOf(includeAccounts, withBook))
	if err != nil {
		return nil, err
	}
	if !includeAccounts {
		for _, a := range page.Actions {
			a.Accounts = nil
		}
	}
	list := &chain.ActionList{Actions: page.Actions}
	if !withBook {
		return list, nil
	}
	if list.AddressBook, list.Metadata, err = r.addressBookWith(ctx, page.Book, page.Facts, r.facts); err != nil {
		return nil, err
	}
	describe(list.Actions, list.AddressBook, list.Metadata)
	return list, nil
}

func (r *Resolver) addressBook(ctx context.Context, addrs []string) (chain.AddressBook, error) {
	book, _, err := r.addressBookWith(ctx, addrs, nil, r.facts)
	return book, err
}

// AddressBookAndMetadata is the address book of addrs as /api/v3/actions
// shows it, and the metadata object of the tokens among them.
func (r *Resolver) AddressBookAndMetadata(ctx context.Context, addrs []string) (chain.AddressBook, chain.Metadata, error) {
	return r.addressBookWith(ctx, addrs, nil, r.facts)
}

// facts reads what the store knows of addresses; every address asked for
// is a key (the zero facts when the store knows nothing of it).
func (r *Resolver) facts(ctx context.Context, addrs []string) (map[string]chain.AddressFacts, error) {
	out := map[string]chain.AddressFacts{}
	if r.Store != nil && len(addrs) > 0 {
		var err error
		if out, err = r.Store.AddressFacts(ctx, addrs); err != nil {
			return nil, err
		}
	}
	for _, a := range addrs {
		if _, ok := out[a]; !ok {
			out[a] = chain.AddressFacts{}
		}
	}
	return out, nil
}

// addressBookWith is AddressBookAndMetadata for a caller that read some
// addresses' facts already (have); only the others are read, by read.
func (r *Resolver) addressBookWith(ctx context.Context, addrs []string, have map[string]chain.AddressFacts,
	read func(context.Context, []string) (map[string]chain.AddressFacts, error)) (chain.AddressBook, chain.Metadata, error) {
	var missing []string
	for _, a := range addrs {
		if _, ok := have[a]; !ok {
			missing = append(missing, a)
		}
	}
	facts := have
	if len(missing) > 0 || have == nil {
		got, err := read(ctx, missing)
		if err != nil {
			return nil, nil, err
		}
		for a, f := range have {
			got[a] = f
		}
		facts = got
	}
	book := make(chain.AddressBook, len(addrs))
	for _, a := range addrs {
		if e, ok := chain.NewAddressBookEntry(a, facts[a], r.Testnet); ok {
			book[a] = e
		}
	}
	return book, chain.MetadataOfFacts(addrs, facts), nil
}

// storeFilter checks every field and names the one at fault.
func storeFilter(in *model.ActionFilter, limit, offset *int, sort *model.SortOrder) (store.ActionFilter, error) {
	f := store.ActionFilter{Limit: DefaultActionsLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxActionsLimit {
			return f, apperr.Field("limit", "must be between 1 and %d", MaxActionsLimit)
		}
		f.Limit = *limit
	}
	if offset != nil {
		if *offset < 0 {
			return f, apperr.Field("offset", "must be >= 0")
		}
		if *offset > cost.MaxOffset {
			// The database reads and drops every skipped row.
			return f, apperr.Field("offset", "must be at most %d; page deeper by cursor: end_lt (sort=desc) or start_lt (sort=asc) "+
				"from the last action you have, or GraphQL's account.actions after its endCursor", cost.MaxOffset)
		}
		f.Offset = *offset
	}
	if sort != nil {
		if !sort.IsValid() {
			return f, apperr.Field("sort", "must be asc or desc")
		}
		f.Asc = *sort == model.SortOrderAsc
	}
	if in == nil {
		return f, nil
	}
	var err error
	if f.ActionIDs, err = actionIDs(in.ActionID); err != nil {
		return f, err
	}
	if f.TraceIDs, err = hashes("trace_id", in.TraceID); err != nil {
		return f, err
	}
	if f.TxHashes, err = hashes("tx_hash", in.TxHash); err != nil {
		return f, err
	}
	f.TxLt = in.TxLt
	if in.Account != nil {
		if f.Account, err = chain.NormalizeAddress(*in.Account); err != nil {
			return f, apperr.Field("account", "%v", err)
		}
	}
	if f.MsgHashes, err = hashes("msg_hash", in.MsgHash); err != nil {
		return f, err
	}
	f.McSeqno = in.McSeqno
	if err = typeTimeFilter(&f, in.ActionType, in.ExcludeActionType, in.StartUtime, in.EndUtime, in.StartLt, in.EndLt); err != nil {
		return f, err
	}
	return f, applySupported(&f, in.ActionType, in.SupportedActionTypes)
}

// applySupported applies supported_action_types: checked even beside
// action_type (a wrong name is wrong either way), but it restricts the
// types only without it, as toncenter does. Nested actions follow
// toncenter's rule with or without action_type (nestedRule); without
// supported_action_types the filter's zero rule hides them all.
func applySupported(f *store.ActionFilter, actionType, supported []string) error {
	types, err := supportedTypes(supported)
	if err != nil {
		return err
	}
	if len(actionType) == 0 && types != nil {
		f.Types = types
	}
	f.Nested = nestedRule(types)
	return nil
}

// typeTimeFilter checks the type, time and lt filters, shared by actions
// and an account's actions.
func typeTimeFilter(f *store.ActionFilter, types, exclude []string, startUtime, endUtime *uint32, startLt, endLt *uint64) error {
	var err error
	if f.Types, err = actionTypes("action_type", types); err != nil {
		return err
	}
	if f.ExcludeTypes, err = actionTypes("exclude_action_type", exclude); err != nil {
		return err
	}
	f.StartUtime, f.EndUtime = startUtime, endUtime
	if f.StartUtime != nil && f.EndUtime != nil && *f.StartUtime > *f.EndUtime {
		return apperr.Field("start_utime", "must not be greater than end_utime")
	}
	f.StartLt, f.EndLt = startLt, endLt
	if f.StartLt != nil && f.EndLt != nil && *f.StartLt > *f.EndLt {
		return apperr.Field("start_lt", "must not be greater than end_lt")
	}
	for _, lt := range []*uint64{startLt, endLt} {
		if lt != nil && *lt > math.MaxInt64 {
			return apperr.Field(map[bool]string{true: "start_lt", false: "end_lt"}[lt == startLt], "must be at most %d", int64(math.MaxInt64))
		}
	}
	return nil
}

func actionIDs(ids []string) ([]string, error) {
	if len(ids) > maxFilterValues {
		return nil, apperr.Field("action_id", "at most %d values", maxFilterValues)
	}
	for _, id := range ids {
		if id == "" || len(id) > 128 || !plainText(id) {
			return nil, apperr.Field("action_id", "must be a non-empty id of at most 128 printable characters")
		}
	}
	return ids, nil
}

func hashes(field string, in []string) ([]string, error) {
	if len(in) > maxFilterValues {
		return nil, apperr.Field(field, "at most %d values", maxFilterValues)
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		h, err := chain.ParseHash(s)
		if err != nil {
			return nil, apperr.Field(field, "%q: %v", apperr.Excerpt(s), err)
		}
		out = append(out, h.Base64())
	}
	return out, nil
}

// optHash is an optional hash in any form, as the store keeps it (base64).
func optHash(field string, in *string) (*string, error) {
	if in == nil {
		return nil, nil
	}
	h, err := hashes(field, []string{*in})
	if err != nil {
		return nil, err
	}
	return &h[0], nil
}

// actionTypes accepts repeated and comma-separated names in any accepted
// spelling (ours, toncenter's snake_case, aliases) and resolves them.
func actionTypes(field string, in []string) ([]string, error) {
	if len(in) > maxFilterValues {
		return nil, apperr.Field(field, "at most %d values", maxFilterValues)
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range in {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			t, ok := actions.CanonicalType(name)
			if !ok {
				return nil, apperr.Field(field, "unknown type %q; valid types: %s (also toncenter's snake_case names)",
					apperr.Excerpt(name), strings.Join(actions.TypeNames(), ", "))
			}
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// plainText tells text that can reach a query: UTF-8 without control
// characters. A NUL ends SQLite's reading of a literal and Postgres
// refuses both NUL and invalid UTF-8, which made 500s of client mistakes.
func plainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}
