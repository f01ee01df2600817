package chain_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// TestToncenterMultisigOrderSigners: a MultisigOrder record among a trace
// file's interfaces (toncenter indexes orders with their signers, in any
// address form) becomes a known order with its signers, raw upper-case.
func TestToncenterMultisigOrderSigners(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	if len(files) == 0 {
		t.Skip("no toncenter traces")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	order := "0:" + string(bytes.Repeat([]byte("ab"), 32))
	signerA := "0:" + string(bytes.Repeat([]byte("0C"), 32))
	signerB := "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs" // user-friendly form
	ifaces, _ := doc["interfaces"].(map[string]any)
	if ifaces == nil {
		ifaces = map[string]any{}
		doc["interfaces"] = ifaces
	}
	ifaces[order] = map[string]any{"MultisigOrder": map[string]any{
		"address": order, "multisig_address": signerA, "threshold": 2.0, "signers": []string{signerA, signerB, "not an address"},
	}}
	b, _ = json.Marshal(doc)
	tr, err := chain.ParseToncenterTrace(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := chain.NormalizeAddress(order)
	k, ok := tr.Known[raw]
	if !ok || k.Kind != chain.KindMultisigOrder {
		t.Fatalf("order not known: %+v", k)
	}
	rawB, err := chain.NormalizeAddress(signerB)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0:" + string(bytes.Repeat([]byte("0C"), 32)), rawB}
	if !slices.Equal(k.Signers, want) {
		t.Fatalf("signers %v, want %v", k.Signers, want)
	}
}
