package preview

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// External messages built in these tests reuse a real one from the block:
// its wallet, seqno and expiry, with the internal message the wallet is to
// send replaced. The signature no longer matches, which ignore_chksig (the
// default, as in estimateFee) accepts.

// rewrap returns the external message of wallet with the internal message
// it sends to dest replaced by make(old).
func (r *replay) rewrap(t *testing.T, wallet, dest string, make func(old tlb.Message) tlb.Message) string {
	t.Helper()
	var ext *fees.ExternalMessage
	for i := range r.msgs {
		if chain.RawAddress(r.msgs[i].Account) == wallet {
			ext = &r.msgs[i]
		}
	}
	require.NotNil(t, ext, "no external message of %s in the block", wallet)
	root := cellOf(t, ext.Message)
	var m tlb.Message
	require.NoError(t, tlb.Unmarshal(root, &m))
	body := boc.Cell(m.Body.Value)
	old, oldCell := findInternal(t, &body, dest)
	repl := boc.NewCell()
	require.NoError(t, tlb.Marshal(repl, make(old)))
	oldHash, err := oldCell.Hash256()
	require.NoError(t, err)
	m.Body.Value = tlb.Any(*replaceCell(t, &body, oldHash, repl))
	out := boc.NewCell()
	require.NoError(t, tlb.Marshal(out, m))
	s, err := out.ToBocBase64()
	require.NoError(t, err)
	return s
}

func cellOf(t *testing.T, b64 string) *boc.Cell {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(b)
	require.NoError(t, err)
	return cells[0]
}

// findInternal finds, below c, the cell of an internal message to dest.
func findInternal(t *testing.T, c *boc.Cell, dest string) (tlb.Message, *boc.Cell) {
	t.Helper()
	var walk func(c *boc.Cell) (tlb.Message, *boc.Cell, bool)
	walk = func(c *boc.Cell) (tlb.Message, *boc.Cell, bool) {
		for _, ref := range c.Refs() {
			var m tlb.Message
			ref.ResetCounters()
			if err := tlb.Unmarshal(ref, &m); err == nil && m.Info.SumType == "IntMsgInfo" {
				if id, err := ton.AccountIDFromTlb(m.Info.IntMsgInfo.Dest); err == nil && id != nil && chain.RawAddress(*id) == dest {
					ref.ResetCounters()
					return m, ref, true
				}
			}
			ref.ResetCounters()
			if m, found, ok := walk(ref); ok {
				return m, found, ok
			}
		}
		return tlb.Message{}, nil, false
	}
	m, found, ok := walk(c)
	require.True(t, ok, "no internal message to %s in the wallet's body", dest)
	return m, found
}

// replaceCell copies c with the cell of hash old replaced by repl.
func replaceCell(t *testing.T, c *boc.Cell, old [32]byte, repl *boc.Cell) *boc.Cell {
	t.Helper()
	h, err := c.Hash256()
	require.NoError(t, err)
	if h == old {
		return repl
	}
	c.ResetCounters()
	out := boc.NewCell()
	require.NoError(t, out.WriteBitString(c.ReadRemainingBits()))
	for _, ref := range c.Refs() {
		require.NoError(t, out.AddRef(replaceCell(t, ref, old, repl)))
	}
	return out
}

func msgAddress(t *testing.T, raw string) tlb.MsgAddress {
	t.Helper()
	id, err := ton.ParseAccountID(raw)
	require.NoError(t, err)
	return id.ToMsgAddress()
}

func coins(n int64) tlb.VarUInteger16 { return tlb.VarUInteger16(*big.NewInt(n)) }

// jettonTransfer is a transfer request with its op code. (A named field:
// tongo re-encodes a decoded struct with an embedded one wrongly.)
type jettonTransfer struct {
	Op   tlb.Magic `tlb:"#0f8a7ea5"`
	Body abi.JettonTransferMsgBody
}

func withBody(t *testing.T, m tlb.Message, body any) tlb.Message {
	t.Helper()
	c := boc.NewCell()
	require.NoError(t, tlb.Marshal(c, body))
	m.Body = tlb.EitherRef[tlb.Any]{IsRight: true, Value: tlb.Any(*c)}
	return m
}

const (
	// a v5R1 wallet that burns tsTON in the block, its tsTON wallet, and
	// another tsTON holder (its wallet receives tsTON in the block)
	tsHolder       = "0:BC91B30E0AFE5CB6DB47B1F2127C83B63F75207102FC3499A6A7B8182C85115E"
	tsHolderWallet = "0:93503D3A286A25F9BDE372166FB330B1B2490F00AB1FE0F5293B6CB61F811219"
	tsOther        = "0:89F356BD10B3C8609187C5ABCD7BB1D5840C7F8A88E73DEBFF8E64FFD8F12010"
	tsOtherWallet  = "0:5CE2C350CB2D47E9BC727C7066E8FAFAFD5A2BC7D361701BEE44A9ECCF818528"
)

// TestPreviewJettonTransfer: the v5R1 wallet that burns tsTON in the block
// sends 1 tsTON to another holder instead, with a comment.
func TestPreviewJettonTransfer(t *testing.T) {
	r := loadReplay(t)
	const amount = 1_000_000_000
	boc := r.rewrap(t, tsHolder, tsHolderWallet, func(old tlb.Message) tlb.Message {
		return withBody(t, old, jettonTransfer{Body: abi.JettonTransferMsgBody{
			QueryId: 7, Amount: coins(amount),
			Destination: msgAddress(t, tsOther), ResponseDestination: msgAddress(t, tsHolder),
			ForwardTonAmount: coins(1),
			ForwardPayload: tlb.EitherRef[abi.JettonPayload]{Value: abi.JettonPayload{
				SumType: abi.TextCommentJettonOp, Value: abi.TextCommentJettonPayload{Text: "tonql preview"}}},
		}})
	})
	em, p := r.preview(t, r.estimator(nil), fees.Params{Boc: boc})
	require.True(t, p.Complete, "%+v", p.Stopped)
	require.Len(t, p.Actions, 1, "%+v", p.Actions)
	a := p.Actions[0]
	require.Equal(t, "JettonTransfer", a.Type)
	require.Equal(t, chain.StatusOK, a.Status)
	require.JSONEq(t, `{"sender":"`+tsHolder+`","recipient":"`+tsOther+`","sender_wallet":"`+tsHolderWallet+
		`","recipient_wallet":"`+tsOtherWallet+`","amount":"1000000000","query_id":"7","forward_amount":"1",`+
		`"response_destination":"`+tsHolder+`","comment":"tonql preview","encrypted":false,`+
		`"forward_payload":"te6ccgEBAQEAEwAAIgAAAAB0b25xbCBwcmV2aWV3"}`, string(a.Value))

	// wallet request, transfer, internal_transfer, notification, excess
	require.Len(t, p.Transactions, 5)
	untyped := func(f fees.Fees) fees.Fees { f.Type = ""; return f }
	require.Equal(t, untyped(em.Result.SourceFees), p.Transactions[0].Fees)
	for i, f := range em.Result.DestinationFees {
		require.Equal(t, untyped(f), p.Transactions[i+1].Fees)
	}
	require.Equal(t, []JettonChange{
		{Owner: ptr(tsHolder), JettonWallet: tsHolderWallet, Change: "-1000000000"},
		{Owner: ptr(tsOther), JettonWallet: tsOtherWallet, Change: "1000000000"},
	}, p.BalanceChanges.Jettons)
	// TON: every account of the trace; the sender pays all the fees, the
	// recipient gets the forwarded nanoton, the excess comes back
	ton := map[string]*big.Int{}
	for _, c := range p.BalanceChanges.TON {
		n, _ := new(big.Int).SetString(string(c.Change), 10)
		ton[c.Account] = n
	}
	require.Len(t, ton, 4)
	require.Equal(t, -1, ton[tsHolder].Sign())
	// the recipient gets the notification's nanoton and pays its storage due
	notified := p.Transactions[3]
	require.Equal(t, tsOther, notified.Tx.Account)
	require.Equal(t, big.NewInt(1-int64(notified.Fees.StorageFee+notified.Fees.GasFee)).String(), ton[tsOther].String())
	var sum, paid big.Int
	for _, n := range ton {
		sum.Add(&sum, n)
	}
	for _, tx := range p.Transactions {
		paid.Add(&paid, new(big.Int).SetUint64(tx.Tx.TotalFees))
		if tx.Parent != nil {
			// the forwarding fee the message carried, beyond the
			// sender's share counted in its total_fees
			paid.Add(&paid, new(big.Int).SetUint64(tx.Tx.InMsg.FwdFee))
		}
	}
	// TON is only moved, or burnt as fees: the changes add up to minus the fees
	require.Equal(t, new(big.Int).Neg(&paid).String(), sum.String())
}

const (
	// a trading bot whose DeDust swap fails in the block (its limit was
	// not met), its jetton wallet, and the pool
	swapper       = "0:CEE275C941F48642C51C72CA25B8CC458A927D22201D1C9F7908947A0D46171D"
	swapperWallet = "0:CE9FBE6018529BBDFB703425C24CACDB8421C3542A9639205D57DD59DE830B6B"
	dedustPool    = "0:3E5FFCA8DDFCF36C36C9FF46F31562AAB51B9914845AD6C26CBDE649D58A5588"
	// DeDust's vault of that jetton and its wallet; its TON vault
	dedustJettonVault = "0:18AA8E2EED51747DAE033C079B93883D941CAD8F65459F2EE9CD7474B6B8ED5D"
	dedustVaultWallet = "0:88DAC67CCEADB9CAE6FAAC7118F05C0FA95DF36C2A92E686AC39D96310D0A387"
	dedustTONVault    = "0:DAE153A74D894BBC32748198CD626E4F5DF4A69AD2FA56CE80FC2644B5708D20"
)

// TestPreviewSwap: the bot's DeDust swap from the block, rebuilt with no
// minimum output, on the states before the block. In the block the pool
// refused the swap; now it goes through and pays out through DeDust's TON
// vault, an account the fixture has no state of: the preview emulates up
// to there and says where and why it stopped, and which action that leaves
// unfinished.
func TestPreviewSwap(t *testing.T) {
	r := loadReplay(t)
	var amountIn string
	boc := r.rewrap(t, swapper, swapperWallet, func(old tlb.Message) tlb.Message {
		body := boc.Cell(old.Body.Value)
		body.ResetCounters()
		var req jettonTransfer
		require.NoError(t, tlb.Unmarshal(&body, &req))
		require.Equal(t, abi.DedustSwapJettonOp, req.Body.ForwardPayload.Value.SumType)
		swap := req.Body.ForwardPayload.Value.Value.(abi.DedustSwapJettonPayload)
		swap.Step.Params.Limit = coins(0)
		req.Body.ForwardPayload.Value.Value = swap
		a := big.Int(req.Body.Amount)
		amountIn = a.String()
		return withBody(t, old, req)
	})
	_, p := r.preview(t, r.estimator(nil), fees.Params{Boc: boc})

	// the pool accepted the swap this time
	var pool *Transaction
	for _, tx := range p.Transactions {
		if tx.Tx.Account == dedustPool {
			pool = tx
		}
	}
	require.NotNil(t, pool, "the swap never reached the pool")
	require.True(t, pool.Tx.Success(), "the pool refused the swap")

	require.Len(t, p.Actions, 1)
	swap := p.Actions[0]
	require.Equal(t, "JettonSwap", swap.Type)
	var v map[string]any
	require.NoError(t, json.Unmarshal(swap.Value, &v))
	require.Equal(t, "dedust", v["dex"])
	require.Equal(t, swapper, v["sender"])
	require.Equal(t, dedustPool, v["pool"])
	require.Equal(t, amountIn, v["amount_in"])
	require.Equal(t, "0", v["min_out_amount"])

	// stopped where the payout leaves what the server knows
	require.False(t, p.Complete)
	require.Len(t, p.Stopped, 1)
	s := p.Stopped[0]
	require.Equal(t, dedustTONVault, s.Account)
	require.Equal(t, fees.StopUnknownAccount, s.Reason)
	require.Contains(t, s.Message, dedustTONVault)
	require.Equal(t, pool.Tx.Hash.Base64(), s.Transaction, "stopped at the pool's payout")
	require.NotEmpty(t, s.MessageHash)
	require.Equal(t, []string{swap.ActionID}, s.Actions, "the swap is what the stop leaves unfinished")

	// the jettons left the bot's wallet for the vault's
	require.Equal(t, []JettonChange{
		{Owner: ptr(swapper), JettonWallet: swapperWallet, Change: actions.BigInt("-" + amountIn)},
		{Owner: ptr(dedustJettonVault), JettonWallet: dedustVaultWallet, Change: actions.BigInt(amountIn)},
	}, p.BalanceChanges.Jettons)
}

func ptr(s string) *string { return &s }
