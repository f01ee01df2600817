package fees

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// StateSource is where estimates read the chain: the store (kept fresh by
// ingest) or a lite-server client implements it.
type StateSource interface {
	// Account returns the current state of an account given in raw form
	// ("0:ABCD..."). nil, or an apperr NotFound error, means it does not exist.
	Account(ctx context.Context, rawAddr string) (*chain.AccountState, error)
	// Config returns the current blockchain config. nil, or an apperr
	// NotFound error, means the source has none; tongo's embedded config is
	// then used and the result says so.
	Config(ctx context.Context) (*chain.ChainConfig, error)
}

// MemorySource is a StateSource over a fixed set of states: a chain snapshot
// (tests replay real mainnet blocks with it) or a warm-up before the store
// is reachable. It is safe for concurrent use.
type MemorySource struct {
	mu       sync.RWMutex
	config   *chain.ChainConfig
	accounts map[string]*chain.AccountState
}

// NewMemorySource makes a source with the given config (nil: none).
func NewMemorySource(cfg *chain.ChainConfig) *MemorySource {
	return &MemorySource{config: cfg, accounts: map[string]*chain.AccountState{}}
}

// Put adds or replaces an account state, keyed by its raw address.
func (m *MemorySource) Put(st *chain.AccountState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.accounts[st.Address] = st
}

func (m *MemorySource) Account(_ context.Context, rawAddr string) (*chain.AccountState, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.accounts[rawAddr], nil
}

func (m *MemorySource) Config(context.Context) (*chain.ChainConfig, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.config, nil
}

// AccountStateFromBOC fills an AccountState from a ShardAccount BOC (what a
// lite server's getAccountState and the replay fixtures carry). readAt is the
// chain time the state is valid at.
func AccountStateFromBOC(shardAccountBOC []byte, readAt uint32) (*chain.AccountState, error) {
	sa, err := decodeShardAccount(shardAccountBOC)
	if err != nil {
		return nil, err
	}
	st := &chain.AccountState{
		Status:          chain.AccountNonexist,
		LastTxLt:        sa.LastTransLt,
		LastTxHash:      chain.Hash(sa.LastTransHash),
		ShardAccountBOC: shardAccountBOC,
		ReadAtUtime:     readAt,
	}
	if sa.Account.SumType != "Account" {
		return st, nil
	}
	acc := sa.Account.Account
	id, err := ton.AccountIDFromTlb(acc.Addr)
	if err != nil || id == nil {
		return nil, errors.New("account state without a standard address")
	}
	st.Address = chain.RawAddress(*id)
	st.Balance = uint64(acc.Storage.Balance.Grams)
	switch acc.Storage.State.SumType {
	case "AccountActive":
		st.Status = chain.AccountActive
		if code := acc.Storage.State.AccountActive.StateInit.Code; code.Exists {
			c := code.Value.Value
			if h, err := c.Hash256(); err == nil {
				hh := chain.Hash(h)
				st.CodeHash = &hh
			}
		}
	case "AccountFrozen":
		st.Status = chain.AccountFrozen
	default:
		st.Status = chain.AccountUninit
	}
	return st, nil
}

// DecodeShardAccount parses a ShardAccount BOC (what the store keeps) into
// structures owned by the caller alone; malformed bytes are an error, never
// a panic.
func DecodeShardAccount(b []byte) (tlb.ShardAccount, error) { return decodeShardAccount(b) }

// decodeShardAccount parses a ShardAccount BOC into structures owned by the
// caller alone.
func decodeShardAccount(b []byte) (sa tlb.ShardAccount, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("shard account does not decode: %v", r)
		}
	}()
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		return sa, fmt.Errorf("shard account BOC: %w", err)
	}
	if len(cells) != 1 {
		return sa, errors.New("shard account BOC must have one root")
	}
	if err := tlb.Unmarshal(cells[0], &sa); err != nil {
		return sa, fmt.Errorf("shard account: %w", err)
	}
	return sa, nil
}
