package tokens

import (
	"context"
	"log/slog"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/store"
)

// Registry keeps the store's token registry current: after each imported
// or followed batch it reads the tokens among the accounts' states after
// the batch, stores them (a row only ever replaced by one read at a later
// transaction), hands their content to the metadata worker, and marks the
// tokens whose accounts had transactions but no new state as unknown.
type Registry struct {
	store  *store.Store
	reader *Reader
	log    *slog.Logger
}

func New(st *store.Store, r Runner, log *slog.Logger) *Registry {
	if log == nil {
		log = slog.Default()
	}
	return &Registry{store: st, reader: NewReader(r), log: log.With("component", "tokens")}
}

// Stats counts what one Update found.
type Stats struct {
	JettonMasters, JettonWallets, NftCollections, NftItems int
	// Unreadable states (a library this server lacks, ...), and accounts
	// that had transactions without a state to read (their balances and
	// owners now unknown).
	Unreadable, Behind int
}

// Update reads states (each account's state after the batch) and
// records what they hold. touched are the accounts the batch's
// transactions changed, with the lt of each one's newest transaction: an
// account among them without a state as recent is behind, and its
// balance or owner is stored as unknown.
func (g *Registry) Update(ctx context.Context, states []chain.AccountState, touched map[string]uint64) (Stats, error) {
	var stats Stats
	recs, bad, err := g.reader.Read(ctx, states, g.saleContracts(ctx))
	if err != nil {
		return stats, err
	}
	for addr, why := range bad {
		g.log.Debug("token state not readable", "address", addr, "why", why)
	}
	stats.Unreadable = len(bad)
	stats.JettonMasters, stats.JettonWallets = len(recs.JettonMasters), len(recs.JettonWallets)
	stats.NftCollections, stats.NftItems = len(recs.NftCollections), len(recs.NftItems)
	withContentJSON(recs)
	if err := g.store.SaveTokens(ctx, recs); err != nil {
		return stats, err
	}
	if contents := contentsOf(recs); len(contents) > 0 {
		if _, err := g.store.EnqueueTokenContent(ctx, contents); err != nil {
			return stats, err
		}
	}
	behind := chain.Behind(states, bad, touched)
	stats.Behind = len(behind)
	return stats, g.store.MarkTokensBehind(ctx, behind)
}

// saleContracts tells which of addrs the store knows as sale or auction
// contracts (a sale contract's state read by package contracts, with its
// seller; or by code or an indexer's word, seller unknown).
func (g *Registry) saleContracts(ctx context.Context) func([]string) map[string]string {
	return func(addrs []string) map[string]string {
		out := map[string]string{}
		if len(addrs) == 0 {
			return out
		}
		facts, err := g.store.AddressFacts(ctx, addrs)
		if err != nil {
			g.log.Warn("reading what NFT owners are failed", "err", err)
			return out
		}
		for addr, f := range facts {
			for _, i := range f.Interfaces {
				if IsSaleInterface(i) {
					out[addr] = ""
				}
			}
		}
		sellers, err := g.store.SaleSellers(ctx, addrs)
		if err != nil {
			g.log.Warn("reading NFT owners' sales failed", "err", err)
			return out
		}
		for addr, seller := range sellers {
			out[addr] = seller
		}
		return out
	}
}

// contentsOf is the content of every token read, for the metadata worker.
func contentsOf(r *chain.TokenRecords) []chain.TokenContent {
	var out []chain.TokenContent
	add := func(addr, kind string, content []byte) {
		if len(content) == 0 {
			return
		}
		if c, err := metadata.NewTokenContent(addr, kind, content); err == nil {
			out = append(out, c)
		}
	}
	for _, m := range r.JettonMasters {
		add(m.Address, chain.TokenJettonMaster, m.Content)
	}
	for _, c := range r.NftCollections {
		add(c.Address, chain.TokenNftCollection, c.Content)
	}
	for _, it := range r.NftItems {
		add(it.Address, chain.TokenNftItem, it.Content)
	}
	return out
}

// ForStore is a registry whose get methods run with the store's newest
// blockchain config and libraries (what an import or the follower saved).
func ForStore(st *store.Store, log *slog.Logger) *Registry {
	return New(st, getmethod.New(fees.New(st, nil, fees.Options{})), log)
}

// Hook is Update as ingest's token hook (ingest.Importer.Tokens).
func (g *Registry) Hook(ctx context.Context, states []chain.AccountState, touched map[string]uint64) error {
	_, err := g.Update(ctx, states, touched)
	return err
}
