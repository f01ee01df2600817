package store

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
)

// Transactions and messages scanned through their typed targets equal
// what bun's model scan reads from the same statement: every column, NULL
// or not (raw blocks' BOCs and block columns, trace files' facts, external
// messages' normalized hashes), a statement that leaves columns out, and a
// slice that held rows before.
func TestTypedScanEqualsModelScan(t *testing.T) {
	b, raw := blocksAndTraces(t, 3)
	require.Greater(t, len(b.Transactions), raw, "rows with and without BOC")
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		require.NoError(t, s.SaveBatch(ctx, &b))
		db := s.db
		both := func(q *bun.SelectQuery, typed func(*bun.DB, string) (any, error), model any) {
			t.Helper()
			require.NoError(t, q.Scan(ctx))
			got, err := typed(db, q.String())
			require.NoError(t, err)
			require.Equal(t, model, got)
		}
		var txs []txRow
		both(db.NewSelect().Model(&txs).Order("lt", "hash"), typedRows[txRow], &txs)
		require.Len(t, txs, len(b.Transactions))
		var noBOC []txRow
		both(db.NewSelect().Model(&noBOC).ExcludeColumn("boc").Order("lt", "hash"), typedRows[txRow], &noBOC)
		var msgs []msgRow
		both(db.NewSelect().Model(&msgs).Order("tx_hash", "direction", "seq"), typedRows[msgRow], &msgs)
		nulls := map[string]int{}
		for _, r := range txs {
			if r.BOC == nil {
				nulls["boc"]++
			}
			if r.Facts == nil {
				nulls["facts"]++
			}
		}
		for _, m := range msgs {
			if m.HashNorm != nil {
				nulls["hash_norm set"]++
			}
			if m.Opcode == nil {
				nulls["opcode"]++
			}
		}
		for _, k := range []string{"boc", "facts", "hash_norm set", "opcode"} {
			require.Positive(t, nulls[k], "the rows hold both cases of %s", k)
		}
		// Into a slice that holds rows already (a read retried): in their place.
		again := slices.Clone(txs[:3])
		rows, err := db.QueryContext(ctx, db.NewSelect().Model((*txRow)(nil)).Order("lt", "hash").String())
		require.NoError(t, err)
		require.NoError(t, scanFields(db, rows, &again))
		require.Equal(t, txs, again)

		_, err = typedRows[txRow](db, `SELECT hash, 1 AS not_a_column FROM transactions`)
		require.ErrorContains(t, err, "not_a_column")
	})
}

// typedRows runs query and reads its rows with scanFields.
func typedRows[T any, P fielded[T]](db *bun.DB, query string) (any, error) {
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	var out []T
	err = scanFields[T, P](db, rows, &out)
	return &out, err
}
