package resolvers

import (
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/history"
)

// History is the reader of stored blocks and raw transactions (the v2
// block and transaction methods); without a database it is Unavailable.
// Lite servers that can list an account's transactions (lite.Client can)
// answer for the history older than the store.
func (r *Resolver) History() (*history.History, error) {
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no database: blocks and transactions are read from the store")
	}
	archive, _ := r.Lite.(history.Archive)
	return history.New(r.Store, archive), nil
}
