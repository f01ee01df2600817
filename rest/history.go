package rest

import (
	"maps"
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// toncenter's v3 routes over stored transactions and messages: parameters
// parsed and answers rendered by toncenter/, data read through the
// resolvers.

// v3Get wraps a toncenter route: GET (and HEAD) only, its parameters
// checked against the names it takes, errors in toncenter's body.
func v3Get(known []string, serve func(r *http.Request, p *toncenter.Params) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		p, err := toncenter.Parse(r.URL.Query(), known...)
		if err == nil {
			var out any
			if out, err = serve(r, p); err == nil {
				writeBounded(w, r, V3, out)
				return
			}
		}
		WriteError(w, r, V3, err)
	}
}

func names(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var transactionsParams = names([]string{"workchain", "shard", "seqno", "mc_seqno", "account", "exclude_account",
	"hash", "lt", "start_utime", "end_utime", "start_lt", "end_lt"}, toncenter.PageParams)

// Transactions serves GET /api/v3/transactions.
func Transactions(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(transactionsParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := txFilter(p)
		if err != nil {
			return nil, err
		}
		if err := txBlock(p, &f); err != nil {
			return nil, err
		}
		if f.Accounts, err = p.Addresses("account", 1024); err != nil {
			return nil, err
		}
		if f.ExcludeAccounts, err = p.Addresses("exclude_account", 1024); err != nil {
			return nil, err
		}
		if f.Hashes, err = p.Hashes("hash", 1024); err != nil {
			return nil, err
		}
		if f.Lt, err = p.Uint("lt", 63); err != nil {
			return nil, err
		}
		if err := p.Window(&f.McSeqno, &f.StartUtime, &f.EndUtime, &f.StartLt, &f.EndLt); err != nil {
			return nil, err
		}
		txs, book, err := res.FindTransactions(r.Context(), f)
		if err != nil {
			return nil, err
		}
		return transactionsResponse(txs, book), nil
	})
}

// txBlock reads toncenter's block filters of /transactions: the block
// that holds the transaction, each part alone or with the others, as
// toncenter applies them (only transactions read from raw blocks know
// their block).
func txBlock(p *toncenter.Params, f *store.TxFilter) error {
	if n, err := p.Int("workchain", 32); err != nil {
		return err
	} else if n != nil {
		wc := int32(*n)
		f.Workchain = &wc
	}
	var err error
	if f.Shard, err = p.Shard("shard"); err != nil {
		return err
	}
	f.BlockSeqno, err = p.Uint32("seqno")
	return err
}

// TransactionsByMasterchainBlock serves GET
// /api/v3/transactionsByMasterchainBlock: the transactions the
// masterchain block seqno commits (its own and its shard blocks'), by lt.
func TransactionsByMasterchainBlock(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(names([]string{"seqno"}, toncenter.PageParams), func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := txFilter(p)
		if err != nil {
			return nil, err
		}
		if f.McSeqno, err = p.RequiredUint32("seqno"); err != nil {
			return nil, err
		}
		txs, book, err := res.FindTransactions(r.Context(), f)
		if err != nil {
			return nil, err
		}
		return transactionsResponse(txs, book), nil
	})
}

// txFilter reads the page of a transactions route.
func txFilter(p *toncenter.Params) (store.TxFilter, error) {
	pg, err := p.Page()
	if err == nil && pg.Offset > cost.MaxOffset {
		err = apperr.Field("offset", "must be at most %d; page deeper with start_lt/end_lt", cost.MaxOffset)
	}
	return store.TxFilter{Limit: pg.Limit, Offset: pg.Offset, Desc: pg.Desc}, err
}

// transactionsResponse is toncenter's TransactionsResponse of a rendered page.
func transactionsResponse(txs []*toncenter.Transaction, book chain.AddressBook) *toncenter.TransactionsResponse {
	if book == nil {
		book = chain.AddressBook{}
	}
	return &toncenter.TransactionsResponse{Transactions: txs, AddressBook: book}
}

var byMessageParams = names([]string{"msg_hash", "body_hash", "opcode", "direction"}, toncenter.PageParams)

// TransactionsByMessage serves GET /api/v3/transactionsByMessage: the
// transactions whose in- or out-message has the hash (or the op code).
func TransactionsByMessage(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(byMessageParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		f, err := txFilter(p)
		if err != nil {
			return nil, err
		}
		if f.MsgHashes, err = p.Hashes("msg_hash", 1024); err != nil {
			return nil, err
		}
		if f.BodyHash, err = p.Hash("body_hash"); err != nil {
			return nil, err
		}
		if f.Opcode, err = p.Opcode("opcode"); err != nil {
			return nil, err
		}
		if f.Direction, err = p.Direction(); err != nil {
			return nil, err
		}
		if len(f.MsgHashes) == 0 && f.BodyHash == nil && f.Opcode == nil {
			return nil, apperr.Field("msg_hash", "at least one of msg_hash, body_hash, opcode is required")
		}
		txs, book, err := res.FindTransactions(r.Context(), f)
		if err != nil {
			return nil, err
		}
		return transactionsResponse(txs, book), nil
	})
}

// AdjacentTransactions serves GET /api/v3/adjacentTransactions: the
// parent (direction in) and/or children (out) of a transaction. None
// found is 404, as toncenter answers.
func AdjacentTransactions(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"hash", "direction"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		hash, err := p.Hash("hash")
		if err != nil {
			return nil, err
		}
		if hash == nil {
			return nil, apperr.Field("hash", "required")
		}
		dir, err := p.Direction()
		if err != nil {
			return nil, err
		}
		d := ""
		if dir != nil {
			d = *dir
		}
		txs, book, err := res.AdjacentTransactions(r.Context(), *hash, d)
		if err != nil {
			return nil, err
		}
		if len(txs) == 0 {
			return nil, apperr.New(apperr.NotFound, "adjacent transactions not found")
		}
		return transactionsResponse(txs, book), nil
	})
}

var messagesParams = names([]string{"msg_hash", "hash", "body_hash", "source", "destination", "opcode",
	"start_utime", "end_utime", "start_lt", "end_lt", "direction", "exclude_externals", "only_externals"}, toncenter.PageParams)

// Messages serves GET /api/v3/messages.
func Messages(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get(messagesParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		pg, err := p.Page()
		if err != nil {
			return nil, err
		}
		f := store.MsgFilter{Limit: pg.Limit, Offset: pg.Offset, Desc: pg.Desc}
		if f.Hashes, err = p.Hashes("msg_hash", 1024); err != nil {
			return nil, err
		}
		if len(f.Hashes) == 0 { // toncenter's alias, read when msg_hash is absent
			if f.Hashes, err = p.Hashes("hash", 1); err != nil {
				return nil, err
			}
		}
		if f.BodyHash, err = p.Hash("body_hash"); err != nil {
			return nil, err
		}
		if f.Source, err = p.Address("source", true); err != nil {
			return nil, err
		}
		if f.Destination, err = p.Address("destination", true); err != nil {
			return nil, err
		}
		if f.Opcode, err = p.Opcode("opcode"); err != nil {
			return nil, err
		}
		if f.Direction, err = p.Direction(); err != nil {
			return nil, err
		}
		if err := p.Window(nil, &f.StartUtime, &f.EndUtime, &f.StartLt, &f.EndLt); err != nil {
			return nil, err
		}
		ex, err := p.Bool("exclude_externals")
		if err != nil {
			return nil, err
		}
		only, err := p.Bool("only_externals")
		if err != nil {
			return nil, err
		}
		f.ExcludeExternals, f.OnlyExternals = ex != nil && *ex, only != nil && *only
		msgs, book, err := res.FindMessages(r.Context(), f)
		if err != nil {
			return nil, err
		}
		return &toncenter.MessagesResponse{Messages: msgs, AddressBook: book, Metadata: map[string]any{}}, nil
	})
}

// AddressBookRoute serves GET /api/v3/addressBook: each address keyed as
// it was given, as toncenter keys them.
func AddressBookRoute(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"address"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		given := p.List("address")
		if len(given) == 0 {
			return nil, apperr.Field("address", "at least 1 address required")
		}
		if len(given) > 1024 {
			return nil, apperr.Field("address", "at most 1024 values")
		}
		raws := make([]string, len(given))
		for i, a := range given {
			raw, err := chain.NormalizeAddress(a)
			if err != nil {
				return nil, apperr.Field("address", "%q: %v", a, err)
			}
			raws[i] = raw
		}
		book, _, err := res.AddressBookAndMetadata(r.Context(), raws)
		if err != nil {
			return nil, err
		}
		out := make(chain.AddressBook, len(given))
		for i, a := range given {
			out[a] = book[raws[i]]
		}
		return out, nil
	})
}

var tracesParams = names([]string{"account", "trace_id", "tx_hash", "msg_hash", "mc_seqno", "start_utime", "end_utime",
	"start_lt", "end_lt", "include_actions", "supported_action_types"}, toncenter.PageParams)

// Traces serves GET /api/v3/traces and, when events, its older name
// /api/v3/events (the list under "events"). With include_actions=true (and
// always on /events, as toncenter) each trace carries its actions in
// toncenter's dialect (toncenter.Action), as toncenter's traces do.
func Traces(res *resolvers.Resolver, events bool) http.HandlerFunc {
	return v3Get(tracesParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		withActions, err := p.Bool("include_actions")
		if err != nil {
			return nil, err
		}
		pg, err := p.Page()
		if err != nil {
			return nil, err
		}
		f := store.TraceFilter{Limit: pg.Limit, Offset: pg.Offset, Desc: pg.Desc}
		if f.Account, err = p.Address("account", false); err != nil {
			return nil, err
		}
		if f.TraceIDs, err = p.Hashes("trace_id", 1024); err != nil {
			return nil, err
		}
		if f.TxHashes, err = p.Hashes("tx_hash", 1024); err != nil {
			return nil, err
		}
		if f.MsgHashes, err = p.Hashes("msg_hash", 1024); err != nil {
			return nil, err
		}
		given := 0
		for _, has := range []bool{f.Account != nil, len(f.TraceIDs) > 0, len(f.TxHashes) > 0, len(f.MsgHashes) > 0} {
			if has {
				given++
			}
		}
		if given > 1 {
			return nil, apperr.Field("account", "only one of account, trace_id, tx_hash, msg_hash may be given")
		}
		if err := p.Window(&f.McSeqno, &f.StartUtime, &f.EndUtime, &f.StartLt, &f.EndLt); err != nil {
			return nil, err
		}
		list, book, err := res.FindTraces(r.Context(), f)
		if err != nil {
			return nil, err
		}
		if book == nil {
			book = chain.AddressBook{}
		}
		meta := chain.Metadata{}
		// toncenter's /events always carries the actions
		if events || (withActions != nil && *withActions) {
			ids := make([]string, len(list))
			for i, tr := range list {
				ids[i] = *tr.TraceID
			}
			byTrace, page, err := traceActions(r.Context(), res.Query(), ids, p.List("supported_action_types"))
			if err != nil {
				return nil, err
			}
			for _, tr := range list {
				acts := byTrace[*tr.TraceID]
				if acts == nil {
					acts = []*toncenter.Action{}
				}
				tr.Actions = &acts
			}
			maps.Copy(book, page.AddressBook)
			meta = page.Metadata
		}
		if events {
			return &toncenter.EventsResponse{Events: list, AddressBook: book, Metadata: meta}, nil
		}
		return &toncenter.TracesResponse{Traces: list, AddressBook: book, Metadata: meta}, nil
	})
}
