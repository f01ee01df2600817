// Package resolvers is the one place requests become domain calls: GraphQL
// resolves through it, and the REST routes call the same methods, so the
// two cannot drift.
package resolvers

import (
	"context"
	"sync"
	"time"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/lite"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/webhooks"
)

// Resolver holds the dependencies of every resolver.
type Resolver struct {
	Store   *store.Store
	Fees    *fees.Estimator // nil: estimateFee answers "unavailable"
	Testnet bool
	Notify  *notify.Hub // nil: streams answer "unavailable"
	// Webhooks serves the webhook calls; nil: they answer "unavailable".
	Webhooks *webhooks.Service
	// Lite is the live chain, nil when no lite server is configured:
	// sendBoc then says it needs one, and getMasterchainInfo answers
	// from the store.
	Lite LiteServers
	// LoaderWait is how long a GraphQL loader collects the keys of one
	// level (the links of a page's actions) before it reads them in one
	// statement; 0 = 500us. Keys that arrive later go in a batch of their
	// own: a test that counts batches on a loaded machine sets it longer.
	LoaderWait time.Duration
	// GetMethodGas bounds one get method's gas (GET_METHOD_GAS_LIMIT);
	// 0 = cost.DefaultGetMethodGas.
	GetMethodGas int64
	// Now is the clock of answers relative to the present (the price
	// changes of /v2/rates); nil: time.Now. Tests set it to the fixtures'
	// time.
	Now func() time.Time
	// PendingTimeout is how long the emulated trace of a sent message is
	// kept (pendingTraces) when its real trace is not stored;
	// 0 = notify.DefaultPendingTimeout.
	PendingTimeout time.Duration

	getOnce sync.Once
	get     *getmethod.Runner
	head    headCache
	libs    libraryCache
}

// LiteServers is what the wallet calls need of lite servers (lite.Client).
type LiteServers interface {
	MasterchainInfo(ctx context.Context) (lite.MasterchainInfo, error)
	SendMessage(ctx context.Context, boc []byte) error
}

// getMethods runs get methods on the estimator's states, config and clock.
func (r *Resolver) getMethods() *getmethod.Runner {
	r.getOnce.Do(func() {
		if r.Fees != nil {
			r.get = getmethod.New(r.Fees).WithGasLimit(r.GetMethodGas)
		}
	})
	return r.get
}
