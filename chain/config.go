package chain

import (
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// requiredConfigParams are the config params the emulator dereferences
// without checking: a config lacking one aborts the process inside C++.
// The fee params (18, 20, 21, 24, 25) must also decode in tongo; others may
// be newer than tongo's TL-B (43 is, on mainnet in 2026) and need only exist.
var requiredConfigParams = []int{0, 1, 8, 12, 18, 20, 21, 24, 25}

var feeConfigParams = map[int]bool{18: true, 20: true, 21: true, 24: true, 25: true}

// ErrNotConfig says a BOC is not a config dictionary at all (another kind
// of file), as opposed to a damaged config.
var ErrNotConfig = errors.New("not a config dictionary")

// CheckConfig decodes a blockchain config dictionary BOC (ConfigParams'
// config, the form lite servers and fee-replay files give) wholly in Go,
// so that nothing malformed ever reaches the emulator. It answers
// ErrNotConfig (wrapped) for a BOC that is no dictionary or one that holds
// none of params 0, 20 and 24: some other kind of file.
func CheckConfig(cfgBOC []byte) (err error) {
	defer func() {
		if r := recover(); r != nil { // tongo's decoders panic on some malformed cells
			err = fmt.Errorf("config does not decode: %v", r)
		}
	}()
	cells, err := boc.DeserializeBoc(cfgBOC)
	if err != nil || len(cells) != 1 {
		return fmt.Errorf("%w: not a BOC with one root", ErrNotConfig)
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		return fmt.Errorf("%w: %v", ErrNotConfig, err)
	}
	present := map[int]bool{}
	for _, item := range params.Config.Items() {
		present[int(item.Key)] = true
	}
	if !present[0] && !present[20] && !present[24] {
		return ErrNotConfig
	}
	conf, broken, err := ton.ConvertBlockchainConfig(params, true)
	if err != nil {
		return err
	}
	brokenSet := map[int]bool{}
	for _, p := range broken {
		brokenSet[p] = true
	}
	for _, p := range requiredConfigParams {
		if !present[p] || (feeConfigParams[p] && brokenSet[p]) {
			return fmt.Errorf("config param %d missing or malformed", p)
		}
	}
	if conf.ConfigParam24 == nil || conf.ConfigParam25 == nil || conf.ConfigParam20 == nil || conf.ConfigParam21 == nil {
		return errors.New("config lacks gas or message prices")
	}
	return nil
}

// ConfigParam is config param id of a config dictionary BOC, as a BOC of
// its cell; found is false when the config lacks it.
func ConfigParam(cfgBOC []byte, id uint32) (param []byte, found bool, err error) {
	defer recoverDecode("config", &err)
	cells, err := boc.DeserializeBoc(cfgBOC)
	if err != nil || len(cells) != 1 {
		return nil, false, fmt.Errorf("%w: not a BOC with one root", ErrNotConfig)
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrNotConfig, err)
	}
	for _, item := range params.Config.Items() {
		if uint32(item.Key) == id {
			c := boc.Cell(item.Value.Value)
			b, err := c.ToBoc()
			return b, true, err
		}
	}
	return nil, false, nil
}
