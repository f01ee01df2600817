package contractfixture

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// TongoNewOrder is the mainnet new_order body tongo's ABI tests decode
// (case "multisig_new_order" of abi/generated_test.go, read from the tongo
// module's source at test time): a signer's proposal of one order.
func TongoNewOrder(t testing.TB) (*boc.Cell, abi.MultisigNewOrderMsgBody) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(tongoDir(t), "abi", "generated_test.go"))
	require.NoError(t, err)
	text := string(src)
	start := strings.Index(text, `name:       "multisig_new_order"`)
	require.GreaterOrEqual(t, start, 0, "no multisig_new_order case in tongo's abi tests")
	m := regexp.MustCompile(`boc:\s+"([0-9a-f]+)"`).FindStringSubmatch(text[start:])
	require.NotNil(t, m, "multisig_new_order: no boc")
	raw, err := hex.DecodeString(m[1])
	require.NoError(t, err)
	cells, err := boc.DeserializeBoc(raw)
	require.NoError(t, err)
	require.Len(t, cells, 1)
	var body struct {
		Op   tlb.Magic `tlb:"#f718510f"`
		Body abi.MultisigNewOrderMsgBody
	}
	require.NoError(t, tlb.Unmarshal(cells[0], &body))
	cells[0].ResetCounters()
	return cells[0], body.Body
}

// PutActive places id on the chain as an active account with code, data
// and balance (a state read from the chain, as StateOf builds it).
func (c *Chain) PutActive(id ton.AccountID, code, data *boc.Cell, balance uint64) {
	c.t.Helper()
	var sa tlb.ShardAccount
	sa.Account.SumType = "Account"
	acc := &sa.Account.Account
	acc.Addr = id.ToMsgAddress()
	acc.StorageStat.StorageExtra.SumType = "StorageExtraNone"
	acc.Storage.Balance.Grams = tlb.Grams(balance)
	acc.Storage.State.SumType = "AccountActive"
	acc.Storage.State.AccountActive.StateInit = stateInit(code, data)
	c.states[id] = sa
}

// MultisigOrder proposes the order of body (a new_order) to the multisig
// ms holds, from the signer the body names, at a time before the order
// expires, and deploys the order the multisig sends: the order's state
// is the one the chain would hold after its init (its code is the public
// library the block's config holds). Returns the order's address.
func (c *Chain) MultisigOrder(ms TongoMultisig, body *boc.Cell, order abi.MultisigNewOrderMsgBody) ton.AccountID {
	c.t.Helper()
	c.PutActive(ms.Account, ms.Code, ms.Data, 10*ton1)
	require.Equal(c.t, tlb.Uint1(1), order.Signer, "the body is a signer's")
	require.Less(c.t, int(order.Index), len(ms.Signers))
	signer, err := ton.ParseAccountID(ms.Signers[order.Index])
	require.NoError(c.t, err)
	// The proposal was made before it expired: run it an hour before.
	c.utime = uint32(order.ExpirationDate) - 3600
	out := c.Send(signer, ms.Account, body, ton1)
	require.Len(c.t, out, 1, "the multisig deploys the order")
	require.True(c.t, out[0].Init.Exists, "with its state init")
	c.Deliver(out[0])
	dst, err := ton.AccountIDFromTlb(out[0].Info.IntMsgInfo.Dest)
	require.NoError(c.t, err)
	return *dst
}

// DataHash is the hash of id's data now (toncenter's data_hash).
func (c *Chain) DataHash(id ton.AccountID) chain.Hash {
	c.t.Helper()
	init := c.states[id].Account.Account.Storage.State.AccountActive.StateInit
	require.True(c.t, init.Data.Exists, "%s has no data", id)
	h, err := init.Data.Value.Value.Hash256()
	require.NoError(c.t, err)
	return chain.Hash(h)
}
