package server

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
)

// params gives gqlgen what its own POST transport decodes from the same
// body: the strings taken without a decoder (plainJSONString) included,
// and those that need one (escapes, bad UTF-8, null).
func TestGraphQLBodyParamsAsGqlgenDecodes(t *testing.T) {
	for _, body := range []string{
		`{"query":"{ __typename }"}`,
		`{"query":""}`,
		`{"query":null,"operationName":null}`,
		`{"query":"query A { a(s: \"x\") }","operationName":"A"}`,
		`{"query":"{ a }\n# tab\tand \u00e9 \\ slash"}`,
		`{"query":"unicode ✓ 🙂 é","operationName":"Ä"}`,
		"{\"query\":\"bad \xff byte\",\"operationName\":\"\xc3\"}",
		`{"query":"{ a }","variables":{"n":1.50,"s":"x","o":{"k":[1,2]}},"extensions":{"e":10}}`,
	} {
		members, err := checkGraphQLBody([]byte(body))
		require.NoError(t, err, body)
		var got graphql.RawParams
		require.NoError(t, members.params(&got), body)

		var want graphql.RawParams // as gqlgen's transport.POST decodes a body
		dec := json.NewDecoder(bytes.NewReader([]byte(body)))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&want), body)
		require.Equal(t, want.Query, got.Query, body)
		require.Equal(t, want.OperationName, got.OperationName, body)
		require.Equal(t, want.Variables, got.Variables, body)
		require.Equal(t, want.Extensions, got.Extensions, body)
	}
}
