package actions_test

import (
	"testing"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
)

// BenchmarkTokenMovesVsClassify: the write path's cost of decoding token
// moves (actions.TokenMoves over a batch's transactions) beside
// classifying the same traces, on the fee-replay block (269 transactions,
// 8 transfer and 1 burn requests). The ratio is what token_moves adds to
// an import's decoding (docs/PERFORMANCE.md).
func BenchmarkTokenMovesVsClassify(b *testing.B) {
	p, err := ingest.ParseFile(testenv.Fixture(b, tokenfixture.ReplayBlock))
	if err != nil {
		b.Fatal(err)
	}
	traces := chain.NewAssembler().Add(p.Transactions)
	var txs []*chain.Transaction
	for _, tr := range traces {
		txs = append(txs, tr.TransactionList()...)
	}
	b.Run("classify", func(b *testing.B) {
		for range b.N {
			for _, tr := range traces {
				actions.Classify(tr, p.Known)
			}
		}
	})
	b.Run("token_moves", func(b *testing.B) {
		for range b.N {
			if len(actions.TokenMoves(txs)) == 0 {
				b.Fatal("no moves")
			}
		}
	})
}
