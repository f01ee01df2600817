package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// A registry list named by key (an owner's wallets, a page of them by
// offset) runs on Postgres as a prepared statement with its values as
// placeholders, and answers what the same page planned per value does;
// a jetton's wallets (how many depends on the jetton) are planned for
// their values, written into the statement.
func TestKeyedRegistryListsArePrepared(t *testing.T) {
	const tsTON = "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"
	replay := testenv.Fixture(t, tokenfixture.ReplayBlock)
	u := testenv.NewPostgresDatabase(t)
	if u == "" {
		t.Skip("no Postgres")
	}
	st := importedFile(t, testenv.Database{Name: "postgres", URL: u}, replay, true)
	h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
	rec := st.RecordStatements()
	logged := func(path, key string) []store.Statement {
		rec.Take()
		listOf(t, h, path, key)
		var list []store.Statement // the registry's reads, not the address book's
		for _, s := range rec.Take() {
			if strings.Contains(s.Query, `FROM "jetton_wallets"`) || strings.Contains(s.Query, `FROM "nft_`) {
				list = append(list, s)
			}
		}
		return list
	}

	byJetton := listOf(t, h, "/api/v3/jetton/wallets?jetton_address="+tsTON+"&limit=50", "jetton_wallets")
	require.GreaterOrEqual(t, len(byJetton), 2, "the block moved tsTON between several wallets")
	stmts := logged("/api/v3/jetton/wallets?jetton_address="+tsTON, "jetton_wallets")
	require.Len(t, stmts, 1)
	require.Empty(t, stmts[0].Args, "a jetton's wallets are planned per value")
	require.Contains(t, stmts[0].Query, tsTON)

	owner := byJetton[1]["owner"].(string)
	stmts = logged("/api/v3/jetton/wallets?owner_address="+owner+"&limit=5&offset=0", "jetton_wallets")
	require.Len(t, stmts, 1)
	require.NotContains(t, stmts[0].Query, owner, "the owner is a placeholder's value")
	require.Contains(t, stmts[0].Query, "$1")
	require.Equal(t, []any{owner, int64(5), int64(0)}, stmts[0].Args)

	all := listOf(t, h, "/api/v3/jetton/wallets?owner_address="+owner, "jetton_wallets")
	require.NotEmpty(t, all)
	for _, w := range all {
		require.Equal(t, owner, w["owner"])
	}
	var paged []map[string]any
	for off := range len(all) + 1 {
		paged = append(paged, listOf(t, h, "/api/v3/jetton/wallets?owner_address="+owner+"&limit=1&offset="+strconv.Itoa(off), "jetton_wallets")...)
	}
	require.Equal(t, all, paged, "pages by offset through the prepared statement make up the whole list")

	items := logged("/api/v3/nft/items?owner_address="+owner, "nft_items")
	require.NotEmpty(t, items)
	for _, s := range items {
		require.NotEmpty(t, s.Args, "the items page and its collections: %s", strings.Fields(s.Query)[0])
	}
}
