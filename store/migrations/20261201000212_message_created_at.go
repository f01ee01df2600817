package migrations

import (
	"context"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// registerMessageCreatedAt must stay in this file: bun names a Go
// migration after the file that registers it.
func registerMessageCreatedAt(m *migrate.Migrations) {
	m.MustRegister(messageCreatedAtUp, messageCreatedAtDown)
}

// messages.created_at is a message's creation time (unix seconds) from its
// own header: what toncenter's start_utime/end_utime of /api/v3/messages
// select and order by. NULL for an external inbound message (its header
// has no time) and wherever the store does not know it. Rows stored before
// this migration are filled from what they keep: the facts of a row
// without its transaction's BOC (SQL), else the message's header in the
// transaction's BOC (decoded here, a page of rows at a time in key order).
// The index is built after the fill.
func messageCreatedAtUp(ctx context.Context, db *bun.DB) error {
	fromFacts := `UPDATE messages SET created_at = CAST(json_extract(facts, '$.created_at') AS INTEGER)
		WHERE facts IS NOT NULL AND source <> ''`
	if db.Dialect().Name() == dialect.PG {
		fromFacts = `UPDATE messages SET created_at = (facts::jsonb->>'created_at')::bigint
			WHERE facts IS NOT NULL AND source <> ''`
	}
	if err := execAll(ctx, db, `ALTER TABLE messages ADD COLUMN created_at BIGINT`, fromFacts); err != nil {
		return err
	}
	type key struct {
		TxHash    string `bun:"tx_hash"`
		Direction string `bun:"direction"`
		Seq       int    `bun:"seq"`
	}
	var after key
	for {
		var rows []struct {
			key
			BOC []byte `bun:"boc"`
		}
		if err := db.NewSelect().TableExpr("messages AS m").
			ColumnExpr("m.tx_hash, m.direction, m.seq, t.boc").
			Join("JOIN transactions AS t ON t.hash = m.tx_hash").
			Where("(m.tx_hash, m.direction, m.seq) > (?, ?, ?)", after.TxHash, after.Direction, after.Seq).
			Where("m.facts IS NULL AND m.source <> '' AND t.boc IS NOT NULL").
			OrderExpr("m.tx_hash, m.direction, m.seq").Limit(2000).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, r := range rows {
				at, ok := messageCreatedAt(r.BOC, r.Direction, r.Seq)
				if !ok {
					continue
				}
				if _, err := tx.NewUpdate().Table("messages").Set("created_at = ?", int64(at)).
					Where("tx_hash = ? AND direction = ? AND seq = ?", r.TxHash, r.Direction, r.Seq).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		after = rows[len(rows)-1].key
	}
	return execAll(ctx, db, `CREATE INDEX messages_created_at ON messages (created_at)`)
}

// messageCreatedAt is the creation time in the header of a transaction's
// in-message or seq-th out-message, frozen here so the migration never
// changes; ok is false when the BOC does not decode or the message has no
// time (external inbound).
func messageCreatedAt(txBOC []byte, dir string, seq int) (at uint32, ok bool) {
	defer func() {
		if recover() != nil { // tongo's decoder on a malformed BOC
			at, ok = 0, false
		}
	}()
	cells, err := boc.DeserializeBoc(txBOC)
	if err != nil || len(cells) != 1 {
		return 0, false
	}
	var tx tlb.Transaction
	if err := tlb.Unmarshal(cells[0], &tx); err != nil {
		return 0, false
	}
	var m *tlb.Message
	switch {
	case dir == "in" && tx.Msgs.InMsg.Exists:
		m = &tx.Msgs.InMsg.Value.Value
	case dir == "out":
		outs := tx.Msgs.OutMsgs.Values()
		if seq < 0 || seq >= len(outs) {
			return 0, false
		}
		m = &outs[seq].Value
	default:
		return 0, false
	}
	switch m.Info.SumType {
	case "IntMsgInfo":
		return m.Info.IntMsgInfo.CreatedAt, true
	case "ExtOutMsgInfo":
		return m.Info.ExtOutMsgInfo.CreatedAt, true
	}
	return 0, false
}

func messageCreatedAtDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS messages_created_at`, `ALTER TABLE messages DROP COLUMN created_at`)
}
