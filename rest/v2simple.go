package rest

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
)

// The deprecated calls ton-http-api still serves, off its schema but
// called by clients (tonweb's provider.sendQuery sends sendQuerySimple):
// each is estimateFee, sendQuery or sendBoc with its cells given as
// objects (cellObject) instead of BOCs, so each is that call after the
// objects are packed; sendBocUnsafe is sendBoc (ton-http-api re-sends it
// for a minute in the background; the lite servers' own retry is ours).
func init() {
	estimate := rpcMethods["estimateFee"]
	send := rpcMethods["sendBoc"]
	for name, m := range map[string]rpcMethod{
		"estimateFeeSimple": withCellObjects(estimate, "body", "init_code", "init_data"),
		"sendQuerySimple":   withCellObjects(sendQuery, "body", "init_code", "init_data"),
		"sendCellSimple":    cellAsBoc(send),
		"sendBocUnsafe":     send,
	} {
		rpcMethods[name] = m
		v2Routes[name] = http.MethodPost
	}
}

// withCellObjects packs the named cell-object parameters into base64 BOCs
// and hands the call on.
func withCellObjects(next rpcMethod, names ...string) rpcMethod {
	return func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		packed := make(params, len(p))
		for k, v := range p {
			packed[k] = v
		}
		for _, name := range names {
			s, err := cellObjectBOC(p, name)
			if err != nil {
				return nil, err
			}
			delete(packed, name)
			if s != "" {
				packed[name], _ = json.Marshal(s) // a string: cannot fail
			}
		}
		return next(r, res, packed)
	}
}

// cellAsBoc sends sendCellSimple's `cell` (a whole external message) as
// sendBoc's `boc`.
func cellAsBoc(next rpcMethod) rpcMethod {
	return func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		s, err := cellObjectBOC(p, "cell")
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, apperr.Field("cell", "required")
		}
		b, _ := json.Marshal(s) // a string: cannot fail
		out, err := next(r, res, params{"boc": b})
		// What sendBoc says of its boc, this call says of its cell.
		var e *apperr.Error
		if errors.As(err, &e) && e.Field == "boc" {
			return nil, apperr.Field("cell", "%s", strings.TrimPrefix(e.Msg, "boc: "))
		}
		return out, err
	}
}
