package toncenter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// blockTransactions reads every transaction of the raw fixture blocks,
// each with its BOC (the store's rows read from raw blocks).
func blockTransactions(t testing.TB) []*chain.Transaction {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "blocks", "*.bin"))
	if len(files) == 0 {
		t.Skip("no block fixtures")
	}
	var out []*chain.Transaction
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		blk, err := chain.ParseBlockBOC(data)
		require.NoError(t, err)
		out = append(out, blk.Transactions...)
	}
	return out
}

// withoutBOC is the transaction as a row imported from trace JSON holds it.
func withoutBOC(txs []*chain.Transaction) []*chain.Transaction {
	out := make([]*chain.Transaction, len(txs))
	for i, t := range txs {
		c := *t
		c.BOC, c.Block = nil, nil
		c.McSeqno = uint32(i)
		out[i] = &c
	}
	return out
}

func requireSameJSON(t *testing.T, v interface {
	AppendJSON([]byte) ([]byte, error)
}) {
	t.Helper()
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := v.AppendJSON([]byte("prefix"))
	require.NoError(t, err)
	require.Equal(t, "prefix"+string(want), string(got))
}

// TestChainPagesJSONMatchMarshal: the transactions, messages, traces and
// events pages write exactly what json.Marshal writes, for the raw
// blocks' transactions (descriptions, account states, block refs, init
// states) and the same rows without their BOC (the null fields), plus the
// fields no fixture fills (extra currencies, a decoded body with
// characters json.Marshal escapes, warnings, actions, empty and nil
// lists).
func TestChainPagesJSONMatchMarshal(t *testing.T) {
	raw := blockTransactions(t)
	book := chain.AddressBook{}
	for _, src := range [][]*chain.Transaction{raw, withoutBOC(raw)} {
		page := &TransactionsResponse{AddressBook: book}
		msgs := &MessagesResponse{AddressBook: book, Metadata: map[string]any{}}
		for _, tx := range src {
			rt, err := RenderTransaction(tx)
			require.NoError(t, err)
			page.Transactions = append(page.Transactions, rt)
			if rt.InMsg != nil {
				msgs.Messages = append(msgs.Messages, rt.InMsg)
			}
			msgs.Messages = append(msgs.Messages, rt.OutMsgs...)
		}
		require.NotEmpty(t, msgs.Messages)
		requireSameJSON(t, page)
		requireSameJSON(t, msgs)

		tr, err := RenderTrace(&TraceData{ID: "id<&>", StartLt: 1, EndLt: 2, StartUtime: 3, EndUtime: 4, Complete: true, Transactions: src[:5]})
		require.NoError(t, err)
		requireSameJSON(t, &TracesResponse{Traces: []*Trace{tr}, AddressBook: book, Metadata: chain.Metadata{}})
		requireSameJSON(t, &EventsResponse{Events: []*Trace{tr}, AddressBook: book, Metadata: chain.Metadata{}})
	}

	// What no fixture row fills.
	decoded := json.RawMessage(`{ "text": "<a&b>", "n": [1, 2] }`)
	odd := "x\"\\<\u00e9>"
	yes := true
	m := &Message{Hash: odd, ValueExtraCurrencies: map[string]string{"239": "5", "-1": "7<"}, IhrDisabled: &yes, InMsgTxHash: &odd,
		OutMsgTxHash: &odd, HashNorm: &odd, MessageContent: &MessageContent{Hash: &odd, Body: &odd, Decoded: &decoded}}
	seqno := int64(9)
	tx := &Transaction{Account: odd, McBlockSeqno: &seqno, TraceID: &odd, TraceExternalHash: &odd, InMsg: m, OutMsgs: []*Message{m, nil},
		TotalFeesExtraCurrencies: map[string]string{"1": "2"}, BlockRef: &BlockID{Workchain: -1, Shard: "8000000000000000", Seqno: 3},
		AccountStateBefore: &AccountState{Hash: odd, BalanceExtraCurrencies: map[string]string{}}}
	empty := []*Action{}
	for _, tr := range []*Trace{
		{Warning: odd, Trace: &TraceNode{TxHash: odd, Children: []*TraceNode{{InMsgHash: odd, Children: []*TraceNode{}}, nil}},
			Actions: &empty, TransactionsOrder: []string{"b", "a"}, Transactions: map[string]*Transaction{"b": tx, "a": {}}},
		{Actions: new([]*Action), Trace: &TraceNode{}},
		{Actions: &[]*Action{nil}},
	} {
		requireSameJSON(t, &TracesResponse{Traces: []*Trace{tr, nil}, AddressBook: book, Metadata: chain.Metadata{}})
	}
	requireSameJSON(t, &TransactionsResponse{Transactions: []*Transaction{tx, {}, nil}})
	requireSameJSON(t, &TransactionsResponse{})
	requireSameJSON(t, &MessagesResponse{Messages: []*Message{m, {}, nil}, Metadata: map[string]any{"k": []int{1}}})
	requireSameJSON(t, &MessagesResponse{})
	requireSameJSON(t, &TracesResponse{})
}

// BenchmarkChainPageJSON: a page of ten transactions (and their messages)
// of the raw fixture blocks, as rows imported from trace JSON hold them
// (the loadgen store's), encoded by json.Marshal (before) and by
// AppendJSON into a reused buffer (after, as rest.encodeJSON does).
func BenchmarkChainPageJSON(b *testing.B) {
	txs := withoutBOC(blockTransactions(b))
	page := &TransactionsResponse{AddressBook: chain.AddressBook{}}
	for _, tx := range txs[:10] {
		rt, err := RenderTransaction(tx)
		require.NoError(b, err)
		page.Transactions = append(page.Transactions, rt)
	}
	tr, err := RenderTrace(&TraceData{ID: "id", StartLt: 1, EndLt: 2, Complete: true, Transactions: txs[:10]})
	require.NoError(b, err)
	traces := &TracesResponse{Traces: []*Trace{tr}, AddressBook: chain.AddressBook{}, Metadata: chain.Metadata{}}
	for _, c := range []struct {
		name string
		v    interface {
			AppendJSON([]byte) ([]byte, error)
		}
	}{{"transactions", page}, {"traces", traces}} {
		b.Run(c.name+"/marshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/append", func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 32<<10)
			for b.Loop() {
				var err error
				if buf, err = c.v.AppendJSON(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
