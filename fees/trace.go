package fees

import (
	"context"
	"encoding/base64"

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
	Hash string `json:"h"` // hex of the last transaction hash; "" for no known state
}

// tracer follows the internal messages a transaction sends, each processed on
// its destination's current state (or the state an earlier step of this
// trace left), breadth first, which is the order the chain processes hops in.
// A destination whose state the source does not know is not guessed at: the
// branch stops there and says so.
type tracer struct {
	e      *Estimator
	at     *At // the past block the trace runs at; nil: now
	em     *txemulator.Emulator
	states map[ton.AccountID]tlb.ShardAccount
	deps   []dep
	// rec, when set, keeps every transaction (for a preview); stops are
	// kept either way.
	rec   *Emulation
	stops []Stop
	n     int // transactions emulated, the root included
}

type hop struct {
	msg    tlb.Message
	dest   ton.AccountID
	depth  int
	parent int // index (in emulation order) of the transaction that sent msg
	out    int // msg's index among the parent's out messages
}

func (t *tracer) follow(ctx context.Context, root *tlb.Transaction) ([]Fees, error) {
	out := []Fees{}
	t.n = 1
	queue := t.outgoing(root, 1, 0)
	for len(queue) > 0 {
		// an emulation cannot be interrupted, but a trace can between hops
		if err := ctx.Err(); err != nil {
			return nil, unavailable(err, "emulator")
		}
		h := queue[0]
		queue = queue[1:]
		if len(out) >= t.e.opts.MaxTransactions {
			t.stop(h, StopTransactions)
			continue
		}
		if h.depth > t.e.opts.MaxDepth {
			t.stop(h, StopDepth)
			continue
		}
		sa, known, err := t.state(ctx, h.dest)
		if err != nil {
			return nil, err
		}
		if !known {
			t.stop(h, StopUnknownAccount)
			continue
		}
		before := sa
		res, err := emulate(t.em, sa, h.msg)
		if err != nil || !res.Success {
			// The emulator refusing an internal message (not a contract
			// refusing it: that is a transaction) means the branch cannot
			// be followed; the fees reported so far stay exact.
			t.e.opts.Logger.Warn("fees: destination emulation failed", "dest", h.dest.ToRaw(), "err", err)
			t.stop(h, StopNotEmulated)
			continue
		}
		tx := &res.Emulation.Transaction
		f, err := txFees(tx)
		if err != nil {
			t.e.opts.Logger.Warn("fees: destination fees unreadable", "dest", h.dest.ToRaw(), "err", err)
			t.stop(h, StopNotEmulated)
			continue
		}
		f.InFwdFee = 0 // paid by the sender, already in its fwd_fee
		out = append(out, f)
		t.states[h.dest] = res.Emulation.ShardAccount
		t.record(h.parent, h.out, h.dest, res.Emulation, f, before)
		queue = append(queue, t.outgoing(tx, h.depth+1, t.n)...)
		t.n++
	}
	return out, nil
}

func (t *tracer) stop(h hop, reason string) {
	t.stops = append(t.stops, Stop{Parent: h.parent, OutIndex: h.out, Account: chain.RawAddress(h.dest), Reason: reason})
}

// record keeps one emulated transaction for a preview.
func (t *tracer) record(parent, out int, account ton.AccountID, em *struct {
	ShardAccount   tlb.ShardAccount
	Transaction    tlb.Transaction
	RawTransaction string
}, f Fees, before tlb.ShardAccount) {
	if t.rec == nil {
		return
	}
	raw, _ := base64.StdEncoding.DecodeString(em.RawTransaction)
	t.rec.Transactions = append(t.rec.Transactions, EmulatedTx{
		Parent: parent, OutIndex: out, Account: chain.RawAddress(account), Workchain: account.Workchain, BOC: raw, Fees: f,
		BalanceBefore: balanceOf(before), BalanceAfter: balanceOf(em.ShardAccount),
		tx: &em.Transaction,
	})
	code, data := codeData(em.ShardAccount)
	last := &t.rec.Transactions[len(t.rec.Transactions)-1]
	last.CodeHash, last.DataHash = hashOf(code, nil), hashOf(data, nil)
}

func balanceOf(sa tlb.ShardAccount) uint64 {
	if sa.Account.SumType != "Account" {
		return 0
	}
	return uint64(sa.Account.Account.Storage.Balance.Grams)
}

// outgoing lists the internal messages of tx (the parent-th transaction of
// the trace); external-out messages (logs) start no transaction.
func (t *tracer) outgoing(tx *tlb.Transaction, depth, parent int) []hop {
	var hops []hop
	for i, m := range tx.Msgs.OutMsgs.Values() {
		msg := m.Value
		if msg.Info.SumType != "IntMsgInfo" {
			continue
		}
		dest, err := ton.AccountIDFromTlb(msg.Info.IntMsgInfo.Dest)
		if err != nil || dest == nil {
			continue
		}
		hops = append(hops, hop{msg: msg, dest: *dest, depth: depth, parent: parent, out: i})
	}
	return hops
}

// state is the destination's state: what this trace left there, else the
// source's current state, recorded as a dep. known is false when the
// source has no state of the account at all (as opposed to a state saying
// it does not exist).
func (t *tracer) state(ctx context.Context, id ton.AccountID) (sa tlb.ShardAccount, known bool, err error) {
	if sa, ok := t.states[id]; ok {
		return sa, true, nil
	}
	raw := chain.RawAddress(id)
	st, err := t.e.accountOf(ctx, t.at, raw)
	if err != nil {
		return sa, false, err
	}
	d := dep{Addr: raw}
	if st == nil || len(st.ShardAccountBOC) == 0 {
		t.deps = append(t.deps, d)
		return sa, false, nil
	}
	if sa, err = decodeShardAccount(st.ShardAccountBOC); err != nil {
		return sa, false, err
	}
	d.Lt, d.Hash = st.LastTxLt, st.LastTxHash.Hex()
	t.deps = append(t.deps, d)
	t.states[id] = sa
	return sa, true, nil
}
