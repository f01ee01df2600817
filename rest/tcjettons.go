package rest

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// tcJettonsNotification is toncenter's streaming v2 JettonsNotification,
// finalized, with our resume cursor when asked for.
type tcJettonsNotification struct {
	Type     string                 `json:"type"`
	Finality string                 `json:"finality"`
	Jetton   toncenter.JettonWallet `json:"jetton"`
	// Pointers, as toncenter's: an empty object asked for is written.
	AddressBook *chain.AddressBook `json:"address_book,omitempty"`
	Metadata    *chain.Metadata    `json:"metadata,omitempty"`
	Cursor      string             `json:"cursor,omitempty"`
}

// tcJettons writes a jetton wallet's change as toncenter's
// JettonsNotification: the address book (wallet, owner, master) and the
// metadata (owner, master) only when asked for, as toncenter sends them.
func tcJettons(e *notify.Event, book, meta, cursor bool) ([]byte, error) {
	w, b, md := e.Jetton.Rendered()
	n := tcJettonsNotification{Type: notify.TypeJettons, Finality: resolvers.FinalityFinalized, Jetton: w}
	if book {
		n.AddressBook = &b
	}
	if meta {
		n.Metadata = &md
	}
	if cursor {
		n.Cursor = resolvers.EncodeStreamCursor(e.Seq)
	}
	return json.Marshal(&n)
}
