package rest

import (
	"net/http"
	"strconv"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/toncenter"
)

// accountParams are what toncenter's account routes take; use_v2 (ask
// toncenter's v2 backend) is accepted and ignored: there is one source of
// states here.
var accountParams = []string{"address", "use_v2"}

func v3Account(res *resolvers.Resolver, render func(a *resolvers.Account) any) http.HandlerFunc {
	return v3Get(accountParams, func(r *http.Request, p *toncenter.Params) (any, error) {
		if _, err := p.Bool("use_v2"); err != nil {
			return nil, err
		}
		addr, err := p.Str("address")
		if err != nil {
			return nil, err
		}
		if addr == nil {
			return nil, apperr.Field("address", "required")
		}
		a, err := res.AccountState(r.Context(), *addr)
		if err != nil {
			return nil, err
		}
		return render(a), nil
	})
}

// AddressInformation serves /api/v3/addressInformation and /api/v3/account.
func AddressInformation(res *resolvers.Resolver) http.HandlerFunc {
	return v3Account(res, func(a *resolvers.Account) any { return toncenter.RenderAddressInformation(a.Info) })
}

// WalletInformation serves /api/v3/walletInformation and /api/v3/wallet.
func WalletInformation(res *resolvers.Resolver) http.HandlerFunc {
	return v3Account(res, func(a *resolvers.Account) any { return toncenter.RenderWalletInformation(a.Info) })
}

// storedAccounts reads the address list of accountStates/walletStates.
func storedAccounts(r *http.Request, res *resolvers.Resolver, p *toncenter.Params) ([]resolvers.StoredAccount, chain.AddressBook, error) {
	addrs, err := p.Addresses("address", 1000)
	if err != nil {
		return nil, nil, err
	}
	if len(addrs) == 0 {
		return nil, nil, apperr.Field("address", "at least 1 address required")
	}
	accs, book, err := res.StoredAccounts(r.Context(), addrs)
	if book == nil {
		book = chain.AddressBook{}
	}
	return accs, book, err
}

// AccountStates serves GET /api/v3/accountStates: the stored state of
// each address the store holds one of.
func AccountStates(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"address", "include_boc"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		inc, err := p.Bool("include_boc")
		if err != nil {
			return nil, err
		}
		accs, book, err := storedAccounts(r, res, p)
		if err != nil {
			return nil, err
		}
		out := &toncenter.AccountStatesResponse{Accounts: make([]*toncenter.AccountStateFull, 0, len(accs)),
			AddressBook: book, Metadata: map[string]any{}}
		for _, a := range accs {
			out.Accounts = append(out.Accounts, toncenter.RenderAccountState(a.State, a.Info, a.Interfaces, inc == nil || *inc))
		}
		return out, nil
	})
}

// WalletStates serves GET /api/v3/walletStates.
func WalletStates(res *resolvers.Resolver) http.HandlerFunc {
	return v3Get([]string{"address"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		accs, book, err := storedAccounts(r, res, p)
		if err != nil {
			return nil, err
		}
		out := &toncenter.WalletStatesResponse{Wallets: make([]*toncenter.WalletState, 0, len(accs)),
			AddressBook: book, Metadata: map[string]any{}}
		for _, a := range accs {
			out.Wallets = append(out.Wallets, toncenter.RenderWalletState(a.State, a.Info))
		}
		return out, nil
	})
}

// RunGetMethodV3 serves POST /api/v3/runGetMethod: toncenter v3's body
// {address, method, stack: [{type, value}]} on the account's current
// state, answered as {gas_used, exit_code, stack}. A body member it does
// not take is 422 naming it.
func RunGetMethodV3(res *resolvers.Resolver) http.HandlerFunc {
	return v3Post([]string{"address", "method", "stack"}, func(r *http.Request, p params) (any, error) {
		return runGetMethodV3(r, res, p)
	})
}

func runGetMethodV3(r *http.Request, res *resolvers.Resolver, p params) (*toncenter.RunGetMethodResult, error) {
	v2, err := toncenter.StackToV2(p["stack"])
	if err != nil {
		return nil, err
	}
	run, rendered, err := runGet(r, res, p, v2, func() error { return nil })
	if err != nil {
		return nil, err
	}
	entries, err := toncenter.StackFromV2(rendered)
	if err != nil {
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return &toncenter.RunGetMethodResult{GasUsed: run.GasUsed, ExitCode: int64(run.ExitCode), Stack: entries}, nil
}

// TopAccountsByBalance serves GET /api/v3/topAccountsByBalance: toncenter's
// bare list of {account, balance}, largest first, over the accounts whose
// state this server stores (not the whole chain). The answer's
// Accounts-Scope header says so, as the list's shape has no room for it.
func TopAccountsByBalance(res *resolvers.Resolver) http.HandlerFunc {
	get := v3Get([]string{"limit", "offset"}, func(r *http.Request, p *toncenter.Params) (any, error) {
		pg, err := p.Page()
		if err != nil {
			return nil, err
		}
		if pg.Offset > cost.MaxOffset {
			return nil, apperr.Field("offset", "must be at most %d", cost.MaxOffset)
		}
		list, err := res.TopAccountsByBalance(r.Context(), pg.Limit, pg.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]toncenter.AccountBalance, len(list))
		for i, a := range list {
			out[i] = toncenter.AccountBalance{Account: a.Address, Balance: strconv.FormatInt(a.Balance, 10)}
		}
		return out, nil
	})
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Accounts-Scope", "stored")
		get(w, r)
	}
}
