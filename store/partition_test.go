package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store/migrations"
)

const partSeed = 11

// partitionedBatch is a synthetic chain spread over four lt spans, with a
// transaction (and its external message) for one action in three, so every
// filter has rows in several partitions.
func partitionedBatch(t *testing.T, firstSpan int64) *Batch {
	b := &Batch{}
	const perSpan = 1500
	n := 0
	require.NoError(t, synth.Generate(synth.Params{Seed: partSeed, Actions: 4 * perSpan, Accounts: 300, HotAccounts: 1,
		HotActions: 600, StartUtime: 1_760_000_000}, func(a *chain.Action) error {
		// Shifted so the generated lts (from 4.7e13) start at firstSpan and
		// move to the next span every perSpan actions; order is kept.
		shift := uint64(firstSpan) - 47_000_000_000_000 + uint64(n/perSpan)*migrations.LtSpan
		a.StartLt, a.EndLt, a.TraceEndLt = a.StartLt+shift, a.EndLt+shift, a.TraceEndLt+shift
		for i := range a.TxLts {
			a.TxLts[i] += shift
		}
		if n%3 == 0 {
			op := uint32(0x0f8a7ea5)
			tx := &chain.Transaction{Hash: parseHashText(a.Transactions[0]), Account: synth.Account(partSeed, n%300),
				Lt: a.TxLts[0], Utime: a.StartUtime, OrigStatus: "active", EndStatus: "active", ComputeSuccess: true,
				ActionSuccess: true, TraceID: parseHashText(a.TraceID), McSeqno: 40_000_000,
				InMsg: &chain.Message{Hash: chain.Hash(sha(fmt.Sprint("msg", n))), Destination: synth.Account(partSeed, n%300),
					CreatedLt: a.TxLts[0] - 1, Opcode: &op}}
			b.Transactions = append(b.Transactions, tx)
		}
		b.Actions = append(b.Actions, *a)
		n++
		return nil
	}))
	return b
}

func sha(s string) [32]byte {
	var h [32]byte
	copy(h[:], s) // distinct enough for a test message hash
	return h
}

// partitionFilters are the /api/v3/actions filter shapes (as in
// cmd/loadgen/explain.go), taken from the stored data, each in several
// pages: newest first, oldest first, at an offset, after a cursor.
func partitionFilters(t *testing.T, s *Store, b *Batch) map[string]ActionFilter {
	a := b.Actions[len(b.Actions)/2+7] // in the third span
	for a.McSeqno == nil {
		a = b.Actions[len(b.Actions)/2+8]
	}
	hot := synth.HotAccount(partSeed, 0)
	k := len(b.Transactions) / 3
	tx := b.Transactions[k]
	msg := tx.InMsg.Hash.Base64()
	msgAccount := b.Actions[3*k].Accounts[0] // the action of tx (partitionedBatch)
	hotMc := uint32(0)
	for _, h := range b.Actions[len(b.Actions)/2:] {
		if h.McSeqno != nil && slices.Contains(h.Accounts, hot) {
			hotMc = *h.McSeqno
			break
		}
	}
	lt := a.TxLts[0]
	su, eu := a.EndUtime-600, a.EndUtime
	// An lt window across the boundary of the second and third spans.
	sl, el := uint64(b.Actions[0].EndLt/migrations.LtSpan*migrations.LtSpan)+2*migrations.LtSpan-50_000, a.EndLt
	mc := *a.McSeqno
	base := map[string]ActionFilter{
		"none":                  {},
		"account":               {Account: hot},
		"account types":         {Account: hot, Types: []string{"JettonTransfer", "TonTransfer"}},
		"account exclude":       {Account: hot, ExcludeTypes: []string{"TonTransfer"}},
		"account time":          {Account: hot, StartUtime: &su, EndUtime: &eu},
		"account lt":            {Account: hot, StartLt: &sl, EndLt: &el},
		"account mc_seqno":      {Account: hot, McSeqno: &hotMc},
		"account msg":           {Account: msgAccount, MsgHashes: []string{msg}},
		"types":                 {Types: []string{"JettonSwap", "JettonBurn"}},
		"exclude":               {ExcludeTypes: []string{"TonTransfer"}},
		"time window":           {StartUtime: &su, EndUtime: &eu},
		"open time":             {StartUtime: &su},
		"lt window":             {StartLt: &sl, EndLt: &el},
		"end lt":                {EndLt: &el},
		"trace_id":              {TraceIDs: []string{a.TraceID}},
		"tx_hash":               {TxHashes: []string{a.TxHash, tx.Hash.Base64()}},
		"tx_lt":                 {TxLt: &lt},
		"msg_hash":              {MsgHashes: []string{msg}},
		"mc_seqno":              {McSeqno: &mc},
		"action_id":             {ActionIDs: []string{a.ActionID, b.Actions[3].ActionID, b.Actions[len(b.Actions)-1].ActionID}},
		"types time":            {Types: []string{"JettonTransfer"}, StartUtime: &su, EndUtime: &eu},
		"account types lt time": {Account: hot, Types: []string{"TonTransfer"}, StartLt: &sl, StartUtime: &su},
	}
	out := map[string]ActionFilter{}
	for name, f := range base {
		for _, asc := range []bool{false, true} {
			for _, off := range []int{0, 30} {
				g := f
				g.Asc, g.Offset, g.Limit = asc, off, 25
				out[fmt.Sprintf("%s asc=%t offset=%d", name, asc, off)] = g
			}
		}
		// A cursor in the middle of the data, both ways.
		for _, asc := range []bool{false, true} {
			g := f
			g.Asc, g.Limit = asc, 25
			g.After = &ActionKey{EndLt: a.EndLt, ActionID: a.ActionID}
			out[fmt.Sprintf("%s asc=%t after", name, asc)] = g
		}
	}
	return out
}

// answers records what every filter answers, with the participants and
// transactions the page links to.
func answers(t *testing.T, s *Store, fs map[string]ActionFilter) map[string]string {
	ctx := context.Background()
	out := map[string]string{}
	for name, f := range fs {
		page, err := s.ListActions(ctx, f, BookOfValuesAndAccounts)
		require.NoError(t, err, name)
		ids, hashes := linkRefs(page.Actions)
		parts, err := s.Participants(ctx, ids)
		require.NoError(t, err)
		txs, err := s.Transactions(ctx, hashes, true)
		require.NoError(t, err)
		// A message's BodyHash is what the store read of its body's hash, a
		// cache of Body's (zero, computed again, where the column is NULL:
		// the rollback's plain tables copy no body_hash); Body is compared.
		for _, tx := range txs {
			if tx.InMsg != nil {
				tx.InMsg.BodyHash = chain.Hash{}
			}
			for i := range tx.OutMsgs {
				tx.OutMsgs[i].BodyHash = chain.Hash{}
			}
		}
		js, err := json.Marshal([]any{page, parts, txs})
		require.NoError(t, err)
		out[name] = string(js)
		if len(page.Actions) == 0 && !strings.Contains(name, "after") && !strings.Contains(name, "offset=30") {
			t.Errorf("%s: empty page (the filter should find rows)", name)
		}
	}
	return out
}

func tableCounts(t *testing.T, s *Store) map[string]int {
	out := map[string]int{}
	for _, tbl := range []string{"actions", "action_accounts", "action_transactions", "transactions", "messages"} {
		var n int
		require.NoError(t, s.db.NewRaw("SELECT count(*) FROM "+tbl).Scan(context.Background(), &n))
		out[tbl] = n
	}
	return out
}

// partitionsScanned lists the partitions an EXPLAIN ANALYZE plan read
// (those it shows as never executed were pruned at run time): "on" and the
// table, not an index whose name (truncated to 63 bytes) starts with a
// partition's shorter name, as a Bitmap Index Scan names it.
var planScan = regexp.MustCompile(`on ((?:actions|action_accounts|action_transactions|transactions)_p\d+)\s`)

func partitionsScanned(plan string) []string {
	set := map[string]bool{}
	for _, line := range strings.Split(plan, "\n") {
		if m := planScan.FindStringSubmatch(line); m != nil && !strings.Contains(line, "never executed") {
			set[m[1]] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// The partitioning migration on a database with data: every filter shape
// answers the same before it, after it, after it is rolled back and after
// it runs again; lt windows and cursors read only their partitions; a write
// past the last partition makes new ones, and nothing lands in DEFAULT.
func TestPartitionMigration(t *testing.T) {
	url := testenv.NewPostgresDatabase(t)
	if url == "" {
		t.Skip("partitioning is Postgres only")
	}
	ctx := context.Background()
	s, err := Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()

	// The database as it was before the migration: every earlier one.
	// The later ones (nested_actions) run with it, as an upgrade from then
	// runs them.
	all := migrations.New().Sorted()
	at := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.Contains(m.Comment, "lt_partitions") })
	require.GreaterOrEqual(t, at, 0)
	var upgrade []string
	for _, m := range all[at:] {
		upgrade = append(upgrade, m.Name+"_"+m.Comment)
	}
	before := migrate.NewMigrations()
	for _, m := range all[:at] {
		before.Add(m)
	}
	// The store writes and reads the columns of the later migrations: on
	// the tables as they were, they are added for the store's writes and
	// reads (with the defaults that migration gives) and dropped again before
	// the partitioning, whose frozen DDL lists the columns of its day.
	later := func(add bool) {
		t.Helper()
		stmts := []string{`ALTER TABLE actions ADD COLUMN parent_action_id text NOT NULL DEFAULT ''`,
			`ALTER TABLE actions ADD COLUMN ancestors text NOT NULL DEFAULT ''`,
			`ALTER TABLE action_accounts ADD COLUMN ancestors text NOT NULL DEFAULT ''`,
			`ALTER TABLE transactions ADD COLUMN facts text`, `ALTER TABLE messages ADD COLUMN facts text`,
			`ALTER TABLE transactions ADD COLUMN block_workchain integer`,
			`ALTER TABLE transactions ADD COLUMN block_shard bigint`, `ALTER TABLE transactions ADD COLUMN block_seqno bigint`,
			// pages read their tokens' metadata (token_metadata) with their book
			`CREATE TABLE token_metadata (address text PRIMARY KEY, kind text NOT NULL, valid boolean NOT NULL DEFAULT FALSE,
				reason text NOT NULL DEFAULT '', name text, symbol text, decimals integer, image text, description text,
				uri text, extra text, fetched_at bigint, version bigint NOT NULL DEFAULT 0)`,
			// toncenter's trace_external_hash (20261201000141); a batch settles
			// the pending traces its transactions answer (20261201000140)
			`ALTER TABLE actions ADD COLUMN trace_external_hash text`,
			`CREATE TABLE pending_traces (ext_hash text PRIMARY KEY, ext_hash_norm text NOT NULL, trace_id text NOT NULL,
				created bigint NOT NULL, expires bigint NOT NULL, body bytea NOT NULL)`,
			`CREATE TABLE pending_trace_accounts (account text, ext_hash text, PRIMARY KEY (account, ext_hash))`,
			// a transaction's place in the stream of events (20261201000131)
			`ALTER TABLE transactions ADD COLUMN seq bigint`,
			// a complete trace's place in the stream (20261201000132)
			`ALTER TABLE traces ADD COLUMN seq bigint`,
			// the hash of a message's body cell (20261201000211)
			`ALTER TABLE messages ADD COLUMN body_hash text`,
			// the creation time in a message's header (20261201000212)
			`ALTER TABLE messages ADD COLUMN created_at bigint`,
			// every write keeps the token analytics (20261201000071)
			`CREATE TABLE analytics_trades (action_id text, hop integer, trace_id text NOT NULL, utime bigint NOT NULL, lt bigint NOT NULL,
				jetton text NOT NULL, quote text NOT NULL, base_amount text NOT NULL, quote_amount text NOT NULL, buy boolean NOT NULL,
				trader text NOT NULL, PRIMARY KEY (action_id, hop))`,
			`CREATE TABLE analytics_moves (action_id text PRIMARY KEY, trace_id text NOT NULL, jetton text NOT NULL, utime bigint NOT NULL,
				kind text NOT NULL, sender text NOT NULL, receiver text NOT NULL, amount text NOT NULL)`,
			`CREATE TABLE analytics_candles (jetton text, quote text, interval_s integer, bucket bigint, open text NOT NULL, high text NOT NULL,
				low text NOT NULL, close text NOT NULL, open_key text NOT NULL, close_key text NOT NULL, volume_base text NOT NULL,
				volume_quote text NOT NULL, trades bigint NOT NULL, PRIMARY KEY (jetton, quote, interval_s, bucket))`,
			`CREATE TABLE analytics_volumes (jetton text, interval_s integer, bucket bigint, transfers bigint NOT NULL, transfer_amount text NOT NULL,
				mints bigint NOT NULL, mint_amount text NOT NULL, burns bigint NOT NULL, burn_amount text NOT NULL, senders bigint NOT NULL,
				receivers bigint NOT NULL, PRIMARY KEY (jetton, interval_s, bucket))`}
		if !add {
			stmts = []string{`ALTER TABLE actions DROP COLUMN parent_action_id`,
				`ALTER TABLE actions DROP COLUMN ancestors`, `ALTER TABLE action_accounts DROP COLUMN ancestors`,
				`ALTER TABLE transactions DROP COLUMN facts`, `ALTER TABLE messages DROP COLUMN facts`,
				`ALTER TABLE transactions DROP COLUMN block_workchain`,
				`ALTER TABLE transactions DROP COLUMN block_shard`, `ALTER TABLE transactions DROP COLUMN block_seqno`,
				`DROP TABLE token_metadata`, `DROP TABLE analytics_trades`, `DROP TABLE analytics_moves`,
				`ALTER TABLE actions DROP COLUMN trace_external_hash`, `DROP TABLE pending_traces`, `DROP TABLE pending_trace_accounts`,
				`ALTER TABLE transactions DROP COLUMN seq`, `DROP TABLE analytics_candles`, `DROP TABLE analytics_volumes`,
				`ALTER TABLE messages DROP COLUMN body_hash`, `ALTER TABLE messages DROP COLUMN created_at`,
				`ALTER TABLE traces DROP COLUMN seq`}
		}
		for _, q := range stmts {
			_, err := s.db.ExecContext(ctx, q)
			require.NoError(t, err)
		}
	}
	old := migrate.NewMigrator(s.db, before)
	require.NoError(t, old.Init(ctx))
	_, err = old.Migrate(ctx)
	require.NoError(t, err)
	require.NoError(t, s.detectPartitions(ctx))
	require.False(t, s.Partitioned())

	const first = 7 * migrations.LtSpan
	b := partitionedBatch(t, first)
	later(true)
	require.NoError(t, s.SaveBatch(ctx, b))
	fs := partitionFilters(t, s, b)
	want, counts := answers(t, s, fs), tableCounts(t, s)
	require.Equal(t, 6000, counts["actions"])
	later(false)

	check := func(stage string) {
		t.Helper()
		got := answers(t, s, fs)
		for name := range want {
			require.Equal(t, want[name], got[name], "%s: %s", stage, name)
		}
		require.Equal(t, counts, tableCounts(t, s), stage)
	}
	applied, err := s.Migrate(ctx)
	require.NoError(t, err)
	require.Equal(t, upgrade, applied)
	require.True(t, s.Partitioned())
	check("after the migration")

	parts, err := s.Partitions(ctx)
	require.NoError(t, err)
	// Four spans of data and the one after, for each of four tables.
	require.Len(t, parts, 5*4)
	for _, p := range parts {
		require.Equal(t, p.StartLt+migrations.LtSpan, p.EndLt)
	}

	// Rolled back: plain tables again, the same answers, and writes with the
	// plain conflict targets; then partitioned again.
	// The rollback runs as another process would (this store is not told):
	// its next write finds the plain tables and writes as they want.
	_, err = migrate.NewMigrator(s.db, migrations.New()).Rollback(ctx)
	require.NoError(t, err)
	later(true)
	check("rolled back")
	require.True(t, s.Partitioned(), "not looked again yet")
	require.NoError(t, s.SaveBatch(ctx, b))
	require.False(t, s.Partitioned())
	check("rolled back and saved again")
	later(false)
	// Migrated again by another process: the same the other way.
	other, err := Open(ctx, url)
	require.NoError(t, err)
	_, err = other.Migrate(ctx)
	require.NoError(t, err)
	other.Close()
	require.False(t, s.Partitioned(), "not looked again yet")
	require.NoError(t, s.SaveBatch(ctx, b))
	require.True(t, s.Partitioned())
	check("migrated again")

	// Saving the batch again changes nothing: the conflict targets with the
	// partition key still find every row.
	require.NoError(t, s.SaveBatch(ctx, b))
	check("saved again")

	// Pruning: an lt window reads its partition; a cursor, the partitions
	// on its side of it (the others are never opened).
	lt := func(v uint64) *uint64 { return &v }
	span := func(k int) string { return fmt.Sprintf("actions_p%d", first+int64(k)*migrations.LtSpan) }
	s2Lo := uint64(first + migrations.LtSpan)
	cases := []struct {
		name string
		f    ActionFilter
		may  []string // the spans it may read, as names of actions partitions (an ordered walk stops early)
	}{
		{"lt window in one span", ActionFilter{StartLt: lt(s2Lo + 1000), EndLt: lt(s2Lo + migrations.LtSpan - 1000)}, []string{span(1)}},
		{"account lt window in one span", ActionFilter{Account: synth.HotAccount(partSeed, 0), StartLt: lt(s2Lo + 1000), EndLt: lt(s2Lo + migrations.LtSpan - 1000)}, []string{span(1)}},
		{"types, lt from the third span", ActionFilter{Types: []string{"TonTransfer"}, StartLt: lt(s2Lo + migrations.LtSpan)}, []string{span(2), span(3), span(4)}},
		{"cursor in the second span, newest first", ActionFilter{After: &ActionKey{EndLt: s2Lo + 500_000, ActionID: "~"}}, []string{span(0), span(1)}},
		{"cursor in the fourth span, oldest first", ActionFilter{After: &ActionKey{EndLt: s2Lo + 2*migrations.LtSpan + 500_000}, Asc: true}, []string{span(3), span(4)}},
		{"newest page", ActionFilter{}, []string{span(3), span(4)}}, // span(4): made ahead, empty
		{"oldest page", ActionFilter{Asc: true}, []string{span(0)}},
	}
	for _, c := range cases {
		c.f.Limit = 10
		plan, err := s.ExplainActions(ctx, c.f)
		require.NoError(t, err)
		// Spans read, of actions and of action_accounts (an account's page).
		var read []string
		for _, p := range partitionsScanned(plan) {
			if sp := "actions" + p[strings.LastIndex(p, "_"):]; !slices.Contains(read, sp) {
				read = append(read, sp)
			}
		}
		t.Logf("%s: reads %v\n%s", c.name, read, plan)
		require.NotEmpty(t, read, c.name)
		require.Subset(t, c.may, read, c.name)
	}

	// An action's links (GraphQL's participants and transactions_full) are
	// read from the partitions of its lts alone.
	inSpan1, err := s.ListActions(ctx, ActionFilter{StartLt: lt(s2Lo + 1000), EndLt: lt(s2Lo + migrations.LtSpan - 1000), Limit: 20}, NoBook)
	require.NoError(t, err)
	require.NotEmpty(t, inSpan1.Actions)
	arefs, trefs := linkRefs(inSpan1.Actions)
	var arows []actionAccountRow
	var trows []txRow
	for name, q := range map[string]*bun.SelectQuery{
		"participants": participantsQuery(s.db, arefs, &arows), "transactions": transactionsQuery(s.db, trefs, &trows)} {
		var plan []string
		require.NoError(t, s.db.NewRaw("EXPLAIN (ANALYZE, COSTS OFF) "+q.String()).Scan(ctx, &plan))
		read := partitionsScanned(strings.Join(plan, "\n"))
		require.NotEmpty(t, read, name)
		for _, p := range read {
			require.True(t, strings.HasSuffix(p, "_p"+fmt.Sprint(s2Lo)), "%s reads %s:\n%s", name, p, strings.Join(plan, "\n"))
		}
	}

	// A write far past the last partition makes its span's partitions and
	// the next, before any row is written, while another transaction reads
	// actions and writes action_accounts (held open): attaching waits for
	// neither (making the partitions with CREATE TABLE ... PARTITION OF
	// would, and fail after ensurePartitions' 5 s lock timeout).
	busy, err := s.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer busy.Rollback() //nolint:errcheck
	var seen int
	require.NoError(t, busy.NewRaw("SELECT count(*) FROM actions").Scan(ctx, &seen))
	_, err = busy.ExecContext(ctx, "LOCK TABLE action_accounts IN ROW EXCLUSIVE MODE")
	require.NoError(t, err)
	far := uint64(first + 10*migrations.LtSpan + 12345)
	a := b.Actions[0]
	a.ActionID, a.TraceID, a.EndLt, a.StartLt, a.TraceEndLt = "far-ahead", "far-trace", far, far-20, far
	a.Transactions, a.TxLts, a.TxHash = []string{"far-tx"}, []uint64{far}, "far-tx"
	require.NoError(t, s.SaveBatch(ctx, &Batch{Actions: []chain.Action{a}}))
	require.NoError(t, busy.Commit())
	parts, err = s.Partitions(ctx)
	require.NoError(t, err)
	require.Len(t, parts, 7*4)
	names := map[string]bool{}
	for _, p := range parts {
		names[p.Name] = true
	}
	require.True(t, names[fmt.Sprintf("actions_p%d", first+10*migrations.LtSpan)])
	require.True(t, names[fmt.Sprintf("action_transactions_p%d", first+11*migrations.LtSpan)])
	var indexes int
	require.NoError(t, s.db.NewRaw("SELECT count(*) FROM pg_indexes WHERE tablename = ?",
		fmt.Sprintf("actions_p%d", first+10*migrations.LtSpan)).Scan(ctx, &indexes))
	require.Equal(t, 9, indexes, "the primary key and the eight indexes of actions")
	// The columns added to the parents after the partitioning (ALTER TABLE
	// on a partitioned table) are a new partition's too, defaults included.
	var cols []string
	require.NoError(t, s.db.NewRaw(`SELECT table_name || '.' || column_name || '=' || column_default FROM information_schema.columns
		WHERE table_name IN (?, ?) AND column_name IN ('parent_action_id', 'ancestors') ORDER BY 1`,
		fmt.Sprintf("actions_p%d", first+10*migrations.LtSpan), fmt.Sprintf("action_accounts_p%d", first+10*migrations.LtSpan)).Scan(ctx, &cols))
	require.Equal(t, []string{
		fmt.Sprintf("action_accounts_p%d.ancestors=''::text", first+10*migrations.LtSpan),
		fmt.Sprintf("actions_p%d.ancestors=''::text", first+10*migrations.LtSpan),
		fmt.Sprintf("actions_p%d.parent_action_id=''::text", first+10*migrations.LtSpan)}, cols)
	page, err := s.ListActions(ctx, ActionFilter{Limit: 1}, NoBook)
	require.NoError(t, err)
	require.Equal(t, "far-ahead", page.Actions[0].ActionID)

	// Detaching the oldest span takes its actions out of every answer and
	// leaves the tables for the operator.
	detached, err := s.DetachPartitionsBefore(ctx, uint64(first+migrations.LtSpan))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"actions_p" + fmt.Sprint(first), "action_accounts_p" + fmt.Sprint(first),
		"action_transactions_p" + fmt.Sprint(first), "transactions_p" + fmt.Sprint(first)}, detached)
	page, err = s.ListActions(ctx, ActionFilter{Limit: 5, Asc: true}, NoBook)
	require.NoError(t, err)
	require.GreaterOrEqual(t, page.Actions[0].EndLt, uint64(first+migrations.LtSpan))
	var kept int
	require.NoError(t, s.db.NewRaw(fmt.Sprintf("SELECT count(*) FROM actions_p%d", first)).Scan(ctx, &kept))
	require.Equal(t, 1500, kept)

	// A write into the detached range fails rather than fill DEFAULT.
	a.ActionID, a.EndLt, a.TxLts = "into-detached", uint64(first+5), []uint64{uint64(first + 5)}
	s2, err := Open(ctx, url) // a process that has not seen the span yet
	require.NoError(t, err)
	defer s2.Close()
	err = s2.SaveBatch(ctx, &Batch{Actions: []chain.Action{a}})
	require.ErrorContains(t, err, "detached")
}

// linkRefs names the actions of a page and their transactions.
func linkRefs(page []*chain.Action) ([]ActionRef, []TxRef) {
	var as []ActionRef
	var ts []TxRef
	for _, a := range page {
		as = append(as, RefOf(a))
		ts = append(ts, TxRefsOf(a)...)
	}
	return as, ts
}
