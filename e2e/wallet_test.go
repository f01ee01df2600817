package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

// Wallets of the fee-replay block: a v4R2 and a v5R1, and an account to
// send to.
const (
	flowV4        = "0:89F356BD10B3C8609187C5ABCD7BB1D5840C7F8A88E73DEBFF8E64FFD8F12010"
	flowV5        = "0:BC91B30E0AFE5CB6DB47B1F2127C83B63F75207102FC3499A6A7B8182C85115E"
	flowRecipient = "0:DFEC1432BEFD22C3DAB019A242DE41B915C817FB110CBBC6036D60BC3A586104"
	replayMc      = 66519406
)

// TestClientsAgainstBinaryHeadClock runs `tonql serve` as shipped with
// FEE_CLOCK=head over the imported fee-replay block, and drives it with
// @ton/ton and tonweb, unchanged:
//   - the block's 12 external messages estimated by both clients cost
//     what the chain charged: storage, gas and forwarding to the nanoton,
//     and the import fee too but for the two bodies their senders put by
//     reference (one cell more, docs/FEES.md);
//   - a wallet's flow: TonClient.getContractState, WalletContractV4/V5R1
//     getSeqno through runGetMethod, estimateExternalMessageFee of a
//     transfer the client builds, and sendFile (and sendTransfer) answered
//     with the clear error of a server without lite servers; tonweb's
//     getWalletInfo, getBalance, wallet.methods.seqno, estimateFee, send.
func TestClientsAgainstBinaryHeadClock(t *testing.T) {
	nodeBin := node(t)
	fixture := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	_, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)
	require.Len(t, msgs, 12)
	parsed, err := ingest.ParseFile(fixture)
	require.NoError(t, err)

	dir := t.TempDir()
	bin := buildTonql(t, dir)
	env := append(os.Environ(), "DATABASE_URL=sqlite:"+filepath.Join(dir, "tonql.db"), "REDIS_URL=", "FEE_CLOCK=head",
		"LITE_SERVERS=", "LITE_SERVERS_CONFIG=", "FOLLOW=false")
	imp := exec.Command(bin, "import", fixture)
	imp.Env = env
	out, err := imp.CombinedOutput()
	require.NoError(t, err, string(out))
	base := startBinary(t, bin, env)

	replay := make([]map[string]string, len(msgs))
	for i, m := range msgs {
		replay[i] = map[string]string{"address": m.Account.ToRaw(), "body": m.Body}
	}
	input := map[string]any{
		"endpoint":  base + "/api/v2/jsonRPC",
		"replay":    replay,
		"v4":        map[string]string{"address": flowV4, "publicKey": publicKey(t, parsed, flowV4, 64)},
		"v5":        map[string]string{"address": flowV5, "publicKey": publicKey(t, parsed, flowV5, 65)},
		"recipient": flowRecipient,
	}
	a := runScript(t, nodeBin, "wallet.mjs", input)

	// the 12 messages, through both clients, as the chain charged them
	cfg := parsed.Config.ConfigBOC
	byRef := 0
	for i, m := range msgs {
		extra, err := fees.ByRefSurcharge(cfg, m)
		require.NoError(t, err)
		if m.BodyByRef {
			byRef++
			require.NotZero(t, extra)
		}
		for _, client := range []string{"ton", "tonweb"} {
			var got fees.Fees
			a.value(fmt.Sprintf("replay/%s/%d", client, i), &got)
			want := m.Charged
			require.Equal(t, [3]uint64{want.StorageFee, want.GasFee, want.FwdFee}, [3]uint64{got.StorageFee, got.GasFee, got.FwdFee},
				"%s message %d (%s): storage/gas/fwd", client, i, m.Account.ToRaw())
			require.Equal(t, want.InFwdFee, got.InFwdFee+extra, "%s message %d: in_fwd_fee (by ref: %v)", client, i, m.BodyByRef)
		}
	}
	require.Equal(t, 2, byRef)

	// and previewed whole, through the binary's /api/v3/emulate: the
	// trace complete, the source fees exactly the chain's, import fee too
	for i, m := range msgs {
		body, _ := json.Marshal(map[string]string{"boc": m.Message})
		resp, err := http.Post(base+"/api/v3/emulate", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		var pv struct {
			SourceFees fees.Fees `json:"source_fees"`
			Complete   bool
			Clock      string
			Actions    []struct{ Type string }
		}
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&pv))
		resp.Body.Close()
		want := m.Charged
		want.Type = ""
		require.Equal(t, want, pv.SourceFees, "preview of message %d", i)
		require.True(t, pv.Complete, "message %d", i)
		require.Equal(t, "head", pv.Clock)
		require.NotEmpty(t, pv.Actions, "message %d", i)
	}

	// @ton/ton's wallet flow
	var mc struct{ LatestSeqno, InitSeqno, Workchain int }
	a.value("ton/masterchain", &mc)
	require.Equal(t, replayMc, mc.LatestSeqno)
	require.Equal(t, -1, mc.Workchain)
	for name, addr := range map[string]string{"v4": flowV4, "v5": flowV5} {
		var gotAddr string
		a.value("ton/"+name+"/address", &gotAddr)
		require.Equal(t, strings.ToLower(addr), gotAddr, "%s: the client's contract is the fixture's wallet", name)
		var state struct {
			State            string
			Balance          string
			HasCode, HasData bool
			LastLt           string
		}
		a.value("ton/"+name+"/state", &state)
		st := stateOf(t, parsed, addr)
		require.Equal(t, "active", state.State)
		require.Equal(t, fmt.Sprint(st.Balance), state.Balance)
		require.True(t, state.HasCode && state.HasData)
		require.Equal(t, fmt.Sprint(st.LastTxLt), state.LastLt)
		var seqno int
		a.value("ton/"+name+"/seqno", &seqno)
		require.Equal(t, seqnoInData(t, parsed, addr, map[string]int{"v4": 0, "v5": 1}[name]), seqno, name)
		var f fees.Fees
		a.value("ton/"+name+"/fee", &f)
		require.NotZero(t, f.GasFee, name)
		require.NotZero(t, f.FwdFee, name+": the transfer sends a message")
		for _, send := range []string{"send", "sendFile"} {
			a.failed("ton/"+name+"/"+send, "no lite server is configured")
		}
	}
	t.Logf("sendFile, as @ton/ton shows it: %s", a.raw["ton/v4/sendFile"])

	// tonweb's
	var webAddr string
	a.value("tonweb/v4/address", &webAddr)
	require.Equal(t, strings.ToLower(flowV4), webAddr)
	var wi struct {
		Wallet       bool
		Seqno        int
		AccountState string `json:"account_state"`
		WalletType   string `json:"wallet_type"`
		WalletID     int64  `json:"wallet_id"`
	}
	a.value("tonweb/v4/walletInfo", &wi)
	require.True(t, wi.Wallet)
	require.Equal(t, "wallet v4 r2", wi.WalletType)
	require.Equal(t, "active", wi.AccountState)
	var webSeqno int
	a.value("tonweb/v4/seqno", &webSeqno)
	require.Equal(t, wi.Seqno, webSeqno)
	require.Equal(t, seqnoInData(t, parsed, flowV4, 0), webSeqno)
	var bal string
	a.value("tonweb/v4/balance", &bal)
	require.Equal(t, fmt.Sprint(stateOf(t, parsed, flowV4).Balance), bal)
	var info string
	a.value("tonweb/v4/addressInfo", &info)
	require.Equal(t, "active", info)
	var wf fees.Fees
	a.value("tonweb/v4/fee", &wf)
	require.NotZero(t, wf.GasFee)
	a.failed("tonweb/v4/send", "no lite server is configured")
	var webMc int
	a.value("tonweb/masterchain", &webMc)
	require.Equal(t, replayMc, webMc)
}

type scriptAnswers struct {
	t   *testing.T
	raw map[string]json.RawMessage
}

func runScript(t *testing.T, nodeBin, script string, input any) *scriptAnswers {
	t.Helper()
	in, err := json.Marshal(input)
	require.NoError(t, err)
	inPath := filepath.Join(t.TempDir(), "input.json")
	require.NoError(t, os.WriteFile(inPath, in, 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, script, inPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	a := &scriptAnswers{t: t}
	require.NoError(t, json.Unmarshal(stdout, &a.raw), string(stdout))
	return a
}

// scriptAnswer is one case of a client script's answers.
type scriptAnswer struct {
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

func (a *scriptAnswers) answer(name string) scriptAnswer {
	a.t.Helper()
	var ans scriptAnswer
	require.Contains(a.t, a.raw, name)
	require.NoError(a.t, json.Unmarshal(a.raw[name], &ans))
	return ans
}

// value decodes a case's value; the case must have succeeded.
func (a *scriptAnswers) value(name string, v any) {
	a.t.Helper()
	ans := a.answer(name)
	require.Empty(a.t, ans.Error, name)
	require.NoError(a.t, json.Unmarshal(ans.Value, v), name)
}

func (a *scriptAnswers) failed(name, want string) {
	a.t.Helper()
	ans := a.answer(name)
	require.Nil(a.t, ans.Value, name)
	require.Contains(a.t, ans.Error, want, name)
}

func stateOf(t *testing.T, p *ingest.Parsed, addr string) struct{ Balance, LastTxLt uint64 } {
	t.Helper()
	for _, st := range p.Accounts {
		if st.Address == addr {
			return struct{ Balance, LastTxLt uint64 }{st.Balance, st.LastTxLt}
		}
	}
	t.Fatalf("no state of %s in the fixture", addr)
	return struct{ Balance, LastTxLt uint64 }{}
}

// walletData is a wallet's data cell in the fixture, read from offset.
func walletData(t *testing.T, p *ingest.Parsed, addr string, offset int) *boc.Cell {
	t.Helper()
	for _, st := range p.Accounts {
		if st.Address != addr {
			continue
		}
		sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
		require.NoError(t, err)
		d := sa.Account.Account.Storage.State.AccountActive.StateInit.Data.Value.Value
		require.NoError(t, d.Skip(offset))
		return &d
	}
	t.Fatalf("no state of %s in the fixture", addr)
	return nil
}

// publicKey reads a wallet's public key (after seqno and wallet id, and
// v5's flag).
func publicKey(t *testing.T, p *ingest.Parsed, addr string, offset int) string {
	t.Helper()
	d := walletData(t, p, addr, offset)
	b, err := d.ReadBytes(32)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func seqnoInData(t *testing.T, p *ingest.Parsed, addr string, offset int) int {
	t.Helper()
	d := walletData(t, p, addr, offset)
	n, err := d.ReadUint(32)
	require.NoError(t, err)
	return int(n)
}
