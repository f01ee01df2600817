package fees

import (
	"errors"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// parseMessage validates a whole external message: a BOC of a Message with
// an ext_in header addressed to a standard address of workchain 0 or -1.
// It is emulated as it came, so its layout (body inline or by reference,
// StateInit) is what the chain will charge for.
func parseMessage(s string, ignoreChksig *bool) (Request, error) {
	var r Request
	b, err := checkBOC("boc", s)
	if err != nil {
		return r, err
	}
	m, err := decodeMessage(b)
	if err != nil {
		return r, apperr.Field("boc", "%v", err)
	}
	if !reencodes(b, m) {
		// a layout tongo would change (non-canonical encodings): the
		// import fee could then not be the one the chain charges
		return r, apperr.Field("boc", "message is not canonically encoded")
	}
	if m.Info.SumType != "ExtInMsgInfo" {
		return r, apperr.Field("boc", "not an external inbound message (it is %s); send what the wallet signed for the network", msgKind(string(m.Info.SumType)))
	}
	dest, err := ton.AccountIDFromTlb(m.Info.ExtInMsgInfo.Dest)
	if err != nil || dest == nil {
		return r, apperr.Field("boc", "the message's destination is not a standard address")
	}
	if dest.Workchain != 0 && dest.Workchain != -1 {
		return r, apperr.Field("boc", "destination workchain %d does not exist (only 0 and -1)", dest.Workchain)
	}
	r.Account, r.Message, r.Body = *dest, b, b
	r.IgnoreChksig = ignoreChksig == nil || *ignoreChksig
	r.checked = true
	return r, nil
}

func msgKind(sum string) string {
	switch sum {
	case "IntMsgInfo":
		return "an internal message"
	case "ExtOutMsgInfo":
		return "an outbound external message"
	}
	return "not a message"
}

// decodeMessage reads a message from checked BOC bytes into structures the
// caller owns; tongo's decoder may panic on crafted cells.
func decodeMessage(b []byte) (m tlb.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("not a message")
		}
	}()
	root, err := deserializeRoot(b)
	if err != nil {
		return m, err
	}
	if err := tlb.Unmarshal(root, &m); err != nil {
		return m, errors.New("not a message")
	}
	return m, nil
}

// builtFromMessage is a request's own message with its StateInit, if any.
func builtFromMessage(r Request) (*built, error) {
	m, err := decodeMessage(r.Message)
	if err != nil {
		return nil, err
	}
	b := &built{msg: m}
	if m.Init.Exists {
		si := m.Init.Value.Value
		b.init = &si
	}
	return b, nil
}

// reencodes reports whether the decoded message encodes back to the cell
// that was sent (tongo re-encodes it for the emulator).
func reencodes(b []byte, m tlb.Message) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	root, err := deserializeRoot(b)
	if err != nil {
		return false
	}
	want, err := root.Hash256()
	if err != nil {
		return false
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, m); err != nil {
		return false
	}
	got, err := c.Hash256()
	return err == nil && got == want
}

// MessageHashes returns, for a request made of a whole message (boc), the
// message's hash and its TEP-467 normalized hash (what a wallet can find
// the message by before the network adds its own fields).
func (r Request) MessageHashes() (hash, norm chain.Hash, err error) {
	if r.Message == nil {
		return hash, norm, errors.New("not a whole-message request")
	}
	m, err := decodeMessage(r.Message)
	if err != nil {
		return hash, norm, err
	}
	return chain.Hash(m.Hash(false)), chain.Hash(m.Hash(true)), nil
}
