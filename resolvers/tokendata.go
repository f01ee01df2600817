package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/tokens"
)

// TokenData answers v2 getTokenData: what the jetton or NFT contract at
// address is, read by its standard get methods on its current state (as
// toncenter's v2 reads it from a lite server), with the token registry's
// reader: the records of address, exactly one of them set. A contract
// that answers none of the standards is 422 naming address; one whose
// get methods could not run (a library cell this server lacks) is 503,
// never a guess.
func (r *Resolver) TokenData(ctx context.Context, address string) (*chain.TokenRecords, error) {
	id, err := ParseAccount(address)
	if err != nil {
		return nil, err
	}
	run := r.getMethods()
	if run == nil {
		return nil, errNoFees
	}
	raw := chain.RawAddress(id)
	st, err := r.Fees.State(ctx, raw)
	if err != nil {
		return nil, err
	}
	notToken := apperr.Field("address", "%s is not a jetton master, jetton wallet, NFT collection or NFT item", raw)
	if st == nil || st.Status != chain.AccountActive {
		return nil, notToken
	}
	recs, bad, err := tokens.NewReader(run).Read(ctx, []chain.AccountState{*st}, nil)
	if err != nil {
		return nil, err
	}
	if why := bad[raw]; why != nil {
		return nil, apperr.Wrap(apperr.Unavailable, why, "address: the contract's get methods could not run here: "+why.Error())
	}
	if recs.Empty() {
		return nil, notToken
	}
	return recs, nil
}
