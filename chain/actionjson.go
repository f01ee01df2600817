package chain

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the action as json.Marshal writes it (the
// /api/v3/actions shape), without reflection and without re-validating the
// stored value, which the decoder wrote as compact JSON: a page encodes in a
// fraction of json.Marshal's time. TestActionJSONMatchesMarshal keeps the two
// identical.
func (a *Action) AppendJSON(b []byte) []byte {
	b = append(b, `{"action_id":`...)
	b = AppendJSONString(b, a.ActionID)
	b = append(b, `,"trace_id":`...)
	b = AppendJSONString(b, a.TraceID)
	b = append(b, `,"tx_hash":`...)
	b = AppendJSONString(b, a.TxHash)
	b = append(b, `,"type":`...)
	b = AppendJSONString(b, a.Type)
	b = append(b, `,"status":`...)
	b = AppendJSONString(b, a.Status)
	if a.Title != "" {
		b = append(b, `,"title":`...)
		b = AppendJSONString(b, a.Title)
	}
	if a.Description != "" {
		b = append(b, `,"description":`...)
		b = AppendJSONString(b, a.Description)
	}
	b = append(b, `,"value":`...)
	b = append(b, a.Value.OrEmpty()...)
	b = append(b, `,"start_lt":`...)
	b = strconv.AppendUint(b, a.StartLt, 10)
	b = append(b, `,"start_utime":`...)
	b = strconv.AppendUint(b, uint64(a.StartUtime), 10)
	b = append(b, `,"end_lt":`...)
	b = strconv.AppendUint(b, a.EndLt, 10)
	b = append(b, `,"end_utime":`...)
	b = strconv.AppendUint(b, uint64(a.EndUtime), 10)
	b = append(b, `,"transactions":`...)
	b = AppendJSONStrings(b, a.Transactions)
	b = append(b, `,"trace_end_lt":`...)
	b = strconv.AppendUint(b, a.TraceEndLt, 10)
	b = append(b, `,"trace_end_utime":`...)
	b = strconv.AppendUint(b, uint64(a.TraceEndUtime), 10)
	b = append(b, `,"trace_external_hash_norm":`...)
	if a.TraceExternalHashNorm == nil {
		b = append(b, "null"...)
	} else {
		b = AppendJSONString(b, *a.TraceExternalHashNorm)
	}
	b = append(b, `,"mc_seqno":`...)
	if a.McSeqno == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendUint(b, uint64(*a.McSeqno), 10)
	}
	if len(a.Accounts) > 0 {
		b = append(b, `,"accounts":`...)
		b = AppendJSONStrings(b, a.Accounts)
	}
	if a.TransactionsFull != nil {
		// Reflection here is a small part of a page that asked for
		// transactions (their read dominates); see docs/PERFORMANCE.md.
		txs, err := json.Marshal(a.TransactionsFull)
		if err != nil {
			panic(err) // plain structs of strings and numbers always marshal
		}
		b = append(b, `,"transactions_full":`...)
		b = append(b, txs...)
	}
	return append(b, '}')
}

// AppendJSON appends the page as json.Marshal writes it.
func (l *ActionList) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"actions":[`...)
	for i, a := range l.Actions {
		if i > 0 {
			b = append(b, ',')
		}
		b = a.AppendJSON(b)
	}
	b = append(b, `],"address_book":`...)
	b = l.AddressBook.AppendJSON(b)
	b = append(b, `,"metadata":`...)
	b = l.Metadata.AppendJSON(b)
	return append(b, '}'), nil
}

// AppendJSONStrings writes ss as encoding/json does (null for nil).
func AppendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, s)
	}
	return append(b, ']')
}

// plainJSON marks the bytes encoding/json copies into a string as they
// are (a table: message bodies run to hundreds of KB of base64, and a
// chain of comparisons per byte was slower than json.Marshal's own loop).
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// PlainJSONString is the value of raw, a JSON string literal a decoder
// has already checked, when the text between its quotes is that value: no
// escapes, and valid UTF-8 (a decoder would put U+FFFD for a bad byte).
// Most strings are (amounts, queries, addresses), and are then taken
// without a second decoder.
func PlainJSONString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' ||
		bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// AppendJSONString quotes s as encoding/json does: ids, hashes, addresses
// and type names need no escaping and are copied; anything else goes
// through encoding/json.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
