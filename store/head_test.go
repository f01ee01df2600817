package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// The head of an empty database is nothing; after the fee-replay block is
// imported, it is that block: its time, its newest transaction's logical
// time, its masterchain block.
func TestHead(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			h, err := st.Head(ctx)
			require.NoError(t, err)
			require.Zero(t, h.Utime)
			require.Zero(t, h.Lt)

			path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
			p, err := ingest.ParseFile(path)
			require.NoError(t, err)
			_, err = ingest.New(st).ImportFile(ctx, path)
			require.NoError(t, err)
			var newest uint64
			for _, tx := range p.Transactions {
				newest = max(newest, tx.Lt)
			}
			h, err = st.Head(ctx)
			require.NoError(t, err)
			require.Equal(t, p.Config.Utime, h.Utime, "the block's time")
			require.Equal(t, newest, h.Lt)
			require.Equal(t, uint32(66519406), h.McSeqno)
			utime, lt, err := st.HeadTime(ctx)
			require.NoError(t, err)
			require.Equal(t, h.Utime, utime)
			require.Equal(t, h.Lt, lt)
		})
	}
}
