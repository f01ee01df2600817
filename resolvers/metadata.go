package resolvers

import (
	"context"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// MaxMetadataAddresses bounds the addresses of one metadata request, as
// toncenter bounds /api/v3/metadata.
const MaxMetadataAddresses = 1024

// TokenMetadata is the stored metadata of the tokens among addresses (any
// form; each is checked), by raw address. Addresses that are no token the
// store knows are absent. It only reads: metadata is made by the
// background worker, never on a request's path.
func (r *Resolver) TokenMetadata(ctx context.Context, addresses []string) (map[string]chain.TokenMetadata, error) {
	if len(addresses) == 0 {
		return nil, apperr.Field("address", "at least 1 address required")
	}
	if len(addresses) > MaxMetadataAddresses {
		return nil, apperr.Field("address", "%d addresses given; at most %d", len(addresses), MaxMetadataAddresses)
	}
	raw := make([]string, 0, len(addresses))
	seen := make(map[string]bool, len(addresses))
	for _, a := range addresses {
		id, err := chain.ParseAddress(a)
		if err != nil {
			return nil, apperr.Field("address", "%q: %v", apperr.Excerpt(a), err)
		}
		if s := chain.RawAddress(id); !seen[s] {
			seen[s] = true
			raw = append(raw, s)
		}
	}
	return r.Store.TokenMetadata(ctx, raw)
}
