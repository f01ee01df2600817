package contractfixture

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// Contracts of the npm packages, each built and driven as the package's
// own JavaScript does it.

const ton1 = 1_000_000_000

// Wallet is a made-up account (no state needed: the emulator does not
// check where an internal message comes from).
func Wallet(n byte) ton.AccountID {
	return ton.AccountID{Workchain: 0, Address: [32]byte{0xAA, n, 0x55, n}}
}

func addr(t testing.TB, c *boc.Cell, a *ton.AccountID) {
	t.Helper()
	m := tlb.MsgAddress{SumType: "AddrNone"}
	if a != nil {
		m = a.ToMsgAddress()
	}
	require.NoError(t, tlb.Marshal(c, m))
}

func coins(t testing.TB, c *boc.Cell, n uint64) {
	t.Helper()
	require.NoError(t, tlb.Marshal(c, tlb.Grams(n)))
}

// NftItem deploys tonweb's NFT item (index, collection) from collection
// and initializes it for owner, as a collection's mint does.
func (c *Chain) NftItem(index uint64, collection, owner ton.AccountID) ton.AccountID {
	c.t.Helper()
	code := Code(c.t, "tonweb/src/contract/token/nft/NftItem.js", "NFT_ITEM_CODE_HEX")
	data := boc.NewCell()
	require.NoError(c.t, data.WriteUint(index, 64))
	addr(c.t, data, &collection)
	body := boc.NewCell()
	addr(c.t, body, &owner)
	require.NoError(c.t, body.AddRef(boc.NewCell()))
	return c.Deploy(collection, code, data, body, ton1/10)
}

// TransferNft asks item (owned by from) to pass to newOwner, and delivers
// the ownership_assigned notice the item sends (with 0.01 TON forwarded).
func (c *Chain) TransferNft(item, from, newOwner ton.AccountID) {
	c.t.Helper()
	body := boc.NewCell()
	require.NoError(c.t, body.WriteUint(0x5fcc3d14, 32))
	require.NoError(c.t, body.WriteUint(0, 64))
	addr(c.t, body, &newOwner)
	addr(c.t, body, &from)
	require.NoError(c.t, body.WriteBit(false))
	coins(c.t, body, ton1/100)
	require.NoError(c.t, body.WriteBit(false))
	for _, m := range c.Send(from, item, body, ton1/10) {
		if dst, _ := ton.AccountIDFromTlb(m.Info.IntMsgInfo.Dest); dst != nil && *dst == newOwner {
			c.Deliver(m)
		}
	}
}

// Sale holds what tonweb's NftSale is built with.
type Sale struct {
	Marketplace, Nft, Royalty     ton.AccountID
	FullPrice, Fee, RoyaltyAmount uint64
}

// NftSale deploys tonweb's fixed-price sale contract from its marketplace.
func (c *Chain) NftSale(s Sale) ton.AccountID {
	c.t.Helper()
	code := Code(c.t, "tonweb/src/contract/token/nft/NftSale.js", "NFT_SALE_HEX_CODE")
	data := boc.NewCell()
	addr(c.t, data, &s.Marketplace)
	addr(c.t, data, &s.Nft)
	addr(c.t, data, nil)
	coins(c.t, data, s.FullPrice)
	fees := boc.NewCell()
	coins(c.t, fees, s.Fee)
	addr(c.t, fees, &s.Royalty)
	coins(c.t, fees, s.RoyaltyAmount)
	require.NoError(c.t, data.AddRef(fees))
	return c.Deploy(s.Marketplace, code, data, nil, ton1/10)
}

// Vesting holds what tonweb's VestingWalletV1 is built with.
type Vesting struct {
	PublicKey                            [32]byte
	Start, Duration, UnlockPeriod, Cliff uint64
	Amount                               uint64
	Sender, Owner                        ton.AccountID
}

// VestingWallet deploys tonweb's vesting wallet from its sender, with the
// amount it vests.
func (c *Chain) VestingWallet(v Vesting) ton.AccountID {
	c.t.Helper()
	code := Code(c.t, "tonweb/src/contract/lockup/VestingWalletV1.js", "CODE_HEX")
	const walletID = 0x10C // tonweb's WALLET_ID_BASE + workchain 0
	data := boc.NewCell()
	require.NoError(c.t, data.WriteUint(0, 32))
	require.NoError(c.t, data.WriteUint(walletID, 32))
	require.NoError(c.t, data.WriteBytes(v.PublicKey[:]))
	require.NoError(c.t, data.WriteBit(false))
	vc := boc.NewCell()
	require.NoError(c.t, vc.WriteUint(v.Start, 64))
	require.NoError(c.t, vc.WriteUint(v.Duration, 32))
	require.NoError(c.t, vc.WriteUint(v.UnlockPeriod, 32))
	require.NoError(c.t, vc.WriteUint(v.Cliff, 32))
	coins(c.t, vc, v.Amount)
	addr(c.t, vc, &v.Sender)
	addr(c.t, vc, &v.Owner)
	require.NoError(c.t, data.AddRef(vc))
	return c.Deploy(v.Sender, code, data, nil, v.Amount)
}

// AddWhitelist sends tonweb's add_whitelist request from the vesting
// sender (the one allowed to).
func (c *Chain) AddWhitelist(vesting, sender ton.AccountID, addrs ...ton.AccountID) {
	c.t.Helper()
	root := boc.NewCell()
	require.NoError(c.t, root.WriteUint(0x7258a69b, 32))
	require.NoError(c.t, root.WriteUint(0, 64))
	addr(c.t, root, &addrs[0])
	var next *boc.Cell
	for i := len(addrs) - 1; i >= 1; i-- {
		cell := boc.NewCell()
		addr(c.t, cell, &addrs[i])
		if next != nil {
			require.NoError(c.t, cell.AddRef(next))
		}
		next = cell
	}
	if next != nil {
		require.NoError(c.t, root.AddRef(next))
	}
	c.Send(sender, vesting, root, ton1/10)
}
