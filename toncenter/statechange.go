package toncenter

import (
	"encoding/base64"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/chain"
)

// StreamAccountState is toncenter's AccountState (streaming v2's
// AccountStateNotification.state) of an account right after one of its
// transactions, with what the store does not know null: toncenter reads
// it from the node, the store from the transaction and the latest state
// it holds. hash is nullable here (toncenter always sends it).
type StreamAccountState struct {
	Hash                   *string           `json:"hash"`
	Balance                *string           `json:"balance"`
	BalanceExtraCurrencies map[string]string `json:"extra_currencies"`
	AccountStatus          *string           `json:"account_status"`
	FrozenHash             *string           `json:"frozen_hash"`
	DataHash               *string           `json:"data_hash"`
	CodeHash               *string           `json:"code_hash"`
}

// RenderStateAfter renders the state of t's account after t. The status
// is t's end status; the hash is the new hash of t's state update (from
// its raw BOC). st is the account's stored state when the store holds the
// one right after t (its last transaction is t), nil otherwise: only then
// are balance, extra currencies and the code, data and frozen hashes
// known (and the hash, from the state itself, for a transaction stored
// without its BOC). A frozen account's frozen_hash, an active one's
// code_hash and data_hash; the others null, as toncenter.
func RenderStateAfter(t *chain.Transaction, st *chain.AccountState) (*StreamAccountState, error) {
	out := &StreamAccountState{}
	if t.EndStatus != "" {
		out.AccountStatus = ptr(t.EndStatus)
	}
	if len(t.BOC) > 0 {
		raw, _, err := decode(t)
		if err != nil {
			return nil, err
		}
		out.Hash = ptr(base64.StdEncoding.EncodeToString(raw.StateUpdate.NewHash[:]))
	}
	if st == nil || len(st.ShardAccountBOC) == 0 {
		return out, nil
	}
	i, err := accountinfo.Decode(st)
	if err != nil {
		return nil, err
	}
	if out.Hash == nil {
		if h := accountHash(st.ShardAccountBOC); h != "" {
			out.Hash = &h
		}
	}
	out.Balance, out.BalanceExtraCurrencies = ptr(u64(i.Balance)), currencies(i.ExtraCurrencies)
	out.FrozenHash, out.DataHash, out.CodeHash = b64ptr(i.FrozenHash), cellHash(i.Data), cellHash(i.Code)
	return out, nil
}
