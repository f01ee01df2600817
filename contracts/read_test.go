package contracts_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/contracts"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/contractfixture"
	"github.com/tonql/tonql/internal/testenv"
)

// runner is the project's TVM runner with the fixture block's config.
func runner(t *testing.T) *getmethod.Runner {
	t.Helper()
	r, _ := runnerOn(t)
	return r
}

// runnerOn is runner with the source of its stored states.
func runnerOn(t *testing.T) (*getmethod.Runner, *fees.MemorySource) {
	t.Helper()
	p, err := ingest.ParseFile(testenv.Fixture(t, contractfixture.ReplayBlock))
	require.NoError(t, err)
	at := time.Unix(int64(p.Config.Utime), 0)
	src := fees.NewMemorySource(p.Config)
	return getmethod.New(fees.New(src, nil, fees.Options{Now: func() time.Time { return at }})), src
}

func raw(id ton.AccountID) string { return chain.RawAddress(id) }

func msgAddr(t *testing.T, a tlb.MsgAddress) string {
	t.Helper()
	id, err := ton.AccountIDFromTlb(a)
	require.NoError(t, err)
	if id == nil {
		return ""
	}
	return raw(*id)
}

// TestReadSale: tonweb's fixed-price sale, deployed and sent its NFT
// through the emulator, is read as get_sale_data answers on its state
// (checked with tongo's own TVM and ABI decoder); before the NFT arrives
// it has no seller.
func TestReadSale(t *testing.T) {
	c := contractfixture.New(t)
	seller, market, coll := contractfixture.Wallet(1), contractfixture.Wallet(2), contractfixture.Wallet(3)
	item := c.NftItem(7, coll, seller)
	sale := c.NftSale(contractfixture.Sale{Marketplace: market, Nft: item, Royalty: coll,
		FullPrice: 5_000_000_000, Fee: 100_000_000, RoyaltyAmount: 250_000_000})
	rd := contracts.NewReader(runner(t))
	ctx := context.Background()

	before, bad, err := rd.Read(ctx, []chain.AccountState{c.State(sale)})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, before.Sales, 1)
	require.Equal(t, "", before.Sales[0].Seller, "no seller before the NFT arrives")

	c.TransferNft(item, seller, sale)
	st := c.State(sale)
	recs, bad, err := rd.Read(ctx, []chain.AccountState{st, c.State(item)})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, recs.Sales, 1, "the item is no sale")
	got := recs.Sales[0]

	_, v, err := abi.GetSaleData(ctx, c.Executor(sale), sale)
	require.NoError(t, err)
	want, ok := v.(abi.GetSaleData_BasicResult)
	require.True(t, ok, "%T", v)
	require.Equal(t, raw(sale), got.Address)
	require.Equal(t, msgAddr(t, want.Nft), got.Nft)
	require.Equal(t, msgAddr(t, want.Owner), got.Seller)
	require.Equal(t, raw(seller), got.Seller, "the NFT's previous owner is the seller")
	require.Equal(t, msgAddr(t, want.Marketplace), got.Marketplace)
	fp := big.Int(want.FullPrice)
	require.Equal(t, fp.String(), got.FullPrice)
	require.Equal(t, fmt.Sprint(want.MarketFee), got.MarketplaceFee)
	require.Equal(t, msgAddr(t, want.RoyaltyAddress), got.RoyaltyAddress)
	require.Equal(t, fmt.Sprint(want.RoyaltyAmount), got.RoyaltyAmount)
	require.Equal(t, st.LastTxLt, got.LastTxLt)
	require.Equal(t, *st.CodeHash, got.CodeHash)
}

// TestReadVesting: tonweb's vesting wallet, deployed and whitelisting two
// addresses through the emulator, is read as get_vesting_data and
// get_whitelist answer on its state.
func TestReadVesting(t *testing.T) {
	c := contractfixture.New(t)
	sender, owner := contractfixture.Wallet(4), contractfixture.Wallet(5)
	w1, w2 := contractfixture.Wallet(6), contractfixture.Wallet(7)
	v := c.VestingWallet(contractfixture.Vesting{PublicKey: [32]byte{9, 9, 9}, Start: uint64(c.Utime()) - 100,
		Duration: 3600 * 24 * 10, UnlockPeriod: 3600 * 24, Cliff: 3600 * 24 * 2, Amount: 30_000_000_000,
		Sender: sender, Owner: owner})
	c.AddWhitelist(v, sender, w1, w2)
	st := c.State(v)
	rd := contracts.NewReader(runner(t))
	ctx := context.Background()
	recs, bad, err := rd.Read(ctx, []chain.AccountState{st})
	require.NoError(t, err)
	require.Empty(t, bad)
	require.Len(t, recs.Vestings, 1)
	got := recs.Vestings[0]

	_, res, err := abi.GetVestingData(ctx, c.Executor(v), v)
	require.NoError(t, err)
	want, ok := res.(abi.GetVestingDataResult)
	require.True(t, ok, "%T", res)
	require.Equal(t, int64(want.VestingStartTime), got.StartTime)
	require.Equal(t, int64(want.VestingTotalDuration), got.TotalDuration)
	require.Equal(t, int64(want.UnlockPeriod), got.UnlockPeriod)
	require.Equal(t, int64(want.CliffDuration), got.Cliff)
	require.Equal(t, fmt.Sprint(want.VestingTotalAmount), got.TotalAmount)
	require.Equal(t, msgAddr(t, want.VestingSenderAddress), got.Sender)
	require.Equal(t, msgAddr(t, want.OwnerAddress), got.Owner)
	require.ElementsMatch(t, []string{raw(w1), raw(w2)}, got.Whitelist, "the addresses the sender whitelisted")
	require.Equal(t, st.LastTxLt, got.LastTxLt)
}
