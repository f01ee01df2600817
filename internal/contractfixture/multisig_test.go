package contractfixture

import (
	"context"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/tvm"

	"github.com/tonql/tonql/chain"
)

// A multisig order deployed by the real multisig v2 wallet of tongo's
// tests from tongo's real new_order body, through the emulator with the
// block's libraries (the order's code is a library cell): its
// get_order_data, run by tongo's own TVM, answers the proposal the body
// made, with the multisig's threshold and signers and the proposer's
// approval.
func TestMultisigOrderFromNewOrder(t *testing.T) {
	c := New(t)
	ms := ReadTongoMultisig(t)
	body, proposal := TongoNewOrder(t)
	addr := c.MultisigOrder(ms, body, proposal)

	sa := c.states[addr]
	require.Equal(t, "AccountActive", string(sa.Account.Account.Storage.State.SumType))
	init := sa.Account.Account.Storage.State.AccountActive.StateInit
	code, data := init.Code.Value.Value, init.Data.Value.Value
	require.True(t, code.IsLibrary(), "an order's code is a library cell")
	libs, err := c.libs.ToBocBase64()
	require.NoError(t, err)
	e, err := tvm.NewEmulator(&code, &data, c.config, tvm.WithLibrariesBase64(libs))
	require.NoError(t, err)
	_, v, err := abi.GetOrderData(context.Background(), e, addr)
	require.NoError(t, err)
	got := v.(abi.GetOrderDataResult)

	owner, err := ton.AccountIDFromTlb(got.MultisigAddress)
	require.NoError(t, err)
	require.Equal(t, ms.Account, *owner)
	seqno, want := big.Int(got.OrderSeqno), big.Int(proposal.OrderSeqno)
	require.Zero(t, seqno.Cmp(&want))
	require.Equal(t, uint64(proposal.ExpirationDate), got.ExpirationDate)
	require.Equal(t, ms.Threshold, int(got.Threshold))
	var signers []string
	for _, a := range got.Signers.Values() {
		id, err := ton.AccountIDFromTlb(a)
		require.NoError(t, err)
		signers = append(signers, chain.RawAddress(*id))
	}
	require.Equal(t, ms.Signers, signers)
	require.False(t, got.SentForExecution)
	require.EqualValues(t, 1, got.ApprovalsNum, "the proposer approves on init")
	mask := big.Int(got.ApprovalsMask)
	require.Equal(t, uint(proposal.Index), uint(mask.TrailingZeroBits()))
	require.Equal(t, 1, len(mask.Text(2))-int(mask.TrailingZeroBits()))
	require.Equal(t, cellOf(t, proposal.Order), cellOf(t, got.Order), "the order as proposed")
}

func cellOf(t *testing.T, v any) string {
	t.Helper()
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, v))
	h, err := c.HashString()
	require.NoError(t, err)
	return h
}
