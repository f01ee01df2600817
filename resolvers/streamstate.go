package resolvers

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/toncenter"
)

// stateEvent is an account_state_change event of Subscription.events. A
// state that does not render (a malformed stored BOC) is shown with what
// the transaction says: its status.
func stateEvent(e *notify.Event) *model.StreamEvent {
	st, book, err := e.State.Rendered()
	if err != nil {
		book, st = chain.AddressBook{}, &toncenter.StreamAccountState{}
		if s := e.State.Tx.EndStatus; s != "" {
			st.AccountStatus = &s
		}
	}
	tx := e.State.Tx
	return &model.StreamEvent{Cursor: EncodeStreamCursor(e.Seq), Type: EventAccountState, Finality: FinalityFinalized,
		AccountState: &model.AccountStateChange{Account: tx.Account, TransactionHash: tx.Hash.Base64(), TransactionLt: tx.Lt, State: st},
		AddressBook:  book, Metadata: chain.Metadata{}}
}

// StateExtraCurrencies is StreamAccountState.extra_currencies: REST's
// object, null when unknown.
func (r *Resolver) StateExtraCurrencies(s *toncenter.StreamAccountState) (chain.RawJSON, error) {
	if s.BalanceExtraCurrencies == nil {
		return nil, nil
	}
	b, err := json.Marshal(s.BalanceExtraCurrencies)
	return chain.RawJSON(b), err
}
