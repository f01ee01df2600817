package store

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// Transactions, messages and traces named by key (a transaction's hash,
// its in message's, its trace's id) are read through prepared statements,
// the keys passed as arguments, and answer what the same rows read per
// value (by account and lt, the values written into the statement) do.
func TestLookupsByHashArePrepared(t *testing.T) {
	b, raw := blocksAndTraces(t, 0)
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.GreaterOrEqual(t, len(files), 3)
	for _, f := range files[:3] { // stored with their traces, as an import does
		tr, err := chain.ParseToncenterFile(f)
		require.NoError(t, err)
		row := &chain.Trace{ID: tr.TraceID, Complete: true, Transactions: len(tr.Transactions),
			StartLt: tr.Transactions[0].Lt, StartUtime: tr.Transactions[0].Utime}
		for _, tx := range tr.Transactions {
			tx.TraceID = tr.TraceID
			row.EndLt, row.EndUtime = max(row.EndLt, tx.Lt), max(row.EndUtime, tx.Utime)
		}
		b.Transactions = append(b.Transactions, tr.Transactions...)
		b.Traces = append(b.Traces, row)
	}
	var picked []*chain.Transaction
	for _, tx := range b.Transactions[raw:] { // from trace files: in a trace
		if tx.InMsg != nil && len(picked) < 6 {
			picked = append(picked, tx)
		}
	}
	require.Len(t, picked, 6)
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		require.NoError(t, s.SaveBatch(ctx, &b))
		rec := s.RecordStatements()
		// reads returns the statements of the last call that read table.
		reads := func(table string) []Statement {
			var out []Statement
			for _, st := range rec.Take() {
				if strings.Contains(st.Query, `FROM "`+table+`"`) {
					out = append(out, st)
				}
			}
			return out
		}
		prepared := func(st []Statement, key string) {
			t.Helper()
			require.NotEmpty(t, st)
			require.NotContains(t, st[0].Query, key, "the hash is an argument")
			require.Contains(t, st[0].Args, key)
		}
		for _, tx := range picked {
			h, in := tx.Hash.Base64(), tx.InMsg.Hash.Base64()
			rec.Take()
			lt := tx.Lt
			perValue, err := s.FindTransactions(ctx, TxFilter{Accounts: []string{tx.Account}, Lt: &lt, Limit: 1})
			require.NoError(t, err)
			require.Len(t, perValue, 1)
			st := reads("transactions")
			require.NotEmpty(t, st)
			require.Empty(t, st[0].Args, "an account's transactions are planned per value")

			byHash, err := s.FindTransactions(ctx, TxFilter{Hashes: []string{h}, Limit: 10})
			require.NoError(t, err)
			prepared(reads("transactions"), h)
			require.Equal(t, perValue, byHash)

			dir := "in"
			byMsg, err := s.FindTransactions(ctx, TxFilter{MsgHashes: []string{in}, Direction: &dir, Limit: 10})
			require.NoError(t, err)
			prepared(reads("transactions"), in)
			require.Equal(t, perValue, byMsg)

			msgs, err := s.Messages(ctx, MsgFilter{Hashes: []string{in}, Limit: 10})
			require.NoError(t, err)
			prepared(reads("messages"), in)
			require.Len(t, msgs, 1)
			require.Equal(t, h, msgs[0].TxHash)
			require.Equal(t, tx.InMsg.Hash, msgs[0].Message.Hash)
			require.Equal(t, tx.InMsg.Body, msgs[0].Message.Body)

			id := byHash[0].TraceID.Base64()
			account := tx.Account
			ofAccount, err := s.FindTraces(ctx, TraceFilter{Account: &account, Limit: 100})
			require.NoError(t, err)
			i := slices.IndexFunc(ofAccount, func(tr StoredTrace) bool { return tr.ID == id })
			require.GreaterOrEqual(t, i, 0, "the account's traces hold its transaction's")
			st = reads("traces")
			require.NotEmpty(t, st)
			require.Empty(t, st[0].Args, "an account's traces are planned per value")
			for _, f := range []TraceFilter{{TraceIDs: []string{id}}, {TxHashes: []string{h}}, {MsgHashes: []string{in}}} {
				f.Limit = 10
				traces, err := s.FindTraces(ctx, f)
				require.NoError(t, err)
				prepared(reads("traces"), strings.Join(append(append(f.TraceIDs, f.TxHashes...), f.MsgHashes...), ""))
				require.Equal(t, ofAccount[i:i+1], traces)
			}
		}
		// Many hashes, and a page of them by offset: the offset and limit
		// are arguments too, and the page is a slice of the whole.
		var hs []string
		for _, tx := range picked {
			hs = append(hs, tx.Hash.Base64())
		}
		all, err := s.FindTransactions(ctx, TxFilter{Hashes: hs, Limit: len(hs)})
		require.NoError(t, err)
		require.Len(t, all, len(hs))
		tail, err := s.FindTransactions(ctx, TxFilter{Hashes: hs, Limit: 2, Offset: 3})
		require.NoError(t, err)
		require.Equal(t, all[3:5], tail)
	})
}

// The address book's one statement runs on Postgres prepared, the
// addresses as one array argument whatever their number, and tells of
// several addresses at once, and of each alone, what an actions page's
// own statement (pageRowsSQL) tells of them.
func TestAddressBookIsPrepared(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		_, shapes := savePageFixture(t, s)
		page, err := s.ListActions(ctx, shapes["hot"], BookOfValuesAndAccounts)
		require.NoError(t, err)
		addrs := page.Book
		require.Greater(t, len(addrs), 3)
		rec := s.RecordStatements()
		all, err := s.AddressFacts(ctx, addrs)
		require.NoError(t, err)
		require.Equal(t, page.Facts, all)
		known := 0
		for _, a := range addrs {
			one, err := s.AddressFacts(ctx, []string{a})
			require.NoError(t, err)
			require.Equal(t, page.Facts[a], one[a], a)
			if one[a].Known {
				known++
			}
		}
		require.Positive(t, known, "the fixture's accounts are known")
		var book []Statement
		for _, st := range rec.Take() {
			if strings.Contains(st.Query, "account_interfaces") {
				book = append(book, st)
			}
		}
		require.Len(t, book, len(addrs)+1)
		if !s.IsPostgres() {
			return
		}
		for _, st := range book {
			require.Equal(t, book[0].Query, st.Query, "one statement for any number of addresses")
			require.Len(t, st.Args, 1)
			require.NotContains(t, st.Query, addrs[0])
		}
	})
}
