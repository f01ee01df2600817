package toncenter

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/tonql/tonql/chain"
)

// The transactions, messages and traces pages encode themselves, to the
// bytes json.Marshal writes (TestChainPagesJSONMatchMarshal): a CPU
// profile of the hot pages under load (docs/PERFORMANCE.md, "eighth
// sitting") had json.Marshal's reflection at 9-16% of the server's CPU,
// a map encoder sorting each message's empty extra-currency map among it.
// The rare parts (a transaction's description and account states, a
// decoded body) still go through json.Marshal.

// AppendJSON appends the page as json.Marshal writes it.
func (r *TransactionsResponse) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"transactions":`...)
	b, err := appendTransactions(b, r.Transactions)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"address_book":`...)
	b = r.AddressBook.AppendJSON(b)
	return append(b, '}'), nil
}

// AppendJSON appends the page as json.Marshal writes it.
func (r *MessagesResponse) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"messages":`...)
	if r.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = m.AppendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"address_book":`...)
	b = r.AddressBook.AppendJSON(b)
	b = append(b, `,"metadata":`...)
	switch {
	case r.Metadata == nil:
		b = append(b, "null"...)
	case len(r.Metadata) == 0:
		b = append(b, "{}"...)
	default:
		var err error
		if b, err = appendMarshal(b, r.Metadata); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendJSON appends the page as json.Marshal writes it.
func (r *TracesResponse) AppendJSON(b []byte) ([]byte, error) {
	return appendTracesPage(b, "traces", r.Traces, r.AddressBook, r.Metadata)
}

// AppendJSON appends the page as json.Marshal writes it.
func (r *EventsResponse) AppendJSON(b []byte) ([]byte, error) {
	return appendTracesPage(b, "events", r.Events, r.AddressBook, r.Metadata)
}

func appendTracesPage(b []byte, key string, traces []*Trace, book chain.AddressBook, meta chain.Metadata) ([]byte, error) {
	b = append(b, `{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	if traces == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range traces {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = t.AppendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"address_book":`...)
	b = book.AppendJSON(b)
	b = append(b, `,"metadata":`...)
	b = meta.AppendJSON(b)
	return append(b, '}'), nil
}

// AppendJSON appends the trace as json.Marshal writes it.
func (t *Trace) AppendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"trace_id":`...)
	b = appendOptString(b, t.TraceID)
	b = append(b, `,"external_hash":`...)
	b = appendOptString(b, t.ExternalHash)
	b = append(b, `,"mc_seqno_start":`...)
	b = appendOptString(b, t.McSeqnoStart)
	b = append(b, `,"mc_seqno_end":`...)
	b = appendOptString(b, t.McSeqnoEnd)
	b = append(b, `,"start_lt":`...)
	b = chain.AppendJSONString(b, t.StartLt)
	b = append(b, `,"start_utime":`...)
	b = strconv.AppendUint(b, uint64(t.StartUtime), 10)
	b = append(b, `,"end_lt":`...)
	b = appendOptString(b, t.EndLt)
	b = append(b, `,"end_utime":`...)
	if t.EndUtime == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendUint(b, uint64(*t.EndUtime), 10)
	}
	m := &t.TraceMeta
	b = append(b, `,"trace_info":{"trace_state":`...)
	b = chain.AppendJSONString(b, m.TraceState)
	b = append(b, `,"messages":`...)
	b = strconv.AppendInt(b, m.Messages, 10)
	b = append(b, `,"transactions":`...)
	b = strconv.AppendInt(b, m.Transactions, 10)
	b = append(b, `,"pending_messages":`...)
	b = strconv.AppendInt(b, m.PendingMessages, 10)
	b = append(b, `,"classification_state":`...)
	b = chain.AppendJSONString(b, m.ClassificationState)
	b = append(b, `},"is_incomplete":`...)
	b = strconv.AppendBool(b, t.IsIncomplete)
	if t.Warning != "" {
		b = append(b, `,"warning":`...)
		b = chain.AppendJSONString(b, t.Warning)
	}
	if t.Trace != nil {
		b = append(b, `,"trace":`...)
		b = t.Trace.appendJSON(b)
	}
	if t.Actions != nil {
		b = append(b, `,"actions":`...)
		if *t.Actions == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, a := range *t.Actions {
				if i > 0 {
					b = append(b, ',')
				}
				var err error
				if a == nil {
					b = append(b, "null"...)
				} else if b, err = a.AppendJSON(b); err != nil {
					return nil, err
				}
			}
			b = append(b, ']')
		}
	}
	if len(t.TransactionsOrder) > 0 {
		b = append(b, `,"transactions_order":`...)
		b = chain.AppendJSONStrings(b, t.TransactionsOrder)
	}
	if len(t.Transactions) > 0 {
		b = append(b, `,"transactions":{`...)
		for i, k := range slices.Sorted(maps.Keys(t.Transactions)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = chain.AppendJSONString(b, k)
			b = append(b, ':')
			var err error
			if b, err = t.Transactions[k].AppendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func (n *TraceNode) appendJSON(b []byte) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	if n.TxHash != "" {
		b = append(b, `"tx_hash":`...)
		b = chain.AppendJSONString(b, n.TxHash)
		b = append(b, ',')
	}
	if n.InMsgHash != "" {
		b = append(b, `"in_msg_hash":`...)
		b = chain.AppendJSONString(b, n.InMsgHash)
		b = append(b, ',')
	}
	b = append(b, `"children":`...)
	if n.Children == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range n.Children {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendTransactions(b []byte, txs []*Transaction) ([]byte, error) {
	if txs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, t := range txs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = t.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// AppendJSON appends the transaction as json.Marshal writes it.
func (t *Transaction) AppendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	var err error
	b = append(b, `{"account":`...)
	b = chain.AppendJSONString(b, t.Account)
	b = append(b, `,"hash":`...)
	b = chain.AppendJSONString(b, t.Hash)
	b = append(b, `,"lt":`...)
	b = chain.AppendJSONString(b, t.Lt)
	b = append(b, `,"now":`...)
	b = strconv.AppendInt(b, t.Now, 10)
	b = append(b, `,"mc_block_seqno":`...)
	if t.McBlockSeqno == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *t.McBlockSeqno, 10)
	}
	if t.TraceID != nil {
		b = append(b, `,"trace_id":`...)
		b = chain.AppendJSONString(b, *t.TraceID)
	}
	if t.TraceExternalHash != nil {
		b = append(b, `,"trace_external_hash":`...)
		b = chain.AppendJSONString(b, *t.TraceExternalHash)
	}
	b = append(b, `,"prev_trans_hash":`...)
	b = appendOptString(b, t.PrevTransHash)
	b = append(b, `,"prev_trans_lt":`...)
	b = appendOptString(b, t.PrevTransLt)
	b = append(b, `,"orig_status":`...)
	b = chain.AppendJSONString(b, t.OrigStatus)
	b = append(b, `,"end_status":`...)
	b = chain.AppendJSONString(b, t.EndStatus)
	b = append(b, `,"total_fees":`...)
	b = chain.AppendJSONString(b, t.TotalFees)
	b = append(b, `,"total_fees_extra_currencies":`...)
	b = appendStringMap(b, t.TotalFeesExtraCurrencies)
	b = append(b, `,"description":`...)
	if t.Description == nil {
		b = append(b, "null"...)
	} else if b, err = appendMarshal(b, t.Description); err != nil {
		return nil, err
	}
	b = append(b, `,"block_ref":`...)
	if r := t.BlockRef; r == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"workchain":`...)
		b = strconv.AppendInt(b, int64(r.Workchain), 10)
		b = append(b, `,"shard":`...)
		b = chain.AppendJSONString(b, r.Shard)
		b = append(b, `,"seqno":`...)
		b = strconv.AppendInt(b, int64(r.Seqno), 10)
		b = append(b, '}')
	}
	b = append(b, `,"in_msg":`...)
	if b, err = t.InMsg.AppendJSON(b); err != nil {
		return nil, err
	}
	b = append(b, `,"out_msgs":`...)
	if t.OutMsgs == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range t.OutMsgs {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = m.AppendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"account_state_before":`...)
	if b, err = appendState(b, t.AccountStateBefore); err != nil {
		return nil, err
	}
	b = append(b, `,"account_state_after":`...)
	if b, err = appendState(b, t.AccountStateAfter); err != nil {
		return nil, err
	}
	b = append(b, `,"emulated":`...)
	b = strconv.AppendBool(b, t.Emulated)
	b = append(b, `,"finality":`...)
	b = chain.AppendJSONString(b, t.Finality)
	return append(b, '}'), nil
}

// AppendJSON appends the message as json.Marshal writes it.
func (m *Message) AppendJSON(b []byte) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var err error
	b = append(b, `{"hash":`...)
	b = chain.AppendJSONString(b, m.Hash)
	b = append(b, `,"source":`...)
	b = appendOptString(b, m.Source)
	b = append(b, `,"destination":`...)
	b = appendOptString(b, m.Destination)
	b = append(b, `,"value":`...)
	b = appendOptString(b, m.Value)
	b = append(b, `,"value_extra_currencies":`...)
	b = appendStringMap(b, m.ValueExtraCurrencies)
	b = append(b, `,"fwd_fee":`...)
	b = appendOptString(b, m.FwdFee)
	b = append(b, `,"ihr_fee":`...)
	b = appendOptString(b, m.IhrFee)
	b = append(b, `,"extra_flags":`...)
	b = appendOptString(b, m.ExtraFlags)
	b = append(b, `,"created_lt":`...)
	b = appendOptString(b, m.CreatedLt)
	b = append(b, `,"created_at":`...)
	b = appendOptString(b, m.CreatedAt)
	b = append(b, `,"opcode":`...)
	b = appendOptString(b, m.Opcode)
	b = append(b, `,"decoded_opcode":`...)
	b = appendOptString(b, m.DecodedOpcode)
	b = append(b, `,"ihr_disabled":`...)
	b = appendOptBool(b, m.IhrDisabled)
	b = append(b, `,"bounce":`...)
	b = appendOptBool(b, m.Bounce)
	b = append(b, `,"bounced":`...)
	b = appendOptBool(b, m.Bounced)
	b = append(b, `,"import_fee":`...)
	b = appendOptString(b, m.ImportFee)
	if m.InMsgTxHash != nil {
		b = append(b, `,"in_msg_tx_hash":`...)
		b = chain.AppendJSONString(b, *m.InMsgTxHash)
	}
	if m.OutMsgTxHash != nil {
		b = append(b, `,"out_msg_tx_hash":`...)
		b = chain.AppendJSONString(b, *m.OutMsgTxHash)
	}
	b = append(b, `,"message_content":`...)
	if b, err = m.MessageContent.appendJSON(b); err != nil {
		return nil, err
	}
	b = append(b, `,"init_state":`...)
	if b, err = m.InitState.appendJSON(b); err != nil {
		return nil, err
	}
	if m.HashNorm != nil {
		b = append(b, `,"hash_norm":`...)
		b = chain.AppendJSONString(b, *m.HashNorm)
	}
	return append(b, '}'), nil
}

func (c *MessageContent) appendJSON(b []byte) ([]byte, error) {
	if c == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"hash":`...)
	b = appendOptString(b, c.Hash)
	b = append(b, `,"body":`...)
	b = appendOptString(b, c.Body)
	b = append(b, `,"decoded":`...)
	if c.Decoded == nil {
		b = append(b, "null"...)
	} else {
		// json.Marshal compacts and HTML-escapes raw JSON; so does this.
		var err error
		if b, err = appendMarshal(b, c.Decoded); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return chain.AppendJSONString(b, *s)
}

func appendOptBool(b []byte, v *bool) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendBool(b, *v)
}

// appendStringMap writes m with its keys sorted, as encoding/json does.
func appendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	if len(m) == 0 {
		return append(b, "{}"...)
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = chain.AppendJSONString(b, k)
		b = append(b, ':')
		b = chain.AppendJSONString(b, m[k])
	}
	return append(b, '}')
}

func appendState(b []byte, st *AccountState) ([]byte, error) {
	if st == nil {
		return append(b, "null"...), nil // json.Marshal of a typed nil allocates
	}
	return appendMarshal(b, st)
}

// appendMarshal is the fallback for the parts rare on a page.
func appendMarshal(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}
