package actions_test

import (
	"testing"

	"github.com/tonql/tonql/actions"
)

// Values stored by earlier versions decode into today's structs: indexes
// written as JSON numbers read as BigInt, unknown fields are ignored.
func TestDecodeValueOfOlderRows(t *testing.T) {
	v, err := actions.DecodeValue("DexDepositLiquidity", []byte(`{"dex":"tonco","nft_index":42,"tick_lower":-100,"gone":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*actions.DexDepositLiquidity)
	if d.NftIndex != "42" || d.TickLower == nil || *d.TickLower != -100 {
		t.Fatalf("decoded %+v", d)
	}
	if _, err := actions.DecodeValue("NoSuchType", []byte(`{}`)); err == nil {
		t.Fatal("an undeclared type decodes")
	}
}

// Every spelling a filter accepts resolves: ours, toncenter's snake_case,
// the aliases; and every declared type has a toncenter name or says why not.
func TestTypeNames(t *testing.T) {
	for in, want := range map[string]string{
		"TonTransfer": "TonTransfer", "ton_transfer": "TonTransfer", "NativeTransfer": "TonTransfer",
		"nft_transfer": "NftItemTransfer", "call_contract": "SmartContractExec",
		"dex_withdraw_liquidity": "DexWithdrawLiquidity", "JettonSwap": "JettonSwap",
	} {
		if got, ok := actions.CanonicalType(in); !ok || got != want {
			t.Errorf("CanonicalType(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := actions.CanonicalType("tontransfer"); ok {
		t.Error("a wrong spelling resolves")
	}
	for _, ty := range actions.Types() {
		if ty.Toncenter == "" && ty.Differs == "" {
			t.Errorf("%s has no toncenter name and does not say why", ty.Name())
		}
		if ty.Doc == "" || ty.Failed == "" {
			t.Errorf("%s lacks its doc or its failed-when text", ty.Name())
		}
	}
}
