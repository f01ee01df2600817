package store

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"

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
	// Interfaces are what accounts are known to be (from an indexer's
	// knowledge); account states add what their code says.
	Interfaces []chain.AccountInterfaces
	Config     *chain.ChainConfig
	DNS        []chain.DNSName
	// Blocks are the headers of the raw blocks the batch came from.
	Blocks []chain.BlockHeader
	// TokenMoves are the transfer and burn requests of the batch's
	// transactions (actions.TokenMoves), kept on conflict like them.
	TokenMoves []chain.TokenMove
	// Known is what an indexer's file said about the accounts of the
	// batch's traces, by trace id (base64): stored with the trace so that
	// reclassify decodes it with what the import had (store/known.go).
	Known map[string]chain.KnownContracts
	// Extra runs inside the same database transaction after the batch is
	// written (the follower moves its cursor here).
	Extra func(ctx context.Context, tx bun.Tx) error
	// Present, when set, is filled with the transactions and actions that
	// were stored before the batch (an import reports new rows and rows
	// already there apart). It costs one query per 1000 transactions.
	Present *Present
}

// Present is what a batch found already stored: of the transactions named
// in Lookup (base64 hashes, as chain.Hash.Base64 gives them; nil: the
// batch's), and of the batch's actions by id. An importer names the
// transactions of its files: one it holds already for an incomplete trace
// is not in the batch again.
type Present struct {
	Lookup       []string
	Transactions map[string]bool
	Actions      map[string]bool
}

// SaveBatch writes b idempotently: saving the same batch twice leaves the
// database as saving it once did. Transactions and messages are immutable
// and kept on conflict; traces and actions are replaced; an account state is
// replaced only by one at least as recent.
func (s *Store) SaveBatch(ctx context.Context, b *Batch) error {
	err := s.saveBatch(ctx, b)
	if err != nil && s.partitioningChanged(ctx) {
		// Another process migrated the tables to or from partitions since
		// this one looked (the conflict targets and partitions differ):
		// the batch was rolled back, so it is written again as they are now.
		err = s.saveBatch(ctx, b)
	}
	if err != nil && isUnavailable(err) {
		// A primary that does not answer is Unavailable to callers (the
		// follower and importers retry; a request answers 503).
		return unavailable(err)
	}
	return err
}

func (s *Store) saveBatch(ctx context.Context, b *Batch) error {
	if err := s.ensurePartitions(ctx, batchSpans(b)); err != nil {
		return err
	}
	// A connection of our own, not just a transaction: COPY needs the
	// connection, and runs inside the transaction open on it (a
	// connection of copyDB: cancel.go).
	conn, err := s.copyDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var last uint64 // the highest seq this batch gave; 0: no new action
	err = conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// First, before any row is written: the counter's row lock orders
		// this transaction's commit among the writers of actions (seq.go).
		txSeqs, txHi, err := assignTxSeqs(ctx, tx, b.Transactions)
		if err != nil {
			return err
		}
		seqs, kept, hi, err := assignSeqs(ctx, tx, b.Actions)
		if err != nil {
			return err
		}
		// After the transactions' and actions' numbers: a trace's event
		// comes after theirs (traceseq.go).
		traceSeqs, traceHi, err := assignTraceSeqs(ctx, tx, b.Traces)
		if err != nil {
			return err
		}
		last = max(hi, txHi, traceHi)
		if b.Present != nil {
			if err := findPresent(ctx, tx, b, kept); err != nil {
				return err
			}
		}
		w := newWriter(tx, conn)
		w.partitioned = s.partitioned.Load()
		if err := saveTransactions(ctx, w, b.Transactions, txSeqs); err != nil {
			return err
		}
		if err := settlePending(ctx, tx, b.Transactions); err != nil {
			return err
		}
		if err := saveTraces(ctx, w, b.Traces, traceSeqs, b.Actions, seqs); err != nil {
			return err
		}
		if err := saveAccounts(ctx, w, b.Accounts); err != nil {
			return err
		}
		if err := saveInterfaces(ctx, w, b.Accounts, b.Interfaces); err != nil {
			return err
		}
		if err := saveBlocks(ctx, w, b.Blocks); err != nil {
			return err
		}
		if err := saveTokenMoves(ctx, w, b.TokenMoves); err != nil {
			return err
		}
		if err := saveKnown(ctx, w, b.Known); err != nil {
			return err
		}
		if b.Config != nil {
			row := configRow{McSeqno: int64(b.Config.McSeqno), Utime: int64(b.Config.Utime),
				ConfigBOC: b.Config.ConfigBOC, LibrariesBOC: b.Config.LibrariesBOC}
			if err := w.exec(ctx, "save config", tx.NewInsert().Model(&row).
				On("CONFLICT (mc_seqno) DO UPDATE").
				Set("utime = EXCLUDED.utime, config_boc = EXCLUDED.config_boc, libraries_boc = EXCLUDED.libraries_boc")); err != nil {
				return err
			}
		}
		if len(b.DNS) > 0 {
			rows := make([]dnsRow, len(b.DNS))
			for i, d := range b.DNS {
				rows[i] = dnsRow{Domain: d.Domain, Address: d.Address}
			}
			rows = dedupe(rows, func(r *dnsRow) string { return r.Domain }, nil)
			if err := queueRows(ctx, w, "save dns", rows, "CONFLICT (domain) DO UPDATE SET address = EXCLUDED.address"); err != nil {
				return err
			}
		}
		var remake func() error
		if !s.noAnalytics {
			var err error
			if remake, err = saveAnalytics(ctx, tx, conn, w, traceIDs(b.Traces), b.Actions); err != nil {
				return err
			}
		}
		w.notify(last)
		if err := w.flush(ctx); err != nil {
			return err
		}
		// After the flush: a remake reads the trades it writes.
		if remake != nil {
			if err := remake(); err != nil {
				return err
			}
		}
		if b.Extra != nil {
			return b.Extra(ctx, tx)
		}
		return nil
	})
	if err == nil {
		s.forgetWritten(b)
	}
	if err == nil && last > 0 {
		s.actionsCommitted(last)
	}
	return err
}

// findPresent fills b.Present before anything of b is written; the stored
// actions are those assignSeqs found (kept).
func findPresent(ctx context.Context, tx bun.Tx, b *Batch, kept map[string]bool) error {
	p := b.Present
	p.Transactions, p.Actions = map[string]bool{}, kept
	if p.Actions == nil {
		p.Actions = map[string]bool{}
	}
	hashes := p.Lookup
	if hashes == nil {
		hashes = make([]string, 0, len(b.Transactions))
		for _, t := range b.Transactions {
			hashes = append(hashes, t.Hash.Base64())
		}
	}
	for start := 0; start < len(hashes); start += 1000 {
		var found []string
		if err := tx.NewSelect().Model((*txRow)(nil)).Column("hash").
			Where("hash IN (?)", bun.In(hashes[start:min(start+1000, len(hashes))])).Scan(ctx, &found); err != nil {
			return fmt.Errorf("read stored transactions: %w", err)
		}
		for _, h := range found {
			p.Transactions[h] = true
		}
	}
	return nil
}

func saveTransactions(ctx context.Context, w *writer, txs []*chain.Transaction, seqs map[string]int64) error {
	if len(txs) == 0 {
		return nil
	}
	rows, msgs := txTableRows(txs)
	for i := range rows {
		if n, ok := seqs[rows[i].Hash]; ok {
			rows[i].Seq = &n
		}
	}
	rows = dedupe(rows, func(r *txRow) string { return r.Hash }, nil)
	msgs = dedupe(msgs, func(r *msgRow) string { return r.TxHash + "/" + r.Direction + "/" + strconv.Itoa(r.Seq) }, nil)
	// The trace id of a transaction can change when an earlier part of its
	// trace arrives later, so it is updated on conflict; an unchanged row is
	// not rewritten (a rewrite costs a new row version and an entry in every
	// index, which made re-imports slow). facts are filled in on rows
	// written before they were kept (decoded.go): a re-import of the file
	// completes them. A row first stored without its raw BOC (from trace
	// JSON) gets it, and the block that holds it, when its block arrives.
	if err := queueRows(ctx, w, "save transactions", rows, w.conflict("transactions")+` DO UPDATE SET trace_id = EXCLUDED.trace_id,
		facts = COALESCE(EXCLUDED.facts, transactions.facts), boc = COALESCE(transactions.boc, EXCLUDED.boc),
		block_workchain = COALESCE(transactions.block_workchain, EXCLUDED.block_workchain),
		block_shard = COALESCE(transactions.block_shard, EXCLUDED.block_shard),
		block_seqno = COALESCE(transactions.block_seqno, EXCLUDED.block_seqno)
		WHERE transactions.trace_id <> EXCLUDED.trace_id OR (transactions.facts IS NULL AND EXCLUDED.facts IS NOT NULL)
		OR (transactions.boc IS NULL AND EXCLUDED.boc IS NOT NULL)
		OR (transactions.block_seqno IS NULL AND EXCLUDED.block_seqno IS NOT NULL)`); err != nil {
		return err
	}
	return queueRows(ctx, w, "save messages", msgs, `CONFLICT (tx_hash, direction, seq) DO UPDATE SET facts = EXCLUDED.facts
		WHERE messages.facts IS NULL AND EXCLUDED.facts IS NOT NULL`)
}

// txTableRows are the rows of txs in the transactions and messages tables.
func txTableRows(txs []*chain.Transaction) ([]txRow, []msgRow) {
	rows := make([]txRow, 0, len(txs))
	var msgs []msgRow
	for _, t := range txs {
		r := newTxRow(t)
		rows = append(rows, r)
		n := len(msgs)
		if t.InMsg != nil {
			msgs = append(msgs, newMsgRow(r.Hash, "in", 0, t.InMsg))
		}
		for i := range t.OutMsgs {
			msgs = append(msgs, newMsgRow(r.Hash, "out", i, &t.OutMsgs[i]))
		}
		if len(t.BOC) == 0 { // the BOC holds them otherwise
			for i := n; i < len(msgs); i++ {
				m := t.InMsg
				if msgs[i].Direction == "out" {
					m = &t.OutMsgs[msgs[i].Seq]
				}
				msgs[i].Facts = newMsgFacts(m)
			}
		}
	}
	return rows, msgs
}

func saveTraces(ctx context.Context, w *writer, traces []*chain.Trace, traceSeqs map[string]int64, actions []chain.Action, seqs map[string]int64) error {
	if len(traces) == 0 && len(actions) == 0 {
		return nil
	}
	ids := make([]string, 0, len(traces))
	rows := make([]traceRow, 0, len(traces))
	for _, t := range traces {
		ids = append(ids, t.ID.Base64())
		r := newTraceRow(t)
		if n, ok := traceSeqs[r.ID]; ok {
			r.Seq = &n
		}
		rows = append(rows, r)
	}
	rows = dedupe(rows, func(r *traceRow) string { return r.ID }, nil)
	// A trace keeps the seq it was first stored complete with (a trace's
	// event is told once); one given none keeps NULL.
	if err := queueRows(ctx, w, "save traces", rows, `CONFLICT (id) DO UPDATE SET start_lt = EXCLUDED.start_lt, end_lt = EXCLUDED.end_lt,
		start_utime = EXCLUDED.start_utime, end_utime = EXCLUDED.end_utime, complete = EXCLUDED.complete, transactions = EXCLUDED.transactions,
		seq = COALESCE(traces.seq, EXCLUDED.seq)
		WHERE traces.start_lt <> EXCLUDED.start_lt OR traces.end_lt <> EXCLUDED.end_lt OR traces.start_utime <> EXCLUDED.start_utime
		   OR traces.end_utime <> EXCLUDED.end_utime OR traces.complete <> EXCLUDED.complete OR traces.transactions <> EXCLUDED.transactions
		   OR (traces.seq IS NULL AND EXCLUDED.seq IS NOT NULL)`); err != nil {
		return err
	}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		old := w.tx.NewSelect().Model((*actionRow)(nil)).Column("action_id").Where("trace_id IN (?)", bun.In(chunk))
		for _, m := range []any{(*actionAccountRow)(nil), (*actionTxRow)(nil)} {
			if err := w.exec(ctx, "replace actions", w.tx.NewDelete().Model(m).Where("action_id IN (?)", old)); err != nil {
				return err
			}
		}
		if err := w.exec(ctx, "replace actions", w.tx.NewDelete().Model((*actionRow)(nil)).Where("trace_id IN (?)", bun.In(chunk))); err != nil {
			return err
		}
	}
	arows, links, txLinks := actionTableRows(actions, seqs)
	if err := queueRows(ctx, w, "save actions", arows, w.conflict("actions")+" DO NOTHING"); err != nil {
		return err
	}
	if err := queueRows(ctx, w, "save action accounts", links, w.conflict("action_accounts")+" DO NOTHING"); err != nil {
		return err
	}
	return queueRows(ctx, w, "save action transactions", txLinks, w.conflict("action_transactions")+" DO NOTHING")
}

// actionTableRows are the rows of actions in the three action tables, with
// the actions' seqs.
func actionTableRows(actions []chain.Action, seqs map[string]int64) ([]actionRow, []actionAccountRow, []actionTxRow) {
	arows := make([]actionRow, 0, len(actions))
	var links []actionAccountRow
	var txLinks []actionTxRow
	for i := range actions {
		a := &actions[i]
		r := newActionRow(a)
		r.Seq = seqs[a.ActionID]
		arows = append(arows, r)
		links = append(links, actionAccountRows(a)...)
		txLinks = append(txLinks, actionTxRows(a)...)
	}
	return arows, links, txLinks
}

func saveAccounts(ctx context.Context, w *writer, accounts []chain.AccountState) error {
	if len(accounts) == 0 {
		return nil
	}
	rows := make([]accountRow, len(accounts))
	for i := range accounts {
		rows[i] = newAccountRow(&accounts[i])
	}
	// A state read later (or at a later transaction) wins; replaying an older
	// file never moves an account back in time.
	rows = dedupe(rows, func(r *accountRow) string { return r.Address }, newerAccount)
	return queueRows(ctx, w, "save accounts", rows, `CONFLICT (address) DO UPDATE SET
		status = EXCLUDED.status, code_hash = EXCLUDED.code_hash, is_wallet = EXCLUDED.is_wallet,
		balance = EXCLUDED.balance, last_tx_lt = EXCLUDED.last_tx_lt, last_tx_hash = EXCLUDED.last_tx_hash,
		shard_account_boc = EXCLUDED.shard_account_boc, read_at_utime = EXCLUDED.read_at_utime
		WHERE accounts.last_tx_lt < EXCLUDED.last_tx_lt
		   OR (accounts.last_tx_lt = EXCLUDED.last_tx_lt AND accounts.read_at_utime <= EXCLUDED.read_at_utime)`)
}

// saveInterfaces records what accounts are: an account state's code
// decides when it names something, else what an indexer reported.
func saveInterfaces(ctx context.Context, w *writer, states []chain.AccountState, known []chain.AccountInterfaces) error {
	rows := make([]interfacesRow, 0, len(states)+len(known))
	for _, k := range known {
		if len(k.Interfaces) > 0 {
			rows = append(rows, interfacesRow{Address: k.Address, Interfaces: strings.Join(k.Interfaces, " ")})
		}
	}
	for _, s := range states {
		if len(s.Interfaces) > 0 {
			rows = append(rows, interfacesRow{Address: s.Address, Interfaces: strings.Join(s.Interfaces, " ")})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	rows = dedupe(rows, func(r *interfacesRow) string { return r.Address }, nil)
	return queueRows(ctx, w, "save interfaces", rows,
		"CONFLICT (address) DO UPDATE SET interfaces = EXCLUDED.interfaces WHERE account_interfaces.interfaces <> EXCLUDED.interfaces")
}

// insertChunks inserts rows right away (for Batch.Extra steps).
func insertChunks[T any](ctx context.Context, tx bun.Tx, rows []T, on string) error {
	return queueRows(ctx, &writer{tx: tx}, "", rows, on)
}

// queueRows inserts rows: on Postgres a large set through COPY and a
// staging table, otherwise in statements small enough for both databases'
// limits (SQLite: 32766 bind parameters, Postgres: 65535).
func queueRows[T any](ctx context.Context, w *writer, what string, rows []T, on string) error {
	if w.canStage(reflect.TypeFor[T](), len(rows)) {
		s, insert, err := stage(w.tx, rows, on)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		w.copies = append(w.copies, s)
		w.script = append(append(w.script, insert...), ";\n"...)
		return nil
	}
	const perStatement = 400
	for start := 0; start < len(rows); start += perStatement {
		chunk := rows[start:min(start+perStatement, len(rows))]
		if err := w.exec(ctx, what, w.tx.NewInsert().Model(&chunk).On(on)); err != nil {
			return err
		}
	}
	return nil
}

// statement is a bun insert or delete.
type statement interface {
	schema.QueryAppender
	Exec(ctx context.Context, dest ...any) (sql.Result, error)
}

// writer runs the statements of one batch, in order. On Postgres it
// queues them and sends them as one multi-statement message (pgdriver
// speaks the simple query protocol, values formatted by bun exactly as a
// lone statement would have them), so a batch costs one round trip instead
// of one per table and chunk: round trips, not rows, bounded the import
// rate. SQLite runs in process, where a statement costs no round trip, so
// statements run as they come.
//
// Large row sets go to Postgres by COPY into staging tables (copy.go), sent
// before the script, whose statements then read them in the usual order.
type writer struct {
	tx     bun.Tx
	conn   bun.Conn // the connection under tx; zero when COPY is not to be used
	queue  bool
	script []byte
	copies []staged
	// partitioned: the chain's tables are partitioned (conflictTarget).
	partitioned bool
}

// conflict is "CONFLICT (<unique key>)" of a partitioned-on-Postgres table.
func (w *writer) conflict(table string) string { return conflictTarget(w.partitioned, table) }

func newWriter(tx bun.Tx, conn bun.Conn) *writer {
	return &writer{tx: tx, conn: conn, queue: tx.Dialect().Name() == dialect.PG}
}

// canStage tells whether n rows of type typ go through COPY: on Postgres,
// with the connection at hand, enough rows to be worth it, and a table not
// staged already in this batch (its staging table holds one set of rows).
func (w *writer) canStage(typ reflect.Type, n int) bool {
	if !w.queue || w.conn.Conn == nil || n < copyMinRows {
		return false
	}
	for _, s := range w.copies {
		if s.table.Type == typ {
			return false
		}
	}
	return true
}

func (w *writer) exec(ctx context.Context, what string, q statement) error {
	var err error
	if w.queue {
		w.script, err = q.AppendQuery(w.tx.NewSelect().DB().QueryGen(), w.script)
		w.script = append(w.script, ";\n"...)
	} else {
		_, err = q.Exec(ctx)
	}
	if err != nil && what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return err
}

// flush sends what is queued.
func (w *writer) flush(ctx context.Context) error {
	if len(w.script) == 0 {
		return nil
	}
	var err error
	if len(w.copies) > 0 {
		err = sendStaged(ctx, w.tx, w.conn, w.copies, w.script)
	} else {
		// Straight to database/sql: the script is formatted already, and bun
		// would read a '?' inside a value (a comment) as a placeholder.
		_, err = w.tx.Tx.ExecContext(ctx, string(w.script))
	}
	w.script, w.copies = w.script[:0], nil
	if err != nil {
		return fmt.Errorf("save batch: %w", err)
	}
	return nil
}

// traceIDs are the base64 ids of traces.
func traceIDs(traces []*chain.Trace) []string {
	ids := make([]string, len(traces))
	for i, t := range traces {
		ids[i] = t.ID.Base64()
	}
	return ids
}
