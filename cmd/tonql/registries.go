package main

import (
	"context"
	"log/slog"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
)

// stateHook is what import and follow run on each saved batch's states:
// the sale, vesting and DNS contracts first, so that NFT items read in
// the same batch find the sales that hold them, then the token registry.
// DNS items are those of the network's DNS roots.
func stateHook(st *store.Store, log *slog.Logger, testnet bool) ingest.TokenHook {
	c, t := contracts.ForStore(st, log).WithDNSRoots(contracts.DNSRoots(testnet)), tokens.ForStore(st, log)
	return func(ctx context.Context, states []chain.AccountState, touched map[string]uint64) error {
		if err := c.Hook(ctx, states, touched); err != nil {
			return err
		}
		return t.Hook(ctx, states, touched)
	}
}
