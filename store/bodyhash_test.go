package store

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store/migrations"
)

// Every stored message of the raw fixture blocks is found by the hash of
// its body's cell (computed here with tongo from the BOC the block holds,
// the empty cell for a message without a body), as the write stores it
// and as the message_body_hash migration fills rows stored before it.
func TestMessagesByBodyHash(t *testing.T) {
	blocks := fixtureBlocks(t)
	var b Batch
	want := map[string][]string{} // body hash -> message hashes
	empty, err := boc.NewCell().Hash256()
	require.NoError(t, err)
	for _, blk := range blocks {
		b.Transactions = append(b.Transactions, blk.Transactions...)
		b.Blocks = append(b.Blocks, blk.Header)
		for _, tx := range blk.Transactions {
			msgs := slices.Clone(tx.OutMsgs)
			if tx.InMsg != nil {
				msgs = append(msgs, *tx.InMsg)
			}
			for _, m := range msgs {
				h := empty
				if len(m.Body) > 0 {
					cells, err := boc.DeserializeBoc(m.Body)
					require.NoError(t, err)
					h, err = cells[0].Hash256()
					require.NoError(t, err)
				}
				k := base64.StdEncoding.EncodeToString(h[:])
				if !slices.Contains(want[k], m.Hash.Base64()) {
					want[k] = append(want[k], m.Hash.Base64())
				}
			}
		}
	}
	require.Greater(t, len(want), 50)
	// Every fifth body (and the empty cell, shared by most messages) keeps
	// the test short: a query per body, four times over.
	keys := slices.Sorted(maps.Keys(want))
	sample := map[string][]string{}
	for i, k := range keys {
		if i%5 == 0 || k == base64.StdEncoding.EncodeToString(empty[:]) {
			sample[k] = want[k]
		}
	}
	want = sample
	found := func(t *testing.T, s *Store) map[string][]string {
		out := map[string][]string{}
		for bh := range want {
			msgs, err := s.Messages(context.Background(), MsgFilter{BodyHash: &bh, Limit: 100_000})
			require.NoError(t, err)
			for _, m := range msgs {
				out[bh] = append(out[bh], m.Message.Hash.Base64())
			}
			slices.Sort(out[bh])
			// The transactions route's filter: every transaction it finds
			// holds a message with that body.
			txs, err := s.FindTransactions(context.Background(), TxFilter{BodyHash: &bh, Limit: 1000})
			require.NoError(t, err)
			require.NotEmpty(t, txs, bh)
		}
		return out
	}
	for k := range want {
		slices.Sort(want[k])
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, db.URL)
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Migrate(ctx)
			require.NoError(t, err)
			require.NoError(t, s.SaveBatch(ctx, &b))
			require.Equal(t, want, found(t, s), "the write stores each message's body hash")

			all := migrations.New().Sorted()
			at := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.Contains(m.Comment, "message_body_hash") })
			require.GreaterOrEqual(t, at, 0)
			m := all[at]
			mig := migrate.NewMigrator(s.db, migrations.New())
			require.NoError(t, m.Down(ctx, mig, &m))
			require.NoError(t, m.Up(ctx, mig, &m))
			require.Equal(t, want, found(t, s), "the migration fills rows stored before it")
		})
	}
}
