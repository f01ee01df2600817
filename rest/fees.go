package rest

import (
	"errors"
	"io"
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/internal/reqid"
)

// EstimateFee serves POST /api/v2/estimateFee through the GraphQL resolver.
func EstimateFee(q graph.QueryResolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			WriteError(w, r, V2, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST", r.Method))
			return
		}
		raw, err := readBody(r)
		if err != nil {
			WriteError(w, r, V2, err)
			return
		}
		p, err := fees.DecodeParams(raw)
		if err != nil {
			WriteError(w, r, V2, err)
			return
		}
		res, err := estimate(r, q, p)
		if err != nil {
			WriteError(w, r, V2, err)
			return
		}
		WriteJSON(w, feeAnswer{OK: true, Result: res})
	}
}

// feeAnswer is the success envelope. A struct, not a map[string]any: the
// same bytes (fields in the map's sorted key order) without building and
// sorting a map for every answer.
type feeAnswer struct {
	OK     bool         `json:"ok"`
	Result *fees.Result `json:"result"`
}

// estimate calls the resolver and stamps the request id on a copy of the
// result (a cached result may be shared).
func estimate(r *http.Request, q graph.QueryResolver, p fees.Params) (*fees.Result, error) {
	res, err := q.EstimateFee(r.Context(), p.Address, p.Body, &p.InitCode, &p.InitData, p.IgnoreChksig)
	if err != nil {
		return nil, err
	}
	out := *res.Result
	out.Extra = reqid.From(r.Context())
	return &out, nil
}

// readBody reads a request body under the server's size cap, telling a
// body over the cap (413) from a broken connection.
func readBody(r *http.Request) ([]byte, error) {
	raw, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, apperr.New(apperr.TooLarge, "request body over %d bytes", tooBig.Limit)
	case err != nil:
		return nil, apperr.Wrap(apperr.BadRequest, err, "could not read the request body")
	}
	return raw, nil
}
