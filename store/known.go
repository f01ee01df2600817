package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// traceKnownRow is what an indexer's file said about a trace's accounts
// (migration 20261201000031): the classifier's input beside the messages.
type traceKnownRow struct {
	bun.BaseModel `bun:"table:trace_known,alias:trace_known"`

	TraceID string `bun:"trace_id,pk"`
	Known   string `bun:"known,notnull"` // chain.KnownContracts as JSON
}

// TraceKnown reads what was known about the accounts of the given traces
// (base64 ids) when they were imported, by trace id; traces without any
// are absent.
func (s *Store) TraceKnown(ctx context.Context, ids []string) (map[string]chain.KnownContracts, error) {
	out := map[string]chain.KnownContracts{}
	for start := 0; start < len(ids); start += 1000 {
		var rows []traceKnownRow
		if err := s.db.NewSelect().Model(&rows).
			Where("trace_id IN (?)", bun.In(ids[start:min(start+1000, len(ids))])).Scan(ctx); err != nil {
			return nil, unavailable(err)
		}
		for _, r := range rows {
			var k chain.KnownContracts
			if err := json.Unmarshal([]byte(r.Known), &k); err != nil {
				return nil, fmt.Errorf("trace_known %s: %w", r.TraceID, err)
			}
			out[r.TraceID] = k
		}
	}
	return out, nil
}

// saveKnown replaces the known facts of the batch's traces. encoding/json
// writes map keys in order, so the same facts are the same text and a
// repeated import rewrites nothing.
func saveKnown(ctx context.Context, w *writer, known map[string]chain.KnownContracts) error {
	if len(known) == 0 {
		return nil
	}
	rows := make([]traceKnownRow, 0, len(known))
	for id, k := range known {
		if len(k) == 0 {
			continue
		}
		b, err := json.Marshal(k)
		if err != nil {
			return fmt.Errorf("save trace known %s: %w", id, err)
		}
		rows = append(rows, traceKnownRow{TraceID: id, Known: string(b)})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].TraceID < rows[j].TraceID })
	return queueRows(ctx, w, "save trace known", rows,
		"CONFLICT (trace_id) DO UPDATE SET known = EXCLUDED.known WHERE trace_known.known <> EXCLUDED.known")
}
