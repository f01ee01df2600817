package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// TxFilter selects transactions as toncenter's /api/v3/transactions and
// /transactionsByMessage do. Hashes are standard base64, addresses raw
// upper-case (the store's forms). Empty fields do not filter.
type TxFilter struct {
	Accounts, ExcludeAccounts []string
	Hashes                    []string
	Lt                        *uint64
	StartUtime, EndUtime      *uint32
	StartLt, EndLt            *uint64
	McSeqno                   *uint32
	// The block that holds it (toncenter's workchain, shard, seqno): only
	// transactions read from raw blocks know theirs.
	Workchain  *int32
	Shard      *int64
	BlockSeqno *uint32
	TraceIDs   []string
	// A message of the transaction: its hash (or normalized hash), its
	// direction, and an in-message's op code.
	MsgHashes []string
	// BodyHash: a message of the transaction has this body (base64 hash
	// of the body's cell).
	BodyHash  *string
	Direction *string
	Opcode    *uint32
	// Messages says whose message rows are read (all by default).
	Messages MessageRead
	// WithoutBOC leaves the raw BOC unread, for a caller that shows
	// nothing of it (GraphQL's transactions: some 2 KB a transaction that
	// no field shows). Its rows then count as without a BOC for Messages.
	WithoutBOC bool

	Limit, Offset int
	Desc          bool
}

// MessageRead says which transactions' message rows a read attaches.
type MessageRead int

const (
	// AllMessages: every transaction's.
	AllMessages MessageRead = iota
	// MessagesWithoutBOC: only those of the transactions stored without
	// their raw BOC, for a caller that decodes a raw transaction's
	// messages from its BOC (toncenter's render does anyway): a page of
	// raw transactions is one statement instead of two, and no message's
	// body and state cross the socket twice. A raw transaction comes back
	// with InMsg nil and no OutMsgs.
	MessagesWithoutBOC
	// NoMessages: none, for a caller that shows no message (a GraphQL
	// page that selects neither in_msg nor out_msgs).
	NoMessages
)

// FindTransactions returns a page of transactions with their messages, in
// toncenter's order: by lt (by utime then lt when a utime bound is
// given), account ascending between equal lts; one account's page in its
// (account, lt) index order; a hash lookup by hash.
func (s *Store) FindTransactions(ctx context.Context, f TxFilter) ([]*chain.Transaction, error) {
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	var rows []txRow
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		// Transactions named by hash, their own or a message's, are looked
		// up alike for every value (by the hash indexes): those pages
		// (getTransaction, toncenter's hash and msg_hash) run prepared; the
		// others are planned for their values, as Messages does.
		v := keyedParams(db, len(f.Hashes) > 0 || len(f.MsgHashes) > 0)
		q := db.NewSelect().Model(&rows)
		if f.WithoutBOC {
			q = q.ExcludeColumn("boc")
		}
		if f.Workchain != nil && f.Shard != nil && f.BlockSeqno != nil {
			// One block: its lt range bounds the rows too, so that Postgres
			// reads only the lt partition that holds them.
			var b blockRow
			err := db.NewSelect().Model(&b).Column("start_lt", "end_lt").Where("workchain = ? AND shard = ? AND seqno = ?",
				*f.Workchain, *f.Shard, int64(*f.BlockSeqno)).Limit(1).Scan(ctx)
			switch {
			case err == nil:
				q = q.Where("transactions.lt >= ? AND transactions.lt <= ?", v.add(b.StartLt), v.add(b.EndLt))
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		byMsg := len(f.MsgHashes) > 0 || f.BodyHash != nil || f.Direction != nil || f.Opcode != nil
		if byMsg {
			q = q.Join("JOIN messages AS m ON m.tx_hash = transactions.hash").Distinct()
			if len(f.MsgHashes) > 0 {
				q = q.Where("(m.hash IN (?) OR m.hash_norm IN (?))", v.list(f.MsgHashes), v.list(f.MsgHashes))
			}
			if f.BodyHash != nil {
				q = q.Where("m.body_hash = ?", v.add(*f.BodyHash))
			}
			if f.Direction != nil {
				q = q.Where("m.direction = ?", v.add(*f.Direction))
			}
			if f.Opcode != nil {
				q = q.Where("m.opcode = ? AND m.direction = 'in'", v.add(int64(*f.Opcode)))
			}
		}
		byUtime := f.StartUtime != nil || f.EndUtime != nil
		if f.StartUtime != nil {
			q = q.Where("transactions.utime >= ?", v.add(*f.StartUtime))
		}
		if f.EndUtime != nil {
			q = q.Where("transactions.utime <= ?", v.add(*f.EndUtime))
		}
		if f.StartLt != nil {
			q = q.Where("transactions.lt >= ?", v.add(int64(*f.StartLt)))
		}
		if f.EndLt != nil {
			q = q.Where("transactions.lt <= ?", v.add(int64(*f.EndLt)))
		}
		if f.Lt != nil {
			q = q.Where("transactions.lt = ?", v.add(int64(*f.Lt)))
		}
		if f.McSeqno != nil {
			q = q.Where("transactions.mc_seqno = ?", v.add(int64(*f.McSeqno)))
		}
		if f.Workchain != nil {
			q = q.Where("transactions.block_workchain = ?", v.add(*f.Workchain))
		}
		if f.Shard != nil {
			q = q.Where("transactions.block_shard = ?", v.add(*f.Shard))
		}
		if f.BlockSeqno != nil {
			q = q.Where("transactions.block_seqno = ?", v.add(int64(*f.BlockSeqno)))
		}
		if len(f.Accounts) > 0 {
			q = q.Where("transactions.account IN (?)", v.list(f.Accounts))
		}
		if len(f.ExcludeAccounts) > 0 {
			q = q.Where("transactions.account NOT IN (?)", v.list(f.ExcludeAccounts))
		}
		if len(f.Hashes) > 0 {
			q = q.Where("transactions.hash IN (?)", v.list(f.Hashes))
		}
		if len(f.TraceIDs) > 0 {
			q = q.Where("transactions.trace_id IN (?)", v.list(f.TraceIDs))
		}
		switch {
		case len(f.Hashes) > 0:
			q = q.OrderExpr("transactions.hash " + dir)
		case len(f.Accounts) == 1 && byUtime:
			q = q.OrderExpr(fmt.Sprintf("transactions.account, transactions.utime %s, transactions.lt %s", dir, dir))
		case len(f.Accounts) == 1:
			q = q.OrderExpr(fmt.Sprintf("transactions.account, transactions.lt %s", dir))
		case byUtime && f.McSeqno == nil:
			q = q.OrderExpr(fmt.Sprintf("transactions.utime %s, transactions.lt %s, transactions.account", dir, dir))
		default:
			q = q.OrderExpr(fmt.Sprintf("transactions.lt %s, transactions.account", dir))
		}
		return s.scanPage(ctx, db, q, v, f.Limit, f.Offset, &rows)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return s.withMessages(ctx, rows, f.Messages)
}

// withMessages converts rows and attaches the messages read says, read in
// one statement (none when no row needs them).
func (s *Store) withMessages(ctx context.Context, rows []txRow, read MessageRead) ([]*chain.Transaction, error) {
	out := make([]*chain.Transaction, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	byHash := make(map[string]*chain.Transaction, len(rows))
	need := make([]string, 0, len(rows))
	for i := range rows {
		out[i] = rows[i].summary()
		out[i].BOC = rows[i].BOC
		byHash[rows[i].Hash] = out[i]
		if read == AllMessages || read == MessagesWithoutBOC && len(rows[i].BOC) == 0 {
			need = append(need, rows[i].Hash)
		}
	}
	if len(need) == 0 {
		return out, nil
	}
	var msgs []msgRow
	err := s.read(func(db *bun.DB) (err error) {
		msgs, err = s.messagesOf(ctx, db, need)
		return err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	for i := range msgs {
		addMessage(byHash[msgs[i].TxHash], &msgs[i])
	}
	return out, nil
}

// AdjacentTransactions returns the transaction that sent hash's
// in-message (direction "in"), the ones that received its out-messages
// ("out"), or both (""), ordered by lt as toncenter does, with the
// messages read says (as TxFilter.Messages).
func (s *Store) AdjacentTransactions(ctx context.Context, hash, direction string, read MessageRead) ([]*chain.Transaction, error) {
	var rows []txRow
	err := s.read(func(db *bun.DB) error {
		// A message links the two: out of one transaction, in of the other.
		var conds []string
		var args []any
		if direction != "out" { // the parent: sent this transaction's in-message
			conds = append(conds, `transactions.hash IN (SELECT o.tx_hash FROM messages AS i
				JOIN messages AS o ON o.hash = i.hash AND o.direction = 'out'
				WHERE i.tx_hash = ? AND i.direction = 'in')`)
			args = append(args, hash)
		}
		if direction != "in" { // the children: received its out-messages
			conds = append(conds, `transactions.hash IN (SELECT i.tx_hash FROM messages AS o
				JOIN messages AS i ON i.hash = o.hash AND i.direction = 'in'
				WHERE o.tx_hash = ? AND o.direction = 'out')`)
			args = append(args, hash)
		}
		return scanQuery(ctx, db, db.NewSelect().Model(&rows).Where("("+strings.Join(conds, " OR ")+")", args...).
			OrderExpr("transactions.lt ASC, transactions.account").Limit(1000), &rows)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return s.withMessages(ctx, rows, read)
}

// MsgFilter selects messages as toncenter's /api/v3/messages does.
type MsgFilter struct {
	Hashes []string
	// BodyHash selects the messages with this body (base64 hash of the
	// body's cell).
	BodyHash            *string
	Source, Destination *string // "" selects the missing end of an external message
	Opcode              *uint32
	Direction           *string
	StartLt, EndLt      *uint64
	// StartUtime and EndUtime bound the creation time in the messages'
	// headers; with either, pages are ordered by it (as toncenter does),
	// and an external inbound message (no time) is never selected.
	StartUtime, EndUtime *uint32
	ExcludeExternals     bool
	OnlyExternals        bool

	Limit, Offset int
	Desc          bool
}

// StoredMessage is a message as stored with one of its transactions: the
// one it was in-message (Direction "in") or out-message of, with that
// transaction's raw BOC when the store holds it.
type StoredMessage struct {
	Message   chain.Message
	TxHash    string
	Direction string
	Seq       int
	TxAccount string
	TxBOC     []byte
	// OtherTxHash is the transaction at the other end: the sender's of
	// an in-row, the receiver's of an out-row; "" when not stored.
	OtherTxHash string
}

// Messages returns a page of messages ordered by created_lt (created_at
// when a time bound is given), then hash,
// one row a message unless a direction is asked for; OtherTxHash names
// the transaction at the message's other end when the store holds it.
func (s *Store) Messages(ctx context.Context, f MsgFilter) ([]StoredMessage, error) {
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	type row struct {
		msgRow    `bun:",extend"`
		TxAccount string `bun:"tx_account"`
		TxBOC     []byte `bun:"tx_boc"`
	}
	var rows []row
	err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		// Messages by hash are looked up alike for every value: that page
		// (toncenter's msg_hash) runs prepared; the others are planned for
		// their values (a busy address's messages against a quiet one's).
		v := keyedParams(db, len(f.Hashes) > 0)
		q := db.NewSelect().Model(&rows).
			ColumnExpr("messages.*, t.account AS tx_account, t.boc AS tx_boc").
			Join("JOIN transactions AS t ON t.hash = messages.tx_hash")
		if len(f.Hashes) > 0 {
			q = q.Where("(messages.hash IN (?) OR messages.hash_norm IN (?))", v.list(f.Hashes), v.list(f.Hashes))
		}
		if f.BodyHash != nil {
			q = q.Where("messages.body_hash = ?", v.add(*f.BodyHash))
		}
		if f.Source != nil {
			q = q.Where("messages.source = ?", v.add(*f.Source))
		}
		if f.Destination != nil {
			q = q.Where("messages.destination = ?", v.add(*f.Destination))
		}
		if f.Opcode != nil {
			q = q.Where("messages.opcode = ?", v.add(int64(*f.Opcode)))
		}
		if f.Direction != nil {
			q = q.Where("messages.direction = ?", v.add(*f.Direction))
		} else {
			// One row a message: its in-row, or its out-row while the
			// receiving transaction is not stored (toncenter groups by hash).
			q = q.Where(`(messages.direction = 'in' OR NOT EXISTS (SELECT 1 FROM messages AS r
				WHERE r.hash = messages.hash AND r.direction = 'in'))`)
		}
		if f.StartLt != nil {
			q = q.Where("messages.created_lt >= ?", v.add(int64(*f.StartLt)))
		}
		if f.EndLt != nil {
			q = q.Where("messages.created_lt <= ?", v.add(int64(*f.EndLt)))
		}
		order := "messages.created_lt"
		if f.StartUtime != nil || f.EndUtime != nil {
			order = "messages.created_at" // a comparison with NULL selects nothing
			if f.StartUtime != nil {
				q = q.Where("messages.created_at >= ?", v.add(int64(*f.StartUtime)))
			}
			if f.EndUtime != nil {
				q = q.Where("messages.created_at <= ?", v.add(int64(*f.EndUtime)))
			}
		}
		// An external-in message has no creation lt (stored 0) and no source.
		if f.ExcludeExternals {
			q = q.Where("messages.source <> ''")
		}
		if f.OnlyExternals {
			q = q.Where("messages.source = ''")
		}
		q = q.OrderExpr(fmt.Sprintf("%s %s, messages.hash %s, messages.direction", order, dir, dir))
		return s.scanPage(ctx, db, q, v, f.Limit, f.Offset, &rows)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]StoredMessage, len(rows))
	hashes := make([]string, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		t := &chain.Transaction{}
		addMessage(t, &r.msgRow)
		m := t.InMsg
		if m == nil {
			m = &t.OutMsgs[0]
		}
		out[i] = StoredMessage{Message: *m, TxHash: r.TxHash, Direction: r.Direction,
			Seq: r.Seq, TxAccount: r.TxAccount, TxBOC: r.TxBOC}
		hashes = append(hashes, r.Hash)
	}
	if len(hashes) == 0 {
		return out, nil
	}
	var ends []struct {
		Hash      string `bun:"hash"`
		TxHash    string `bun:"tx_hash"`
		Direction string `bun:"direction"`
	}
	err = s.read(func(db *bun.DB) error {
		return s.scanByKeys(ctx, db, db.NewSelect().TableExpr("messages").Column("hash", "tx_hash", "direction"), "hash", hashes, &ends)
	})
	if err != nil {
		return nil, unavailable(err)
	}
	for i := range out {
		for _, e := range ends {
			if e.Hash == rows[i].Hash && e.Direction != out[i].Direction {
				out[i].OtherTxHash = e.TxHash
			}
		}
	}
	return out, nil
}
