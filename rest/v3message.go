package rest

import (
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// SendMessageV3 serves POST /api/v3/message: toncenter's v3 form of
// sendBocReturnHash (body {"boc"}; answer the message's hash and its
// normalized hash), sent the same way (resolvers.SendBoc: checked, then
// handed to a lite server; without one a 503, never a made-up success).
func SendMessageV3(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use POST", r.Method))
			return
		}
		out, err := sendMessageV3(r, res)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, out)
	}
}

func sendMessageV3(r *http.Request, res *resolvers.Resolver) (*toncenter.SentMessage, error) {
	raw, err := readBody(r)
	if err != nil {
		return nil, err
	}
	p, err := objectParams(raw)
	if err != nil {
		return nil, err
	}
	for name := range p {
		if name != "boc" {
			return nil, apperr.Field(name, "is not a member of this request")
		}
	}
	sent, err := send(r, res, p)
	if err != nil {
		return nil, err
	}
	return &toncenter.SentMessage{MessageHash: sent.Hash.Base64(), MessageHashNorm: sent.HashNorm.Base64()}, nil
}
