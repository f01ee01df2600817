package contracts

import (
	"context"
	"log/slog"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/store"
)

// Registry keeps the store's sale, vesting, DNS and multisig tables current: after each
// imported or followed batch it reads the accounts' states after the
// batch and stores what they hold, and marks the contracts whose accounts
// had transactions without a newer state as unknown.
type Registry struct {
	store  *store.Store
	reader *Reader
	log    *slog.Logger
}

func New(st *store.Store, r Runner, log *slog.Logger) *Registry {
	if log == nil {
		log = slog.Default()
	}
	return &Registry{store: st, reader: NewReader(r), log: log.With("component", "contracts")}
}

// ForStore is a registry whose get methods run with the store's newest
// blockchain config and libraries.
func ForStore(st *store.Store, log *slog.Logger) *Registry {
	return New(st, getmethod.New(fees.New(st, nil, fees.Options{})), log)
}

// WithDNSRoots reads the DNS items of roots (Reader.WithDNSRoots).
func (g *Registry) WithDNSRoots(roots map[string]DNSZone) *Registry {
	g.reader.WithDNSRoots(roots)
	return g
}

// Update reads states and records the sales, vesting wallets, DNS items and
// multisigs among them; touched are the batch's accounts with their newest transaction lt.
func (g *Registry) Update(ctx context.Context, states []chain.AccountState, touched map[string]uint64) (*chain.ContractRecords, error) {
	recs, bad, err := g.reader.Read(ctx, states)
	if err != nil {
		return nil, err
	}
	for addr, why := range bad {
		g.log.Debug("contract state not readable", "address", addr, "why", why)
	}
	if err := g.store.SaveContracts(ctx, recs); err != nil {
		return nil, err
	}
	return recs, g.store.MarkContractsBehind(ctx, chain.Behind(states, bad, touched))
}

// Hook is Update as ingest's state hook.
func (g *Registry) Hook(ctx context.Context, states []chain.AccountState, touched map[string]uint64) error {
	_, err := g.Update(ctx, states, touched)
	return err
}
