package store

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

// messageReads counts the statements that read message rows.
type messageReads struct{ n atomic.Int32 }

func (c *messageReads) observe(st Statement) {
	if strings.Contains(st.Query, `FROM "messages"`) {
		c.n.Add(1)
	}
}

// With MessagesWithoutBOC a transaction with its raw BOC comes back
// without message rows (the caller decodes them from the BOC) and a page
// of such transactions reads no message rows at all; a transaction
// without a BOC (imported from trace JSON) has the same messages either
// way. NoMessages reads none; WithoutBOC leaves the BOC unread.
func TestMessageRead(t *testing.T) {
	b, raw := blocksAndTraces(t, 5)
	require.Greater(t, raw, 100)
	require.Greater(t, len(b.Transactions), raw)
	hashes := func(txs []*chain.Transaction) []string {
		out := make([]string, len(txs))
		for i, tx := range txs {
			out[i] = tx.Hash.Base64()
		}
		return out
	}
	messages := func(tx *chain.Transaction) []string {
		var out []string
		if tx.InMsg != nil {
			out = append(out, "in "+tx.InMsg.Hash.Base64()+" "+tx.InMsg.Source)
		}
		for _, m := range tx.OutMsgs {
			out = append(out, "out "+m.Hash.Base64()+" "+m.Destination)
		}
		return out
	}
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		require.NoError(t, s.SaveBatch(ctx, &b))
		reads := &messageReads{}
		s.ObserveStatements(reads.observe)
		find := func(hs []string, read MessageRead) []*chain.Transaction {
			t.Helper()
			txs, err := s.FindTransactions(ctx, TxFilter{Hashes: hs, Limit: len(hs), Messages: read})
			require.NoError(t, err)
			require.Len(t, txs, len(hs))
			return txs
		}
		all := hashes(b.Transactions)
		full, light := find(all, AllMessages), find(all, MessagesWithoutBOC)
		parsed := map[chain.Hash]*chain.Transaction{}
		for _, tx := range b.Transactions {
			parsed[tx.Hash] = tx
		}
		withBOC, withoutBOC, sending := 0, 0, 0
		for i := range full {
			require.Equal(t, full[i].Hash, light[i].Hash)
			require.Equal(t, full[i].BOC, light[i].BOC)
			require.Equal(t, messages(parsed[full[i].Hash]), messages(full[i]))
			if len(full[i].BOC) > 0 {
				withBOC++
				if len(messages(full[i])) > 0 {
					sending++
				}
				require.Empty(t, messages(light[i]), "messages of a raw transaction are its BOC's")
			} else {
				withoutBOC++
				require.Equal(t, messages(full[i]), messages(light[i]))
			}
		}
		require.Greater(t, sending, 100)
		require.Equal(t, raw, withBOC)
		require.Equal(t, len(b.Transactions)-raw, withoutBOC)

		// Statements: a page of raw transactions reads no message rows;
		// a mixed one reads those of the JSON rows, in one statement.
		reads.n.Store(0)
		find(all[:raw], MessagesWithoutBOC)
		require.Zero(t, reads.n.Load())
		find(all[:raw], AllMessages)
		require.EqualValues(t, 1, reads.n.Load())
		reads.n.Store(0)
		find(all, MessagesWithoutBOC)
		require.EqualValues(t, 1, reads.n.Load())
		reads.n.Store(0)
		for _, tx := range find(all, NoMessages) {
			require.Empty(t, messages(tx))
		}
		require.Zero(t, reads.n.Load())

		// WithoutBOC leaves the BOC unread: every row then counts as
		// without one, so MessagesWithoutBOC reads every row's messages.
		bare, err := s.FindTransactions(ctx, TxFilter{Hashes: all, Limit: len(all), WithoutBOC: true, Messages: MessagesWithoutBOC})
		require.NoError(t, err)
		require.Len(t, bare, len(full))
		for i := range bare {
			require.Equal(t, full[i].Hash, bare[i].Hash)
			require.Empty(t, bare[i].BOC)
			require.Equal(t, full[i].Lt, bare[i].Lt)
			require.Equal(t, messages(full[i]), messages(bare[i]))
		}
		// Also through the message join (SELECT DISTINCT of the columns).
		for _, tx := range full[:20] {
			if tx.InMsg == nil {
				continue
			}
			byMsg, err := s.FindTransactions(ctx, TxFilter{MsgHashes: []string{tx.InMsg.Hash.Base64()}, Limit: 10, WithoutBOC: true})
			require.NoError(t, err)
			require.NotEmpty(t, byMsg) // its sender's too, when stored
			require.Contains(t, hashes(byMsg), tx.Hash.Base64())
			for _, m := range byMsg {
				require.Empty(t, m.BOC)
			}
		}
	})
}
