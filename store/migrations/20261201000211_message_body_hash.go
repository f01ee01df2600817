package migrations

import (
	"context"
	"encoding/base64"

	"github.com/tonkeeper/tongo/boc"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerMessageBodyHash must stay in this file: bun names a Go
// migration after the file that registers it.
func registerMessageBodyHash(m *migrate.Migrations) {
	m.MustRegister(messageBodyHashUp, messageBodyHashDown)
}

// messages.body_hash is the hash of a message body's cell (the empty
// cell's for a message without one), what toncenter's body_hash filter of
// /api/v3/messages and /transactionsByMessage selects. The database cannot
// hash a cell, so rows stored before this migration are filled here, a
// page of rows at a time in key order; the index is built after the fill.
func messageBodyHashUp(ctx context.Context, db *bun.DB) error {
	if err := execAll(ctx, db, `ALTER TABLE messages ADD COLUMN body_hash TEXT`); err != nil {
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
			Body []byte `bun:"body"`
		}
		if err := db.NewSelect().Table("messages").Column("tx_hash", "direction", "seq", "body").
			Where("(tx_hash, direction, seq) > (?, ?, ?)", after.TxHash, after.Direction, after.Seq).
			OrderExpr("tx_hash, direction, seq").Limit(2000).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, r := range rows {
				h, ok := bodyHash(r.Body)
				if !ok {
					continue
				}
				if _, err := tx.NewUpdate().Table("messages").Set("body_hash = ?", h).
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
	return execAll(ctx, db, `CREATE INDEX messages_body_hash ON messages (body_hash)`)
}

// bodyHash is the base64 hash of a body's root cell, frozen here so the
// migration never changes (chain.BodyHash is the live one).
func bodyHash(body []byte) (h string, ok bool) {
	defer func() {
		if recover() != nil { // tongo's decoder on a malformed BOC
			h, ok = "", false
		}
	}()
	if len(body) == 0 {
		body, _ = boc.NewCell().ToBoc()
	}
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return "", false
	}
	sum, err := cells[0].Hash256()
	if err != nil {
		return "", false
	}
	return base64.StdEncoding.EncodeToString(sum[:]), true
}

func messageBodyHashDown(ctx context.Context, db *bun.DB) error {
	return execAll(ctx, db, `DROP INDEX IF EXISTS messages_body_hash`, `ALTER TABLE messages DROP COLUMN body_hash`)
}
