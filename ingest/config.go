package ingest

import (
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// configParams are the params a config file must hold to be stored: those
// the emulator reads without checking (fees validates them again before
// use; a config lacking one would abort the process inside C++), with the
// gas and forwarding prices decoding in tongo.
var configParams = []uint32{0, 1, 8, 12, 18, 20, 21, 24, 25}

// parseConfigBOC reads a BOC whose root is a blockchain config dictionary
// (ConfigParams' config: a 32-bit keyed dictionary of params), the form
// lite servers and fee-replay files give. isConfig tells that the root is
// such a dictionary, so err is about a damaged config rather than another
// kind of file.
//
// A config file carries neither the masterchain block nor the time it was
// read at, so it is stored at block 0: the config of any block imported or
// followed (fee-replay files, the follower) is newer and wins; a second
// config file replaces the first.
func parseConfigBOC(b []byte) (cfg *chain.ChainConfig, isConfig bool, err error) {
	defer func() {
		if r := recover(); r != nil { // tongo's decoders panic on some malformed cells
			cfg, err = nil, fmt.Errorf("does not decode: %v", r)
		}
	}()
	cells, err := boc.DeserializeBoc(b)
	if err != nil {
		return nil, false, err
	}
	if len(cells) != 1 {
		return nil, false, fmt.Errorf("want 1 root cell, got %d", len(cells))
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		return nil, false, err
	}
	present := map[uint32]bool{}
	for _, item := range params.Config.Items() {
		present[uint32(item.Key)] = true
	}
	// A dictionary that holds none of the params is some other BOC.
	if !present[0] && !present[20] && !present[24] {
		return nil, false, errors.New("not a config dictionary")
	}
	for _, p := range configParams {
		if !present[p] {
			return nil, true, fmt.Errorf("config param %d missing", p)
		}
	}
	conf, _, err := ton.ConvertBlockchainConfig(params, true)
	if err != nil {
		return nil, true, err
	}
	if conf.ConfigParam20 == nil || conf.ConfigParam21 == nil || conf.ConfigParam24 == nil || conf.ConfigParam25 == nil {
		return nil, true, errors.New("gas or message prices (params 20, 21, 24, 25) do not decode")
	}
	return &chain.ChainConfig{ConfigBOC: b}, true, nil
}
