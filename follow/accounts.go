package follow

import (
	"sort"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/chain"
)

// touchedAccounts is what a block tells about each account it touched,
// without fetching states: the status after its last transaction there, and
// that transaction. A transaction that deployed the account also tells its
// code, hence whether it is a wallet (the address book needs that).
func touchedAccounts(txs []*chain.Transaction) []chain.AccountState {
	last := map[string]*chain.Transaction{}
	var deployed map[string]*chain.Hash
	for _, tx := range txs {
		if tx.Account == "" || tx.EndStatus == "" {
			continue
		}
		if prev := last[tx.Account]; prev == nil || tx.Lt > prev.Lt {
			last[tx.Account] = tx
		}
		if h := deployedCode(tx); h != nil {
			if deployed == nil {
				deployed = map[string]*chain.Hash{}
			}
			deployed[tx.Account] = h
		}
	}
	out := make([]chain.AccountState, 0, len(last))
	for addr, tx := range last {
		st := chain.AccountState{
			Address: addr, Status: tx.EndStatus, LastTxLt: tx.Lt, LastTxHash: tx.Hash, ReadAtUtime: tx.Utime,
		}
		if h := deployed[addr]; h != nil {
			st.CodeHash = h
			_, st.IsWallet = wallet.GetVerByCodeHash(tlb.Bits256(*h))
		}
		out = append(out, st)
	}
	// A stable order keeps statement contents, hence lock order, reproducible.
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// deployedCode is the code hash a transaction installed from its in-message's
// StateInit, nil when it deployed nothing.
func deployedCode(tx *chain.Transaction) (h *chain.Hash) {
	if tx.InMsg == nil || len(tx.InMsg.InitState) == 0 || tx.OrigStatus == chain.AccountActive || tx.EndStatus != chain.AccountActive {
		return nil
	}
	defer func() {
		if recover() != nil { // a malformed StateInit tells nothing
			h = nil
		}
	}()
	cells, err := boc.DeserializeBoc(tx.InMsg.InitState)
	if err != nil || len(cells) != 1 {
		return nil
	}
	var init tlb.StateInit
	if err := tlb.Unmarshal(cells[0], &init); err != nil || !init.Code.Exists {
		return nil
	}
	code := init.Code.Value.Value
	sum, err := code.Hash256()
	if err != nil {
		return nil
	}
	ch := chain.Hash(sum)
	return &ch
}
