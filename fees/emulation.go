package fees

import (
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// Emulation is an estimate together with the trace it emulated: what a
// preview turns into actions and balance changes. It is the same run as
// Estimate's, so its Result is exactly the estimate.
type Emulation struct {
	Result *Result `json:"r"`
	// Transactions are in emulation order: the root (the external
	// message's transaction) first, then breadth first, which is the
	// order of Result.DestinationFees.
	Transactions []EmulatedTx `json:"t"`
	// Stops lists the messages of the trace that were not followed, and
	// why; none means the whole trace was emulated.
	Stops []Stop `json:"s"`
	// Code and Data are the code and data of every emulated account as the
	// trace leaves it, BOCs by their hash (standard base64): toncenter's
	// code_cells and data_cells.
	Code map[string][]byte `json:"cc,omitempty"`
	Data map[string][]byte `json:"dc,omitempty"`
}

// Complete reports whether every internal message of the trace was
// processed.
func (e *Emulation) Complete() bool { return len(e.Stops) == 0 }

// EmulatedTx is one emulated transaction.
type EmulatedTx struct {
	// Parent is the index of the transaction that sent the message this
	// one processed, -1 for the root; OutIndex is that message's index
	// among the parent's out messages.
	Parent    int    `json:"p"`
	OutIndex  int    `json:"o"`
	Account   string `json:"a"` // raw
	Workchain int32  `json:"w"`
	BOC       []byte `json:"b"` // the transaction as the emulator made it
	Fees      Fees   `json:"f"` // as in the estimate: in_fwd_fee 0 for internal messages
	// The account's balance before and after, in nanotons. For a
	// deployment estimated with an assumed balance both include it: only
	// their difference is real.
	BalanceBefore uint64 `json:"bb"`
	BalanceAfter  uint64 `json:"ba"`
	// CodeHash and DataHash are the account's after the transaction (nil:
	// it has none), keys of the emulation's Code and Data.
	CodeHash *chain.Hash `json:"ch,omitempty"`
	DataHash *chain.Hash `json:"dh,omitempty"`

	tx *tlb.Transaction // decoded, when this process emulated it (not from a cache)
}

// Decoded returns the transaction as tongo decoded it, or nil when the
// emulation came from a cache (then decode BOC).
func (t *EmulatedTx) Decoded() *tlb.Transaction { return t.tx }

// Why a message of the trace was not followed.
const (
	// StopUnknownAccount: the destination is an account the state source
	// has no state of (not imported, or not followed yet); guessing its
	// state could invent anything, so the branch ends there.
	StopUnknownAccount = "unknown_account"
	// StopDepth: the message is more hops from the root than MaxDepth.
	StopDepth = "max_depth"
	// StopTransactions: MaxTransactions destination transactions were
	// emulated already.
	StopTransactions = "max_transactions"
	// StopNotEmulated: the emulator could not run the message on the
	// destination's state (the chain would drop it, or the state is
	// unusable).
	StopNotEmulated = "not_emulated"
)

// Stop is one message of the trace that was not followed.
type Stop struct {
	Parent   int    `json:"p"` // index of the transaction that sent it
	OutIndex int    `json:"o"` // its index among that transaction's out messages
	Account  string `json:"a"` // its destination, raw
	Reason   string `json:"r"` // one of the Stop* constants
}

// codeData is an account state's code and data cells, nil when it has
// none (not active).
func codeData(sa tlb.ShardAccount) (code, data *boc.Cell) {
	if sa.Account.SumType != "Account" || sa.Account.Account.Storage.State.SumType != "AccountActive" {
		return nil, nil
	}
	si := &sa.Account.Account.Storage.State.AccountActive.StateInit
	if si.Code.Exists {
		c := si.Code.Value.Value
		code = &c
	}
	if si.Data.Exists {
		d := si.Data.Value.Value
		data = &d
	}
	return code, data
}

// hashOf is a cell's hash and, when keep is not nil, its BOC kept there.
func hashOf(c *boc.Cell, keep map[string][]byte) *chain.Hash {
	if c == nil {
		return nil
	}
	h, err := c.Hash256()
	if err != nil {
		return nil
	}
	hash := chain.Hash(h)
	if keep != nil {
		if _, ok := keep[hash.Base64()]; !ok {
			if b, err := c.ToBoc(); err == nil {
				keep[hash.Base64()] = b
			}
		}
	}
	return &hash
}

// keepStates puts the code and data of every account the trace ran a
// transaction on, as it leaves them, in the emulation.
func (t *tracer) keepStates() {
	if t.rec == nil {
		return
	}
	t.rec.Code, t.rec.Data = map[string][]byte{}, map[string][]byte{}
	for _, tx := range t.rec.Transactions {
		id, err := ton.ParseAccountID(tx.Account)
		if err != nil {
			continue
		}
		code, data := codeData(t.states[id])
		hashOf(code, t.rec.Code)
		hashOf(data, t.rec.Data)
	}
}
