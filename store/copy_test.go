package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/internal/testenv"
)

// TestStagedRowsMatchValues writes the same messages once through COPY and
// once as INSERT ... VALUES and wants the table to read back the same:
// NULL and empty bytes kept apart, a nil opcode NULL, text with the
// characters COPY's text format would have to escape intact.
func TestStagedRowsMatchValues(t *testing.T) {
	dsn := testenv.NewPostgresDatabase(t)
	if dsn == "" {
		t.Skip("COPY is Postgres only")
	}
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rows := make([]msgRow, copyMinRows+6)
	for i := range rows {
		op := int64(-i)
		rows[i] = msgRow{TxHash: fmt.Sprintf("tx%03d", i), Direction: "out", Seq: i, Hash: "h",
			Source: "a\tb\nc\\d\r é", Destination: "", Value: 1 << 62, FwdFee: -1, CreatedLt: int64(i),
			Opcode: &op, Bounce: i%2 == 0, Bounced: i%3 == 0, Body: []byte{0, '\\', '\t', 0xff}}
		switch i % 3 {
		case 0:
			rows[i].Opcode, rows[i].Body, rows[i].InitState = nil, nil, []byte{}
		case 1:
			rows[i].InitState = []byte("x")
		}
	}
	read := func(copy bool) string {
		if _, err := s.db.NewTruncateTable().Model((*msgRow)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		conn, err := s.copyDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		err = conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			w := newWriter(tx, bun.Conn{})
			if copy {
				w = newWriter(tx, conn)
			}
			if err := queueRows(ctx, w, "", rows, "CONFLICT DO NOTHING"); err != nil {
				return err
			}
			if copy != (len(w.copies) == 1) {
				t.Errorf("copy=%v but %d tables staged", copy, len(w.copies))
			}
			return w.flush(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		var back []msgRow
		if err := s.db.NewSelect().Model(&back).Order("tx_hash").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		// Scanning may turn NULL and empty bytes alike into nil: count them
		// in SQL too.
		var nulls string
		if err := s.db.QueryRowContext(ctx, `SELECT concat_ws(' ', count(*) FILTER (WHERE body IS NULL),
			count(*) FILTER (WHERE init_state = ''::bytea), count(*) FILTER (WHERE opcode IS NULL)) FROM messages`).Scan(&nulls); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(back)
		return nulls + " " + string(out)
	}
	if viaCopy, viaValues := read(true), read(false); viaCopy != viaValues {
		t.Errorf("COPY and VALUES stored different rows:\n%s\n%s", viaCopy, viaValues)
	}
}
