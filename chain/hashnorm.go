package chain

import (
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// NormalizedHash is the TEP-467 normalized hash of an external-in message:
// the hash of the message rebuilt with no source, no import fee, no
// StateInit and the body by reference. Wallets and explorers use it to find
// "the message I sent" whatever the relayer changed around the body. It
// reports false for other messages and for unreadable ones.
func NormalizedHash(m *Message) (Hash, bool) {
	if m == nil || !m.IsExternalIn() || m.Destination == "" {
		return Hash{}, false
	}
	if !m.HashNorm.IsZero() {
		return m.HashNorm, true
	}
	dest, err := ton.AccountIDFromRaw(m.Destination)
	if err != nil {
		return Hash{}, false
	}
	body := boc.NewCell()
	if len(m.Body) > 0 {
		cells, err := boc.DeserializeBoc(m.Body)
		if err != nil || len(cells) != 1 {
			return Hash{}, false
		}
		body = cells[0]
	}
	c := boc.NewCell()
	_ = c.WriteUint(0b10, 2) // ext_in_msg_info$10
	_ = c.WriteUint(0b00, 2) // src: addr_none$00
	if err := dest.ToMsgAddress().MarshalTLB(c, &tlb.Encoder{}); err != nil {
		return Hash{}, false
	}
	_ = c.WriteUint(0, 4) // import_fee: Grams 0
	_ = c.WriteBit(false) // init: nothing
	_ = c.WriteBit(true)  // body: by reference
	if err := c.AddRef(body); err != nil {
		return Hash{}, false
	}
	h, err := c.Hash256()
	if err != nil {
		return Hash{}, false
	}
	return Hash(h), true
}
