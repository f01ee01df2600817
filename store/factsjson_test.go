package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFactsScanAgreesWithUnmarshal: the facts the store writes for the
// fixture blocks' transactions and messages (as imported from trace JSON:
// no BOC) read the same through the scanner as through json.Unmarshal,
// and texts the scanner does not take (escapes, nesting, wrong types,
// unknown keys) are left to json.Unmarshal: whenever the scanner takes a
// text, json.Unmarshal takes it too and reads the same facts.
func TestFactsScanAgreesWithUnmarshal(t *testing.T) {
	var txTexts, msgTexts []string
	for _, blk := range fixtureBlocks(t) {
		for _, tx := range blk.Transactions {
			c := *tx
			c.BOC = nil
			if s := newTxFacts(&c); s != nil {
				txTexts = append(txTexts, *s)
			}
			msgs := c.OutMsgs
			if c.InMsg != nil {
				msgs = append(msgs, *c.InMsg)
			}
			for i := range msgs {
				if s := newMsgFacts(&msgs[i]); s != nil {
					msgTexts = append(msgTexts, *s)
				}
			}
		}
	}
	require.NotEmpty(t, txTexts)
	require.NotEmpty(t, msgTexts)
	scannedTx, scannedMsg := 0, 0
	odd := []string{`{}`, ` { } `, `{"prev_hash":"a\"b"}`, `{"prev_hash":1}`, `{"prev_lt":"1"}`, `{"prev_lt":-1}`,
		`{"action_result":-7,"bounced":true}`, `{"action_result":4294967296}`, `{"destroyed":1}`, `{"destroyed":null}`,
		`{"other":1}`, `{"prev_lt":1,}`, `{"prev_lt":1 "bounced":true}`, `{"prev_lt":1e3}`, `[]`, `{`, ``,
		`{"created_at":4294967296}`, `{"created_at":5, "ihr_fee" : 6 }`, `{"extra_currencies":{"1":"2"},"created_at":1}`,
		`{"ihr_fee":true}`, `{"created_at":"5"}`}
	for _, s := range append(txTexts, odd...) {
		var got, want txFacts
		if scanTxFacts(s, &got) {
			scannedTx++
			require.NoError(t, json.Unmarshal([]byte(s), &want), s)
			require.Equal(t, want, got, s)
		}
	}
	for _, s := range append(msgTexts, odd...) {
		var got, want msgFacts
		if scanMsgFacts(s, &got) {
			scannedMsg++
			require.NoError(t, json.Unmarshal([]byte(s), &want), s)
			require.Equal(t, want, got, s)
		}
	}
	// The store's own texts all take the fast path (else it buys nothing).
	require.GreaterOrEqual(t, scannedTx, len(txTexts))
	require.GreaterOrEqual(t, scannedMsg, len(msgTexts))
	var f msgFacts
	require.False(t, scanMsgFacts(`{"extra_currencies":{"1":"2"},"created_at":1}`, &f))
	require.False(t, scanTxFacts(`{"prev_hash":"a\"b"}`, new(txFacts)))
}

// BenchmarkFacts reads a transaction's and a message's facts as the
// loadgen store holds them, by json.Unmarshal (before) and by the scanner
// (after).
func BenchmarkFacts(b *testing.B) {
	tx, msg := `{"prev_hash":"dGhpcyBpcyBub3QgYSByZWFsIGhhc2ggYnV0IDMyIGI=","prev_lt":48000000000001,"compute_success":true,"action_success":true}`, `{"created_at":1760000259}`
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var t txFacts
			var m msgFacts
			_ = json.Unmarshal([]byte(tx), &t)
			_ = json.Unmarshal([]byte(msg), &m)
		}
	})
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var t txFacts
			var m msgFacts
			if !scanTxFacts(tx, &t) || !scanMsgFacts(msg, &m) {
				b.Fatal("not scanned")
			}
		}
	})
}
