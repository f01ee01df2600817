package rest

import (
	"net/http"
	"slices"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// SendMessageV3 serves POST /api/v3/message: toncenter's v3 form of
// sendBocReturnHash (body {"boc"}; answer the message's hash and its
// normalized hash), sent the same way (resolvers.SendBoc: checked, then
// handed to a lite server; without one a 503, never a made-up success).
func SendMessageV3(res *resolvers.Resolver) http.HandlerFunc {
	return v3Post([]string{"boc"}, func(r *http.Request, p params) (any, error) {
		sent, err := send(r, res, p)
		if err != nil {
			return nil, err
		}
		return &toncenter.SentMessage{MessageHash: sent.Hash.Base64(), MessageHashNorm: sent.HashNorm.Base64()}, nil
	})
}

// v3Post wraps a toncenter route that takes a JSON object body: POST
// only, a member it does not take is 422 naming it, errors in toncenter's
// body.
func v3Post(members []string, serve func(r *http.Request, p params) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST", r.Method))
			return
		}
		p, err := v3Body(r, members)
		if err == nil {
			var out any
			if out, err = serve(r, p); err == nil {
				writeBounded(w, r, V3, out)
				return
			}
		}
		WriteError(w, r, V3, err)
	}
}

// v3Body is a request's JSON object body, checked against the members
// its route takes.
func v3Body(r *http.Request, members []string) (params, error) {
	raw, err := readBody(r)
	if err != nil {
		return nil, err
	}
	p, err := objectParams(raw)
	if err != nil {
		return nil, err
	}
	for name := range p {
		if !slices.Contains(members, name) {
			return nil, apperr.Field(name, "is not a member of this request")
		}
	}
	return p, nil
}
