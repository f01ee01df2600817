package metadata

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

var (
	replayOnce     sync.Once
	replayContents []chain.TokenContent
	replayErr      error
)

// fixtureContents runs get_jetton_data and get_collection_data (the get
// methods TEP-74 and TEP-62 define) with the project's TVM runner on every
// account state of the fee-replay block, and returns the content cell of
// each account that answers as a jetton master or NFT collection. Nothing
// is chosen by hand: every token the block holds is found.
func fixtureContents(t testing.TB) []chain.TokenContent {
	t.Helper()
	path := testenv.Fixture(t, replayFixture)
	replayOnce.Do(func() { replayContents, replayErr = tokenContentsOf(path) })
	require.NoError(t, replayErr)
	return replayContents
}

const replayFixture = "fee-replay/tvm_replay_fat_block_66519406.json"

func tokenContentsOf(path string) ([]chain.TokenContent, error) {
	p, err := ingest.ParseFile(path)
	if err != nil {
		return nil, err
	}
	src := fees.NewMemorySource(p.Config)
	for i := range p.Accounts {
		src.Put(&p.Accounts[i])
	}
	at := time.Unix(int64(p.Config.Utime), 0)
	r := getmethod.New(fees.New(src, nil, fees.Options{Now: func() time.Time { return at }}))
	var out []chain.TokenContent
	for _, a := range p.Accounts {
		id, err := ton.ParseAccountID(a.Address)
		if err != nil {
			return nil, err
		}
		for _, m := range []struct {
			name, kind     string
			depth, content int
		}{
			// get_jetton_data: total_supply, mintable, admin, content, wallet_code
			{"get_jetton_data", chain.TokenJettonMaster, 5, 3},
			// get_collection_data: next_item_index, content, owner
			{"get_collection_data", chain.TokenNftCollection, 3, 1},
		} {
			res, err := r.Run(context.Background(), id, getmethod.Method{Name: m.name}, tlb.VmStack{})
			if err != nil || res.ExitCode != 0 || res.Stack.Len() != m.depth {
				continue
			}
			v := res.Stack.PeekBottom(m.content)
			if v.SumType != "VmStkCell" {
				continue
			}
			b, err := v.VmStkCell.Value.ToBoc()
			if err != nil {
				return nil, err
			}
			tc, err := NewTokenContent(a.Address, m.kind, b)
			if err != nil {
				return nil, err
			}
			out = append(out, tc)
		}
	}
	return out, nil
}
