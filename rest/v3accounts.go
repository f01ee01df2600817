package rest

import (
	"net/http"

	"github.com/tonql/tonql/apperr"
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
