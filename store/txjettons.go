package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// registryBatch is how many addresses one registry read of the streams
// names.
const registryBatch = 1000

// JettonWalletsAt returns the token registry's rows of those of addrs that
// are jetton wallets, by address (the jettons_change events of their
// transactions): one read by primary key per thousand, on the primary (as
// TransactionsAfter: what was committed there). A row is the wallet's
// latest state the registry read; its balance is "" when unknown.
func (s *Store) JettonWalletsAt(ctx context.Context, addrs []string) (map[string]chain.JettonWallet, error) {
	out := map[string]chain.JettonWallet{}
	for start := 0; start < len(addrs); start += registryBatch {
		var rows []jettonWalletRow
		if err := s.db.NewSelect().Model(&rows).Where("address IN (?)", bun.In(addrs[start:min(start+registryBatch, len(addrs))])).
			Scan(ctx); err != nil {
			return nil, unavailable(err)
		}
		for i := range rows {
			out[rows[i].Address] = rows[i].toChain()
		}
	}
	return out, nil
}

// JettonWalletsOwnedBy returns the addresses of the jetton wallets the
// registry knows of owners (index jetton_wallets_owner), on the primary:
// a stream watching an owner replays its wallets' transactions.
func (s *Store) JettonWalletsOwnedBy(ctx context.Context, owners []string) ([]string, error) {
	var out []string
	for start := 0; start < len(owners); start += registryBatch {
		var part []string
		if err := s.db.NewSelect().Table("jetton_wallets").Column("address").
			Where("owner IN (?)", bun.In(owners[start:min(start+registryBatch, len(owners))])).Scan(ctx, &part); err != nil {
			return nil, unavailable(err)
		}
		out = append(out, part...)
	}
	return out, nil
}
