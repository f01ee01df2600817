package fees

import (
	"context"

	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/txemulator"

	"github.com/tonql/tonql/chain"
)

// dep is an account state a destination fee was computed on; a cached answer
// is valid only while every dep still has the same last transaction.
type dep struct {
	Addr string `json:"a"`
	Lt   uint64 `json:"l"`
	Hash string `json:"h"` // hex of the last transaction hash; "" for none
}

// tracer follows the internal messages a transaction sends, each processed on
// its destination's current state (or the state an earlier step of this
// trace left), breadth first, which is the order the chain processes hops in.
type tracer struct {
	e      *Estimator
	em     *txemulator.Emulator
	states map[ton.AccountID]tlb.ShardAccount
	deps   []dep
}

type hop struct {
	msg   tlb.Message
	dest  ton.AccountID
	depth int
}

func (t *tracer) follow(ctx context.Context, root *tlb.Transaction) ([]Fees, error) {
	out := []Fees{}
	queue := t.outgoing(root, 1)
	for len(queue) > 0 && len(out) < t.e.opts.MaxTransactions {
		// an emulation cannot be interrupted, but a trace can between hops
		if err := ctx.Err(); err != nil {
			return nil, unavailable(err, "emulator")
		}
		h := queue[0]
		queue = queue[1:]
		if h.depth > t.e.opts.MaxDepth {
			continue
		}
		sa, err := t.state(ctx, h.dest)
		if err != nil {
			return nil, err
		}
		res, err := emulate(t.em, sa, h.msg)
		if err != nil || !res.Success {
			// The emulator refusing an internal message (not a contract
			// refusing it: that is a transaction) means the branch cannot
			// be followed; the fees reported so far stay exact.
			t.e.opts.Logger.Warn("fees: destination emulation failed", "dest", h.dest.ToRaw(), "err", err)
			continue
		}
		tx := &res.Emulation.Transaction
		f, err := txFees(tx)
		if err != nil {
			t.e.opts.Logger.Warn("fees: destination fees unreadable", "dest", h.dest.ToRaw(), "err", err)
			continue
		}
		f.InFwdFee = 0 // paid by the sender, already in its fwd_fee
		out = append(out, f)
		t.states[h.dest] = res.Emulation.ShardAccount
		queue = append(queue, t.outgoing(tx, h.depth+1)...)
	}
	return out, nil
}

// outgoing lists the internal messages of tx; external-out messages (logs)
// start no transaction.
func (t *tracer) outgoing(tx *tlb.Transaction, depth int) []hop {
	var hops []hop
	for _, m := range tx.Msgs.OutMsgs.Values() {
		msg := m.Value
		if msg.Info.SumType != "IntMsgInfo" {
			continue
		}
		dest, err := ton.AccountIDFromTlb(msg.Info.IntMsgInfo.Dest)
		if err != nil || dest == nil {
			continue
		}
		hops = append(hops, hop{msg: msg, dest: *dest, depth: depth})
	}
	return hops
}

// state is the destination's state: what this trace left there, else the
// source's current state (unknown = nonexistent), recorded as a dep.
func (t *tracer) state(ctx context.Context, id ton.AccountID) (tlb.ShardAccount, error) {
	if sa, ok := t.states[id]; ok {
		return sa, nil
	}
	raw := chain.RawAddress(id)
	st, err := t.e.account(ctx, raw)
	if err != nil {
		return tlb.ShardAccount{}, err
	}
	var sa tlb.ShardAccount
	d := dep{Addr: raw}
	if st != nil && len(st.ShardAccountBOC) > 0 {
		if sa, err = decodeShardAccount(st.ShardAccountBOC); err != nil {
			return sa, err
		}
		d.Lt, d.Hash = st.LastTxLt, st.LastTxHash.Hex()
	} else {
		sa.Account.SumType = "AccountNone"
	}
	t.deps = append(t.deps, d)
	t.states[id] = sa
	return sa, nil
}
