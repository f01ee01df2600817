package contracts_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/testenv"
)

// TestReadMultisigOrder: the order tongo's mainnet multisig deploys for
// tongo's mainnet new_order body (emulated; its code is a library cell)
// is recognised by its code hash and read as the proposal made it: the
// multisig, seqno, expiry and order cell of the body, the wallet's
// threshold and signers, the proposer's approval.
func TestReadMultisigOrder(t *testing.T) {
	c := contractfixture.New(t)
	ms := contractfixture.ReadTongoMultisig(t)
	body, proposal := contractfixture.TongoNewOrder(t)
	addr := c.MultisigOrder(ms, body, proposal)
	st := c.State(addr)
	require.Equal(t, contracts.MultisigOrderCode, *st.CodeHash, "multisig v2's order code (a library cell)")

	recs, bad, err := contracts.NewReader(runner(t)).Read(context.Background(), []chain.AccountState{st})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Empty(t, recs.Multisigs)
	require.Len(t, recs.Orders, 1)
	got := recs.Orders[0]
	require.Equal(t, raw(addr), got.Address)
	require.Equal(t, raw(ms.Account), got.Multisig)
	seqno := big.Int(proposal.OrderSeqno)
	require.Equal(t, seqno.String(), got.OrderSeqno)
	require.Equal(t, "696969", got.OrderSeqno, "tongo's test expects this seqno")
	require.Equal(t, uint64(proposal.ExpirationDate), got.ExpirationDate)
	require.Equal(t, ms.Threshold, got.Threshold)
	require.Equal(t, ms.Signers, got.Signers)
	require.False(t, got.SentForExecution)
	require.Equal(t, 1, got.ApprovalsNum, "the proposer approved on init")
	require.Equal(t, new(big.Int).Lsh(big.NewInt(1), uint(proposal.Index)).String(), got.ApprovalsMask)
	require.Equal(t, st.LastTxLt, got.LastTxLt)
	require.True(t, got.Known)

	cells, err := boc.DeserializeBoc(got.Order)
	require.NoError(t, err)
	require.Len(t, cells, 1)
	var order abi.MultisigOrder
	require.NoError(t, tlb.Unmarshal(cells[0], &order))
	want := boc.NewCell()
	require.NoError(t, tlb.Marshal(want, proposal.Order))
	wh, err := want.HashString()
	require.NoError(t, err)
	gh, err := cells[0].HashString()
	require.NoError(t, err)
	require.Equal(t, wh, gh, "the order cell as proposed")

	// Without the library the code cell refers to, the order is
	// unreadable: reported, not read.
	p, err := ingest.ParseFile(testenv.Fixture(t, contractfixture.ReplayBlock))
	require.NoError(t, err)
	cfg := p.Config
	cfg.LibrariesBOC = nil
	at := time.Unix(int64(cfg.Utime), 0)
	bare := getmethod.New(fees.New(fees.NewMemorySource(cfg), nil, fees.Options{Now: func() time.Time { return at }}))
	recs, bad, err = contracts.NewReader(bare).Read(context.Background(), []chain.AccountState{st})
	require.NoError(t, err)
	require.Empty(t, recs.Orders)
	require.Contains(t, bad, raw(addr))
}
