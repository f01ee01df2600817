// Package resolvers is the one place requests become domain calls: GraphQL
// resolves through it, and the REST routes call the same methods, so the
// two cannot drift.
package resolvers

import (
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/store"
)

// Resolver holds the dependencies of every resolver.
type Resolver struct {
	Store   *store.Store
	Fees    *fees.Estimator // nil: estimateFee answers "unavailable"
	Testnet bool
	Notify  *notify.Hub // nil: streams answer "unavailable"
}
