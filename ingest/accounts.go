package ingest

import (
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/chain"
)

// AccountFromShardAccount decodes a ShardAccount BOC into the state the
// store keeps; readAt is the chain time the state is valid at.
func AccountFromShardAccount(address string, raw []byte, readAt uint32) (st chain.AccountState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed shard account (%v)", r)
		}
	}()
	if st.Address, err = chain.NormalizeAddress(address); err != nil {
		return st, fmt.Errorf("account: %w", err)
	}
	cells, err := boc.DeserializeBoc(raw)
	if err != nil {
		return st, err
	}
	if len(cells) != 1 {
		return st, errors.New("shard account: want 1 root cell")
	}
	var sa tlb.ShardAccount
	if err := tlb.Unmarshal(cells[0], &sa); err != nil {
		return st, fmt.Errorf("shard account: %w", err)
	}
	st.ShardAccountBOC, st.ReadAtUtime = raw, readAt
	st.LastTxLt, st.LastTxHash = sa.LastTransLt, chain.Hash(sa.LastTransHash)
	if sa.Account.SumType != "Account" {
		st.Status = chain.AccountNonexist
		return st, nil
	}
	acc := sa.Account.Account
	st.Status = string(sa.Account.Status())
	st.Balance = uint64(acc.Storage.Balance.Grams)
	if acc.Storage.State.SumType == "AccountActive" {
		init := acc.Storage.State.AccountActive.StateInit
		if init.Code.Exists {
			code := init.Code.Value.Value
			h, err := code.Hash256()
			if err != nil {
				return st, fmt.Errorf("code hash: %w", err)
			}
			ch := chain.Hash(h)
			st.CodeHash = &ch
			_, st.IsWallet = wallet.GetVerByCodeHash(tlb.Bits256(h))
			st.Interfaces = chain.CodeInterfaces(&code)
		}
	}
	return st, nil
}
