package ingest

import (
	"context"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/store"
)

// reclassifyPage is how many traces one step decodes again and saves in
// one database transaction.
const reclassifyPage = 500

// Reclassify decodes every stored trace again from its stored transactions
// and replaces its actions: after an upgrade of the decoder (new types,
// fuller values), the whole history reads as if imported today. Traces are
// read and saved a page at a time, each page in one database transaction,
// so it can run beside a serving server and resume from any point (after
// is the last trace id done, "" to start). progress is called after each
// page with the traces and actions done so far and the last trace id.
//
// Each trace is decoded with what its import knew beyond the chain (an
// indexer's facts about its accounts, stored with it: store.TraceKnown),
// so on the same binary a reclassify changes nothing.
func Reclassify(ctx context.Context, st *store.Store, after string, progress func(traces, actions int, last string)) error {
	traces, acts := 0, 0
	for {
		ids, err := st.TraceIDsAfter(ctx, after, reclassifyPage)
		if err != nil || len(ids) == 0 {
			return err
		}
		txs, err := st.TraceTransactions(ctx, ids)
		if err != nil {
			return err
		}
		known, err := st.TraceKnown(ctx, ids)
		if err != nil {
			return err
		}
		b := &store.Batch{}
		for _, tr := range chain.NewAssembler().Add(txs) {
			b.Traces = append(b.Traces, tr)
			b.Actions = append(b.Actions, actions.Classify(tr, known[tr.ID.Base64()])...)
		}
		b.DNS = actions.DNSNames(b.Actions)
		// Stores written before token_moves get theirs here.
		b.TokenMoves = actions.TokenMoves(txs)
		if err := st.SaveBatch(ctx, b); err != nil {
			return err
		}
		traces, acts, after = traces+len(ids), acts+len(b.Actions), ids[len(ids)-1]
		if progress != nil {
			progress(traces, acts, after)
		}
	}
}
