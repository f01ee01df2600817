package resolvers

import (
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/notify"
)

// jettonsEvent is a jettons_change event of Subscription.events: the
// wallet as toncenter's JettonsNotification.jetton shows it, with the
// address book of the wallet, owner and master and the metadata of the
// owner and master.
func jettonsEvent(e *notify.Event) *model.StreamEvent {
	w, book, md := e.Jetton.Rendered()
	c := &model.JettonsChange{Address: w.Address, Owner: w.Owner, Jetton: w.Jetton, LastTransactionLt: e.Jetton.Wallet.LastTxLt,
		CodeHash: w.CodeHash, DataHash: w.DataHash, TransactionHash: e.Jetton.Wallet.LastTxHash.Base64()}
	if w.Balance != nil {
		c.Balance = optionalBig(*w.Balance)
	}
	return &model.StreamEvent{Cursor: EncodeStreamCursor(e.Seq), Type: EventJettons, Finality: FinalityFinalized,
		JettonsChange: c, AddressBook: book, Metadata: md}
}
