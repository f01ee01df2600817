package e2e

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/walletmsg"
)

// preview is the part of a preview the TON Connect checks compare.
type preview struct {
	SourceFees      fees.Fees   `json:"source_fees"`
	DestinationFees []fees.Fees `json:"destination_fees"`
	Risk            struct {
		Sender    string `json:"sender"`
		TonOut    string `json:"ton_out"`
		SendsAll  bool   `json:"sends_all"`
		Fails     bool   `json:"fails"`
		TotalFees uint64 `json:"total_fees"`
	} `json:"risk"`
}

// TestTonConnectPreviews runs `tonql serve` as shipped over the imported
// fee-replay block and previews TON Connect requests written by a dApp
// with @ton/core for the block's real v4R2 and v5R1 wallets:
//   - each costs exactly what the same transfer costs signed by @ton/ton's
//     WalletContractV4 / WalletContractV5R1 (createTransfer at the seqno
//     read through the API, send mode 3, the same valid_until), source and
//     destination fees and the risk summary alike, and toncenter's
//     emulateTonConnect route answers for it;
//   - the requests of what those wallets signed in the block (their out
//     messages as TON Connect writes them) cost what the chain charged;
//   - a wallet not deployed yet, given its StateInit, is previewed as its
//     deployment;
//   - requests that cannot be built are 422s naming the field and why.
func TestTonConnectPreviews(t *testing.T) {
	nodeBin := node(t)
	fixture := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	_, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)
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

	// the block's signed messages of the two wallets, as TON Connect requests
	var chain []map[string]any
	charged := map[string]fees.ExternalMessage{}
	for _, w := range []struct {
		addr string
		ver  wallet.Version
	}{{flowV4, wallet.V4R2}, {flowV5, wallet.V5R1}} {
		for _, m := range msgs {
			if !strings.EqualFold(m.Account.ToRaw(), w.addr) {
				continue
			}
			tc, _, err := walletmsg.TonConnectOf(m.Message, w.ver)
			require.NoError(t, err)
			name := w.ver.ToString()
			charged[name] = m
			chain = append(chain, map[string]any{"name": name, "request": map[string]any{
				"from": m.Account.ToHuman(true, false), "messages": tc, "valid_until": time.Now().Add(time.Hour).Unix()}})
		}
	}
	require.Len(t, chain, 2)

	validUntil := time.Now().Add(time.Hour).Unix()
	a := runScript(t, nodeBin, "tonconnect.mjs", map[string]any{
		"base": base,
		"wallets": []map[string]string{
			{"name": "v4", "address": flowV4, "publicKey": publicKey(t, parsed, flowV4, 64), "version": "v4"},
			{"name": "v5", "address": flowV5, "publicKey": publicKey(t, parsed, flowV5, 65), "version": "v5r1"},
		},
		"recipient":  flowRecipient,
		"notWallet":  "0:5CE2C350CB2D47E9BC727C7066E8FAFAFD5A2BC7D361701BEE44A9ECCF818528", // a jetton wallet
		"validUntil": validUntil,
		"chain":      chain,
	})

	for _, name := range []string{"v4", "v5"} {
		var tc, signed preview
		a.value(name+"/tonconnect", &tc)
		a.value(name+"/signed", &signed)
		require.Equal(t, signed, tc, "%s: the TON Connect request costs what @ton/ton's signed transfer costs", name)
		require.NotZero(t, tc.SourceFees.GasFee)
		require.Len(t, tc.DestinationFees, 1, "%s: the transfer's one destination", name)
		require.False(t, tc.Risk.Fails || tc.Risk.SendsAll)
		var tcr struct {
			Transactions int
			Actions      []string
			McBlockSeqno int `json:"mc_block_seqno"`
		}
		a.value(name+"/toncenter", &tcr)
		require.Equal(t, 2, tcr.Transactions)
		require.Equal(t, replayMc, tcr.McBlockSeqno)
		require.Equal(t, []string{"TonTransfer"}, tcr.Actions) // our action types (docs/API-NOTES.md)
	}
	for name, m := range charged {
		var got preview
		a.value("chain/"+name, &got)
		want := m.Charged
		want.Type = ""
		if m.BodyByRef {
			extra, err := fees.ByRefSurcharge(parsed.Config.ConfigBOC, m)
			require.NoError(t, err)
			want.InFwdFee -= extra // the one cell more its wallet app paid for (docs/FEES.md)
		}
		require.Equal(t, want, got.SourceFees, "%s: what the chain charged the signed message", name)
	}

	var dep struct {
		Address  string
		Deployed []string
		Root     string
		Complete bool
	}
	a.value("deploy", &dep)
	require.Equal(t, []string{strings.ToUpper(dep.Address)}, dep.Deployed)
	require.True(t, strings.EqualFold(dep.Address, dep.Root))

	highloadV3(t, nodeBin, base, parsed, msgs)

	for name, says := range map[string]string{
		"not-deployed": "is not deployed; give state_init",
		"too-many":     "messages: 5 messages",
		"expired":      "valid_until: expired",
		"bad-payload":  "messages[0].payload: not base64",
		"not-a-wallet": "from: the account's code is not a wallet",
		"bad-amount":   "messages[0].amount: must be nanotons",
	} {
		a.failed("refuse/"+name, says)
	}
}

// flowHighload is a highload v3 wallet of the fee-replay block.
const flowHighload = "0:FCD79429C113DCD437396311467DCC2DC1F3772C295CAE75D07693E6E0CCEF77"

// highloadV3: a TON Connect request from the block's highload v3 wallet
// costs what the same transfer costs as tonweb's HighloadWalletContractV3
// signs it (@ton/ton and @ton/core have no highload wallet), with the
// query id the wallet took next in the block (the one the preview picks).
func highloadV3(t *testing.T, nodeBin, base string, parsed *ingest.Parsed, msgs []fees.ExternalMessage) {
	t.Helper()
	d := walletData(t, parsed, flowHighload, 0)
	pub, err := d.ReadBytes(32)
	require.NoError(t, err)
	sub, err := d.ReadUint(32)
	require.NoError(t, err)
	require.NoError(t, d.Skip(1+1+64)) // old_queries, queries (refs apart), last_clean_time
	timeout, err := d.ReadUint(22)
	require.NoError(t, err)
	var shift, bit uint64
	for _, m := range msgs {
		if !strings.EqualFold(m.Account.ToRaw(), flowHighload) {
			continue
		}
		c, err := boc.DeserializeBocBase64(m.Message)
		require.NoError(t, err)
		var msg tlb.Message
		require.NoError(t, tlb.Unmarshal(c[0], &msg))
		body := boc.Cell(msg.Body.Value)
		inner, err := body.NextRef()
		require.NoError(t, err)
		require.NoError(t, inner.Skip(40)) // subwallet id, send mode
		shift, err = inner.ReadUint(13)
		require.NoError(t, err)
		bit, err = inner.ReadUint(10)
		require.NoError(t, err)
	}
	require.NotZero(t, shift+bit)
	a := runScript(t, nodeBin, "highload.mjs", map[string]any{
		"base": base, "address": flowHighload, "publicKey": hex.EncodeToString(pub),
		"walletId": sub, "timeout": timeout, "shift": shift, "bitNumber": bit,
		"createdAt": parsed.Blocks[0].GenUtime - 10, "recipient": flowRecipient,
		"validUntil": time.Now().Add(time.Hour).Unix(),
	})
	var tc, signed preview
	a.value("tonconnect", &tc)
	a.value("signed", &signed)
	require.Equal(t, signed, tc, "the TON Connect request costs what tonweb's signed highload v3 transfer costs")
	require.NotZero(t, tc.SourceFees.GasFee)
	require.Len(t, tc.DestinationFees, 1)
	t.Logf("highload v3, query id %d/%d: source fees %+v, risk ton_out %s", shift, bit, tc.SourceFees, tc.Risk.TonOut)
}
