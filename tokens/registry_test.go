package tokens_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
)

const replayFile = "fee-replay/tvm_replay_fat_block_66519406.json"

// tsTON is Tonstakers' jetton master, whose content is semi-chain.
const tsTON = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"

// importReplay imports the fee-replay block with the registry on.
func importReplay(t *testing.T, st *store.Store) {
	t.Helper()
	im := ingest.New(st)
	im.Tokens = tokens.ForStore(st, nil).Hook
	_, err := im.ImportFile(context.Background(), testenv.Fixture(t, replayFile))
	require.NoError(t, err)
}

// blockNewHashes is, for each account of the block, the hash of its
// Account cell after the block as the block itself records it (its
// account blocks' HASH_UPDATE): ground truth the replay cannot fake.
func blockNewHashes(t *testing.T) map[string]chain.Hash {
	t.Helper()
	raw, err := os.ReadFile(testenv.Fixture(t, replayFile))
	require.NoError(t, err)
	var f struct {
		Block string `json:"block_boc_base64"`
	}
	require.NoError(t, json.Unmarshal(raw, &f))
	b, err := chain.DecodeBase64(f.Block)
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(b)
	require.NoError(t, err)
	var block tlb.Block
	require.NoError(t, tlb.Unmarshal(cells[0], &block))
	wc := block.Info.Shard.WorkchainID
	out := map[string]chain.Hash{}
	for _, ab := range block.Extra.AccountBlocks.Values() {
		out[chain.RawAddress(ton.AccountID{Workchain: wc, Address: ab.AccountAddr})] = chain.Hash(ab.StateUpdate.NewHash)
	}
	return out
}

// accountHash is the hash of a ShardAccount's Account cell.
func accountHash(t *testing.T, shardAccount []byte) chain.Hash {
	t.Helper()
	cells, err := boc.DeserializeBoc(shardAccount)
	require.NoError(t, err)
	ref, err := cells[0].NextRef()
	require.NoError(t, err)
	h, err := ref.Hash256()
	require.NoError(t, err)
	return chain.Hash(h)
}

// TestReplayBalancesAreTheChains: every jetton wallet of the fee-replay
// block is in the registry with the balance, owner and master that
// get_wallet_data gives on its state after the block, and that state is
// the chain's (its hash is the block's new hash of the account).
func TestReplayBalancesAreTheChains(t *testing.T) {
	path := testenv.Fixture(t, replayFile)
	p, err := ingest.ParseFile(path)
	require.NoError(t, err)
	require.NoError(t, p.AfterErr)
	newHashes := blockNewHashes(t)
	after := map[string]*chain.AccountState{}
	for i := range p.After {
		st := &p.After[i]
		require.Equal(t, newHashes[st.Address], accountHash(t, st.ShardAccountBOC), "after-state of %s is not the chain's", st.Address)
		after[st.Address] = st
	}
	require.Greater(t, len(after), len(newHashes)*9/10, "most accounts replay")

	src := fees.NewMemorySource(p.Config)
	run := getmethod.New(fees.New(src, nil, fees.Options{}))
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t, db.URL)
			importReplay(t, st)
			wallets, err := st.JettonWallets(ctx, store.JettonWalletFilter{TokenPage: store.TokenPage{Limit: 1000}})
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(wallets), 5, "the block moves jettons of several wallets")
			for _, w := range wallets {
				state := after[w.Address]
				require.NotNil(t, state, w.Address)
				res, err := run.RunState(ctx, state, getmethod.Method{Name: "get_wallet_data"}, tlb.VmStack{})
				require.NoError(t, err)
				require.Equal(t, 0, res.ExitCode)
				bal, ok := getmethod.Int(res.Stack.PeekBottom(0))
				require.True(t, ok)
				owner, _ := getmethod.Address(res.Stack.PeekBottom(1))
				master, _ := getmethod.Address(res.Stack.PeekBottom(2))
				require.Equal(t, bal.String(), w.Balance, w.Address)
				require.Equal(t, owner, w.Owner, w.Address)
				require.Equal(t, master, w.Jetton, w.Address)
				require.Equal(t, state.LastTxLt, w.LastTxLt)
			}
		})
	}
}
