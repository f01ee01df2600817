package server_test

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/metadata"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// portfolioQuery is one request for what a wallet screen shows: the
// account's jetton balances with their symbols and decimals, its NFTs,
// and its last 10 actions with the tokens they move.
const portfolioQuery = `{ account(address: %q) {
  jettons(first: 50) { edges { node { wallet balance jetton token { address symbol decimals name image } } } }
  nfts(first: 50) { edges { node { address token { address name image } collection_token { address name } } } }
  actions(first: 10) { edges { node { type details {
    ... on JettonTransfer { amount jetton_master token { address symbol decimals } }
    ... on JettonBurn { amount jetton_master token { address symbol decimals } }
    ... on JettonMint { amount jetton_master token { address symbol decimals } }
    ... on JettonSwap { amount_in jetton_master_in token_in { address symbol } token_out { address symbol } }
    ... on StakeDeposit { tokens_minted asset asset_token { address symbol decimals } }
    ... on StakeWithdrawal { tokens_burnt asset asset_token { address symbol decimals } }
    ... on NftItemTransfer { nft collection token { address name } collection_token { address name } }
  } } } } } }`

// TestPortfolioInOneQuery: on the imported fee-replay block with its
// tokens' metadata made (offline: what the contracts hold on chain), one
// GraphQL query gives an account's jetton balances with symbols and
// decimals, its NFTs and its last 10 actions with their tokens' symbols,
// on SQLite and Postgres: the tsTON holder that unstaked in the block (its
// balance from /api/v3/jetton/wallets, its StakeWithdrawal's tsTON) and
// the Telemint item's new owner (the item and its transfer's tokens).
func TestPortfolioInOneQuery(t *testing.T) {
	const (
		tsTON    = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
		unstaker = "0:BC91B30E0AFE5CB6DB47B1F2127C83B63F75207102FC3499A6A7B8182C85115E"
		nftBuyer = "0:4FF6F0769306AB2CE7CE53617CE32D01649C0FC66A49F247AB413F27FD26C87C"
		telemint = "0:CC4629E3C4BE256F2AF3E7CA22E0CACF9285BE6172FADD6FA7FC3BD5C90F3D4A"
		fragment = "0:F5605A75D80184817E82DEE89687BE7511C4713D9A3A1AD0661F3898DBD8DC6D"
	)
	replay := testenv.Fixture(t, tokenfixture.ReplayBlock)
	contents, err := tokenfixture.Contents(replay)
	require.NoError(t, err)
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			st := importedFile(t, db, replay, true)
			fetcher, err := metadata.NewFetcher(metadata.FetchOptions{LookupHost: func(_ context.Context, name string) ([]netip.Addr, error) {
				return nil, fmt.Errorf("offline test: %s", name)
			}})
			require.NoError(t, err)
			_, err = st.EnqueueTokenContent(ctx, contents)
			require.NoError(t, err)
			runWorkerUntilMade(t, st, fetcher, contents)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})

			acc := gqlData(t, h, fmt.Sprintf(portfolioQuery, friendly(unstaker)))["account"].(map[string]any)
			jettons := acc["jettons"].(map[string]any)["edges"].([]any)
			rest := listOf(t, h, "/api/v3/jetton/wallets?owner_address="+unstaker, "jetton_wallets")
			require.Len(t, jettons, len(rest))
			require.NotEmpty(t, rest)
			var sawTsTON bool
			for i, e := range jettons {
				n := e.(map[string]any)["node"].(map[string]any)
				require.Equal(t, rest[i]["balance"], n["balance"])
				if n["jetton"] == tsTON {
					sawTsTON = true
					tok := n["token"].(map[string]any)
					require.Equal(t, "tsTON", tok["symbol"])
					require.EqualValues(t, 9, tok["decimals"])
					require.Equal(t, "Tonstakers TON", tok["name"])
				}
			}
			require.True(t, sawTsTON, "the unstaker holds tsTON")
			require.Empty(t, acc["nfts"].(map[string]any)["edges"])
			acts := acc["actions"].(map[string]any)["edges"].([]any)
			require.NotEmpty(t, acts)
			require.LessOrEqual(t, len(acts), 10)
			var sawWithdrawal bool
			for _, e := range acts {
				n := e.(map[string]any)["node"].(map[string]any)
				if n["type"] != "StakeWithdrawal" {
					continue
				}
				sawWithdrawal = true
				d := n["details"].(map[string]any)
				require.Equal(t, tsTON, d["asset"])
				tok := d["asset_token"].(map[string]any)
				require.Equal(t, tsTON, tok["address"])
				require.Equal(t, "tsTON", tok["symbol"])
				require.EqualValues(t, 9, tok["decimals"])
			}
			require.True(t, sawWithdrawal)

			acc = gqlData(t, h, fmt.Sprintf(portfolioQuery, nftBuyer))["account"].(map[string]any)
			nfts := acc["nfts"].(map[string]any)["edges"].([]any)
			require.Len(t, nfts, 1)
			item := nfts[0].(map[string]any)["node"].(map[string]any)
			require.Equal(t, telemint, item["address"])
			require.Equal(t, telemint, item["token"].(map[string]any)["address"])
			require.Equal(t, fragment, item["collection_token"].(map[string]any)["address"])
			var sawTransfer bool
			for _, e := range acc["actions"].(map[string]any)["edges"].([]any) {
				n := e.(map[string]any)["node"].(map[string]any)
				if n["type"] != "NftItemTransfer" {
					continue
				}
				sawTransfer = true
				d := n["details"].(map[string]any)
				require.Equal(t, telemint, d["token"].(map[string]any)["address"])
				require.Equal(t, fragment, d["collection_token"].(map[string]any)["address"])
			}
			require.True(t, sawTransfer)
		})
	}
}
