package ingest_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// Reclassify rebuilds, from the stored transactions alone, exactly the
// actions the import wrote (for data that carries no indexer facts: raw
// blocks), after they were wiped; and it resumes from a trace id.
func TestReclassifyRebuildsActions(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importAll(t, st, files)
			want := dump(t, st)
			for _, table := range []string{"action_accounts", "action_transactions", "actions"} {
				if _, err := st.DB().ExecContext(ctx, "DELETE FROM "+table); err != nil {
					t.Fatal(err)
				}
			}
			var pages int
			var last string
			if err := ingest.Reclassify(ctx, st, "", func(_, _ int, id string) { pages++; last = id }); err != nil {
				t.Fatal(err)
			}
			if pages == 0 || last == "" {
				t.Fatal("no progress reported")
			}
			got := dump(t, st)
			for _, table := range tables {
				if !reflect.DeepEqual(want[table], got[table]) {
					t.Errorf("%s differs after reclassify: %d rows before, %d after", table, len(want[table]), len(got[table]))
				}
			}
			// Resuming after the last trace finds nothing left to do.
			n := -1
			if err := ingest.Reclassify(ctx, st, last, func(tr, _ int, _ string) { n = tr }); err != nil {
				t.Fatal(err)
			}
			if n != -1 {
				t.Errorf("resuming after the last trace reclassified %d traces", n)
			}
		})
	}
}

// On the same binary a reclassify changes nothing: after every fixture is
// imported (raw blocks, toncenter trace JSON, fee-replay), every table of
// the database holds the same rows, seqs and the seq counter included.
// The toncenter files' indexer facts (trace_known) and the phases of
// transactions without a BOC (facts) are what the import knew beyond the
// transactions' columns; without them two NftMint read as
// SmartContractExec and sales and failed calls changed.
func TestReclassifyIsANoOp(t *testing.T) {
	files := fixtureFiles(t)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importAll(t, st, files)
			want := dumpAll(t, st)
			if len(want["trace_known"]) == 0 {
				t.Fatal("no indexer facts stored for the toncenter traces")
			}
			if err := ingest.Reclassify(ctx, st, "", nil); err != nil {
				t.Fatal(err)
			}
			got := dumpAll(t, st)
			for table, rows := range want {
				if !reflect.DeepEqual(rows, got[table]) {
					t.Errorf("%s differs after reclassify: %d rows before, %d after; first difference: %s", table, len(rows), len(got[table]), firstDifference(rows, got[table]))
				}
			}
		})
	}
}

// A transaction of a toncenter trace file (no raw BOC) comes back from the
// store as the file gave it: what the classifier reads of it (phases,
// bounce, extra currencies, ...) survives.
func TestDecodedTransactionsComeBackWhole(t *testing.T) {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importAll(t, st, files)
			var skipped, extra int
			for _, f := range files {
				tr, err := chain.ParseToncenterFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var traces []string
				for _, tx := range tr.Transactions {
					traces = append(traces, txTrace(t, st, tx.Hash.Base64()))
				}
				stored, err := st.TraceTransactions(ctx, traces)
				if err != nil {
					t.Fatal(err)
				}
				byHash := map[chain.Hash]*chain.Transaction{}
				for _, tx := range stored {
					byHash[tx.Hash] = tx
				}
				for _, want := range tr.Transactions {
					got := byHash[want.Hash]
					if got == nil {
						t.Fatalf("%s: transaction %s not stored", filepath.Base(f), want.Hash.Base64())
					}
					if want.ComputeSkipped {
						skipped++
					}
					for _, m := range append([]chain.Message{}, want.OutMsgs...) {
						extra += len(m.ExtraCurrencies)
					}
					w := *want
					w.TraceID = got.TraceID // assigned by the assembler
					clearNorm(&w)
					g := *got
					clearNorm(&g)
					checkBodyHashes(t, &g)
					if !reflect.DeepEqual(&w, &g) {
						t.Errorf("%s: transaction %s differs:\nparsed %+v\nstored %+v", filepath.Base(f), want.Hash.Base64(), w, g)
					}
				}
			}
			if skipped == 0 {
				t.Error("no transaction with a skipped compute phase among the fixtures: the test proves nothing")
			}
		})
	}
}

// clearNorm drops what the store computes beside the message (the
// normalized hash of an external message), so parsed and stored compare.
func clearNorm(tx *chain.Transaction) {
	if tx.InMsg != nil {
		m := *tx.InMsg
		m.HashNorm = chain.Hash{}
		tx.InMsg = &m
	}
}

// checkBodyHashes: a stored message's BodyHash (read from its body_hash
// column, a cache the parser does not fill) is its body's hash; then it
// is cleared for the comparison with the parsed transaction.
func checkBodyHashes(t *testing.T, tx *chain.Transaction) {
	t.Helper()
	check := func(m *chain.Message) {
		if m.BodyHash.IsZero() {
			return
		}
		want, ok := chain.BodyHash(m.Body)
		if !ok || want != m.BodyHash {
			t.Errorf("message %s: stored body hash %s, the body's is %s", m.Hash.Base64(), m.BodyHash.Base64(), want.Base64())
		}
		m.BodyHash = chain.Hash{}
	}
	if tx.InMsg != nil {
		m := *tx.InMsg
		check(&m)
		tx.InMsg = &m
	}
	outs := append([]chain.Message(nil), tx.OutMsgs...)
	for i := range outs {
		check(&outs[i])
	}
	if tx.OutMsgs != nil {
		tx.OutMsgs = outs
	}
}

func txTrace(t *testing.T, st *store.Store, hash string) string {
	var id string
	if err := st.DB().QueryRowContext(context.Background(), "SELECT trace_id FROM transactions WHERE hash = ?", hash).Scan(&id); err != nil {
		t.Fatalf("trace of %s: %v", hash, err)
	}
	return id
}

func firstDifference(a, b []string) string {
	for i := range max(len(a), len(b)) {
		switch {
		case i >= len(a):
			return "added " + b[i]
		case i >= len(b):
			return "removed " + a[i]
		case a[i] != b[i]:
			return a[i] + " became " + b[i]
		}
	}
	return "none"
}
