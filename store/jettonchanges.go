package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/tonql/tonql/chain"
)

// A jettons_change event (package notify) is a jetton wallet's state as
// the token registry read it: each state SaveTokens stores as newer than
// the wallet's row (a new wallet, a later transaction, or a balance that
// was unknown at that transaction) is logged in jetton_changes (migration
// 20261201000213) in the same commit, with a seq from the streams'
// counter. So the event has the balance the get method read, a live
// stream and a replay by cursor read the same rows, and a wallet whose
// first transactions arrive with its state is told like any other. A
// re-read of the same state (a re-import) logs nothing.

type jettonChangeRow struct {
	bun.BaseModel `bun:"table:jetton_changes,alias:jetton_changes"`

	Seq        int64   `bun:"seq,pk"`
	Address    string  `bun:"address,notnull"`
	Owner      string  `bun:"owner,notnull"`
	Jetton     string  `bun:"jetton,notnull"`
	Balance    *string `bun:"balance"` // decimal; NULL unknown
	CodeHash   string  `bun:"code_hash,notnull"`
	DataHash   string  `bun:"data_hash,notnull"`
	LastTxLt   int64   `bun:"last_tx_lt,notnull"`
	LastTxHash string  `bun:"last_tx_hash,notnull"`
}

// SeqJettonChange is a jetton wallet's state as the registry read it, with
// its place in the stream.
type SeqJettonChange struct {
	Seq uint64
	chain.JettonWallet
}

// logJettonChanges numbers and writes the changes among rows (the
// registry's new wallet rows, before they are stored) in (lt, address)
// order, with the transaction hashes of wallets; it returns the highest
// seq given, 0 when none. It takes the counter first, as SaveBatch does,
// so what it reads of the stored rows is everything committed before, and
// gives back the numbers it did not use.
func logJettonChanges(ctx context.Context, tx bun.Tx, rows []jettonWalletRow, wallets []chain.JettonWallet) (uint64, error) {
	last, err := takeSeqs(ctx, tx, len(rows))
	if err != nil {
		return 0, err
	}
	type stored struct {
		Address  string  `bun:"address"`
		Balance  *string `bun:"balance"`
		LastTxLt int64   `bun:"last_tx_lt"`
	}
	had := make(map[string]stored, len(rows))
	for start := 0; start < len(rows); start += tokenEnqueueBatch {
		addrs := make([]string, 0, tokenEnqueueBatch)
		for _, r := range rows[start:min(start+tokenEnqueueBatch, len(rows))] {
			addrs = append(addrs, r.Address)
		}
		var part []stored
		if err := tx.NewSelect().Table("jetton_wallets").Column("address", "balance", "last_tx_lt").
			Where("address IN (?)", bun.In(addrs)).Scan(ctx, &part); err != nil {
			return 0, fmt.Errorf("read jetton wallets: %w", err)
		}
		for _, p := range part {
			had[p.Address] = p
		}
	}
	txHash := make(map[string]chain.Hash, len(wallets))
	for _, w := range wallets {
		if w.LastTxHash != (chain.Hash{}) {
			txHash[w.Address+"@"+strconv.FormatUint(w.LastTxLt, 10)] = w.LastTxHash
		}
	}
	var changes []jettonChangeRow
	for _, r := range rows {
		old, ok := had[r.Address]
		newer := !ok || old.LastTxLt < r.LastTxLt || (old.LastTxLt == r.LastTxLt && old.Balance == nil && r.Balance != nil)
		h, hashed := txHash[r.Address+"@"+strconv.FormatInt(r.LastTxLt, 10)]
		if !newer || !hashed {
			continue // told already, or a row read back (no transaction to name)
		}
		c := jettonChangeRow{Address: r.Address, Owner: r.Owner, Jetton: r.Jetton, CodeHash: r.CodeHash, DataHash: r.DataHash,
			LastTxLt: r.LastTxLt, LastTxHash: h.Base64()}
		if r.Balance != nil {
			b := unpad(*r.Balance)
			c.Balance = &b
		}
		changes = append(changes, c)
	}
	sort.Slice(changes, func(i, j int) bool {
		if changes[i].LastTxLt != changes[j].LastTxLt {
			return changes[i].LastTxLt < changes[j].LastTxLt
		}
		return changes[i].Address < changes[j].Address
	})
	base := last - int64(len(rows))
	for i := range changes {
		changes[i].Seq = base + int64(i) + 1
	}
	if unused := len(rows) - len(changes); unused > 0 {
		if _, err := takeSeqs(ctx, tx, -unused); err != nil {
			return 0, err
		}
	}
	if len(changes) == 0 {
		return 0, nil
	}
	if _, err := tx.NewInsert().Model(&changes).Exec(ctx); err != nil {
		return 0, fmt.Errorf("save jetton changes: %w", err)
	}
	hi := uint64(changes[len(changes)-1].Seq)
	if tx.Dialect().Name() == dialect.PG {
		// Other processes' hubs learn of the new events as of a batch's.
		if _, err := tx.ExecContext(ctx, "SELECT pg_notify(?, ?)", NotifyChannel, strconv.FormatUint(hi, 10)); err != nil {
			return 0, fmt.Errorf("notify jetton changes: %w", err)
		}
	}
	return hi, nil
}

// JettonChangesAfter returns up to limit jettons_change rows with seq >
// after, in seq order: those of a wallet in accounts or owned by one
// (toncenter's rule), every one when accounts is empty. It reads the
// primary, as TransactionsAfter does.
func (s *Store) JettonChangesAfter(ctx context.Context, accounts []string, after uint64, limit int) ([]SeqJettonChange, error) {
	var rows []jettonChangeRow
	q := s.db.NewSelect().Model(&rows).Where("seq > ?", int64(after))
	if len(accounts) > 0 {
		q = q.Where("(address IN (?) OR owner IN (?))", bun.In(accounts), bun.In(accounts))
	}
	if err := q.OrderExpr("seq ASC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, unavailable(err)
	}
	out := make([]SeqJettonChange, len(rows))
	for i, r := range rows {
		out[i] = SeqJettonChange{Seq: uint64(r.Seq), JettonWallet: chain.JettonWallet{Address: r.Address, Owner: r.Owner, Jetton: r.Jetton,
			Balance: textOr(r.Balance), CodeHash: hashOf(r.CodeHash), DataHash: hashOf(r.DataHash), LastTxLt: uint64(r.LastTxLt),
			LastTxHash: hashOf(r.LastTxHash)}}
	}
	return out, nil
}
