package toncenter

import (
	"encoding/json"
	"strconv"

	"github.com/tonql/tonql/chain"
)

// AppendJSON appends the page as json.Marshal writes it, without
// reflection and without re-validating each action's details (written by
// renderDetails as compact JSON): the dialect's page is the seed's page
// plus the details rewrite, not plus a reflective encoder.
// TestActionsResponseJSONMatchesMarshal keeps the two identical.
func (r *ActionsResponse) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"actions":[`...)
	for i, a := range r.Actions {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = a.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"address_book":`...)
	b = r.AddressBook.AppendJSON(b)
	b = append(b, `,"metadata":`...)
	b = r.Metadata.AppendJSON(b)
	return append(b, '}'), nil
}

// AppendJSON appends the action as json.Marshal writes it.
func (a *Action) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"trace_id":`...)
	if a.TraceID == nil {
		b = append(b, "null"...)
	} else {
		b = chain.AppendJSONString(b, *a.TraceID)
	}
	b = append(b, `,"action_id":`...)
	b = chain.AppendJSONString(b, a.ActionID)
	b = append(b, `,"start_lt":`...)
	b = chain.AppendJSONString(b, a.StartLt)
	b = append(b, `,"end_lt":`...)
	b = chain.AppendJSONString(b, a.EndLt)
	b = append(b, `,"start_utime":`...)
	b = strconv.AppendInt(b, a.StartUtime, 10)
	b = append(b, `,"end_utime":`...)
	b = strconv.AppendInt(b, a.EndUtime, 10)
	b = append(b, `,"trace_end_lt":`...)
	b = chain.AppendJSONString(b, a.TraceEndLt)
	b = append(b, `,"trace_end_utime":`...)
	b = strconv.AppendInt(b, a.TraceEndUtime, 10)
	b = append(b, `,"trace_mc_seqno_end":`...)
	b = strconv.AppendInt(b, a.TraceMcSeqnoEnd, 10)
	b = append(b, `,"transactions":`...)
	b = chain.AppendJSONStrings(b, a.Transactions)
	b = append(b, `,"success":`...)
	if a.Success == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendBool(b, *a.Success)
	}
	b = append(b, `,"type":`...)
	b = chain.AppendJSONString(b, a.Type)
	b = append(b, `,"details":`...)
	if a.Details == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, a.Details...)
	}
	if a.TraceExternalHash != nil {
		b = append(b, `,"trace_external_hash":`...)
		b = chain.AppendJSONString(b, *a.TraceExternalHash)
	}
	if a.TraceExternalHashNorm != nil {
		b = append(b, `,"trace_external_hash_norm":`...)
		b = chain.AppendJSONString(b, *a.TraceExternalHashNorm)
	}
	if len(a.Accounts) > 0 {
		b = append(b, `,"accounts":`...)
		b = chain.AppendJSONStrings(b, a.Accounts)
	}
	if len(a.TransactionsFull) > 0 {
		// reflection here is a small part of a page that read its
		// transactions from the store
		txs, err := json.Marshal(a.TransactionsFull)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"transactions_full":`...)
		b = append(b, txs...)
	}
	b = append(b, `,"finality":`...)
	b = chain.AppendJSONString(b, a.Finality)
	return append(b, '}'), nil
}
