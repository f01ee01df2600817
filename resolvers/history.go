package resolvers

import (
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/history"
)

// History is the reader of stored blocks and raw transactions (the v2
// block and transaction methods); without a database it is Unavailable.
func (r *Resolver) History() (*history.History, error) {
	if r.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no database: blocks and transactions are read from the store")
	}
	return history.New(r.Store), nil
}
