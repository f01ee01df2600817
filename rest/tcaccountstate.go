package rest

import (
	"encoding/json"

	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// tcAccountStateNotification is toncenter's streaming v2
// AccountStateNotification, finalized, with our resume cursor when asked
// for. It carries no address book or metadata, as toncenter's.
type tcAccountStateNotification struct {
	Type     string                        `json:"type"`
	Finality string                        `json:"finality"`
	Account  string                        `json:"account"`
	State    *toncenter.StreamAccountState `json:"state"`
	Cursor   string                        `json:"cursor,omitempty"`
}

// tcAccountState writes an account's state after a transaction as
// toncenter's AccountStateNotification.
func tcAccountState(e *notify.Event, cursor bool) ([]byte, error) {
	st, _, err := e.State.Rendered()
	if err != nil {
		return nil, err
	}
	n := tcAccountStateNotification{Type: notify.TypeAccountState, Finality: resolvers.FinalityFinalized,
		Account: e.State.Tx.Account, State: st}
	if cursor {
		n.Cursor = resolvers.EncodeStreamCursor(e.Seq)
	}
	return json.Marshal(&n)
}
