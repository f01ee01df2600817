// Package accountinfo reads an account's state into what toncenter's
// account calls report: balance, code, data, status, last transaction,
// and for a known wallet its type, seqno and wallet id.
package accountinfo

import (
	"math/big"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// toncenter's names of account states.
const (
	StateActive        = "active"
	StateUninitialized = "uninitialized" // also an account that does not exist
	StateFrozen        = "frozen"
)

// Info is an account as the toncenter calls show it.
type Info struct {
	// Known is false when the server has no state of the account: it is
	// then shown as toncenter shows an account that does not exist.
	Known   bool
	Status  string // StateActive, StateUninitialized, StateFrozen
	Balance uint64
	// ExtraCurrencies are the account's other currencies: id -> amount
	// (decimal); nil when it holds none.
	ExtraCurrencies map[uint32]string
	Code, Data      []byte // BOCs; nil when the account has none
	FrozenHash      []byte // the hash a frozen account keeps; nil otherwise
	LastTxLt        uint64
	LastTxHash      chain.Hash
	// SyncUtime is the chain time the state is valid at.
	SyncUtime uint32
	Wallet    *Wallet // nil: not a wallet this server recognizes
}

// Wallet is what a wallet's data says.
type Wallet struct {
	Type     string // toncenter's name: "wallet v4 r2"
	Version  wallet.Version
	Revision int    // tonlib's revision of the wallet family (v4 r2: 2)
	Seqno    *int64 // nil for wallets without one (highload)
	WalletID *int64
	// IsSignatureAllowed is v5's flag; nil for other wallets.
	IsSignatureAllowed *bool
}

// Decode reads a state; st may be nil (nothing known).
func Decode(st *chain.AccountState) (*Info, error) {
	info := &Info{Status: StateUninitialized}
	if st == nil || len(st.ShardAccountBOC) == 0 {
		return info, nil
	}
	info.Known = true
	info.LastTxLt, info.LastTxHash, info.SyncUtime = st.LastTxLt, st.LastTxHash, st.ReadAtUtime
	sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
	if err != nil {
		return nil, err
	}
	if sa.Account.SumType != "Account" {
		return info, nil
	}
	acc := sa.Account.Account
	info.Balance = uint64(acc.Storage.Balance.Grams)
	for _, it := range acc.Storage.Balance.Other.Dict.Items() {
		if info.ExtraCurrencies == nil {
			info.ExtraCurrencies = map[uint32]string{}
		}
		amount := big.Int(it.Value)
		info.ExtraCurrencies[uint32(it.Key)] = amount.String()
	}
	switch acc.Storage.State.SumType {
	case "AccountFrozen":
		info.Status = StateFrozen
		h := acc.Storage.State.AccountFrozen.StateHash
		info.FrozenHash = h[:]
	case "AccountActive":
		info.Status = StateActive
		init := acc.Storage.State.AccountActive.StateInit
		if init.Code.Exists {
			c := init.Code.Value.Value
			if info.Code, err = c.ToBoc(); err != nil {
				return nil, err
			}
			h, err := c.Hash256()
			if err != nil {
				return nil, err
			}
			if init.Data.Exists {
				d := init.Data.Value.Value
				if info.Data, err = d.ToBoc(); err != nil {
					return nil, err
				}
				info.Wallet = walletOf(tlb.Bits256(h), &d)
			}
		} else if init.Data.Exists {
			d := init.Data.Value.Value
			if info.Data, err = d.ToBoc(); err != nil {
				return nil, err
			}
		}
	}
	return info, nil
}

// walletNames are toncenter's wallet types, for the versions it knows.
var walletNames = map[wallet.Version]struct {
	name     string
	revision int
	layout   dataLayout
}{
	wallet.V1R1: {"wallet v1 r1", 1, seqnoOnly},
	wallet.V1R2: {"wallet v1 r2", 2, seqnoOnly},
	wallet.V1R3: {"wallet v1 r3", 3, seqnoOnly},
	wallet.V2R1: {"wallet v2 r1", 1, seqnoOnly},
	wallet.V2R2: {"wallet v2 r2", 2, seqnoOnly},
	wallet.V3R1: {"wallet v3 r1", 1, seqnoAndID},
	wallet.V3R2: {"wallet v3 r2", 2, seqnoAndID},
	wallet.V4R1: {"wallet v4 r1", 1, seqnoAndID},
	wallet.V4R2: {"wallet v4 r2", 2, seqnoAndID},
	wallet.V5R1: {"wallet v5 r1", 1, flagSeqnoAndID},
}

// How a wallet's data starts.
type dataLayout int

const (
	seqnoOnly      dataLayout = iota // seqno:uint32
	seqnoAndID                       // seqno:uint32 wallet_id:uint32
	flagSeqnoAndID                   // is_signature_allowed:bit seqno:uint32 wallet_id:uint32
)

func walletOf(codeHash tlb.Bits256, data *boc.Cell) *Wallet {
	v, ok := wallet.GetVerByCodeHash(codeHash)
	if !ok {
		return nil
	}
	known, ok := walletNames[v]
	if !ok {
		return nil
	}
	w := &Wallet{Type: known.name, Version: v, Revision: known.revision}
	data.ResetCounters()
	if known.layout == flagSeqnoAndID {
		flag, err := data.ReadBit()
		if err != nil {
			return w
		}
		w.IsSignatureAllowed = &flag
	}
	seqno, err := data.ReadUint(32)
	if err != nil {
		return w
	}
	s := int64(seqno)
	w.Seqno = &s
	if known.layout != seqnoOnly {
		id, err := data.ReadUint(32)
		if err != nil {
			return w
		}
		i := int64(id)
		w.WalletID = &i
	}
	return w
}
