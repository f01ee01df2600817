package store_test

import (
	"context"
	neturl "net/url"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// A batch that names the same rows twice (two overlapping sources, or an
// account touched twice in one follower step) is written once, the newer
// account state winning, on both databases and on both write paths (few
// rows: INSERT; many rows: COPY on Postgres).
func TestSaveBatchWithRepeatedKeys(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		for _, n := range []int{3, 300} {
			t.Run(db.Name, func(t *testing.T) {
				st := storetest.Open(t, db.URL)
				ctx := context.Background()
				b := &store.Batch{}
				for i := 0; i < n; i++ {
					var h chain.Hash
					h[0], h[1] = byte(i), byte(i>>8)
					tx := &chain.Transaction{Hash: h, Account: "0:" + hex64(i), Lt: uint64(i + 1), TraceID: h}
					b.Transactions = append(b.Transactions, tx, tx)
					tr := &chain.Trace{ID: h, StartLt: uint64(i + 1), EndLt: uint64(i + 1), Complete: true, Transactions: 1}
					b.Traces = append(b.Traces, tr, tr)
					older := chain.AccountState{Address: "0:" + hex64(i), Status: chain.AccountActive, LastTxLt: 5, Balance: 1}
					newer := older
					newer.LastTxLt, newer.Balance = 6, 2
					b.Accounts = append(b.Accounts, newer, older)
					b.DNS = append(b.DNS, chain.DNSName{Domain: "x" + hex64(i)[:8] + ".ton", Address: older.Address},
						chain.DNSName{Domain: "x" + hex64(i)[:8] + ".ton", Address: older.Address})
				}
				if err := st.SaveBatch(ctx, b); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < n; i++ {
					acc, err := st.Account(ctx, "0:"+hex64(i))
					if err != nil || acc == nil {
						t.Fatalf("account %d: %v", i, err)
					}
					if acc.LastTxLt != 6 || acc.Balance != 2 {
						t.Fatalf("account %d: the older state won: %+v", i, acc)
					}
				}
				var count int
				if err := st.DB().NewRaw("SELECT count(*) FROM transactions").Scan(ctx, &count); err != nil || count != n {
					t.Fatalf("transactions: %d, %v", count, err)
				}
			})
		}
	}
}

func hex64(i int) string {
	const digits = "0123456789ABCDEF"
	b := make([]byte, 64)
	for j := range b {
		b[j] = '0'
	}
	for j := 63; i > 0; j-- {
		b[j] = digits[i%16]
		i /= 16
	}
	return string(b)
}

// Every Postgres connection carries a server-side statement timeout unless
// the URL sets its own.
func TestPostgresStatementTimeout(t *testing.T) {
	url := testenv.NewPostgresDatabase(t)
	if url == "" {
		t.Skip("Postgres only")
	}
	ctx := context.Background()
	own, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	q := own.Query()
	q.Set("statement_timeout", "1500")
	own.RawQuery = q.Encode()
	for _, c := range []struct{ url, want string }{{url, "1min"}, {own.String(), "1500ms"}} {
		st := storetest.Open(t, c.url)
		var got string
		if err := st.DB().NewRaw("SHOW statement_timeout").Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Fatalf("%s: statement_timeout %q, want %q", c.url, got, c.want)
		}
	}
}
