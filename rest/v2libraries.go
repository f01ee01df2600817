package rest

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/reqid"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

func init() {
	rpcMethods["getLibraries"] = getLibraries
	v2Routes["getLibraries"] = http.MethodGet
}

// maxLibraries is how many hashes one call may name: a lite server
// answers at most 16 per query, and so does this method.
const maxLibraries = 16

// libraryResult is tonlib's smc.libraryResult.
type libraryResult struct {
	Type   string         `json:"@type"`
	Result []libraryEntry `json:"result"`
	Extra  string         `json:"@extra"`
}

// libraryEntry is tonlib's smc.libraryEntry: the hash and the library
// cell as a BOC, both base64.
type libraryEntry struct {
	Type string `json:"@type"`
	Hash string `json:"hash"`
	Data string `json:"data"`
}

// getLibraries answers library cells by hash (hex or base64), the ones
// known; an unknown hash is left out of the result, as tonlib does.
func getLibraries(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	if err := p.only("libraries"); err != nil {
		return nil, err
	}
	hashes, err := p.hashList("libraries")
	if err != nil {
		return nil, err
	}
	libs, err := res.Libraries(r.Context(), hashes)
	if err != nil {
		return nil, err
	}
	out := libraryResult{Type: "smc.libraryResult", Result: make([]libraryEntry, len(libs)), Extra: reqid.From(r.Context())}
	for i, l := range libs {
		out.Result[i] = libraryEntry{Type: "smc.libraryEntry", Hash: b64(l.Hash[:]), Data: b64(l.BOC)}
	}
	return out, nil
}

// hashList is a required list of 1..maxLibraries hashes; one string
// is a list of one.
func (p params) hashList(name string) ([]ton.Bits256, error) {
	raw, ok := p[name]
	if !ok || isNull(raw) {
		return nil, apperr.Field(name, "required")
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, apperr.Field(name, "must be a list of hashes")
		}
		list = []string{one}
	}
	if len(list) == 0 {
		return nil, apperr.Field(name, "required")
	}
	if len(list) > maxLibraries {
		return nil, apperr.Field(name, "at most %d hashes per call (%d given)", maxLibraries, len(list))
	}
	out := make([]ton.Bits256, len(list))
	for i, s := range list {
		h, err := chain.ParseHash(s)
		if err != nil {
			return nil, apperr.Field(name, "%q: %v", apperr.Excerpt(s), err)
		}
		out[i] = ton.Bits256(h)
	}
	return out, nil
}

// only refuses a parameter not named (api_key aside, as on the v3
// routes): a misspelt list must not pass as an empty one.
func (p params) only(names ...string) error {
	for name := range p {
		if !toncenter.Ignored[name] && !slices.Contains(names, name) {
			return apperr.Field(name, "is not a parameter of this method")
		}
	}
	return nil
}
