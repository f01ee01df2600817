// Package getmethod runs smart contracts' get methods on the states the
// server holds (the store, or lite servers when configured), with the TVM
// of the emulator library, and speaks toncenter's stack encoding.
package getmethod

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/code"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/utils"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/fees"
)

// ExitNotActive is the exit code toncenter answers for an account that has
// no code to run (uninitialized, frozen, or nonexistent); @ton/ton reports
// it as "Unable to execute get method. Got exit_code: -13".
const ExitNotActive = -13

// DefaultGasLimit bounds a get method's gas, as lite servers bound theirs:
// an endless loop costs a bounded amount of CPU (GET_METHOD_GAS_LIMIT
// changes it: WithGasLimit).
const DefaultGasLimit = cost.DefaultGetMethodGas

// StateRunner runs a get method on a given state (RunState) and on the
// stored state of an account (Run): what the token registry and the
// contract readers need. *Runner is one; tests may count or fail calls.
type StateRunner interface {
	RunState(ctx context.Context, st *chain.AccountState, m Method, stack tlb.VmStack) (*Result, error)
	Run(ctx context.Context, account ton.AccountID, m Method, stack tlb.VmStack) (*Result, error)
}

// Runner runs get methods. It is safe for concurrent use.
type Runner struct {
	est      *fees.Estimator
	gasLimit int64

	mu      sync.Mutex
	configs map[[32]byte]*prepared // by config key; a few, one per config change

	// nsPerGas is what a unit of gas took in long runs lately (a moving
	// average), to know what a run at the gas limit costs before it runs.
	nsPerGas atomic.Uint64 // math.Float64bits
}

// learnMinGas is the gas of the runs that teach nsPerGas: short runs are
// mostly set-up, not execution.
const learnMinGas = 100_000

func (r *Runner) learn(gas int64, took time.Duration) {
	if gas < learnMinGas {
		return
	}
	v := float64(took.Nanoseconds()) / float64(gas)
	if old := math.Float64frombits(r.nsPerGas.Load()); old > 0 {
		v = 0.7*old + 0.3*v
	}
	r.nsPerGas.Store(math.Float64bits(v))
}

// exitOutOfGas is the TVM's exit code of a run that used all its gas.
const exitOutOfGas = -14

// prepared is a config parsed by the library, with its library
// dictionary as BOCs by hash (each run decodes its own cells).
type prepared struct {
	vm   *vmConfig
	libs map[ton.Bits256][]byte
}

// New makes a Runner reading states, config and clock from est.
func New(est *fees.Estimator) *Runner {
	return &Runner{est: est, gasLimit: DefaultGasLimit, configs: map[[32]byte]*prepared{}}
}

// WithGasLimit sets the gas one run may use (a run past it ends with
// exit code -14, out of gas, as on a lite server); 0 keeps the default.
func (r *Runner) WithGasLimit(gas int64) *Runner {
	if gas > 0 {
		r.gasLimit = gas
	}
	return r
}

// Method is a get method by name or by id.
type Method struct {
	Name string
	ID   int
}

// MethodID is the id a method is called by.
func (m Method) MethodID() int {
	if m.Name != "" {
		return utils.MethodIdFromName(m.Name)
	}
	return m.ID
}

// Result is one run.
type Result struct {
	ExitCode int
	GasUsed  int64
	Stack    tlb.VmStack
	// State is the account state the method ran on (nil: none known).
	State *chain.AccountState
}

// Run runs method on the account's current state with stack as input.
func (r *Runner) Run(ctx context.Context, account ton.AccountID, m Method, stack tlb.VmStack) (*Result, error) {
	raw := chain.RawAddress(account)
	st, err := r.est.State(ctx, raw)
	if err != nil {
		return nil, err
	}
	at, err := r.est.Now(ctx)
	if err != nil {
		return nil, err
	}
	return r.run(ctx, account, st, at.Unix, m, stack)
}

// RunState runs method on the given state of its account (st.Address), at
// the chain time the state is valid at (st.ReadAtUtime): the token
// registry reads each contract on its state after a block, whatever the
// store holds by then. The VM config and libraries are the estimator's.
func (r *Runner) RunState(ctx context.Context, st *chain.AccountState, m Method, stack tlb.VmStack) (*Result, error) {
	account, err := ton.ParseAccountID(st.Address)
	if err != nil {
		return nil, apperr.Field("address", "not an account address")
	}
	return r.run(ctx, account, st, uint32(st.ReadAtUtime), m, stack)
}

func (r *Runner) run(ctx context.Context, account ton.AccountID, st *chain.AccountState, now uint32, m Method, stack tlb.VmStack) (*Result, error) {
	res := &Result{State: st}
	if st == nil || st.Status != chain.AccountActive || len(st.ShardAccountBOC) == 0 {
		res.ExitCode = ExitNotActive
		return res, nil
	}
	c, err := r.call(account, st, now, m, stack)
	if err != nil {
		return nil, err
	}
	p, err := r.config(ctx)
	if err != nil {
		return nil, err
	}
	if c.libs, err = p.needed(c.libHashes); err != nil {
		return nil, err
	}
	// The request's work budget: a batch of calls shares one, and a call
	// after the first gets the gas the budget left pays for.
	if c.gasLimit, err = cost.Gas(ctx, r.gasLimit, math.Float64frombits(r.nsPerGas.Load())); err != nil {
		return nil, err
	}
	var out vmResult
	took := cost.Work(ctx, func() { out, err = c.run(p.vm) })
	if err == nil {
		r.learn(out.gas(), took)
		if c.gasLimit < r.gasLimit && out.ExitCode == exitOutOfGas {
			return nil, cost.BudgetSpent(ctx)
		}
	}
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	if out.Missing != nil && *out.Missing != "" {
		return nil, apperr.New(apperr.Unavailable, "the method runs library %s, which this server does not have", apperr.Excerpt(*out.Missing))
	}
	if !out.Success {
		return nil, apperr.Wrap(apperr.Internal, errors.New(out.Error), "internal error")
	}
	res.ExitCode, res.GasUsed = out.ExitCode, out.gas()
	if res.Stack, err = decodeStack(out.Stack); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return res, nil
}

// call prepares a run: code and data of the state, the clock, the stack.
func (r *Runner) call(account ton.AccountID, st *chain.AccountState, now uint32, m Method, stack tlb.VmStack) (*call, error) {
	sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	init := sa.Account.Account.Storage.State.AccountActive.StateInit
	if !init.Code.Exists || !init.Data.Exists {
		return &call{}, apperr.New(apperr.NotAccepted, "account %s has no code or no data", chain.RawAddress(account))
	}
	codeCell, dataCell := init.Code.Value.Value, init.Data.Value.Value
	c := &call{address: account.ToRaw(), now: now, balance: st.Balance, gasLimit: r.gasLimit, method: m.MethodID()}
	for _, cell := range []*boc.Cell{&codeCell, &dataCell} {
		found, err := code.FindLibraries(cell)
		if err != nil {
			return nil, apperr.Wrap(apperr.Internal, err, "internal error")
		}
		c.libHashes = append(c.libHashes, found...)
		cell.ResetCounters()
	}
	if c.code, err = codeCell.ToBocBase64(); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	if c.data, err = dataCell.ToBocBase64(); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	sc := boc.NewCell()
	if err := tlb.Marshal(sc, stack); err != nil {
		return nil, apperr.Field("stack", "cannot be encoded for the VM: %v", err)
	}
	if c.stack, err = sc.ToBocBase64(); err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	// The VM's random seed: the same question on the same state gets the
	// same answer.
	h := sha256.New()
	h.Write(st.LastTxHash[:])
	fmt.Fprintf(h, "%d:%s", c.method, c.stack)
	h.Sum(c.seed[:0])
	return c, nil
}

// config is the estimator's current config, prepared for the VM.
func (r *Runner) config(ctx context.Context) (*prepared, error) {
	cfg, err := r.est.VMConfig(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.configs[cfg.Key]; ok {
		return p, nil
	}
	vm, err := newVMConfig(base64.StdEncoding.EncodeToString(cfg.Config))
	if err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, err, "blockchain config is unusable")
	}
	p := &prepared{vm: vm, libs: map[ton.Bits256][]byte{}}
	if cfg.Libraries != nil {
		if p.libs, err = LibraryBOCs(cfg.Libraries); err != nil {
			vm.free()
			return nil, apperr.Wrap(apperr.Unavailable, err, "blockchain libraries are unusable")
		}
	}
	// Configs change a few times a year; the parsed ones are kept (an
	// emulator of a run in flight may still point at an older one).
	r.configs[cfg.Key] = p
	return p, nil
}

// LibraryBOCs splits the library dictionary into one BOC per library, by
// hash (the runner feeds them to the VM; getLibraries hands them out).
func LibraryBOCs(b []byte) (map[ton.Bits256][]byte, error) {
	cells, err := boc.DeserializeBoc(b)
	if err != nil || len(cells) != 1 {
		return nil, errors.New("libraries are not a BOC with one root")
	}
	// The dictionary's root cell is the Hashmap itself, as the emulator
	// takes it (and as fee-replay files and lite servers give it); a
	// HashmapE (a bit and a reference) is accepted too.
	var items []tlb.HashmapItem[tlb.Bits256, tlb.Ref[boc.Cell]]
	var root tlb.Hashmap[tlb.Bits256, tlb.Ref[boc.Cell]]
	if err := tlb.Unmarshal(cells[0], &root); err == nil {
		items = root.Items()
	} else {
		cells[0].ResetCounters()
		var dict tlb.HashmapE[tlb.Bits256, tlb.Ref[boc.Cell]]
		if err := tlb.Unmarshal(cells[0], &dict); err != nil {
			return nil, err
		}
		items = dict.Items()
	}
	out := map[ton.Bits256][]byte{}
	for _, it := range items {
		c := it.Value.Value
		lb, err := c.ToBoc()
		if err != nil {
			return nil, err
		}
		out[ton.Bits256(it.Key)] = lb
	}
	return out, nil
}

// needed is the dictionary of the libraries a run refers to that the
// server has, as base64, or "" for none (most contracts): the whole
// dictionary is about 1 MB, which the VM would parse on every run. One it
// lacks matters only if the method executes it (a jetton master's data
// holds its wallets' code as a library cell, only hashed); the VM then
// reports it missing.
func (p *prepared) needed(hashes []ton.Bits256) (string, error) {
	if len(hashes) == 0 {
		return "", nil
	}
	keys := make([]tlb.Bits256, 0, len(hashes))
	values := make([]tlb.Ref[boc.Cell], 0, len(hashes))
	seen := make(map[ton.Bits256]bool, len(hashes))
	for _, h := range hashes {
		b, ok := p.libs[h]
		if !ok || seen[h] {
			continue // a dictionary with a key twice does not serialize
		}
		seen[h] = true
		cells, err := boc.DeserializeBoc(b)
		if err != nil {
			return "", apperr.Wrap(apperr.Internal, err, "internal error")
		}
		keys = append(keys, tlb.Bits256(h))
		values = append(values, tlb.Ref[boc.Cell]{Value: *cells[0]})
	}
	if len(keys) == 0 {
		return "", nil
	}
	dict := tlb.NewHashmap(keys, values) // the root Hashmap, as the VM reads it
	c := boc.NewCell()
	if err := tlb.Marshal(c, dict); err != nil {
		return "", apperr.Wrap(apperr.Internal, err, "internal error")
	}
	s, err := c.ToBocBase64()
	if err != nil {
		return "", apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return s, nil
}

func decodeStack(b64 string) (s tlb.VmStack, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("result stack does not decode: %v", r)
		}
	}()
	cells, err := boc.DeserializeBocBase64(b64)
	if err != nil || len(cells) != 1 {
		return s, errors.New("result stack is not a BOC")
	}
	return s, tlb.Unmarshal(cells[0], &s)
}
