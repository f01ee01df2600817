package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Batch is everything one import step writes. SaveBatch applies it in one
// database transaction, so a crash leaves either all of it or none.
type Batch struct {
	Transactions []*chain.Transaction
	// Traces listed here have their actions replaced by the batch's actions
	// for them: a trace that completes later is re-decoded as a whole.
	Traces   []*chain.Trace
	Actions  []chain.Action
	Accounts []chain.AccountState
	Config   *chain.ChainConfig
	DNS      []chain.DNSName
	// Extra runs inside the same database transaction after the batch is
	// written (the follower moves its cursor here).
	Extra func(ctx context.Context, tx bun.Tx) error
}

// SaveBatch writes b idempotently: saving the same batch twice leaves the
// database as saving it once did. Transactions and messages are immutable
// and kept on conflict; traces and actions are replaced; an account state is
// replaced only by one at least as recent.
func (s *Store) SaveBatch(ctx context.Context, b *Batch) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := saveTransactions(ctx, tx, b.Transactions); err != nil {
			return err
		}
		if err := saveTraces(ctx, tx, b.Traces, b.Actions); err != nil {
			return err
		}
		if err := saveAccounts(ctx, tx, b.Accounts); err != nil {
			return err
		}
		if b.Config != nil {
			row := configRow{McSeqno: int64(b.Config.McSeqno), Utime: int64(b.Config.Utime),
				ConfigBOC: b.Config.ConfigBOC, LibrariesBOC: b.Config.LibrariesBOC}
			if _, err := tx.NewInsert().Model(&row).
				On("CONFLICT (mc_seqno) DO UPDATE").
				Set("utime = EXCLUDED.utime, config_boc = EXCLUDED.config_boc, libraries_boc = EXCLUDED.libraries_boc").
				Exec(ctx); err != nil {
				return fmt.Errorf("save config: %w", err)
			}
		}
		if len(b.DNS) > 0 {
			rows := make([]dnsRow, len(b.DNS))
			for i, d := range b.DNS {
				rows[i] = dnsRow{Domain: d.Domain, Address: d.Address}
			}
			if err := insertChunks(ctx, tx, rows, "CONFLICT (domain) DO UPDATE SET address = EXCLUDED.address"); err != nil {
				return fmt.Errorf("save dns: %w", err)
			}
		}
		if b.Extra != nil {
			return b.Extra(ctx, tx)
		}
		return nil
	})
	return err
}

func saveTransactions(ctx context.Context, tx bun.Tx, txs []*chain.Transaction) error {
	if len(txs) == 0 {
		return nil
	}
	rows := make([]txRow, 0, len(txs))
	var msgs []msgRow
	for _, t := range txs {
		r := newTxRow(t)
		rows = append(rows, r)
		if t.InMsg != nil {
			msgs = append(msgs, newMsgRow(r.Hash, "in", 0, t.InMsg))
		}
		for i := range t.OutMsgs {
			msgs = append(msgs, newMsgRow(r.Hash, "out", i, &t.OutMsgs[i]))
		}
	}
	// The trace id of a transaction can change when an earlier part of its
	// trace arrives later, so it is the one column updated on conflict.
	if err := insertChunks(ctx, tx, rows, "CONFLICT (hash) DO UPDATE SET trace_id = EXCLUDED.trace_id"); err != nil {
		return fmt.Errorf("save transactions: %w", err)
	}
	if err := insertChunks(ctx, tx, msgs, "CONFLICT (tx_hash, direction, seq) DO NOTHING"); err != nil {
		return fmt.Errorf("save messages: %w", err)
	}
	return nil
}

func saveTraces(ctx context.Context, tx bun.Tx, traces []*chain.Trace, actions []chain.Action) error {
	if len(traces) == 0 && len(actions) == 0 {
		return nil
	}
	ids := make([]string, 0, len(traces))
	rows := make([]traceRow, 0, len(traces))
	for _, t := range traces {
		ids = append(ids, t.ID.Base64())
		rows = append(rows, newTraceRow(t))
	}
	if err := insertChunks(ctx, tx, rows, "CONFLICT (id) DO UPDATE SET start_lt = EXCLUDED.start_lt, end_lt = EXCLUDED.end_lt, start_utime = EXCLUDED.start_utime, end_utime = EXCLUDED.end_utime, complete = EXCLUDED.complete, transactions = EXCLUDED.transactions"); err != nil {
		return fmt.Errorf("save traces: %w", err)
	}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		old := tx.NewSelect().Model((*actionRow)(nil)).Column("action_id").Where("trace_id IN (?)", bun.In(chunk))
		for _, m := range []any{(*actionAccountRow)(nil), (*actionTxRow)(nil)} {
			if _, err := tx.NewDelete().Model(m).Where("action_id IN (?)", old).Exec(ctx); err != nil {
				return fmt.Errorf("replace actions: %w", err)
			}
		}
		if _, err := tx.NewDelete().Model((*actionRow)(nil)).Where("trace_id IN (?)", bun.In(chunk)).Exec(ctx); err != nil {
			return fmt.Errorf("replace actions: %w", err)
		}
	}
	arows := make([]actionRow, 0, len(actions))
	var links []actionAccountRow
	var txLinks []actionTxRow
	for i := range actions {
		a := &actions[i]
		arows = append(arows, newActionRow(a))
		links = append(links, actionAccountRows(a)...)
		txLinks = append(txLinks, actionTxRows(a)...)
	}
	if err := insertChunks(ctx, tx, arows, "CONFLICT (action_id) DO NOTHING"); err != nil {
		return fmt.Errorf("save actions: %w", err)
	}
	if err := insertChunks(ctx, tx, links, "CONFLICT (account, action_id) DO NOTHING"); err != nil {
		return fmt.Errorf("save action accounts: %w", err)
	}
	if err := insertChunks(ctx, tx, txLinks, "CONFLICT (action_id, tx_hash) DO NOTHING"); err != nil {
		return fmt.Errorf("save action transactions: %w", err)
	}
	return nil
}

func saveAccounts(ctx context.Context, tx bun.Tx, accounts []chain.AccountState) error {
	if len(accounts) == 0 {
		return nil
	}
	rows := make([]accountRow, len(accounts))
	for i := range accounts {
		rows[i] = newAccountRow(&accounts[i])
	}
	// A state read later (or at a later transaction) wins; replaying an older
	// file never moves an account back in time.
	return insertChunks(ctx, tx, rows, `CONFLICT (address) DO UPDATE SET
		status = EXCLUDED.status, code_hash = EXCLUDED.code_hash, is_wallet = EXCLUDED.is_wallet,
		balance = EXCLUDED.balance, last_tx_lt = EXCLUDED.last_tx_lt, last_tx_hash = EXCLUDED.last_tx_hash,
		shard_account_boc = EXCLUDED.shard_account_boc, read_at_utime = EXCLUDED.read_at_utime
		WHERE accounts.last_tx_lt < EXCLUDED.last_tx_lt
		   OR (accounts.last_tx_lt = EXCLUDED.last_tx_lt AND accounts.read_at_utime <= EXCLUDED.read_at_utime)`)
}

// insertChunks inserts rows in statements small enough for both databases'
// bind-parameter limits (SQLite: 32766, Postgres: 65535).
func insertChunks[T any](ctx context.Context, tx bun.Tx, rows []T, on string) error {
	const perStatement = 400
	for start := 0; start < len(rows); start += perStatement {
		chunk := rows[start:min(start+perStatement, len(rows))]
		if _, err := tx.NewInsert().Model(&chunk).On(on).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
