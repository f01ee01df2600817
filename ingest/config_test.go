package ingest_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

// A config BOC is read as a config; one that lacks a param the emulator
// needs is an error about the config, never stored.
func TestParseConfigBOC(t *testing.T) {
	raw, err := os.ReadFile(testenv.Fixture(t, "fee-replay/blockchain_config_mainnet.boc"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.Parse("blockchain_config_mainnet.boc", raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "config" || p.Config == nil || !bytes.Equal(p.Config.ConfigBOC, raw) || len(p.Transactions) != 0 {
		t.Fatalf("parsed as %q, config %v", p.Format, p.Config != nil)
	}

	// The same dictionary without param 20 (basechain gas prices).
	cells, err := boc.DeserializeBoc(raw)
	if err != nil {
		t.Fatal(err)
	}
	var params tlb.ConfigParams
	if err := tlb.Unmarshal(cells[0], &params.Config); err != nil {
		t.Fatal(err)
	}
	var keys []tlb.Uint32
	var values []tlb.Ref[boc.Cell]
	for _, item := range params.Config.Items() {
		if item.Key != 20 {
			keys, values = append(keys, item.Key), append(values, item.Value)
		}
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, tlb.NewHashmap(keys, values)); err != nil {
		t.Fatal(err)
	}
	without, err := c.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.Parse("config.boc", without)
	if err == nil || !strings.Contains(err.Error(), "blockchain config: config param 20 missing") {
		t.Fatalf("config without param 20: %v", err)
	}
	if errors.Is(err, ingest.ErrUnknownFormat) || errors.Is(err, ingest.ErrNoChainData) {
		t.Fatalf("a damaged config is neither unknown nor skippable: %v", err)
	}
}
