package ingest

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/txemulator"

	"github.com/tonql/tonql/chain"
)

// A fee-replay file holds every touched account's state before its block,
// not after: the token registry, which reads balances and owners as they
// are after the block, gets them by replaying the block. Each transaction's
// inbound message is run by the emulator on its account's state with the
// chain's time, logical time and random seed (the file's
// transaction_configs), in logical time order, and a replayed transaction
// must hash to the chain's, so the states are the chain's. An account with
// a transaction that does not replay gets no after-state (its tokens are
// then unknown, never wrong).

type txConfig struct {
	Account string `json:"account"`
	Lt      uint64 `json:"lt"`
	Seed    string `json:"rand_seed_base64"`
}

var quietEmulator sync.Once

// afterStates replays blk's transactions over the states before it.
func afterStates(blockBOC []byte, before []chain.AccountState, configs []txConfig, cfg *chain.ChainConfig, utime uint32) (out []chain.AccountState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replay: malformed data (%v)", r)
		}
	}()
	if cfg == nil {
		return nil, errors.New("replay: no config")
	}
	cells, err := boc.DeserializeBoc(blockBOC)
	if err != nil || len(cells) != 1 {
		return nil, errors.New("replay: block BOC")
	}
	var block tlb.Block
	if err := tlb.Unmarshal(cells[0], &block); err != nil {
		return nil, err
	}
	seeds := make(map[string][32]byte, len(configs))
	for _, c := range configs {
		s, err := base64.StdEncoding.DecodeString(c.Seed)
		addr, aerr := chain.NormalizeAddress(c.Account)
		if err != nil || len(s) != 32 || aerr != nil {
			continue
		}
		seeds[fmt.Sprint(addr, "/", c.Lt)] = [32]byte(s)
	}
	states := make(map[string]tlb.ShardAccount, len(before))
	for i := range before {
		sa, err := decodeShardAccountBOC(before[i].ShardAccountBOC)
		if err != nil {
			continue
		}
		states[before[i].Address] = sa
	}
	quietEmulator.Do(func() { _ = new(txemulator.Emulator).SetVerbosityLevel(0) })
	cc, err := boc.DeserializeBoc(cfg.ConfigBOC)
	if err != nil || len(cc) != 1 {
		return nil, errors.New("replay: config BOC")
	}
	em, err := txemulator.NewEmulator(cc[0], txemulator.LogTruncated)
	if err != nil {
		return nil, err
	}
	if cfg.LibrariesBOC != nil {
		lc, err := boc.DeserializeBoc(cfg.LibrariesBOC)
		if err != nil || len(lc) != 1 {
			return nil, errors.New("replay: libraries BOC")
		}
		if err := em.SetLibs(lc[0]); err != nil {
			return nil, err
		}
	}
	txs := block.AllTransactions()
	sort.Slice(txs, func(i, j int) bool { return txs[i].Lt < txs[j].Lt })
	wc := block.Info.Shard.WorkchainID
	broken := map[string]bool{}
	replayed := map[string]bool{}
	for _, tx := range txs {
		acc := chain.RawAddress(ton.AccountID{Workchain: wc, Address: tx.AccountAddr})
		sa, ok := states[acc]
		seed, seeded := seeds[fmt.Sprint(acc, "/", tx.Lt)]
		if broken[acc] || !ok || !seeded || !tx.Msgs.InMsg.Exists {
			broken[acc] = true
			continue
		}
		if em.SetUnixtime(tx.Now) != nil || em.SetLT(tx.Lt) != nil || em.SetRandomSeed(seed) != nil {
			broken[acc] = true
			continue
		}
		res, err := em.Emulate(sa, tx.Msgs.InMsg.Value.Value)
		if err != nil || !res.Success || res.Emulation == nil || res.Emulation.Transaction.Hash() != tx.Hash() {
			broken[acc] = true
			continue
		}
		states[acc] = res.Emulation.ShardAccount
		replayed[acc] = true
	}
	addrs := make([]string, 0, len(replayed))
	for a := range replayed {
		if !broken[a] {
			addrs = append(addrs, a)
		}
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		c := boc.NewCell()
		if err := tlb.Marshal(c, states[a]); err != nil {
			continue
		}
		raw, err := c.ToBoc()
		if err != nil {
			continue
		}
		st, err := AccountFromShardAccount(a, raw, utime)
		if err != nil {
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

func decodeShardAccountBOC(raw []byte) (sa tlb.ShardAccount, err error) {
	cells, err := boc.DeserializeBoc(raw)
	if err != nil || len(cells) != 1 {
		return sa, errors.New("shard account BOC")
	}
	return sa, tlb.Unmarshal(cells[0], &sa)
}
