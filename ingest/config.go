package ingest

import (
	"errors"

	"github.com/tonql/tonql/chain"
)

// parseConfigBOC reads a BOC whose root is a blockchain config dictionary
// and checks it as fees will before use (chain.CheckConfig). isConfig tells
// that the root is such a dictionary, so err is about a damaged config
// rather than another kind of file.
//
// A config file carries neither the masterchain block nor the time it was
// read at, so it is stored at block 0: the config of any block imported or
// followed (fee-replay files, the follower) is newer and wins; a second
// config file replaces the first.
func parseConfigBOC(b []byte) (cfg *chain.ChainConfig, isConfig bool, err error) {
	switch err := chain.CheckConfig(b); {
	case errors.Is(err, chain.ErrNotConfig):
		return nil, false, err
	case err != nil:
		return nil, true, err
	}
	return &chain.ChainConfig{ConfigBOC: b}, true, nil
}
