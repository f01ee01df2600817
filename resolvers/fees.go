package resolvers

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/preview"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tonconnect"
)

// EstimateFee validates the params and runs the estimate. GraphQL's
// estimateFee and emulateMessage, POST /api/v2/estimateFee, POST
// /api/v3/estimateFee and the JSON-RPC method all end here. A GraphQL
// operation that asks for a preview field gets the preview of the same run.
func (r *Resolver) EstimateFee(ctx context.Context, p fees.Params) (*preview.Estimate, error) {
	if wantsPreview(ctx) {
		return r.Preview(ctx, p)
	}
	if r.Fees == nil {
		return nil, errNoFees
	}
	req, err := fees.ParseParams(p)
	if err != nil {
		return nil, err
	}
	res, err := r.Fees.Estimate(ctx, req)
	if err != nil {
		return nil, err
	}
	return &preview.Estimate{Result: res}, nil
}

var errNoFees = apperr.New(apperr.Unavailable, "fee estimation is not configured on this server")

// Preview emulates the message's trace once and decodes it: fees, actions
// with their address book, transactions, balance changes, and where the
// trace stopped. POST /api/v3/emulate and GraphQL's preview fields.
func (r *Resolver) Preview(ctx context.Context, p fees.Params) (*preview.Estimate, error) {
	return r.PreviewAt(ctx, p, nil)
}

// PreviewAt is Preview at a past block (BlockAt); at nil is now.
func (r *Resolver) PreviewAt(ctx context.Context, p fees.Params, at *fees.At) (*preview.Estimate, error) {
	if r.Fees == nil {
		return nil, errNoFees
	}
	req, err := fees.ParseParams(p)
	if err != nil {
		return nil, err
	}
	req.At = at
	return r.preview(ctx, req)
}

// BlockAt is what a preview at masterchain block seqno runs at: nil for
// the newest block (the current states), else the states the store holds
// of that block (store.BlockStates: the rule is there). A block the store
// holds no states of is a 422 naming mc_block_seqno.
func (r *Resolver) BlockAt(ctx context.Context, seqno uint32) (*fees.At, error) {
	mc, err := r.MasterchainInfo(ctx)
	if err != nil {
		return nil, err
	}
	if seqno == mc.Last.Seqno {
		return nil, nil
	}
	if r.Store == nil {
		return nil, apperr.Field("mc_block_seqno", "%d: this server keeps no blocks; only its newest (%d)", seqno, mc.Last.Seqno)
	}
	bs, err := r.Store.StatesAt(ctx, seqno)
	if err != nil {
		return nil, err
	}
	if bs == nil {
		return nil, apperr.Field("mc_block_seqno", "%d: the store holds no block of it, so no account states of it (its newest is %d)", seqno, mc.Last.Seqno)
	}
	return &fees.At{Time: fees.ChainTime{Unix: bs.Utime, Lt: bs.StartLt}, Source: bs}, nil
}

// stateAt is the sender's state at the past block at, a 422 naming
// mc_block_seqno when the store holds none of that block.
func stateAt(ctx context.Context, at *fees.At, addr string) (*chain.AccountState, error) {
	st, err := at.Source.Account(ctx, addr)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, apperr.Field("mc_block_seqno", "the store holds no state of %s as of that block (a later import replaced it, or it never held one)", addr)
	}
	return st, nil
}

// PreviewTonConnect previews a TON Connect sendTransaction request: the
// sender's wallet is recognized from the state estimates read (the store,
// or lite servers when configured), the message it would send is built on
// that state with its seqno and wallet id, unsigned, and that message is
// previewed like a signed one (the same state, so the seqno is the one it
// runs on). POST /api/v3/emulate with TON Connect fields, POST
// /api/emulate/v1/emulateTonConnect and GraphQL's emulateTonConnect.
func (r *Resolver) PreviewTonConnect(ctx context.Context, p tonconnect.Params) (*preview.Estimate, error) {
	return r.PreviewTonConnectAt(ctx, p, nil)
}

// PreviewTonConnectAt is PreviewTonConnect at a past block (BlockAt); at
// nil is now.
func (r *Resolver) PreviewTonConnectAt(ctx context.Context, p tonconnect.Params, at *fees.At) (*preview.Estimate, error) {
	if r.Fees == nil {
		return nil, errNoFees
	}
	req, err := tonconnect.Parse(p)
	if err != nil {
		return nil, err
	}
	var st *chain.AccountState
	var now fees.ChainTime
	if at != nil {
		if st, err = at.Source.Account(ctx, chain.RawAddress(req.From)); err != nil {
			return nil, err
		}
		now = at.Time
	} else {
		if st, err = r.Fees.State(ctx, chain.RawAddress(req.From)); err != nil {
			return nil, err
		}
		// built at the time the estimate runs at (the head clock of a
		// snapshot server is behind the wall clock; highload v3 refuses a
		// created_at after its now)
		if now, err = r.Fees.Now(ctx); err != nil {
			return nil, err
		}
	}
	built, err := tonconnect.Build(req, st, time.Unix(int64(now.Unix), 0))
	if err != nil {
		return nil, err
	}
	built.Request.At = at
	return r.preview(ctx, built.Request)
}

// tonConnectParams are GraphQL's emulateTonConnect arguments as a
// transport hands them over.
func tonConnectParams(from string, messages []*model.TonConnectMessageInput, validUntil *uint32, network, stateInit *string) tonconnect.Params {
	p := tonconnect.Params{From: from, Network: deref(network), StateInit: deref(stateInit)}
	if validUntil != nil {
		p.ValidUntil = int64(*validUntil)
	}
	for _, m := range messages {
		p.Messages = append(p.Messages, tonconnect.Message{Address: m.Address, Amount: m.Amount,
			Payload: deref(m.Payload), StateInit: deref(m.StateInit)})
	}
	return p
}

// preview emulates a validated request and decodes its trace.
func (r *Resolver) preview(ctx context.Context, req fees.Request) (*preview.Estimate, error) {
	// at a past block the sender needs its state of that block: without
	// one, "not deployed then" and "replaced since" look alike
	if req.At != nil && req.State == nil {
		st, err := stateAt(ctx, req.At, chain.RawAddress(req.Account))
		if err != nil {
			return nil, err
		}
		req.State = st
	}
	em, err := r.Fees.Emulate(ctx, req)
	if err != nil {
		return nil, err
	}
	// The facts of the trace's accounts are read while the trace is
	// decoded (the store answers while the CPU classifies); the few
	// addresses only the actions name are read after.
	accounts := make([]string, 0, len(em.Transactions))
	for _, t := range em.Transactions {
		accounts = append(accounts, t.Account)
	}
	type read struct {
		facts map[string]chain.AddressFacts
		err   error
	}
	first := make(chan read, 1)
	go func() {
		f, err := r.facts(ctx, accounts)
		first <- read{f, err}
	}()
	depth, txs := r.Fees.Limits()
	pv, err := preview.Build(em, nil, preview.Limits{MaxDepth: depth, MaxTransactions: txs})
	got := <-first
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	if got.err != nil {
		return nil, got.err
	}
	if err := r.riskMasters(ctx, &pv.Risk); err != nil {
		return nil, err
	}
	book, md, err := r.addressBookWith(ctx, pv.Addresses(), got.facts, r.facts)
	if err != nil {
		return nil, err
	}
	describe(pv.Actions, book, md)
	pv.Risk.Name(md)
	r.primeLinks(ctx, pv)
	return &preview.Estimate{Result: em.Result, Preview: pv, AddressBook: book, Metadata: md, RandSeed: req.RandSeed()}, nil
}

// riskMasters names the jetton of each jetton wallet the risk lists whose
// master the trace does not show (a swap's first hop), from the token
// registry's jetton wallets: the address book and metadata then cover it.
func (r *Resolver) riskMasters(ctx context.Context, risk *preview.Risk) error {
	var unknown []string
	for _, j := range risk.Jettons {
		if j.JettonMaster == nil {
			unknown = append(unknown, j.JettonWallet)
		}
	}
	if len(unknown) == 0 || r.Store == nil {
		return nil
	}
	ws, err := r.Store.JettonWallets(ctx, store.JettonWalletFilter{Addresses: unknown, TokenPage: store.TokenPage{Limit: len(unknown)}})
	if err != nil {
		return err
	}
	master := make(map[string]string, len(ws))
	for _, w := range ws {
		master[w.Address] = w.Jetton
	}
	for i := range risk.Jettons {
		if m, ok := master[risk.Jettons[i].JettonWallet]; ok && risk.Jettons[i].JettonMaster == nil && m != "" {
			risk.Jettons[i].JettonMaster = &m
		}
	}
	return nil
}

// previewFields are FeeEstimate's fields that need the emulated trace.
var previewFields = map[string]bool{"complete": true, "risk": true, "stopped": true, "transactions": true,
	"actions": true, "address_book": true, "metadata": true, "balance_changes": true}

// wantsPreview reports a GraphQL selection of a preview field on the
// estimate being resolved (outside GraphQL: no).
func wantsPreview(ctx context.Context) bool {
	return inGraphQL(ctx) && selectsAny(ctx, nil, previewFields)
}

// primeLinks puts the preview's transactions, participants and steps into
// the request's loaders: they are in no store, and Action.transactions_full,
// participants, children and parent read through the loaders.
func (r *Resolver) primeLinks(ctx context.Context, pv *preview.Preview) {
	if r.Store == nil || !graphql.HasOperationContext(ctx) {
		return // REST shows no links
	}
	l := r.loaders(ctx)
	txs := make(map[string]*chain.Transaction, len(pv.Transactions))
	for _, t := range pv.Transactions {
		txs[t.Hash] = t.Tx
	}
	all := append(append([]*chain.Action(nil), pv.Actions...), pv.Steps...)
	byID := make(map[string]*chain.Action, len(all))
	children := make(map[string][]*chain.Action, len(all))
	for _, a := range all {
		byID[a.ActionID] = a
		if a.ParentActionID != "" {
			children[a.ParentActionID] = append(children[a.ParentActionID], a)
		}
	}
	for _, kids := range children { // in page order, as the store reads them
		slices.SortFunc(kids, func(a, b *chain.Action) int {
			return cmp.Or(cmp.Compare(a.EndLt, b.EndLt), cmp.Compare(a.ActionID, b.ActionID))
		})
	}
	// Under the keys the links ask with (TransactionsFull, Participants,
	// ChildrenOf, ParentOf).
	for _, a := range all {
		for _, ref := range store.TxRefsOf(a) {
			if tx, ok := txs[ref.Hash]; ok {
				l.transactionsLoader(false).Prime(ref, tx)
				l.transactionsLoader(true).Prime(ref, tx)
			}
		}
		l.participantsLoader().Prime(store.RefOf(a), participants(a))
		l.childrenLoader().Prime(store.ChildrenSpanOf(a), children[a.ActionID])
		if p := byID[a.ParentActionID]; p != nil {
			l.actionsByIDLoader().Prime(store.ParentSpanOf(a), p)
		}
	}
}

// participants groups an action's accounts with their roles, sorted by
// account, as the store answers them.
func participants(a *chain.Action) []store.Participant {
	byAccount := map[string][]string{}
	for _, p := range a.Participants {
		if p.Address == "" {
			continue
		}
		roles := byAccount[p.Address]
		if !strings.Contains(","+strings.Join(roles, ",")+",", ","+p.Role+",") {
			byAccount[p.Address] = append(roles, p.Role)
		}
	}
	out := make([]store.Participant, 0, len(byAccount))
	for acc, roles := range byAccount {
		out = append(out, store.Participant{Account: acc, Roles: roles})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Account < out[j].Account })
	return out
}

// previewOf is the estimate's preview. wantsPreview saw the field, so an
// estimate without one is our bug, never an empty answer.
func (r *Resolver) previewOf(obj *preview.Estimate) (*preview.Preview, error) {
	if obj.Preview == nil {
		return nil, apperr.New(apperr.Internal, "internal error")
	}
	return obj.Preview, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
