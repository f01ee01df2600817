package main

import (
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/store"
)

// A page whose statements were all prepared becomes a script of pgbench
// variables (pN_M: statement N's $M) with their values as -D arguments; a
// page with any statement sent with its values written in has the
// prepared ones' values written in too (the script runs in simple
// protocol, where a raw address's ":B0" would read as a variable).
func TestScriptOfCapturedStatements(t *testing.T) {
	db := bun.NewDB(sql.OpenDB(pgdriver.NewConnector()), pgdialect.New()) // formats only; never connects
	const owner = "0:6C40A97AD345C4D3E73B46B8B130A9364E77032FD6804BBA0FEAC5CB0DAA4E68"
	items := store.Statement{Query: `SELECT address FROM nft_items WHERE owner IN ($1) LIMIT $2 OFFSET $3`, Args: []any{owner, int64(10), int64(0)}}
	colls := store.Statement{Query: `SELECT address FROM nft_collections WHERE address IN ($1, $2)`, Args: []any{"0:AA", "0:BB"}}

	script, args := scriptOf(db, []store.Statement{items, colls})
	require.Equal(t, []string{
		`SELECT address FROM nft_items WHERE owner IN (:p1_1) LIMIT :p1_2 OFFSET :p1_3`,
		`SELECT address FROM nft_collections WHERE address IN (:p2_1, :p2_2)`,
	}, script)
	require.Equal(t, []string{"p1_1=" + owner, "p1_2=10", "p1_3=0", "p2_1=0:AA", "p2_2=0:BB"}, args)

	inline := store.Statement{Query: `SELECT id FROM traces WHERE id = 'x''y'`}
	script, args = scriptOf(db, []store.Statement{inline, items})
	require.Nil(t, args)
	require.Equal(t, []string{inline.Query,
		`SELECT address FROM nft_items WHERE owner IN ('` + owner + `') LIMIT 10 OFFSET 0`}, script)
}
