package rest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/pending"
	"github.com/tonql/tonql/preview"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
	"github.com/tonql/tonql/tonconnect"
)

// emulateOptions are the fields toncenter's emulation routes share: what
// the answer includes, and the block to emulate at.
type emulateOptions struct {
	WithActions        *bool            `json:"with_actions"`
	IncludeCodeData    *bool            `json:"include_code_data"`
	IncludeAddressBook *bool            `json:"include_address_book"`
	IncludeMetadata    *bool            `json:"include_metadata"`
	McBlockSeqno       *json.RawMessage `json:"mc_block_seqno"`
	IgnoreChksig       *bool            `json:"ignore_chksig"`

	at *uint32 // the past block the preview ran at; nil: the newest
}

func on(b *bool) bool { return b != nil && *b }

// decodeOptions reads the options of a body, naming a field of the wrong
// type.
func decodeOptions(raw []byte) (emulateOptions, error) {
	var o emulateOptions
	if err := json.Unmarshal(raw, &o); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return o, apperr.Field(te.Field, "must be a boolean")
		}
		return o, apperr.New(apperr.BadRequest, "request body is not valid JSON")
	}
	return o, nil
}

// EmulateTraceV1 serves POST /api/emulate/v1/emulateTrace: toncenter's
// emulation of a signed external message (boc), in its answer shape.
// ignore_chksig defaults to false, as toncenter's does.
func EmulateTraceV1(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, ok := postBody(w, r)
		if !ok {
			return
		}
		est, o, err := func() (*preview.Estimate, emulateOptions, error) {
			o, err := decodeOptions(raw)
			if err != nil {
				return nil, o, err
			}
			p, err := fees.DecodeParams(raw)
			if err != nil {
				return nil, o, err
			}
			if p.Boc == "" {
				return nil, o, apperr.Field("boc", "required (base64 of the signed external message)")
			}
			if p.Address != "" || p.Body != "" || p.InitCode != "" || p.InitData != "" {
				return nil, o, apperr.Field("boc", "this route takes a whole message only; POST /api/v3/emulate takes address and body")
			}
			chk := on(o.IgnoreChksig)
			p.IgnoreChksig = &chk
			at, seqno, err := atBlock(r, res, o)
			if err != nil {
				return nil, o, err
			}
			o.at = seqno
			est, err := res.PreviewAt(r.Context(), p, at)
			return est, o, err
		}()
		writeEmulation(w, r, res, est, o, err)
	}
}

// EmulateTonConnectV1 serves POST /api/emulate/v1/emulateTonConnect:
// toncenter's emulation of a TON Connect request, in its answer shape.
func EmulateTonConnectV1(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, ok := postBody(w, r)
		if !ok {
			return
		}
		est, o, err := func() (*preview.Estimate, emulateOptions, error) {
			o, err := decodeOptions(raw)
			if err != nil {
				return nil, o, err
			}
			if o.IgnoreChksig != nil {
				return nil, o, apperr.Field("ignore_chksig", "not a field of emulateTonConnect: the message is unsigned and never checked")
			}
			p, err := tonconnect.DecodeParams(raw)
			if err != nil {
				return nil, o, err
			}
			at, seqno, err := atBlock(r, res, o)
			if err != nil {
				return nil, o, err
			}
			o.at = seqno
			est, err := res.PreviewTonConnectAt(r.Context(), p, at)
			return est, o, err
		}()
		writeEmulation(w, r, res, est, o, err)
	}
}

// atBlock reads mc_block_seqno: nil for none or the newest block (the
// current states), else the past block the store holds states of
// (resolvers.BlockAt), whose seqno the answer names.
func atBlock(r *http.Request, res *resolvers.Resolver, o emulateOptions) (*fees.At, *uint32, error) {
	if o.McBlockSeqno == nil || string(*o.McBlockSeqno) == "null" {
		return nil, nil, nil
	}
	var seqno uint32
	if err := json.Unmarshal(*o.McBlockSeqno, &seqno); err != nil {
		return nil, nil, apperr.Field("mc_block_seqno", "must be a masterchain block seqno")
	}
	at, err := res.BlockAt(r.Context(), seqno)
	if err != nil || at == nil {
		return nil, nil, err
	}
	return at, &seqno, nil
}

func writeEmulation(w http.ResponseWriter, r *http.Request, res *resolvers.Resolver, est *preview.Estimate, o emulateOptions, err error) {
	if err != nil {
		WriteError(w, r, V3, err)
		return
	}
	var seqno uint32
	if o.at != nil {
		seqno = *o.at
	} else if mc, err := res.MasterchainInfo(r.Context()); err == nil {
		seqno = mc.Last.Seqno
	}
	pv := est.Preview
	txs := make([]*chain.Transaction, len(pv.Transactions))
	for i, t := range pv.Transactions {
		txs[i] = t.Tx
	}
	out, err := toncenter.RenderEmulation(txs, pv.Complete, seqno)
	if err != nil {
		WriteError(w, r, V3, apperr.Wrap(apperr.Internal, err, "internal error"))
		return
	}
	out.RandSeed = base64.StdEncoding.EncodeToString(est.RandSeed[:])
	pending.MarkEmulated(out.Transactions, pv, seqno)
	if on(o.IncludeCodeData) {
		out.CodeCells, out.DataCells = toncenter.Cells(pv.Code), toncenter.Cells(pv.Data)
	}
	if on(o.WithActions) {
		a := pv.Actions
		if a == nil {
			a = []*chain.Action{}
		}
		out.Actions = &a
	}
	if on(o.IncludeAddressBook) {
		out.AddressBook = &est.AddressBook
	}
	if on(o.IncludeMetadata) {
		out.Metadata = &est.Metadata
	}
	WriteJSON(w, out)
}
