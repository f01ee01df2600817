package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store/migrations"
)

// Messages are selected and ordered by the creation time in their own
// headers (toncenter's start_utime/end_utime of /messages), for rows with
// a raw BOC (the fixture blocks) and rows from trace JSON (facts), as the
// write stores it and as the message_created_at migration fills rows
// stored before it. An external inbound message has no time: no bound
// selects it.
func TestMessagesByCreatedAt(t *testing.T) {
	b, _ := blocksAndTraces(t, 10)
	// The expected answer, from the parsed messages: hash -> created_at of
	// every message with a time; external inbound ones are counted apart.
	want := map[string]uint32{}
	extIn := 0
	for _, tx := range b.Transactions {
		msgs := slices.Clone(tx.OutMsgs)
		if tx.InMsg != nil {
			msgs = append(msgs, *tx.InMsg)
		}
		for _, m := range msgs {
			if m.Source == "" {
				extIn++
				continue
			}
			require.NotZero(t, m.CreatedAt, m.Hash.Base64())
			want[m.Hash.Base64()] = m.CreatedAt
		}
	}
	require.Greater(t, len(want), 100)
	require.Positive(t, extIn)
	times := make([]uint32, 0, len(want))
	for _, at := range want {
		times = append(times, at)
	}
	slices.Sort(times)
	lo, mid, hi := times[0], times[len(times)/2], times[len(times)-1]
	require.Less(t, lo, hi, "the fixtures span more than one second")

	// check asks the store for [from, to] in both orders and compares with
	// the messages whose time is in it, in created_at order.
	check := func(t *testing.T, s *Store, from, to *uint32) {
		t.Helper()
		var exp []string
		for h, at := range want {
			if (from == nil || at >= *from) && (to == nil || at <= *to) {
				exp = append(exp, h)
			}
		}
		for _, desc := range []bool{false, true} {
			got, err := s.Messages(context.Background(), MsgFilter{StartUtime: from, EndUtime: to, Desc: desc, Limit: 100_000})
			require.NoError(t, err)
			hashes := make([]string, len(got))
			for i, m := range got {
				hashes[i] = m.Message.Hash.Base64()
				if i > 0 {
					prev, cur := want[hashes[i-1]], want[hashes[i]]
					if desc {
						require.GreaterOrEqual(t, prev, cur, "ordered by created_at, descending")
					} else {
						require.LessOrEqual(t, prev, cur, "ordered by created_at")
					}
				}
			}
			require.ElementsMatch(t, exp, hashes)
		}
	}
	checkAll := func(t *testing.T, s *Store) {
		check(t, s, &lo, nil)
		check(t, s, nil, &mid)
		check(t, s, &mid, &mid)
		check(t, s, &mid, &hi)
		after := hi + 1
		check(t, s, &after, nil)
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
			t.Run("write", func(t *testing.T) { checkAll(t, s) })

			all := migrations.New().Sorted()
			at := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.Contains(m.Comment, "message_created_at") })
			require.GreaterOrEqual(t, at, 0)
			m := all[at]
			mig := migrate.NewMigrator(s.db, migrations.New())
			require.NoError(t, m.Down(ctx, mig, &m))
			require.NoError(t, m.Up(ctx, mig, &m))
			t.Run("migration", func(t *testing.T) { checkAll(t, s) })
		})
	}
}
