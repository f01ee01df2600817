package fees

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/txemulator"

	"github.com/tonql/tonql/chain"
)

// Where the config of an estimate came from.
const (
	ConfigFromSource   = "source"   // the StateSource's current config
	ConfigFromEmbedded = "embedded" // tongo's built-in mainnet config of 2025-06: a fallback only
)

// preparedConfig is a config that passed validation, identified by the hash
// of its bytes and the library dictionary's, ready to create emulators from.
type preparedConfig struct {
	key     [32]byte
	origin  string
	mcSeqno uint32
	config  []byte // BOC of the config dictionary root
	libs    []byte // BOC of the library dictionary, or nil
}

// validateConfig decodes the whole config and library dictionary in Go so
// that nothing malformed ever reaches the C++ side, where a bad config
// aborts the process.
func validateConfig(cfgBOC, libsBOC []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("libraries do not decode: %v", r)
		}
	}()
	if err := chain.CheckConfig(cfgBOC); err != nil {
		return err
	}
	if libsBOC != nil {
		lc, err := boc.DeserializeBoc(libsBOC)
		if err != nil || len(lc) != 1 {
			return errors.New("libraries are not a BOC with one root")
		}
		var libs tlb.HashmapE[tlb.Bits256, tlb.Ref[boc.Cell]]
		if err := tlb.Unmarshal(lc[0], &libs); err != nil {
			return fmt.Errorf("library dictionary: %w", err)
		}
	}
	return nil
}

func configKey(cfgBOC, libsBOC []byte) [32]byte {
	h := sha256.New()
	var n [8]byte
	for i, l := 0, uint64(len(cfgBOC)); i < 8; i++ {
		n[i] = byte(l >> (8 * i))
	}
	h.Write(n[:])
	h.Write(cfgBOC)
	h.Write(libsBOC)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// configCache remembers the last prepared config per source config, so a
// source that hands out the same *ChainConfig again costs no hashing.
type configCache struct {
	mu       sync.Mutex
	lastIn   *chain.ChainConfig
	lastLen  int
	last     *preparedConfig
	embedded *preparedConfig
	byKey    map[[32]byte]*preparedConfig // validated configs seen (few: one per config change)
}

func (c *configCache) prepare(cfg *chain.ChainConfig) (*preparedConfig, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cfg == nil {
		return c.embeddedConfig()
	}
	if c.last != nil && c.lastIn == cfg && c.lastLen == len(cfg.ConfigBOC) {
		return c.last, nil
	}
	key := configKey(cfg.ConfigBOC, cfg.LibrariesBOC)
	p, ok := c.byKey[key]
	if !ok {
		if err := validateConfig(cfg.ConfigBOC, cfg.LibrariesBOC); err != nil {
			return nil, err
		}
		p = &preparedConfig{key: key, origin: ConfigFromSource, mcSeqno: cfg.McSeqno,
			config: cfg.ConfigBOC, libs: cfg.LibrariesBOC}
		if c.byKey == nil || len(c.byKey) > 16 {
			c.byKey = map[[32]byte]*preparedConfig{}
		}
		c.byKey[key] = p
	}
	c.lastIn, c.lastLen, c.last = cfg, len(cfg.ConfigBOC), p
	return p, nil
}

func (c *configCache) embeddedConfig() (*preparedConfig, error) {
	if c.embedded != nil {
		return c.embedded, nil
	}
	b, err := base64.StdEncoding.DecodeString(txemulator.DefaultConfig)
	if err != nil {
		return nil, err
	}
	if err := validateConfig(b, nil); err != nil {
		return nil, fmt.Errorf("embedded config: %w", err)
	}
	c.embedded = &preparedConfig{key: configKey(b, nil), origin: ConfigFromEmbedded, config: b}
	return c.embedded, nil
}
