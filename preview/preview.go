// Package preview says what an unsent message will do: it turns the trace
// the fee estimator emulated into the actions the same decoder derives from
// stored traces (actions.Classify), each transaction with its fees, and the
// balance change of every account the trace touches.
package preview

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// Preview is one emulated trace, decoded.
type Preview struct {
	Trace *chain.Trace
	// Transactions are in emulation order: the root first, then breadth
	// first (the order of the estimate's destination_fees).
	Transactions []*Transaction
	// Actions are what actions.Classify makes of the trace: the types and
	// values /api/v3/actions serves for a stored trace, as it serves them
	// by default (the top-level actions).
	Actions []*chain.Action
	// Steps are the steps of the newer actions among them (nested actions,
	// actions/steps.go): GraphQL's Action.children shows them.
	Steps          []*chain.Action
	BalanceChanges BalanceChanges
	// Stopped lists the messages of the trace that were not emulated;
	// Complete is true when there are none.
	Stopped  []*Stop
	Complete bool
	// Risk is what the sender can lose: every preview carries it.
	Risk Risk
	// Code and Data are the emulated accounts' code and data as the trace
	// leaves them, BOCs by hash (toncenter's code_cells, data_cells).
	Code, Data map[string][]byte `json:"-"`
}

// Transaction is one emulated transaction with the fees it charged. The
// JSON fields are the REST answer's; GraphQL binds to the same struct.
type Transaction struct {
	Hash    string `json:"hash"` // standard base64
	Account string `json:"account"`
	Lt      uint64 `json:"lt"`
	Utime   uint32 `json:"utime"`
	// Parent is the hash of the transaction whose message this one
	// processed; null for the root (the external message's).
	Parent          *string   `json:"parent"`
	Success         bool      `json:"success"`
	Aborted         bool      `json:"aborted"`
	ComputeExitCode int       `json:"compute_exit_code"`
	TotalFees       uint64    `json:"total_fees"`
	Fees            fees.Fees `json:"fees"`

	Tx *chain.Transaction `json:"-"`
	// Emulated is what the emulator said of it: the account's balance,
	// code and data hashes after it.
	Emulated *fees.EmulatedTx `json:"-"`
}

// Limits are the estimator's bounds on a trace, quoted by stops.
type Limits struct{ MaxDepth, MaxTransactions int }

// Stop is a message of the trace that was not followed: where and why.
type Stop struct {
	Account     string `json:"account"`      // the message's destination, raw
	Reason      string `json:"reason"`       // fees.Stop* code
	Message     string `json:"message"`      // the reason in words
	MessageHash string `json:"message_hash"` // the message, standard base64
	Transaction string `json:"transaction"`  // the transaction that sent it, standard base64
	// Actions are the ids of the actions that include that transaction:
	// their status and values show only what was emulated (a swap whose
	// payout was not emulated reads as failed).
	Actions []string `json:"actions"`
}

// Build decodes an emulation. known may be nil, as for traces decoded from
// blocks; the trace it makes carries no masterchain block (it has none).
func Build(em *fees.Emulation, known chain.KnownContracts, limits Limits) (*Preview, error) {
	if em == nil || len(em.Transactions) == 0 {
		return nil, fmt.Errorf("preview: emulation without transactions")
	}
	p := &Preview{Complete: em.Complete(), Actions: []*chain.Action{}, Stopped: []*Stop{}, Code: em.Code, Data: em.Data}
	nodes := make([]*chain.TraceNode, len(em.Transactions))
	outIndex := make([]int, len(em.Transactions))
	for i := range em.Transactions {
		et := &em.Transactions[i]
		tx, err := transaction(et)
		if err != nil {
			return nil, fmt.Errorf("preview: transaction %d: %w", i, err)
		}
		nodes[i] = &chain.TraceNode{Tx: tx}
		outIndex[i] = et.OutIndex
		f := et.Fees
		f.Type = "" // toncenter v3's shape, as GraphQL's Fees
		t := &Transaction{Tx: tx, Fees: f, Hash: tx.Hash.Base64(), Account: tx.Account, Lt: tx.Lt, Utime: tx.Utime,
			Success: tx.Success(), Aborted: tx.Aborted, ComputeExitCode: int(tx.ComputeExitCode), TotalFees: tx.TotalFees,
			Emulated: et}
		if et.Parent >= 0 {
			if et.Parent >= i {
				return nil, fmt.Errorf("preview: transaction %d before its parent %d", i, et.Parent)
			}
			h := nodes[et.Parent].Tx.Hash.Base64()
			t.Parent = &h
			nodes[et.Parent].Children = append(nodes[et.Parent].Children, nodes[i])
		}
		p.Transactions = append(p.Transactions, t)
	}
	// A node's children in the order of its out messages, as the chain's
	// traces list them (breadth first already is, this keeps it certain).
	pos := map[*chain.TraceNode]int{}
	for i, n := range nodes {
		pos[n] = outIndex[i]
	}
	for _, n := range nodes {
		sort.SliceStable(n.Children, func(a, b int) bool { return pos[n.Children[a]] < pos[n.Children[b]] })
	}
	p.Trace = newTrace(nodes, p.Complete)
	for _, a := range actions.Classify(p.Trace, known) {
		a.Accounts = nil // shown only when asked for, as in /api/v3/actions
		if a.ParentActionID != "" {
			p.Steps = append(p.Steps, &a)
			continue
		}
		p.Actions = append(p.Actions, &a)
	}
	p.BalanceChanges = balanceChanges(em, nodes)
	p.Risk = riskOf(em, nodes, p.BalanceChanges, append(slices.Clip(p.Actions), p.Steps...))
	for _, s := range em.Stops {
		st := stop(s, nodes, limits)
		st.Actions = []string{}
		for _, a := range p.Actions {
			if slices.Contains(a.Transactions, st.Transaction) {
				st.Actions = append(st.Actions, a.ActionID)
			}
		}
		p.Stopped = append(p.Stopped, st)
	}
	return p, nil
}

// transaction is the chain form of an emulated transaction: converted from
// tongo's decoding when this process emulated it, else decoded from bytes.
func transaction(et *fees.EmulatedTx) (*chain.Transaction, error) {
	if d := et.Decoded(); d != nil {
		tx, err := chain.TransactionFromTLB(d, et.Workchain)
		if err == nil && len(tx.BOC) == 0 {
			tx.BOC = et.BOC // toncenter's shape renders from the bytes
		}
		return tx, err
	}
	return chain.ParseTransactionBOC(et.BOC)
}

func newTrace(nodes []*chain.TraceNode, complete bool) *chain.Trace {
	root := nodes[0].Tx
	tr := &chain.Trace{ID: root.Hash, Root: nodes[0], Complete: complete, Transactions: len(nodes),
		StartLt: root.Lt, EndLt: root.Lt, StartUtime: root.Utime, EndUtime: root.Utime}
	for _, n := range nodes {
		n.Tx.TraceID = tr.ID
		tr.StartLt, tr.EndLt = min(tr.StartLt, n.Tx.Lt), max(tr.EndLt, n.Tx.Lt)
		tr.StartUtime, tr.EndUtime = min(tr.StartUtime, n.Tx.Utime), max(tr.EndUtime, n.Tx.Utime)
	}
	return tr
}

func stop(s fees.Stop, nodes []*chain.TraceNode, limits Limits) *Stop {
	out := &Stop{Account: s.Account, Reason: s.Reason}
	if s.Parent >= 0 && s.Parent < len(nodes) {
		tx := nodes[s.Parent].Tx
		out.Transaction = tx.Hash.Base64()
		if s.OutIndex >= 0 && s.OutIndex < len(tx.OutMsgs) {
			out.MessageHash = tx.OutMsgs[s.OutIndex].Hash.Base64()
		}
	}
	switch s.Reason {
	case fees.StopUnknownAccount:
		out.Message = "no state of " + s.Account + " is known to this server (not in its database, and no lite server answered for it): " +
			"the trace is not emulated past this message rather than guessed"
	case fees.StopDepth:
		out.Message = fmt.Sprintf("the message is more than %d hops from the external message; the trace is emulated that deep", limits.MaxDepth)
	case fees.StopTransactions:
		out.Message = fmt.Sprintf("the trace reached %d destination transactions; the rest is not emulated", limits.MaxTransactions)
	default:
		out.Message = "the emulator could not process this message on the account's state (the chain would not deliver it as it is)"
	}
	return out
}
