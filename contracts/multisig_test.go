package contracts_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tvm"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/testenv"
)

// TestReadMultisig: the mainnet multisig v2 wallet of tongo's own ABI
// test (its code and data read from the tongo module's source) is
// recognised by its code hash and read as tongo's test expects
// get_multisig_data to answer, and as tongo's TVM and decoder read it.
func TestReadMultisig(t *testing.T) {
	ms := contractfixture.ReadTongoMultisig(t)
	st := contractfixture.StateOf(t, ms.Account, ms.Code, ms.Data, 1, 0)
	require.Equal(t, contracts.MultisigV2Code, *st.CodeHash, "tongo's multisig v2 code")
	ctx := context.Background()
	recs, bad, err := contracts.NewReader(runner(t)).Read(ctx, []chain.AccountState{st})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, recs.Multisigs, 1)
	require.Empty(t, recs.Sales)
	require.Empty(t, recs.Vestings)
	got := recs.Multisigs[0]

	// tongo's test's expectations.
	require.Equal(t, raw(ms.Account), got.Address)
	require.Equal(t, ms.Seqno, got.NextOrderSeqno)
	require.Equal(t, "-1", got.NextOrderSeqno, "the wallet allows arbitrary order seqnos")
	require.Equal(t, ms.Threshold, got.Threshold)
	require.Equal(t, 2, got.Threshold)
	require.Equal(t, ms.Signers, got.Signers)
	require.Len(t, got.Signers, 4)
	require.False(t, ms.Proposers)
	require.Empty(t, got.Proposers)
	require.Equal(t, st.LastTxLt, got.LastTxLt)
	require.Equal(t, *st.CodeHash, got.CodeHash)
	require.True(t, got.Known)

	// tongo's own TVM and decoder on the same code and data.
	p, err := ingest.ParseFile(testenv.Fixture(t, contractfixture.ReplayBlock))
	require.NoError(t, err)
	cfg, err := boc.DeserializeBoc(p.Config.ConfigBOC)
	require.NoError(t, err)
	e, err := tvm.NewEmulator(ms.Code, ms.Data, cfg[0])
	require.NoError(t, err)
	_, v, err := abi.GetMultisigData(ctx, e, ms.Account)
	require.NoError(t, err)
	want := v.(abi.GetMultisigDataResult)
	seqno := big.Int(want.Seqno)
	require.Equal(t, seqno.String(), got.NextOrderSeqno)
	require.Equal(t, int(want.Threshold), got.Threshold)
	var signers []string
	for _, a := range want.Signers.Signers.Values() {
		signers = append(signers, msgAddr(t, a))
	}
	require.Equal(t, signers, got.Signers)
	require.Nil(t, want.Proposers)
}
