// Package pending keeps the emulated traces of messages sent through this
// server until their real traces are stored: what toncenter's
// /api/v3/pendingTraces and /api/v3/pendingActions answer. A record is made
// once, when the message is sent (Make), kept in the store so that every
// replica sees it (store.SavePending), and read back by the routes (Read).
package pending

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/preview"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/toncenter"
)

// Finality is how toncenter marks an emulated trace's actions and
// transactions (and its trace_state).
const Finality = "pending"

// Record is what a pending trace keeps (store.PendingTrace.Body): its trace
// in toncenter's shape, rendered once when the message was sent, and its
// top-level actions in ours, each with its accounts.
type Record struct {
	Trace    *toncenter.Trace  `json:"trace"`
	Actions  []*chain.Action   `json:"actions"`
	Book     chain.AddressBook `json:"address_book"`
	Metadata chain.Metadata    `json:"metadata"`
}

// Trace is a stored pending trace read back.
type Trace struct {
	ExtHash, ExtHashNorm string
	Record
}

// Make turns the preview of a sent message (hash, normalized norm),
// emulated on the states of masterchain block mcSeqno, into a pending trace
// that expires at expires.
func Make(est *preview.Estimate, hash, norm chain.Hash, mcSeqno uint32, now, expires time.Time) (store.PendingTrace, error) {
	pv := est.Preview
	if pv == nil || pv.Trace == nil || len(pv.Transactions) == 0 {
		return store.PendingTrace{}, fmt.Errorf("pending: the preview has no trace")
	}
	txs := make([]*chain.Transaction, len(pv.Transactions))
	for i, t := range pv.Transactions {
		txs[i] = t.Tx
	}
	id := pv.Trace.ID.Base64()
	tr, err := toncenter.RenderTrace(&toncenter.TraceData{ID: id, StartLt: pv.Trace.StartLt, EndLt: pv.Trace.EndLt,
		StartUtime: pv.Trace.StartUtime, EndUtime: pv.Trace.EndUtime, Complete: pv.Complete, Transactions: txs})
	if err != nil {
		return store.PendingTrace{}, err
	}
	// Not in any block yet: toncenter marks an emulated trace pending
	// whether or not its emulation reached every message.
	tr.TraceMeta.TraceState = Finality
	ext := hash.Base64()
	tr.ExternalHash = &ext
	MarkEmulated(tr.Transactions, pv, mcSeqno)
	for _, t := range tr.Transactions {
		t.TraceExternalHash = &ext
	}
	accounts := make([]string, 0, len(txs))
	for _, t := range txs {
		accounts = append(accounts, t.Account)
	}
	normText := norm.Base64()
	acts := make([]*chain.Action, len(pv.Actions))
	for i, a := range pv.Actions {
		c := *a
		c.Accounts = a.ParticipantAddresses()
		c.TraceExternalHashNorm = &normText
		acts[i] = &c
		accounts = append(accounts, c.Accounts...)
	}
	slices.Sort(accounts)
	body, err := json.Marshal(&Record{Trace: tr, Actions: acts, Book: est.AddressBook, Metadata: est.Metadata})
	if err != nil {
		return store.PendingTrace{}, err
	}
	return store.PendingTrace{ExtHash: ext, ExtHashNorm: normText, TraceID: id, Accounts: slices.Compact(accounts),
		Created: now, Expires: expires, Body: body}, nil
}

// MarkEmulated marks a preview's rendered transactions (by hash) as
// toncenter marks emulated ones: emulated, pending, at the masterchain
// block whose states the emulation ran on, with the account state the
// emulator left (which a transaction's BOC gives only the hash of).
func MarkEmulated(txs map[string]*toncenter.Transaction, pv *preview.Preview, mcSeqno uint32) {
	seqno := int64(mcSeqno)
	for _, t := range txs {
		t.Emulated, t.Finality, t.McBlockSeqno = true, Finality, &seqno
	}
	for _, t := range pv.Transactions {
		if rt, e := txs[t.Hash], t.Emulated; rt != nil && e != nil {
			rt.SetStateAfter(toncenter.StateAfter{Balance: e.BalanceAfter, Status: t.Tx.EndStatus, CodeHash: e.CodeHash, DataHash: e.DataHash})
		}
	}
}

// Read decodes stored pending traces. types, when not nil, keeps only the
// actions of those types (toncenter's supported_action_types).
func Read(list []store.PendingTrace, types []string) ([]*Trace, error) {
	out := make([]*Trace, 0, len(list))
	for _, p := range list {
		t := &Trace{ExtHash: p.ExtHash, ExtHashNorm: p.ExtHashNorm}
		if err := json.Unmarshal(p.Body, &t.Record); err != nil {
			return nil, fmt.Errorf("pending trace %s: %w", p.ExtHash, err)
		}
		kept := t.Actions[:0]
		for _, a := range t.Actions {
			if types != nil && !slices.Contains(types, a.Type) {
				continue
			}
			ext := p.ExtHash
			a.TraceExternalHash = &ext
			kept = append(kept, a)
		}
		t.Actions = kept
		out = append(out, t)
	}
	return out, nil
}

// Books merges the address books and metadata of traces.
func Books(traces []*Trace) (chain.AddressBook, chain.Metadata) {
	book, meta := chain.AddressBook{}, chain.Metadata{}
	for _, t := range traces {
		maps.Copy(book, t.Book)
		maps.Copy(meta, t.Metadata)
	}
	return book, meta
}
