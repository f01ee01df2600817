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
	"github.com/tonql/tonql/toncenter"
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

	cell := requireOrderCell(t, got.Order, proposal.Order)
	var order abi.MultisigOrder
	require.NoError(t, tlb.Unmarshal(cell, &order))

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

// TestReadOrderOfUnknownAction: an order is whatever a signer proposes;
// the multisig does not check the actions until it executes them. An
// order holding an action no decoder knows (here an op no multisig
// version defines, beside tongo's real send_message action) is still read
// and listed with its cell as proposed, and toncenter's parser shows that
// action's error while the known one is parsed, as toncenter does.
func TestReadOrderOfUnknownAction(t *testing.T) {
	c := contractfixture.New(t)
	ms := contractfixture.ReadTongoMultisig(t)
	_, proposal := contractfixture.TongoNewOrder(t)

	known := boc.NewCell()
	require.NoError(t, tlb.Marshal(known, proposal.Order.Field0.Values()[0].Value))
	unknown := boc.NewCell()
	require.NoError(t, unknown.WriteUint(0x0badc0de, 32))
	require.NoError(t, unknown.WriteUint(42, 64))
	var body struct {
		Op             tlb.Magic `tlb:"#f718510f"`
		QueryID        uint64
		OrderSeqno     tlb.Uint256
		Signer         tlb.Uint1
		Index          uint8
		ExpirationDate tlb.Uint48
		Order          tlb.Hashmap[tlb.Uint8, tlb.Ref[tlb.Any]] `tlb:"^"`
	}
	body.QueryID, body.OrderSeqno, body.Signer = proposal.QueryId, proposal.OrderSeqno, proposal.Signer
	body.Index, body.ExpirationDate = proposal.Index, proposal.ExpirationDate
	body.Order = tlb.NewHashmap([]tlb.Uint8{0, 1}, []tlb.Ref[tlb.Any]{{Value: tlb.Any(*known)}, {Value: tlb.Any(*unknown)}})
	cell := boc.NewCell()
	require.NoError(t, tlb.Marshal(cell, body))
	addr := c.MultisigOrder(ms, cell, proposal)

	recs, bad, err := contracts.NewReader(runner(t)).Read(context.Background(), []chain.AccountState{c.State(addr)})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, recs.Orders, 1, "an order with an unknown action is still an order")
	got := recs.Orders[0]
	require.Equal(t, raw(ms.Account), got.Multisig)
	require.Equal(t, 1, got.ApprovalsNum)

	stored := requireOrderCell(t, got.Order, body.Order)
	var typed abi.MultisigOrder
	require.Error(t, tlb.Unmarshal(stored, &typed), "tongo's typed order cannot hold it")

	actions, err := toncenter.OrderActions(got.Order)
	require.NoError(t, err)
	require.Len(t, actions, 2)
	require.True(t, actions[0].Parsed, "tongo's real send_message action")
	require.NotNil(t, actions[0].Destination)
	require.False(t, actions[1].Parsed)
	require.Equal(t, "unknown", actions[1].ParsedBodyType)
	require.NotNil(t, actions[1].Error)
	require.Contains(t, *actions[1].Error, "unknown order action type: 195936478")
}

// requireOrderCell: the stored order BOC is one cell, the cell proposed
// (proposed marshalled with tongo's TL-B), by hash.
func requireOrderCell(t *testing.T, stored []byte, proposed any) *boc.Cell {
	t.Helper()
	cells, err := boc.DeserializeBoc(stored)
	require.NoError(t, err)
	require.Len(t, cells, 1)
	want := boc.NewCell()
	require.NoError(t, tlb.Marshal(want, proposed))
	wh, err := want.HashString()
	require.NoError(t, err)
	gh, err := cells[0].HashString()
	require.NoError(t, err)
	require.Equal(t, wh, gh, "the order cell as proposed")
	cells[0].ResetCounters()
	return cells[0]
}
