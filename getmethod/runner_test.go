package getmethod

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

var (
	runnerOnce sync.Once
	runner     *Runner
	runnerErr  error
	blockTime  uint32
)

// replayRunner runs get methods on the fee-replay fixture's states (before
// its block), at the block's time.
func replayRunner(t testing.TB) *Runner {
	t.Helper()
	path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	runnerOnce.Do(func() {
		p, err := ingest.ParseFile(path)
		if err != nil {
			runnerErr = err
			return
		}
		src := fees.NewMemorySource(p.Config)
		for i := range p.Accounts {
			src.Put(&p.Accounts[i])
		}
		blockTime = p.Config.Utime
		runner = New(fees.New(src, nil, fees.Options{Now: func() time.Time { return time.Unix(int64(blockTime), 0) }}))
	})
	require.NoError(t, runnerErr)
	return runner
}

func account(t testing.TB, raw string) ton.AccountID {
	t.Helper()
	id, err := ton.ParseAccountID(raw)
	require.NoError(t, err)
	return id
}

const (
	walletV4   = "0:89F356BD10B3C8609187C5ABCD7BB1D5840C7F8A88E73DEBFF8E64FFD8F12010"
	walletV5   = "0:BC91B30E0AFE5CB6DB47B1F2127C83B63F75207102FC3499A6A7B8182C85115E"
	tsTON      = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
	v4TsWallet = "0:5CE2C350CB2D47E9BC727C7066E8FAFAFD5A2BC7D361701BEE44A9ECCF818528"
)

// seqnoInData reads a wallet's seqno where its data keeps it.
func seqnoInData(t *testing.T, r *Runner, raw string, offset int) uint64 {
	t.Helper()
	st, err := r.est.State(context.Background(), raw)
	require.NoError(t, err)
	sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
	require.NoError(t, err)
	d := sa.Account.Account.Storage.State.AccountActive.StateInit.Data.Value.Value
	require.NoError(t, d.Skip(offset))
	n, err := d.ReadUint(32)
	require.NoError(t, err)
	return n
}

func TestSeqnoOfWallets(t *testing.T) {
	r := replayRunner(t)
	for _, w := range []struct {
		addr   string
		offset int
	}{{walletV4, 0}, {walletV5, 1}} {
		res, err := r.Run(context.Background(), account(t, w.addr), Method{Name: "seqno"}, tlb.VmStack{})
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode)
		require.Positive(t, res.GasUsed)
		rendered, err := RenderStack(res.Stack)
		require.NoError(t, err)
		want := seqnoInData(t, r, w.addr, w.offset)
		require.Equal(t, []any{[]any{"num", hexNumber(big.NewInt(int64(want)))}}, rendered, w.addr)
		t.Logf("%s seqno %d, gas %d", w.addr[:10], want, res.GasUsed)
	}
}

// TestJettonWalletAddress asks the tsTON master for a holder's wallet
// (get_wallet_address with an address slice, as wallets ask it) and gets
// the wallet that holds that holder's tsTON in the block.
func TestJettonWalletAddress(t *testing.T) {
	r := replayRunner(t)
	owner := boc.NewCell()
	holder := account(t, walletV4)
	require.NoError(t, tlb.Marshal(owner, holder.ToMsgAddress()))
	b, err := owner.ToBocBase64()
	require.NoError(t, err)
	stack, err := ParseStack(json.RawMessage(`[["tvm.Slice","` + b + `"]]`))
	require.NoError(t, err)
	res, err := r.Run(context.Background(), account(t, tsTON), Method{Name: "get_wallet_address"}, stack)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode)
	require.Equal(t, 1, res.Stack.Len())
	slice, err := res.Stack.PeekBottom(0).VmStkSlice.CellSafe()
	require.NoError(t, err)
	var addr tlb.MsgAddress
	require.NoError(t, tlb.Unmarshal(slice, &addr))
	id, err := ton.AccountIDFromTlb(addr)
	require.NoError(t, err)
	require.Equal(t, v4TsWallet, chain.RawAddress(*id))

	rendered, err := RenderStack(res.Stack)
	require.NoError(t, err)
	require.Equal(t, "cell", rendered[0].([]any)[0], "slices come back as cells, as from toncenter")
}

func TestNotActiveIsExitCode(t *testing.T) {
	r := replayRunner(t)
	nowhere := ton.AccountID{Workchain: 0, Address: [32]byte{1, 2, 3}}
	res, err := r.Run(context.Background(), nowhere, Method{Name: "seqno"}, tlb.VmStack{})
	require.NoError(t, err)
	require.Equal(t, ExitNotActive, res.ExitCode)
	require.Zero(t, res.Stack.Len())
}

func TestUnknownMethodExitCode(t *testing.T) {
	r := replayRunner(t)
	res, err := r.Run(context.Background(), account(t, walletV4), Method{Name: "no_such_method"}, tlb.VmStack{})
	require.NoError(t, err)
	require.Equal(t, 11, res.ExitCode, "TVM's exit code for a method the contract lacks")
}

func TestParseStackErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, "list of [type, value] pairs"},
		{`[["num"]]`, "entry 0: must be a [type, value] pair"},
		{`[[1, 2]]`, "the type must be a string"},
		{`[["num", "0xZZ"]]`, "not an integer"},
		{`[["num", 1.5]]`, "not an integer"},
		{`[["num", "` + string(make([]byte, 0)) + `"]]`, "not an integer"},
		{`[["num", "0x1` + repeat("0", 65) + `"]]`, "257-bit"},
		{`[["cell", 5]]`, "base64 of a BOC"},
		{`[["cell", "not base64!"]]`, "not base64"},
		{`[["tvm.Slice", "te6cc"]]`, "tvm.Slice"},
		{`[["dict", "x"]]`, "unknown type"},
	} {
		_, err := ParseStack(json.RawMessage(tc.in))
		require.Error(t, err, tc.in)
		ae := apperr.From(err)
		require.Equal(t, apperr.Invalid, ae.Kind, tc.in)
		require.Equal(t, "stack", ae.Field, tc.in)
		require.Contains(t, ae.Msg, tc.want, tc.in)
	}
	s, err := ParseStack(json.RawMessage(`[["num", 5], ["num", "-0x1a"], ["int", "12"]]`))
	require.NoError(t, err)
	rendered, err := RenderStack(s)
	require.NoError(t, err)
	require.Equal(t, []any{[]any{"num", "0x5"}, []any{"num", "-0x1a"}, []any{"num", "0xc"}}, rendered)
}

func repeat(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

// TestLibraryCodeRuns runs a get method of a jetton wallet whose code is
// a library cell: the fixture's library dictionary (a root Hashmap, as
// the emulator takes it) must be read and handed to the VM, or the run
// reports the library missing.
func TestLibraryCodeRuns(t *testing.T) {
	r := replayRunner(t)
	const libraryWallet = "0:88DAC67CCEADB9CAE6FAAC7118F05C0FA95DF36C2A92E686AC39D96310D0A387"
	st, err := r.est.State(context.Background(), libraryWallet)
	require.NoError(t, err)
	sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
	require.NoError(t, err)
	require.True(t, sa.Account.Account.Storage.State.AccountActive.StateInit.Code.Value.Value.IsLibrary(), "code is a library cell")
	res, err := r.Run(context.Background(), account(t, libraryWallet), Method{Name: "get_wallet_data"}, tlb.VmStack{})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode)
	require.GreaterOrEqual(t, res.Stack.Len(), 3)
	_, ok := Int(res.Stack.PeekBottom(0))
	require.True(t, ok, "a balance")
	_, ok = Address(res.Stack.PeekBottom(1))
	require.True(t, ok, "an owner")
}
