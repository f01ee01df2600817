package server_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/vektah/gqlparser/v2/formatter"

	"github.com/tonql/tonql/graph"
	"github.com/tonql/tonql/resolvers"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite docs/schema.graphql from the served schema")

// The served GraphQL schema, every type and field, is kept in
// docs/schema.graphql: any change to what clients see, breaking or not,
// shows as a diff there (and frontends generate their types from it).
// After a deliberate change: go test ./server -run SchemaSnapshot -update-schema
func TestSchemaSnapshot(t *testing.T) {
	es := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}})
	var got bytes.Buffer
	formatter.NewFormatter(&got, formatter.WithIndent("  ")).FormatSchema(es.Schema())
	const path = "../docs/schema.graphql"
	if *updateSchema {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run SchemaSnapshot -update-schema)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the served GraphQL schema differs from docs/schema.graphql; if the change is deliberate (and not breaking, or announced), run go test ./server -run SchemaSnapshot -update-schema and commit the diff")
	}
}
