package tonconnect

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// SendMode is the mode TON Connect wallets send every message with: pay
// the forward fees apart from the amount (1) and ignore errors (2).
const SendMode = 3

// DefaultLifetime is how long a message without valid_until stays valid:
// what wallets pick when the dApp leaves it out.
const DefaultLifetime = 5 * time.Minute

// Built is a request turned into an estimate request, with what was read
// to build it.
type Built struct {
	Request fees.Request
	// Type names the wallet: tongo's version name ("v4R2",
	// "highload_v2R2") or HighloadV3Name.
	Type string
	// Wallet and Seqno are the version and seqno of a wallet that has
	// them (not the highload wallets, which count queries, not seqnos).
	Wallet wallet.Version
	Seqno  uint32
	Deploy bool // the sender is deployed by this message (state_init)
	// Modes are the send modes of the wallet's out messages (all
	// SendMode): the preview's risk summary reads them.
	Modes []uint8
}

// supported names the wallets Build can write for, in refusals.
const supported = "v3R1, v3R2, v4R1, v4R2, v5R1, highload v2 (v2, v2R1, v2R2) and v3"

// Build makes the external message the sender's wallet would send for r,
// on the sender's state st (nil: the server knows none), unsigned: the
// signature is zero bits, and the estimate skips the check. now is the
// chain time the preview runs at (the estimator's clock): a missing
// valid_until counts from it, and highload v3's created_at is it.
func Build(r Request, st *chain.AccountState, now time.Time) (*Built, error) {
	info, err := accountinfo.Decode(st)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	from := chain.RawAddress(r.From)
	var code, data []byte
	deploy := false
	switch info.Status {
	case accountinfo.StateActive:
		code, data = info.Code, info.Data
	case accountinfo.StateFrozen:
		return nil, apperr.Field("from", "account %s is frozen: it sends nothing until unfrozen", from)
	default:
		if r.StateInit == nil {
			return nil, apperr.Field("from", "wallet %s is not deployed; give state_init (TON Connect's walletStateInit) to preview its deployment", from)
		}
		if code, data, err = ownInit(r.StateInit, r.From); err != nil {
			return nil, err
		}
		deploy = true
	}
	codeCell, err := chain.DecodeRoot(code)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	dataCell, err := chain.DecodeRoot(data)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	raws := make([]wallet.RawMessage, len(r.Messages))
	modes := make([]uint8, len(r.Messages))
	for i, m := range r.Messages {
		c, err := internal(m)
		if err != nil {
			return nil, apperr.Field(fmt.Sprintf("messages[%d]", i), "%v", err)
		}
		raws[i] = wallet.RawMessage{Message: c, Mode: SendMode}
		modes[i] = SendMode
	}
	until := time.Unix(int64(r.ValidUntil), 0)
	if r.ValidUntil == 0 {
		until = now.Add(DefaultLifetime)
	}
	built := &Built{Deploy: deploy, Modes: modes}
	var body *boc.Cell
	if name, ok := isHighload(codeCell); ok {
		built.Type = name
		if body, err = highloadBody(name, dataCell, raws, r.From, uint32(until.Unix()), uint32(now.Unix())); err != nil {
			return nil, err
		}
	} else if body, err = standardBody(built, codeCell, dataCell, r, raws, until); err != nil {
		return nil, err
	}
	b, err := body.ToBoc()
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	req := fees.Request{Account: r.From, Body: b, IgnoreChksig: true, State: st, ValidUntil: uint32(until.Unix())}
	if deploy {
		req.InitCode, req.InitData = code, data
	}
	built.Request = req
	return built, nil
}

// standardBody is the unsigned body of a wallet tongo writes for (v3, v4,
// v5), with the seqno and wallet id its data holds; it fills b's Wallet,
// Type and Seqno.
func standardBody(b *Built, code, data *boc.Cell, r Request, raws []wallet.RawMessage, until time.Time) (*boc.Cell, error) {
	w, seqno, err := walletOf(code, data, r.From.Workchain, r.Network)
	if err != nil {
		return nil, err
	}
	from := chain.RawAddress(r.From)
	if w.GetAddress() != r.From {
		// the standard wallet this code and data make lives elsewhere:
		// a wallet id outside the standard layout, which we cannot write
		return nil, apperr.Field("from", "the %s wallet at %s has a non-standard wallet id; its messages cannot be built", w.GetVersion().ToString(), from)
	}
	if n := w.MaxMessageNumber(); len(r.Messages) > n {
		return nil, apperr.Field("messages", "%d messages; a %s wallet sends at most %d at once", len(r.Messages), w.GetVersion().ToString(), n)
	}
	b.Wallet, b.Type, b.Seqno = w.GetVersion(), w.GetVersion().ToString(), seqno
	body, err := w.CreateMsgBodyWithoutSignature(wallet.MessageConfig{Seqno: seqno, ValidUntil: until,
		V5MsgType: wallet.V5MsgTypeSignedExternal}, raws)
	if err == nil {
		body, err = w.AttachSignature(body, tlb.Bits512{})
	}
	if err != nil {
		return nil, apperr.Field("messages", "the wallet's message cannot be built: %v", err)
	}
	return body, nil
}

// ownInit reads the sender's StateInit: its code and data, which must
// hash to the sender's address.
func ownInit(b []byte, from ton.AccountID) (code, data []byte, err error) {
	si, c, err := stateInit(b)
	if err != nil {
		return nil, nil, apperr.Field("state_init", "%v", err)
	}
	h, err := c.Hash256()
	if err != nil || h != from.Address {
		return nil, nil, apperr.Field("state_init", "does not hash to %s (it deploys another address)", chain.RawAddress(from))
	}
	if !si.Code.Exists || !si.Data.Exists {
		return nil, nil, apperr.Field("state_init", "a wallet's StateInit needs code and data")
	}
	cc, dc := si.Code.Value.Value, si.Data.Value.Value
	if code, err = cc.ToBoc(); err == nil {
		data, err = dc.ToBoc()
	}
	if err != nil {
		return nil, nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return code, data, nil
}

// stateInit decodes a StateInit BOC; tongo's decoder may panic on crafted
// cells, which is a client's error here.
func stateInit(b []byte) (si tlb.StateInit, root *boc.Cell, err error) {
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("not a StateInit")
		}
	}()
	if root, err = chain.DecodeRoot(b); err != nil {
		return si, nil, err
	}
	if err := tlb.Unmarshal(root, &si); err != nil {
		return si, nil, fmt.Errorf("not a StateInit")
	}
	root.ResetCounters()
	return si, root, nil
}

// walletOf recognizes the wallet by its code (as accountinfo does) and
// reads its seqno and wallet id from its data. v5's wallet id mixes the
// network, the workchain and a subwallet number; the subwallet is what
// is left after the other two are taken out (the XOR gives back the
// stored id whichever network is named, so the message carries the id
// the wallet checks).
func walletOf(code, data *boc.Cell, wc int32, network int32) (wallet.Wallet, uint32, error) {
	ver, err := wallet.GetVersionByCode(*code)
	if err != nil {
		return wallet.Wallet{}, 0, apperr.Field("from", "the account's code is not a wallet this server builds messages for (%s)", supported)
	}
	opts := []wallet.Option{wallet.WithWorkchain(int(wc)), wallet.WithNetworkGlobalID(network)}
	switch ver {
	case wallet.V3R1, wallet.V3R2, wallet.V4R1, wallet.V4R2:
		w, seqno, err := wallet.NewFromCodeAndData(*code, *data, opts...)
		if err != nil {
			return w, 0, apperr.Field("from", "the %s wallet's data does not decode: %v", ver.ToString(), err)
		}
		return w, seqno, nil
	case wallet.V5R1:
		var d wallet.DataV5R1
		if err := tlb.Unmarshal(data, &d); err != nil {
			return wallet.Wallet{}, 0, apperr.Field("from", "the v5R1 wallet's data does not decode: %v", err)
		}
		sub := (d.WalletID ^ uint32(network)) & 0x7fff
		w, err := wallet.NewFromPublicKey(ed25519.PublicKey(d.PublicKey[:]), wallet.V5R1, append(opts, wallet.WithSubWalletID(sub))...)
		if err != nil {
			return w, 0, apperr.Field("from", "the v5R1 wallet's data does not decode: %v", err)
		}
		return w, d.Seqno, nil
	}
	return wallet.Wallet{}, 0, apperr.Field("from", "a %s wallet: this server builds messages only for %s", ver.ToString(), supported)
}

// internal is the message the wallet sends for m, laid out as TON Connect
// wallets (@ton/core) lay it out: the StateInit, then the body, each in the
// message's own cell when it fits there, else by reference. The layout is
// what the forward fee is charged on.
func internal(m message) (*boc.Cell, error) {
	wm := wallet.Message{Amount: tlb.Grams(m.amount), Address: m.dest, Bounce: m.bounce}
	if m.payload != nil {
		c, err := chain.DecodeRoot(m.payload)
		if err != nil {
			return nil, err
		}
		wm.Body = c
	}
	if m.stateInit != nil {
		si, _, err := stateInit(m.stateInit)
		if err != nil {
			return nil, fmt.Errorf("stateInit: %v", err)
		}
		wm.Init = &si
	}
	msg, _, err := wm.ToInternal()
	if err != nil {
		return nil, err
	}
	for _, layout := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
		if msg.Init.Exists {
			msg.Init.Value.IsRight = layout[0]
		}
		msg.Body.IsRight = layout[1] && m.payload != nil
		c := boc.NewCell()
		if err := tlb.Marshal(c, msg); err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("the message does not fit in a cell")
}
