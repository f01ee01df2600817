package store

import (
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/tonql/tonql/chain"
)

// rowToken is the fact kind of a token's metadata (token_metadata), after
// pageRowsSQL's three: a page's `metadata` object is read with its address
// book, in the same statement, and cached with the book's facts, so a page
// with its metadata costs no round trip more than one without
// (docs/PERFORMANCE.md).
const rowToken = 4

// tokenFactColumns are the columns of token_metadata a page shows, as
// name/expression pairs of one JSON object (the fact rows have one text
// column for them). valid is written as 0 or 1 so that both dialects give
// the same JSON.
const tokenFactColumns = `'kind', kind, 'valid', CASE WHEN valid THEN 1 ELSE 0 END, 'reason', reason,
'name', name, 'symbol', symbol, 'decimals', decimals, 'image', image, 'description', description,
'uri', uri, 'extra', extra, 'fetched_at', fetched_at`

// tokenFactPG is the JSON object of tokenFactColumns on Postgres.
const tokenFactPG = "json_build_object(" + tokenFactColumns + ")::text"

// tokenFactSQL is the JSON object of tokenFactColumns in the dialect of db.
func tokenFactSQL(db *bun.DB) string {
	if db.Dialect().Name() == dialect.PG {
		return tokenFactPG
	}
	return "json_object(" + tokenFactColumns + ")"
}

// maxCachedToken bounds the metadata of one token the facts cache keeps
// (its extra attributes and description, which the worker bounds only at
// METADATA_MAX_BYTES): an address whose token is larger is read with
// every page that shows it, so 50,000 cached addresses stay under 65 MB
// even when every one is a token.
const maxCachedToken = 1024

// cacheable tells whether facts are small enough for the facts cache.
func cacheable(f *chain.AddressFacts) bool {
	t := f.Token
	if t == nil {
		return true
	}
	n := len(t.Extra)
	for _, s := range []*string{t.Name, t.Symbol, t.Image, t.Description, t.URI} {
		if s != nil {
			n += len(*s)
		}
	}
	return n <= maxCachedToken
}

// forgetTokens drops the cached facts of tokens whose metadata this
// process wrote, so its pages show the change at once.
func (s *Store) forgetTokens(addrs []string) {
	if c := s.facts; c != nil && len(addrs) > 0 {
		c.forget(addrs)
	}
}

// tokenAddresses are the addresses of contents.
func tokenAddresses(contents []chain.TokenContent) []string {
	out := make([]string, len(contents))
	for i := range contents {
		out[i] = contents[i].Address
	}
	return out
}
