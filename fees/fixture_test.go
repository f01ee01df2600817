package fees

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// replay is the fee-replay fixture: a real mainnet shard block, the state of
// every account it touched before it, and the config it ran under.
type replay struct {
	source   *MemorySource
	genUtime uint32
	config   []byte
	ext      []ExternalMessage // the block's transactions on external messages, in block order
}

var (
	replayOnce sync.Once
	replayData *replay
	replayErr  error
)

func replayPath(t testing.TB) string {
	return testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
}

func loadReplay(t testing.TB) *replay {
	t.Helper()
	path := replayPath(t)
	replayOnce.Do(func() { replayData, replayErr = readReplay(path) })
	if replayErr != nil {
		t.Fatalf("fixture: %v", replayErr)
	}
	return replayData
}

func readReplay(path string) (*replay, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		BlockBOC string `json:"block_boc_base64"`
		Previous []struct {
			Account string `json:"account"`
			BOC     string `json:"shard_account_boc_base64"`
		} `json:"previous_accounts"`
		Config struct {
			Root      string   `json:"config_root_boc_base64"`
			Libraries []string `json:"libraries_boc_base64"`
		} `json:"config"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	cfg := &chain.ChainConfig{}
	if cfg.ConfigBOC, err = base64.StdEncoding.DecodeString(f.Config.Root); err != nil {
		return nil, err
	}
	if len(f.Config.Libraries) > 0 {
		if cfg.LibrariesBOC, err = base64.StdEncoding.DecodeString(f.Config.Libraries[0]); err != nil {
			return nil, err
		}
	}
	blockBOC, err := base64.StdEncoding.DecodeString(f.BlockBOC)
	if err != nil {
		return nil, err
	}
	genUtime, ext, err := BlockExternals(blockBOC)
	if err != nil {
		return nil, err
	}
	r := &replay{source: NewMemorySource(cfg), genUtime: genUtime, config: cfg.ConfigBOC, ext: ext}
	for _, p := range f.Previous {
		b, err := base64.StdEncoding.DecodeString(p.BOC)
		if err != nil {
			return nil, err
		}
		st, err := AccountStateFromBOC(b, r.genUtime)
		if err != nil {
			return nil, err
		}
		norm, err := chain.NormalizeAddress(p.Account)
		if err != nil {
			return nil, err
		}
		st.Address = norm
		r.source.Put(st)
	}
	return r, nil
}

// copySource is a source with the replay's states that a test may add to.
func (r *replay) copySource() *MemorySource {
	cfg, _ := r.source.Config(context.Background())
	src := NewMemorySource(cfg)
	r.source.mu.RLock()
	defer r.source.mu.RUnlock()
	for _, st := range r.source.accounts {
		src.Put(st)
	}
	return src
}

// estimator makes an Estimator over the replay at the block's time.
func (r *replay) estimator(opts Options) *Estimator {
	at := time.Unix(int64(r.genUtime), 0)
	opts.Now = func() time.Time { return at }
	return New(r.source, nil, opts)
}

func (x ExternalMessage) request(t testing.TB) Request {
	t.Helper()
	req, err := ParseParams(Params{Address: x.Account.ToRaw(), Body: x.Body})
	if err != nil {
		t.Fatalf("request for %s: %v", x.Account.ToRaw(), err)
	}
	return req
}

func short(id ton.AccountID) string { return strings.ToUpper(id.ToRaw()[:10]) }
