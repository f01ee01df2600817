package contractfixture

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
)

// TongoMultisig is the mainnet multisig v2 wallet tongo's own ABI tests
// run get_multisig_data on (case "multisigInfo" of abi/generated_test.go
// in the tongo module this project builds with): its code and data as
// tongo's test holds them, and the answer that test expects.
type TongoMultisig struct {
	Account    ton.AccountID
	Code, Data *boc.Cell
	// What tongo's test expects get_multisig_data to answer.
	Seqno     string
	Threshold int
	Signers   []string // raw addresses, in index order
	Proposers bool     // false: the test expects none (null)
}

// tongoDir is the tongo module's source directory (go list -m); skips, or
// fails under TEST_REQUIRE_FIXTURES=1, when it cannot be found.
func tongoDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/tonkeeper/tongo")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err == nil && dir != "" {
		if _, err = os.Stat(filepath.Join(dir, "abi", "generated_test.go")); err == nil {
			return dir
		}
	}
	msg := "tongo module source not found (go list -m github.com/tonkeeper/tongo; go mod download)"
	if os.Getenv("TEST_REQUIRE_FIXTURES") == "1" {
		t.Fatalf("%s: %v", msg, err)
	}
	t.Skip(msg)
	return ""
}

// ReadTongoMultisig reads the "multisigInfo" case from tongo's module
// source at test time (never copied into this repository).
func ReadTongoMultisig(t testing.TB) TongoMultisig {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(tongoDir(t), "abi", "generated_test.go"))
	require.NoError(t, err)
	text := string(src)
	start := strings.Index(text, `name:         "multisigInfo"`)
	require.GreaterOrEqual(t, start, 0, "no multisigInfo case in tongo's abi tests")
	block := text[start:]
	if end := strings.Index(block[1:], "name: "); end > 0 {
		block = block[:end+1]
	}
	field := func(name string) string {
		m := regexp.MustCompile(name + `:\s+"([^"]*)"`).FindStringSubmatch(block)
		require.NotNil(t, m, "multisigInfo: no %s", name)
		return m[1]
	}
	cell := func(name string) *boc.Cell {
		raw, err := hex.DecodeString(field(name))
		require.NoError(t, err)
		cells, err := boc.DeserializeBoc(raw)
		require.NoError(t, err)
		require.Len(t, cells, 1)
		return cells[0]
	}
	var m TongoMultisig
	m.Account, err = ton.ParseAccountID(field("account"))
	require.NoError(t, err)
	m.Code, m.Data = cell("code"), cell("data")
	seqno := regexp.MustCompile(`Seqno:\s+tlb\.Int257\(\*big\.NewInt\((-?\d+)\)\)`).FindStringSubmatch(block)
	require.NotNil(t, seqno, "multisigInfo: no expected Seqno")
	m.Seqno = seqno[1]
	th := regexp.MustCompile(`Threshold:\s+(\d+)`).FindStringSubmatch(block)
	require.NotNil(t, th, "multisigInfo: no expected Threshold")
	m.Threshold, err = strconv.Atoi(th[1])
	require.NoError(t, err)
	for _, a := range regexp.MustCompile(`mustToMsgAddress\("([^"]+)"\)`).FindAllStringSubmatch(block, -1) {
		id, err := ton.ParseAccountID(a[1])
		require.NoError(t, err)
		m.Signers = append(m.Signers, chain.RawAddress(id))
	}
	require.NotEmpty(t, m.Signers, "multisigInfo: no expected signers")
	m.Proposers = !regexp.MustCompile(`Proposers:\s+nil`).MatchString(block)
	return m
}

// StateOf is account id's active state holding code and data, as an import
// stores it, with its last transaction at lt: how the store holds a
// state it read from the chain (the balance, unknown here, is zero; get
// methods that read it are not run on such a state).
func StateOf(t testing.TB, id ton.AccountID, code, data *boc.Cell, lt uint64, readAt uint32) chain.AccountState {
	t.Helper()
	var sa tlb.ShardAccount
	sa.LastTransLt = lt
	sa.Account.SumType = "Account"
	acc := &sa.Account.Account
	acc.Addr = id.ToMsgAddress()
	acc.StorageStat.StorageExtra.SumType = "StorageExtraNone"
	acc.Storage.LastTransLt = lt
	acc.Storage.State.SumType = "AccountActive"
	acc.Storage.State.AccountActive.StateInit = stateInit(code, data)
	cell := boc.NewCell()
	require.NoError(t, tlb.Marshal(cell, sa))
	raw, err := cell.ToBoc()
	require.NoError(t, err)
	st, err := ingest.AccountFromShardAccount(chain.RawAddress(id), raw, readAt)
	require.NoError(t, err)
	return st
}
