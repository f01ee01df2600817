package store

// dedupe keeps one row per key, so that a batch naming the same row twice
// (a transaction in two overlapping files, an account touched by two blocks
// of one step) is written once. Postgres refuses an INSERT ... ON CONFLICT
// DO UPDATE that would update one row twice. When keys repeat, newer(a, b)
// decides whether b replaces a; nil means the later row wins. Order of first
// appearance is kept, so writes stay deterministic.
func dedupe[T any](rows []T, key func(*T) string, newer func(a, b *T) bool) []T {
	if len(rows) < 2 {
		return rows
	}
	at := make(map[string]int, len(rows))
	out := rows[:0:0]
	for i := range rows {
		k := key(&rows[i])
		j, seen := at[k]
		switch {
		case !seen:
			at[k] = len(out)
			out = append(out, rows[i])
		case newer == nil || newer(&out[j], &rows[i]):
			out[j] = rows[i]
		}
	}
	return out
}

// newerAccount mirrors the ON CONFLICT rule of accounts: a later
// transaction, or the same one read later, wins.
func newerAccount(a, b *accountRow) bool {
	return b.LastTxLt > a.LastTxLt || (b.LastTxLt == a.LastTxLt && b.ReadAtUtime >= a.ReadAtUtime)
}
