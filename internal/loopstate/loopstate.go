// Package loopstate makes the state of a contract whose every get method
// loops until its gas runs out (code: the one TVM instruction AGAINEND,
// 0xEB, which repeats the rest of its continuation, here nothing, for
// ever). Tests and scripts/probe store it the way import stores states
// (ingest.AccountFromShardAccount, store.SaveBatch) to show what a get
// method at the gas limit costs and that the cost model bounds it.
package loopstate

import (
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
)

// Address is where the looping contract lives (any address would do: the
// state is not derived from it).
const Address = "0:1111111111111111111111111111111111111111111111111111111111111111"

// againEnd is TVM's AGAINEND opcode.
const againEnd = 0xEB

// State is the looping contract's account state as import keeps it,
// valid at chain time at.
func State(at uint32) (chain.AccountState, error) {
	id, err := ton.ParseAccountID(Address)
	if err != nil {
		return chain.AccountState{}, err
	}
	code := boc.NewCell()
	if err := code.WriteUint(againEnd, 8); err != nil {
		return chain.AccountState{}, err
	}
	data := boc.NewCell()
	var sa tlb.ShardAccount
	sa.LastTransLt = 1
	sa.Account.SumType = "Account"
	acc := &sa.Account.Account
	acc.Addr = id.ToMsgAddress()
	acc.StorageStat.StorageExtra.SumType = "StorageExtraNone"
	acc.StorageStat.LastPaid = at
	acc.Storage.LastTransLt = 1
	acc.Storage.Balance.Grams = 1_000_000_000
	acc.Storage.State.SumType = "AccountActive"
	init := &acc.Storage.State.AccountActive.StateInit
	init.Code.Exists, init.Code.Value.Value = true, *code
	init.Data.Exists, init.Data.Value.Value = true, *data
	c := boc.NewCell()
	if err := tlb.Marshal(c, sa); err != nil {
		return chain.AccountState{}, err
	}
	raw, err := c.ToBoc()
	if err != nil {
		return chain.AccountState{}, err
	}
	return ingest.AccountFromShardAccount(Address, raw, at)
}
