// Package ingest reads chain data files (raw blocks, toncenter trace JSON,
// fee-replay JSON), assembles their transactions into traces, decodes the
// actions, and hands the store idempotent batches.
package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/chain"
)

// Parsed is what one file contributes, before trace assembly.
type Parsed struct {
	Format       string // "block", "config", "toncenter-trace", "fee-replay"
	Transactions []*chain.Transaction
	Known        chain.KnownContracts
	Accounts     []chain.AccountState
	Config       *chain.ChainConfig
	// After are account states after the file's transactions, when the
	// file allows to know them (a fee replay: see replay.go); the token
	// registry reads them. Accounts are what the store keeps.
	After []chain.AccountState
	// AfterErr is why After could not be made (nil when it was or the
	// format has none to make).
	AfterErr error
	// Blocks are the headers of the raw blocks read (none from trace JSON).
	Blocks []chain.BlockHeader
}

// ParseFile detects the format of a file and decodes it whole. Any problem
// is an error that names the file, and nothing of the file is returned.
func ParseFile(path string) (*Parsed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Parse(filepath.Base(path), b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Parse decodes the bytes of a file named name (the extension and content
// decide the format).
func Parse(name string, b []byte) (*Parsed, error) {
	ext := strings.ToLower(filepath.Ext(name))
	trimmed := bytes.TrimSpace(b)
	switch {
	case ext == ".bin" || ext == ".boc":
		blk, err := chain.ParseBlockBOC(b)
		if err != nil {
			// Not a block: a blockchain config (tonutils-go and others ship
			// the mainnet config as a .boc beside blocks)?
			cfg, isConfig, cerr := parseConfigBOC(b)
			switch {
			case cerr == nil:
				return &Parsed{Format: "config", Config: cfg}, nil
			case isConfig:
				return nil, fmt.Errorf("blockchain config: %w", cerr)
			}
			return nil, err
		}
		return &Parsed{Format: "block", Transactions: blk.Transactions, Blocks: []chain.BlockHeader{blk.Header}}, nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		return parseJSON(trimmed)
	}
	return nil, fmt.Errorf("%w: want a block BOC (.bin, .boc), a toncenter trace JSON or a fee-replay JSON", ErrUnknownFormat)
}

// ErrUnknownFormat is a file that is none of the formats the importer
// reads (as opposed to one of them, damaged). It is an error like a damaged
// file, in a folder too: a file the user meant as data must not vanish
// with a notice.
var ErrUnknownFormat = errors.New("unknown format")

// ErrNoChainData is a file of a kind known to sit beside chain data that
// holds nothing to import: a decoded (JSON) blockchain config, or a
// transaction-replay test vector (account states before and after one
// transaction, without its block). Met in a folder it is skipped with a
// notice; named explicitly it is an error.
var ErrNoChainData = errors.New("no chain data to import")

// jsonTop is the top level of a JSON file, decoded once: the keys that
// tell the formats apart and, for a fee replay, the whole of it (a first
// pass into a map only to find the keys cost as much as decoding it).
type jsonTop struct {
	feeReplay
	Trace        present `json:"trace"`
	Transactions present `json:"transactions"`
	// A decoded config (as tongo's JSON shows one) and a transaction
	// replay's list of before/after states: known, nothing to import.
	ConfigParam0  present `json:"ConfigParam0"`
	ConfigParam20 present `json:"ConfigParam20"`
	Accounts      present `json:"accounts"`
}

// present records that a key is there, whatever its value (null too),
// without copying the value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// presentString is a string that also records that its key is there.
type presentString struct {
	set bool
	s   string
}

func (p *presentString) UnmarshalJSON(b []byte) error {
	p.set = true
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &p.s)
}

func parseJSON(b []byte) (*Parsed, error) {
	var top jsonTop
	// A value of an unexpected type matters only in the format the file
	// turns out to be: the error is kept for the fee replay, while a trace
	// is decoded on its own below.
	err := json.Unmarshal(b, &top)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	switch {
	case top.Block.set:
		if err != nil {
			return nil, fmt.Errorf("fee-replay JSON: %w", err)
		}
		return parseFeeReplay(&top.feeReplay)
	case bool(top.Trace) && bool(top.Transactions):
		tr, err := chain.ParseToncenterTrace(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return &Parsed{Format: "toncenter-trace", Transactions: tr.Transactions, Known: tr.Known}, nil
	case bool(top.ConfigParam0) || bool(top.ConfigParam20):
		return nil, fmt.Errorf("%w: a decoded blockchain config (JSON); import the config's BOC instead", ErrNoChainData)
	case bool(top.Accounts) && top.Config != nil && top.Config.Root != "":
		return nil, fmt.Errorf("%w: a transaction replay (config and account states before and after, no block)", ErrNoChainData)
	}
	return nil, fmt.Errorf("%w: JSON that is neither a toncenter trace (trace, transactions) nor a fee-replay (block_boc_base64)", ErrUnknownFormat)
}

type feeReplay struct {
	MasterSeqno uint32        `json:"master_seqno"`
	Block       presentString `json:"block_boc_base64"`
	Previous    []struct {
		Account string `json:"account"`
		BOC     string `json:"shard_account_boc_base64"`
	} `json:"previous_accounts"`
	Config *struct {
		Root      string          `json:"config_root_boc_base64"`
		Libraries json.RawMessage `json:"libraries_boc_base64"` // a string or a list of one
	} `json:"config"`
	TxConfigs []txConfig `json:"transaction_configs"`
}

// parseFeeReplay reads a block with the states of its accounts before it
// and the config it ran under.
func parseFeeReplay(fr *feeReplay) (*Parsed, error) {
	raw, err := chain.DecodeBase64(fr.Block.s)
	if err != nil {
		return nil, fmt.Errorf("block_boc_base64: %w", err)
	}
	blk, err := chain.ParseBlockBOC(raw)
	if err != nil {
		return nil, fmt.Errorf("block_boc_base64: %w", err)
	}
	p := &Parsed{Format: "fee-replay", Transactions: blk.Transactions, Blocks: []chain.BlockHeader{blk.Header}}
	if p.Blocks[0].McSeqno == 0 {
		p.Blocks[0].McSeqno = fr.MasterSeqno // the masterchain block the replay names
	}
	for _, tx := range p.Transactions {
		if tx.McSeqno == 0 {
			tx.McSeqno = fr.MasterSeqno
		}
	}
	for i, acc := range fr.Previous {
		raw, err := chain.DecodeBase64(acc.BOC)
		if err != nil {
			return nil, fmt.Errorf("previous_accounts[%d].shard_account_boc_base64: %w", i, err)
		}
		st, err := AccountFromShardAccount(acc.Account, raw, blk.GenUtime)
		if err != nil {
			return nil, fmt.Errorf("previous_accounts[%d] (%s): %w", i, acc.Account, err)
		}
		p.Accounts = append(p.Accounts, st)
	}
	if fr.Config != nil && fr.Config.Root != "" {
		cfg := &chain.ChainConfig{McSeqno: fr.MasterSeqno, Utime: blk.GenUtime}
		if cfg.ConfigBOC, err = validBOC(fr.Config.Root); err != nil {
			return nil, fmt.Errorf("config.config_root_boc_base64: %w", err)
		}
		if libs, err := oneString(fr.Config.Libraries); err != nil {
			return nil, fmt.Errorf("config.libraries_boc_base64: %w", err)
		} else if libs != "" {
			if cfg.LibrariesBOC, err = validBOC(libs); err != nil {
				return nil, fmt.Errorf("config.libraries_boc_base64: %w", err)
			}
		}
		p.Config = cfg
	}
	if len(fr.TxConfigs) > 0 {
		p.After, p.AfterErr = afterStates(raw, p.Accounts, fr.TxConfigs, p.Config, blk.GenUtime)
	}
	return p, nil
}

// validBOC decodes base64 and checks the bytes are one well-formed BOC:
// the emulator aborts the process on a malformed config.
func validBOC(s string) ([]byte, error) {
	raw, err := chain.DecodeBase64(s)
	if err != nil {
		return nil, err
	}
	cells, err := boc.DeserializeBoc(raw)
	if err != nil {
		return nil, err
	}
	if len(cells) != 1 {
		return nil, fmt.Errorf("want 1 root cell, got %d", len(cells))
	}
	return raw, nil
}

// oneString accepts a JSON string, a list of at most one string, or nothing.
func oneString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", errors.New("want a base64 string or a list of them")
	}
	switch len(list) {
	case 0:
		return "", nil
	case 1:
		return list[0], nil
	}
	return "", fmt.Errorf("%d library BOCs; one merged dictionary is supported", len(list))
}
