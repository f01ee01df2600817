package follow

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/config"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/lite"
	"github.com/tonql/tonql/store"
)

// unreachableLite is a lite client whose only server refuses connections.
func unreachableLite(t *testing.T) *lite.Client {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	key := base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey))
	return lite.New(func(context.Context) ([]config.LiteServer, error) {
		return []config.LiteServer{{Host: addr, Key: key}}, nil
	}, lite.Options{Logger: quietLog()})
}

func TestFreshStateUsesStoreWhenFreshAndDegradesWhenLiteIsDown(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	// The fee-replay block's states of its accounts before the block, read
	// at the block's time, imported as files are (no follower touch).
	replay := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	p, err := ingest.ParseFile(replay)
	require.NoError(t, err)
	account := p.Accounts[0]
	readAt := time.Unix(int64(account.ReadAtUtime), 0)
	_, err = ingest.New(st).ImportFile(ctx, replay)
	require.NoError(t, err)

	lc := unreachableLite(t)
	f := NewFreshState(st, lc, time.Minute, quietLog())

	// Fresh by age: the stored state, lite servers never asked.
	f.now = func() time.Time { return readAt.Add(30 * time.Second) }
	got, err := f.Account(ctx, account.Address)
	require.NoError(t, err)
	require.Equal(t, account.ShardAccountBOC, got.ShardAccountBOC)
	require.Empty(t, lc.Status(), "lite servers were asked for a fresh state")

	// Too old: lite servers are asked; they are down, so the stored state
	// answers (degraded) instead of an error.
	f.now = func() time.Time { return readAt.Add(time.Hour) }
	got, err = f.Account(ctx, account.Address)
	require.NoError(t, err)
	require.Equal(t, account.ShardAccountBOC, got.ShardAccountBOC)
	require.Equal(t, 1, lc.Status()[0].Failures)

	// Nothing stored and no lite server: unavailable (503), not "does not exist".
	_, err = f.Account(ctx, "0:"+strings.Repeat("AB", 32))
	require.Error(t, err)
	require.Equal(t, apperr.Unavailable, apperr.From(err).Kind)

	// A state the follower has seen a newer transaction for is stale even
	// when recent: the follower's touch moved last_tx_lt past the BOC.
	f.now = func() time.Time { return readAt.Add(30 * time.Second) }
	stored, err := st.Account(ctx, account.Address)
	require.NoError(t, err)
	require.True(t, f.fresh(stored))
	touch := touchedAccounts(p.Transactions)
	require.NoError(t, st.SaveBatch(ctx, &store.Batch{Extra: store.TouchAccounts(touch)}))
	stored, err = st.Account(ctx, account.Address)
	require.NoError(t, err)
	require.False(t, f.fresh(stored), "state behind the last transaction counts as fresh")
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
