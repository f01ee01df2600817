package server_test

import (
	"context"
	"github.com/tonql/tonql/store"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/tokenfixture"
)

func TestMovesExplore(t *testing.T) {
	p, err := ingest.ParseFile(testenv.Fixture(t, tokenfixture.ReplayBlock))
	require.NoError(t, err)
	n := map[uint32]int{}
	for _, tx := range p.Transactions {
		if tx.InMsg != nil && tx.InMsg.Opcode != nil {
			n[*tx.InMsg.Opcode]++
		}
	}
	t.Logf("%x", n)
	db := testenv.Databases(t)[0]
	h, st := tokensServer(t, db.URL)
	pg, err := st.ListActions(context.Background(), store.ActionFilter{Limit: 1000, Nested: store.NestedRule{Show: true}}, store.NoBook)
	require.NoError(t, err)
	for _, a := range pg.Actions {
		t.Logf("%s %s %s %s", a.Type, a.Status, a.ParentActionID, a.Value)
	}
	for _, path := range []string{"/api/v3/jetton/transfers?limit=3", "/api/v3/jetton/burns?limit=3", "/api/v3/nft/transfers?limit=3"} {
		code, body := getJSON(t, h, path)
		t.Logf("%s %d %v", path, code, body)
	}
}
