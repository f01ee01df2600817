// Package contractfixture deploys real contracts for tests: their code is
// read at test time from the npm packages the end-to-end clients install
// (e2e/node_modules, `npm ci --prefix e2e`; never copied into this
// repository), their data is built as those packages build it, and the
// deploying message runs through tongo's transaction emulator with the
// fee-replay block's config, so the states are the ones the chain would
// hold after that transaction.
package contractfixture

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/tvm"
	"github.com/tonkeeper/tongo/txemulator"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

// ReplayBlock is the fixture whose config the emulator runs with.
const ReplayBlock = "fee-replay/tvm_replay_fat_block_66519406.json"

// nodeModules is e2e/node_modules of this repository; skips (fails under
// TEST_REQUIRE_SERVICES=1) when the packages are not installed.
func nodeModules(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "e2e", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "tonweb")); err != nil {
		if os.Getenv("TEST_REQUIRE_SERVICES") == "1" {
			t.Fatalf("e2e/node_modules missing (run: npm ci --prefix e2e)")
		}
		t.Skip("e2e/node_modules missing (run: npm ci --prefix e2e)")
	}
	return dir
}

// Code reads the contract code a package ships as a hex BOC constant
// (`const NAME = '...'`) in the file rel of e2e/node_modules.
func Code(t testing.TB, rel, name string) *boc.Cell {
	t.Helper()
	return CodeAt(t, rel, `(?:const|var|let)\s+`+regexp.QuoteMeta(name)+`\s*=\s*['"]([0-9A-Fa-f]+)['"]`)
}

// CodeAt reads the hex BOC that the first group of the regular expression
// pattern finds in the file rel of e2e/node_modules (a code passed inline,
// not as a named constant).
func CodeAt(t testing.TB, rel, pattern string) *boc.Cell {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(nodeModules(t), rel))
	require.NoError(t, err)
	m := regexp.MustCompile(pattern).FindSubmatch(src)
	require.NotNil(t, m, "no %s in %s", pattern, rel)
	raw, err := hex.DecodeString(string(m[1]))
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(raw)
	require.NoError(t, err)
	require.Len(t, cells, 1)
	return cells[0]
}

// Chain emulates transactions on accounts it keeps, with the fee-replay
// block's config and time.
type Chain struct {
	t      testing.TB
	config *boc.Cell
	libs   *boc.Cell // the block's public libraries (a multisig order's code is one)
	utime  uint32
	states map[ton.AccountID]tlb.ShardAccount
}

// New is an empty chain with the fixture's config.
func New(t testing.TB) *Chain {
	t.Helper()
	p, err := ingest.ParseFile(testenv.Fixture(t, ReplayBlock))
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(p.Config.ConfigBOC)
	require.NoError(t, err)
	libs, err := boc.DeserializeBoc(p.Config.LibrariesBOC)
	require.NoError(t, err)
	return &Chain{t: t, config: cells[0], libs: libs[0], utime: p.Config.Utime, states: map[ton.AccountID]tlb.ShardAccount{}}
}

// Utime is the chain's time (the fixture block's, one second later for
// each transaction run, plus what Wait added).
func (c *Chain) Utime() uint32 { return c.utime }

// Wait moves the chain's time on by seconds (an auction's end).
func (c *Chain) Wait(seconds uint32) { c.utime += seconds }

// Address is where code and data deploy (workchain 0).
func Address(t testing.TB, code, data *boc.Cell) ton.AccountID {
	t.Helper()
	si := stateInit(code, data)
	cell := boc.NewCell()
	require.NoError(t, tlb.Marshal(cell, si))
	h, err := cell.Hash256()
	require.NoError(t, err)
	return ton.AccountID{Workchain: 0, Address: h}
}

func stateInit(code, data *boc.Cell) tlb.StateInit {
	var si tlb.StateInit
	si.Code.Exists, si.Code.Value.Value = true, *code
	si.Data.Exists, si.Data.Value.Value = true, *data
	return si
}

// Deploy sends value nanotons with code and data (and body, may be nil)
// from src to their address and returns that address.
func (c *Chain) Deploy(src ton.AccountID, code, data, body *boc.Cell, value uint64) ton.AccountID {
	c.t.Helper()
	dst := Address(c.t, code, data)
	si := stateInit(code, data)
	c.send(src, dst, &si, body, value)
	return dst
}

// Send sends an internal message with body from src to dst and returns
// the messages the transaction sent.
func (c *Chain) Send(src, dst ton.AccountID, body *boc.Cell, value uint64) []tlb.Message {
	c.t.Helper()
	return c.send(src, dst, nil, body, value)
}

// Deliver runs the transaction of an internal message a contract sent on
// its destination, and returns the messages that one sent.
func (c *Chain) Deliver(m tlb.Message) []tlb.Message {
	c.t.Helper()
	require.Equal(c.t, "IntMsgInfo", string(m.Info.SumType))
	dst, err := ton.AccountIDFromTlb(m.Info.IntMsgInfo.Dest)
	require.NoError(c.t, err)
	require.NotNil(c.t, dst)
	return c.emulate(*dst, m)
}

func (c *Chain) send(src, dst ton.AccountID, si *tlb.StateInit, body *boc.Cell, value uint64) []tlb.Message {
	c.t.Helper()
	var m tlb.Message
	m.Info.SumType = "IntMsgInfo"
	m.Info.IntMsgInfo = &struct {
		IhrDisabled bool
		Bounce      bool
		Bounced     bool
		Src         tlb.MsgAddress
		Dest        tlb.MsgAddress
		Value       tlb.CurrencyCollection
		IhrFee      tlb.VarUInteger16
		FwdFee      tlb.Grams
		CreatedLt   uint64
		CreatedAt   uint32
	}{IhrDisabled: true, Src: src.ToMsgAddress(), Dest: dst.ToMsgAddress(),
		Value: tlb.CurrencyCollection{Grams: tlb.Grams(value)}, CreatedAt: c.utime}
	if si != nil {
		m.Init.Exists = true
		m.Init.Value.IsRight = true
		m.Init.Value.Value = *si
	}
	if body != nil {
		m.Body.IsRight = true
		m.Body.Value = tlb.Any(*body)
	}
	return c.emulate(dst, m)
}

func (c *Chain) emulate(dst ton.AccountID, m tlb.Message) []tlb.Message {
	c.t.Helper()
	em, err := txemulator.NewEmulator(c.config, txemulator.LogTruncated)
	require.NoError(c.t, err)
	require.NoError(c.t, em.SetUnixtime(c.utime))
	sa, ok := c.states[dst]
	if !ok {
		sa = tlb.ShardAccount{Account: tlb.Account{SumType: "AccountNone"}}
	}
	if usesLibrary(sa, m) {
		// Only then: the dictionary is a megabyte the emulator parses.
		require.NoError(c.t, em.SetLibs(c.libs))
	}
	res, err := em.Emulate(sa, m)
	require.NoError(c.t, err)
	require.True(c.t, res.Success && res.Emulation != nil, "emulation failed: %+v", res.Error)
	desc := res.Emulation.Transaction.Description.TransOrd
	require.False(c.t, desc.Aborted, "the contract refused the message (compute %+v)", desc.ComputePh)
	c.states[dst] = res.Emulation.ShardAccount
	c.utime++
	var out []tlb.Message
	for _, v := range res.Emulation.Transaction.Msgs.OutMsgs.Values() {
		out = append(out, v.Value)
	}
	return out
}

// usesLibrary: the code m deploys or the code sa runs is a library cell.
func usesLibrary(sa tlb.ShardAccount, m tlb.Message) bool {
	if m.Init.Exists && m.Init.Value.Value.Code.Exists && m.Init.Value.Value.Code.Value.Value.IsLibrary() {
		return true
	}
	code := sa.Account.Account.Storage.State.AccountActive.StateInit.Code
	return sa.Account.SumType == "Account" && sa.Account.Account.Storage.State.SumType == "AccountActive" &&
		code.Exists && code.Value.Value.IsLibrary()
}

// State is dst's state now, as an import stores it.
func (c *Chain) State(dst ton.AccountID) chain.AccountState {
	c.t.Helper()
	sa, ok := c.states[dst]
	require.True(c.t, ok, "no state of %s", dst)
	cell := boc.NewCell()
	require.NoError(c.t, tlb.Marshal(cell, sa))
	raw, err := cell.ToBoc()
	require.NoError(c.t, err)
	st, err := ingest.AccountFromShardAccount(chain.RawAddress(dst), raw, c.utime)
	require.NoError(c.t, err)
	return st
}

// Context is a test's context.
func Context() context.Context { return context.Background() }

// Executor runs get methods on dst's state with tongo's own TVM (not the
// project's runner): the independent reading tests compare against.
func (c *Chain) Executor(dst ton.AccountID) *tvm.Emulator {
	c.t.Helper()
	sa := c.states[dst]
	init := sa.Account.Account.Storage.State.AccountActive.StateInit
	require.True(c.t, init.Code.Exists && init.Data.Exists, "%s has no code", dst)
	code, data := init.Code.Value.Value, init.Data.Value.Value
	e, err := tvm.NewEmulator(&code, &data, c.config, tvm.WithBalance(int64(sa.Account.Account.Storage.Balance.Grams)))
	require.NoError(c.t, err)
	return e
}
