package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/history"
	"github.com/tonql/tonql/store"
)

// BalanceChanges is what the stored trace traceID moved, or, with an
// actionID instead, what that action moved (toncenter's balanceChanges:
// the action's transactions but its first when a message from inside the
// chain started it; a contract deploy moves nothing it reports). Exactly
// one of the two is given. The master of each jetton wallet is what the
// indexer said when the trace was imported, else the token registry's.
func (r *Resolver) BalanceChanges(ctx context.Context, traceID, actionID string) (*chain.BalanceChanges, error) {
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no store configured")
	}
	var only map[chain.Hash]bool
	if actionID != "" {
		if _, err := actionIDs([]string{actionID}); err != nil {
			return nil, err
		}
		page, err := r.Store.ListActions(ctx, store.ActionFilter{ActionIDs: []string{actionID}, Limit: 1}, store.NoBook)
		if err != nil {
			return nil, err
		}
		if len(page.Actions) == 0 {
			return nil, apperr.New(apperr.NotFound, "action_id not found")
		}
		a := page.Actions[0]
		if a.Type == "ContractDeploy" {
			return nil, nil
		}
		traceID = a.TraceID
		only = map[chain.Hash]bool{}
		for _, h := range a.Transactions {
			if hash, err := chain.ParseHash(h); err == nil {
				only[hash] = true
			}
		}
	}
	traces, err := r.Store.FindTraces(ctx, store.TraceFilter{TraceIDs: []string{traceID}, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(traces) == 0 {
		return nil, apperr.New(apperr.NotFound, "trace not found")
	}
	txs := traces[0].Transactions
	if only != nil {
		dropStart(txs, only)
	}
	masters, err := r.jettonMasters(ctx, traceID, txs)
	if err != nil {
		return nil, err
	}
	return history.TraceBalanceChanges(txs, masters, only), nil
}

// dropStart leaves out of an action's transactions the first one when an
// internal message started it: what that message brought is the previous
// action's.
func dropStart(txs []*chain.Transaction, only map[chain.Hash]bool) {
	for _, tx := range txs { // by lt: the first of the action is its start
		if only[tx.Hash] {
			if tx.InMsg != nil && !tx.InMsg.IsExternalIn() {
				delete(only, tx.Hash)
			}
			return
		}
	}
}

// jettonMasters names the master of each account of txs that received a
// jetton transfer request: from the trace's imported facts, else from
// the token registry.
func (r *Resolver) jettonMasters(ctx context.Context, traceID string, txs []*chain.Transaction) (map[string]string, error) {
	out := map[string]string{}
	var wallets []string
	for _, tx := range txs {
		if m := tx.InMsg; m != nil && m.Opcode != nil && *m.Opcode == 0x0f8a7ea5 {
			wallets = append(wallets, tx.Account)
		}
	}
	if len(wallets) == 0 {
		return out, nil
	}
	known, err := r.Store.TraceKnown(ctx, []string{traceID})
	if err != nil {
		return nil, err
	}
	var ask []string
	for _, w := range wallets {
		if k, ok := known[traceID][w]; ok && k.Jetton != "" {
			out[w] = k.Jetton
		} else {
			ask = append(ask, w)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	reg, err := r.Store.JettonWallets(ctx, store.JettonWalletFilter{Addresses: ask, TokenPage: store.TokenPage{Limit: len(ask)}})
	if err != nil {
		return nil, err
	}
	for _, w := range reg {
		out[w.Address] = w.Jetton
	}
	return out, nil
}
