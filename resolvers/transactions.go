package resolvers

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// GraphQL's transactions and messages: the same store reads as the v3
// routes (FindTransactions, FindMessages), with the same filter names.

// page checks limit (1..1000), offset and sort as the REST routes do.
func page(limit, offset *int, sort *model.SortOrder) (l, o int, desc bool, err error) {
	l, desc = DefaultActionsLimit, true
	if limit != nil {
		if *limit < 1 || *limit > MaxActionsLimit {
			return 0, 0, false, apperr.Field("limit", "must be from 1 to %d", MaxActionsLimit)
		}
		l = *limit
	}
	if offset != nil {
		if *offset < 0 {
			return 0, 0, false, apperr.Field("offset", "must be 0 or more")
		}
		o = *offset
	}
	if sort != nil {
		if !sort.IsValid() {
			return 0, 0, false, apperr.Field("sort", "must be asc or desc")
		}
		desc = *sort == model.SortOrderDesc
	}
	return l, o, desc, nil
}

func addresses(field string, in []string) ([]string, error) {
	if len(in) > maxFilterValues {
		return nil, apperr.Field(field, "at most %d values", maxFilterValues)
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		a, err := chain.NormalizeAddress(strings.TrimSpace(s))
		if err != nil {
			return nil, apperr.Field(field, "%q: %v", apperr.Excerpt(s), err)
		}
		out = append(out, a)
	}
	return out, nil
}

func opcode(field string, s *string) (*uint32, error) {
	if s == nil {
		return nil, nil
	}
	op, err := chain.ParseOpcode(*s)
	if err != nil {
		return nil, apperr.Field(field, "%v", err)
	}
	return &op, nil
}

func direction(s *string) (*string, error) {
	if s != nil && *s != "in" && *s != "out" {
		return nil, apperr.Field("direction", "must be in or out")
	}
	return s, nil
}

// TxFilterOf checks GraphQL's transaction filter.
func TxFilterOf(in *model.TransactionFilter, limit, offset *int, sort *model.SortOrder) (store.TxFilter, error) {
	var f store.TxFilter
	var err error
	if f.Limit, f.Offset, f.Desc, err = page(limit, offset, sort); err != nil {
		return f, err
	}
	if in == nil {
		return f, nil
	}
	if f.Accounts, err = addresses("account", in.Account); err != nil {
		return f, err
	}
	if f.ExcludeAccounts, err = addresses("exclude_account", in.ExcludeAccount); err != nil {
		return f, err
	}
	if f.Hashes, err = hashes("hash", in.Hash); err != nil {
		return f, err
	}
	if f.MsgHashes, err = hashes("msg_hash", in.MsgHash); err != nil {
		return f, err
	}
	if f.BodyHash, err = optHash("body_hash", in.BodyHash); err != nil {
		return f, err
	}
	if f.Opcode, err = opcode("opcode", in.Opcode); err != nil {
		return f, err
	}
	if f.Direction, err = direction(in.Direction); err != nil {
		return f, err
	}
	for name, v := range map[string]*uint64{"lt": in.Lt, "start_lt": in.StartLt, "end_lt": in.EndLt} {
		if v != nil && *v > 1<<63-1 {
			return f, apperr.Field(name, "must be below 2^63")
		}
	}
	f.Lt, f.StartLt, f.EndLt = in.Lt, in.StartLt, in.EndLt
	f.StartUtime, f.EndUtime, f.McSeqno = in.StartUtime, in.EndUtime, in.McSeqno
	if in.Workchain != nil {
		wc := int32(*in.Workchain)
		if int(wc) != *in.Workchain {
			return f, apperr.Field("workchain", "must be a 32-bit integer")
		}
		f.Workchain = &wc
	}
	if in.Shard != nil {
		shard, err := chain.ParseShardID(*in.Shard)
		if err != nil {
			return f, apperr.Field("shard", "%v", err)
		}
		f.Shard = &shard
	}
	f.BlockSeqno = in.Seqno
	return f, nil
}

// GraphTransactions answers Query.transactions.
func (r *Resolver) GraphTransactions(ctx context.Context, in *model.TransactionFilter, limit, offset *int, sort *model.SortOrder) ([]*chain.FullTransaction, error) {
	f, err := TxFilterOf(in, limit, offset, sort)
	if err != nil {
		return nil, err
	}
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	f.WithoutBOC = true // no field shows it
	if !selects(ctx, messageFields) {
		f.Messages = store.NoMessages
	}
	txs, err := r.Store.FindTransactions(ctx, f)
	if err != nil {
		return nil, err
	}
	return fullTransactions(txs), nil
}

// GraphTransaction answers Query.transaction: null when not stored.
func (r *Resolver) GraphTransaction(ctx context.Context, hash string) (*chain.FullTransaction, error) {
	list, err := r.GraphTransactions(ctx, &model.TransactionFilter{Hash: []string{hash}}, nil, nil, nil)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// GraphMessages answers Query.messages.
func (r *Resolver) GraphMessages(ctx context.Context, in *model.MessageFilter, limit, offset *int, sort *model.SortOrder) ([]*chain.FullMessage, error) {
	f := store.MsgFilter{}
	var err error
	if f.Limit, f.Offset, f.Desc, err = page(limit, offset, sort); err != nil {
		return nil, err
	}
	if in != nil {
		if f.Hashes, err = hashes("msg_hash", in.MsgHash); err != nil {
			return nil, err
		}
		if f.BodyHash, err = optHash("body_hash", in.BodyHash); err != nil {
			return nil, err
		}
		for _, end := range []struct {
			name string
			in   *string
			out  **string
		}{{"source", in.Source, &f.Source}, {"destination", in.Destination, &f.Destination}} {
			if end.in == nil {
				continue
			}
			a := ""
			if *end.in != "" {
				if a, err = chain.NormalizeAddress(*end.in); err != nil {
					return nil, apperr.Field(end.name, "%v", err)
				}
			}
			*end.out = &a
		}
		if f.Opcode, err = opcode("opcode", in.Opcode); err != nil {
			return nil, err
		}
		if f.Direction, err = direction(in.Direction); err != nil {
			return nil, err
		}
		f.StartLt, f.EndLt = in.StartLt, in.EndLt
		f.StartUtime, f.EndUtime = in.StartUtime, in.EndUtime
		f.ExcludeExternals = in.ExcludeExternals != nil && *in.ExcludeExternals
		f.OnlyExternals = in.OnlyExternals != nil && *in.OnlyExternals
	}
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	msgs, err := r.Store.Messages(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]*chain.FullMessage, len(msgs))
	for i := range msgs {
		out[i] = chain.NewFullMessage(&msgs[i].Message)
	}
	return out, nil
}

// GraphMessage answers Query.message: null when not stored.
func (r *Resolver) GraphMessage(ctx context.Context, hash string) (*chain.FullMessage, error) {
	list, err := r.GraphMessages(ctx, &model.MessageFilter{MsgHash: []string{hash}}, nil, nil, nil)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// A transaction cursor is its lt within the account ("t<lt>", url-safe
// base64): an account's lts are unique.
func txCursor(lt uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("t" + strconv.FormatUint(lt, 10)))
}

func decodeTxCursor(s string) (uint64, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 64 || len(b) < 2 || b[0] != 't' {
		return 0, errCursor
	}
	n, err := strconv.ParseUint(string(b[1:]), 10, 63)
	if err != nil {
		return 0, errCursor
	}
	return n, nil
}

// AccountTransactions answers Account.transactions: a page after the
// cursor, by lt, through the (account, lt) index.
func (r *Resolver) AccountTransactions(ctx context.Context, acc *model.Account, first *int, after *string, sort *model.SortOrder) (*model.TransactionConnection, error) {
	l, _, desc, err := page(first, nil, sort)
	if err != nil {
		if first != nil && (*first < 1 || *first > MaxActionsLimit) {
			return nil, apperr.Field("first", "must be from 1 to %d", MaxActionsLimit)
		}
		return nil, err
	}
	f := store.TxFilter{Accounts: []string{acc.Address}, Limit: l + 1, Desc: desc}
	if after != nil {
		lt, err := decodeTxCursor(*after)
		if err != nil {
			return nil, apperr.Field("after", "%v", err)
		}
		if desc {
			if lt == 0 {
				return &model.TransactionConnection{Edges: []*model.TransactionEdge{}, PageInfo: &model.PageInfo{}}, nil
			}
			end := lt - 1
			f.EndLt = &end
		} else {
			start := lt + 1
			f.StartLt = &start
		}
	}
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	f.WithoutBOC = true // no field shows it
	if !selectsBelow(ctx, []string{"edges", "node"}, messageFields) {
		f.Messages = store.NoMessages
	}
	txs, err := r.Store.FindTransactions(ctx, f)
	if err != nil {
		return nil, err
	}
	conn := &model.TransactionConnection{Edges: []*model.TransactionEdge{}, PageInfo: &model.PageInfo{HasNextPage: len(txs) > l}}
	if len(txs) > l {
		txs = txs[:l]
	}
	for _, t := range fullTransactions(txs) {
		conn.Edges = append(conn.Edges, &model.TransactionEdge{Cursor: txCursor(t.Lt), Node: t})
	}
	if n := len(conn.Edges); n > 0 {
		c := conn.Edges[n-1].Cursor
		conn.PageInfo.EndCursor = &c
	}
	return conn, nil
}
