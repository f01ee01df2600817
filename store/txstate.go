package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// TxAt names a transaction by its account and lt.
type TxAt struct {
	Account string
	Lt      uint64
}

// AccountStatesAfter returns, for each transaction given, its account's
// state right after it when the store holds that one: the accounts table
// keeps only each account's latest state, so it is known for a
// transaction only while it is the account's last one the state was read
// at (accounts.last_tx_lt). Transactions whose state the store does not
// hold are absent (the map may hold other accounts' latest states
// too: look a transaction up by its TxAt). One read by primary key for all of them, on the
// primary (as TransactionsAfter: what was committed there).
func (s *Store) AccountStatesAfter(ctx context.Context, txs []TxAt) (map[TxAt]*chain.AccountState, error) {
	out := map[TxAt]*chain.AccountState{}
	if len(txs) == 0 {
		return out, nil
	}
	seen := map[string]bool{}
	addrs := make([]string, 0, len(txs))
	for _, t := range txs {
		if !seen[t.Account] {
			seen[t.Account] = true
			addrs = append(addrs, t.Account)
		}
	}
	for start := 0; start < len(addrs); start += 1000 {
		var rows []accountRow
		if err := s.db.NewSelect().Model(&rows).Where("address IN (?)", bun.In(addrs[start:min(start+1000, len(addrs))])).
			Scan(ctx); err != nil {
			return nil, unavailable(err)
		}
		for i := range rows {
			at := TxAt{rows[i].Address, uint64(rows[i].LastTxLt)}
			out[at] = rows[i].toChain()
		}
	}
	return out, nil
}
