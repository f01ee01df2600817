package preview

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/txemulator"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// blockStates replays every transaction of the fixture block, in logical
// time order, with the time, logical time and random seed the chain used
// (the fixture's transaction_configs), and keeps each account's state just
// before each of its transactions. The 12 external messages start traces
// that share accounts (a jetton master, a staking pool): the chain ran a
// later trace's step on the state an earlier trace left, so a preview can
// only be compared with the chain on that state. Every replayed
// transaction must hash to the chain's, or the states are not the chain's.
func blockStates(path string, cfg *chain.ChainConfig) (before map[chain.Hash]*chain.AccountState, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Block    string `json:"block_boc_base64"`
		Previous []struct {
			Account string `json:"account"`
			BOC     string `json:"shard_account_boc_base64"`
		} `json:"previous_accounts"`
		Configs []struct {
			Account string `json:"account"`
			Lt      uint64 `json:"lt"`
			Now     uint32 `json:"now"`
			Seed    string `json:"rand_seed_base64"`
		} `json:"transaction_configs"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	states := map[string]tlb.ShardAccount{}
	for _, p := range f.Previous {
		sa, err := decodeShardAccount(p.BOC)
		if err != nil {
			return nil, err
		}
		norm, err := chain.NormalizeAddress(p.Account)
		if err != nil {
			return nil, err
		}
		states[norm] = sa
	}
	seeds := map[string][32]byte{}
	for _, c := range f.Configs {
		s, err := base64.StdEncoding.DecodeString(c.Seed)
		if err != nil || len(s) != 32 {
			return nil, fmt.Errorf("rand seed of %s/%d", c.Account, c.Lt)
		}
		norm, _ := chain.NormalizeAddress(c.Account)
		seeds[fmt.Sprint(norm, c.Lt)] = [32]byte(s)
	}
	blockBOC, err := base64.StdEncoding.DecodeString(f.Block)
	if err != nil {
		return nil, err
	}
	cells, err := boc.DeserializeBoc(blockBOC)
	if err != nil {
		return nil, err
	}
	var block tlb.Block
	if err := tlb.Unmarshal(cells[0], &block); err != nil {
		return nil, err
	}
	txs := block.AllTransactions()
	sort.Slice(txs, func(i, j int) bool { return txs[i].Lt < txs[j].Lt })
	cc, err := boc.DeserializeBoc(cfg.ConfigBOC)
	if err != nil {
		return nil, err
	}
	_ = new(txemulator.Emulator).SetVerbosityLevel(0) // process-wide; the library logs each transaction otherwise
	em, err := txemulator.NewEmulator(cc[0], txemulator.LogTruncated)
	if err != nil {
		return nil, err
	}
	if cfg.LibrariesBOC != nil {
		lc, err := boc.DeserializeBoc(cfg.LibrariesBOC)
		if err != nil {
			return nil, err
		}
		if err := em.SetLibs(lc[0]); err != nil {
			return nil, err
		}
	}
	before = map[chain.Hash]*chain.AccountState{}
	wc := block.Info.Shard.WorkchainID
	for _, tx := range txs {
		acc := chain.RawAddress(ton.AccountID{Workchain: wc, Address: tx.AccountAddr})
		sa, ok := states[acc]
		if !ok {
			return nil, fmt.Errorf("no state of %s", acc)
		}
		st, err := stateOf(acc, sa, tx.Now)
		if err != nil {
			return nil, err
		}
		before[chain.Hash(tx.Hash())] = st
		if !tx.Msgs.InMsg.Exists {
			return nil, fmt.Errorf("%s/%d: no in message", acc, tx.Lt)
		}
		if err := em.SetUnixtime(tx.Now); err != nil {
			return nil, err
		}
		if err := em.SetLT(tx.Lt); err != nil {
			return nil, err
		}
		if err := em.SetRandomSeed(seeds[fmt.Sprint(acc, tx.Lt)]); err != nil {
			return nil, err
		}
		res, err := em.Emulate(sa, tx.Msgs.InMsg.Value.Value)
		if err != nil || !res.Success {
			return nil, fmt.Errorf("%s/%d: replay failed: %v", acc, tx.Lt, err)
		}
		if res.Emulation.Transaction.Hash() != tx.Hash() {
			return nil, fmt.Errorf("%s/%d: replayed transaction differs from the chain's", acc, tx.Lt)
		}
		states[acc] = res.Emulation.ShardAccount
	}
	return before, nil
}

func decodeShardAccount(b64 string) (tlb.ShardAccount, error) {
	var sa tlb.ShardAccount
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return sa, err
	}
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		return sa, err
	}
	return sa, tlb.Unmarshal(cells[0], &sa)
}

func stateOf(addr string, sa tlb.ShardAccount, at uint32) (*chain.AccountState, error) {
	c := boc.NewCell()
	if err := tlb.Marshal(c, sa); err != nil {
		return nil, err
	}
	b, err := c.ToBoc()
	if err != nil {
		return nil, err
	}
	st, err := fees.AccountStateFromBOC(b, at)
	if err != nil {
		return nil, err
	}
	st.Address = addr
	return st, nil
}

// sourceFor is the state each account of a trace had when the chain ran
// the trace's first transaction on it, over the states before the block.
func (r *replay) sourceFor(tr *chain.Trace) *fees.MemorySource {
	src := fees.NewMemorySource(r.config)
	for _, st := range r.accounts {
		src.Put(st)
	}
	seen := map[string]bool{}
	for _, tx := range breadthFirst(tr) {
		if !seen[tx.Account] {
			seen[tx.Account] = true
			src.Put(r.before[tx.Hash])
		}
	}
	return src
}
