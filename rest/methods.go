package rest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/internal/reqid"
	"github.com/tonql/tonql/resolvers"
)

// rpcMethod answers one toncenter call: the JSON-RPC method of that name
// and the REST route /api/v2/<name> both end here, so they cannot differ.
type rpcMethod func(r *http.Request, res *resolvers.Resolver, p params) (any, error)

// rpcMethods are the calls served. A wallet makes these around estimateFee:
// read the account and its seqno, estimate, send.
var rpcMethods = map[string]rpcMethod{
	"estimateFee": func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		fp, err := fees.DecodeParams(p.raw())
		if err != nil {
			return nil, err
		}
		return estimate(r, res.Query(), fp)
	},
	"getAddressInformation": accountCall(func(r *http.Request, res *resolvers.Resolver, a *resolvers.Account, mc resolvers.Masterchain) any {
		return addressInfo(r, a, mc)
	}),
	"getExtendedAddressInformation": accountCall(func(r *http.Request, res *resolvers.Resolver, a *resolvers.Account, mc resolvers.Masterchain) any {
		return extendedInfo(r, a, mc, res.Testnet)
	}),
	"getWalletInformation": accountCall(func(_ *http.Request, _ *resolvers.Resolver, a *resolvers.Account, _ resolvers.Masterchain) any {
		return walletInfo(a)
	}),
	"getAddressBalance": accountCall(func(_ *http.Request, _ *resolvers.Resolver, a *resolvers.Account, _ resolvers.Masterchain) any {
		return strconv.FormatUint(a.Info.Balance, 10)
	}),
	"getAddressState": accountCall(func(_ *http.Request, _ *resolvers.Resolver, a *resolvers.Account, _ resolvers.Masterchain) any {
		return a.Info.Status
	}),
	"runGetMethod": func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		out, rendered, err := runGet(r, res, p, p["stack"], p.noSeqno)
		if err != nil {
			return nil, err
		}
		return runResult{Type: "smc.runResult", GasUsed: out.GasUsed, Stack: rendered, ExitCode: out.ExitCode,
			BlockID: masterBlock(out.Account.Block), LastTransactionID: lastTransaction(out.Account.Info),
			Extra: reqid.From(r.Context())}, nil
	},
	"getMasterchainInfo": func(r *http.Request, res *resolvers.Resolver, _ params) (any, error) {
		mc, err := res.MasterchainInfo(r.Context())
		if err != nil {
			return nil, err
		}
		return masterchainInfo{Type: "blocks.masterchainInfo", Last: masterBlock(mc.Last), StateRootHash: b64(mc.StateRootHash),
			Init: masterBlock(mc.Init), Extra: reqid.From(r.Context())}, nil
	},
	"sendBoc": func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		if _, err := send(r, res, p); err != nil {
			return nil, err
		}
		return sentMessage{Type: "ok", Extra: reqid.From(r.Context())}, nil
	},
	"sendBocReturnHash": func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		sent, err := send(r, res, p)
		if err != nil {
			return nil, err
		}
		return sentMessage{Type: "raw.extMessageInfo", Hash: sent.Hash.Base64(), HashNorm: sent.HashNorm.Base64(),
			Extra: reqid.From(r.Context())}, nil
	},
}

// accountCall is a call on one account's current state.
func accountCall(shape func(r *http.Request, res *resolvers.Resolver, a *resolvers.Account, mc resolvers.Masterchain) any) rpcMethod {
	return func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		addr, err := p.str("address")
		if err != nil {
			return nil, err
		}
		if _, err := resolvers.ParseAccount(addr); err != nil {
			return nil, err
		}
		if err := p.noSeqno(); err != nil {
			return nil, err
		}
		a, err := res.AccountState(r.Context(), addr)
		if err != nil {
			return nil, err
		}
		mc, err := res.MasterchainInfo(r.Context())
		if err != nil {
			return nil, err
		}
		return shape(r, res, a, mc), nil
	}
}

func send(r *http.Request, res *resolvers.Resolver, p params) (*resolvers.Sent, error) {
	boc, err := p.str("boc")
	if err != nil {
		return nil, err
	}
	return res.SendBoc(r.Context(), boc)
}

// methodNames lists the served methods, for the unknown-method error.
func methodNames() string {
	names := make([]string, 0, len(rpcMethods))
	for n := range rpcMethods {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// runGet runs p's method on p's address with stack (in v2's form; check
// runs once the call is read, before it runs), answering the run and its
// stack in v2's form: the v2 and v3 runGetMethod differ only around it.
func runGet(r *http.Request, res *resolvers.Resolver, p params, stack json.RawMessage, check func() error) (*resolvers.GetMethodResult, []any, error) {
	addr, err := p.str("address")
	if err != nil {
		return nil, nil, err
	}
	if _, err := resolvers.ParseAccount(addr); err != nil {
		return nil, nil, err
	}
	m, err := method(p)
	if err != nil {
		return nil, nil, err
	}
	vm, err := getmethod.ParseStack(stack)
	if err != nil {
		return nil, nil, err
	}
	if err := check(); err != nil {
		return nil, nil, err
	}
	out, err := res.RunGetMethod(r.Context(), addr, m, vm)
	if err != nil {
		return nil, nil, err
	}
	rendered, err := getmethod.RenderStack(out.Stack)
	if err != nil {
		return nil, nil, apperr.Wrap(apperr.Unavailable, err, err.Error())
	}
	return out, rendered, nil
}
