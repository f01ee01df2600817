package rest

import (
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/preview"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/tonconnect"
)

// v3Fees is a fee object as toncenter v3 writes it (no @type).
type v3Fees struct {
	InFwdFee   uint64 `json:"in_fwd_fee"`
	StorageFee uint64 `json:"storage_fee"`
	GasFee     uint64 `json:"gas_fee"`
	FwdFee     uint64 `json:"fwd_fee"`
}

func toV3(f fees.Fees) v3Fees {
	return v3Fees{InFwdFee: f.InFwdFee, StorageFee: f.StorageFee, GasFee: f.GasFee, FwdFee: f.FwdFee}
}

// v3Estimate is toncenter v3's estimateFee answer.
type v3Estimate struct {
	SourceFees      v3Fees   `json:"source_fees"`
	DestinationFees []v3Fees `json:"destination_fees"`
}

func v3EstimateOf(res *fees.Result) v3Estimate {
	out := v3Estimate{SourceFees: toV3(res.SourceFees), DestinationFees: make([]v3Fees, len(res.DestinationFees))}
	for i, f := range res.DestinationFees {
		out.DestinationFees[i] = toV3(f)
	}
	return out
}

// postBody reads a POST body; any other method is refused.
func postBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST", r.Method))
		return nil, false
	}
	raw, err := readBody(r)
	if err != nil {
		WriteError(w, r, V3, err)
		return nil, false
	}
	return raw, true
}

// v3Params reads a v3 POST body: the estimateFee fields (and, for
// emulate, boc).
func v3Params(w http.ResponseWriter, r *http.Request) (fees.Params, bool) {
	raw, ok := postBody(w, r)
	if !ok {
		return fees.Params{}, false
	}
	p, err := fees.DecodeParams(raw)
	if err != nil {
		WriteError(w, r, V3, err)
		return fees.Params{}, false
	}
	return p, true
}

// EstimateFeeV3 serves POST /api/v3/estimateFee: toncenter v3's route, the
// same fields as v2 and its answer shape (fee objects without @type, no
// envelope), errors in the v3 envelope.
func EstimateFeeV3(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := v3Params(w, r)
		if !ok {
			return
		}
		if p.Boc != "" {
			WriteError(w, r, V3, apperr.Field("boc", "not a field of estimateFee; POST /api/v3/emulate takes a whole message"))
			return
		}
		est, err := res.EstimateFee(r.Context(), p)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, v3EstimateOf(est.Result))
	}
}

// emulateAnswer is POST /api/v3/emulate's answer; GraphQL's FeeEstimate
// with every field selected is the same object.
type emulateAnswer struct {
	v3Estimate
	ConfigSource   string                 `json:"config_source"`
	Utime          uint32                 `json:"utime"`
	Clock          string                 `json:"clock"`
	Complete       bool                   `json:"complete"`
	Stopped        []*preview.Stop        `json:"stopped"`
	Transactions   []*preview.Transaction `json:"transactions"`
	Actions        []*chain.Action        `json:"actions"`
	AddressBook    chain.AddressBook      `json:"address_book"`
	Metadata       chain.Metadata         `json:"metadata"`
	BalanceChanges preview.BalanceChanges `json:"balance_changes"`
	Risk           preview.Risk           `json:"risk"`
}

// Emulate serves POST /api/v3/emulate: the estimateFee fields, a whole
// signed external message as boc, or a TON Connect sendTransaction request
// (from, messages, valid_until, network, state_init), emulated through its
// trace: fees, actions with their address book, transactions, balance
// changes, the risk summary, and where the trace stopped.
func Emulate(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, ok := postBody(w, r)
		if !ok {
			return
		}
		est, err := emulateAny(r, res, raw)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		pv := est.Preview
		out := emulateAnswer{v3Estimate: v3EstimateOf(est.Result), ConfigSource: est.ConfigSource, Utime: est.Utime,
			Clock: est.Clock, Complete: pv.Complete, Stopped: pv.Stopped, Transactions: pv.Transactions,
			Actions: pv.Actions, AddressBook: est.AddressBook, Metadata: est.Metadata, BalanceChanges: pv.BalanceChanges, Risk: pv.Risk}
		if out.Stopped == nil {
			out.Stopped = []*preview.Stop{}
		}
		if out.Actions == nil {
			out.Actions = []*chain.Action{}
		}
		WriteJSON(w, out)
	}
}

// emulateAny previews a body that is either a TON Connect request or the
// estimateFee fields (boc among them).
func emulateAny(r *http.Request, res *resolvers.Resolver, raw []byte) (*preview.Estimate, error) {
	if tonconnect.IsRequest(raw) {
		p, err := tonconnect.DecodeParams(raw)
		if err != nil {
			return nil, err
		}
		return res.PreviewTonConnect(r.Context(), p)
	}
	p, err := fees.DecodeParams(raw)
	if err != nil {
		return nil, err
	}
	return res.Preview(r.Context(), p)
}
