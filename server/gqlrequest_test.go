package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
)

// params gives gqlgen what its own POST transport decodes from the same
// body: the strings taken without a decoder (chain.PlainJSONString) included,
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
		`{"query":"q","variables":{"a":"0:AB","n":-1e3,"t":true,"f":false,"z":null,"a":"last"}}`,
		`{"query":"q","variables":{"\u0061":"x","b":"\u00e9","c":[1]}}`,
		"{\"query\":\"q\",\"variables\":{\"\xff\":1}}",
		`{"query":"q","variables":{ }}`,
		`{"query":"q","variables":null}`,
	} {
		requireParamsAsGqlgenDecodes(t, []byte(body))
	}
}

// requireParamsAsGqlgenDecodes checks params against gqlgen's transport
// for a body that checkGraphQLBody takes.
func requireParamsAsGqlgenDecodes(t *testing.T, body []byte) {
	t.Helper()
	members, err := checkGraphQLBody(body)
	require.NoError(t, err, "%q", body)
	var got graphql.RawParams
	require.NoError(t, members.params(&got), "%q", body)

	var want graphql.RawParams // as gqlgen's transport.POST decodes a body
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&want), "%q", body)
	require.Equal(t, want.Query, got.Query, "%q", body)
	require.Equal(t, want.OperationName, got.OperationName, "%q", body)
	require.Equal(t, want.Variables, got.Variables, "%q", body)
	require.Equal(t, want.Extensions, got.Extensions, "%q", body)
}

// Any body the check takes gives gqlgen what its own transport would,
// the variables above all (flatJSONObject); fuzzed in CI.
func FuzzGraphQLBodyParamsAsGqlgenDecodes(f *testing.F) {
	for _, seed := range []string{
		`{"query":"q","variables":{"a":"0:AB","n":1.5e-3,"b":true,"z":null}}`,
		`{"query":"q","variables":{"a":"x","a":{"b":1}}}`,
		`{"variables":{"\"q":"\t","s":"é"},"operationName":"A"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := checkGraphQLBody(body); err != nil {
			return
		}
		var probe graphql.RawParams // gqlgen's own decode must take it too
		if json.Unmarshal(body, &probe) != nil {
			return
		}
		requireParamsAsGqlgenDecodes(t, body)
	})
}

// checkBodyByMap is what checkGraphQLBody did before jsonMembers: the
// body decoded into a map of raw members by encoding/json.
func checkBodyByMap(raw []byte) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil, false
	}
	for name := range members {
		for _, known := range graphQLMembers {
			if name != known && strings.EqualFold(name, known) {
				return nil, false
			}
		}
	}
	for name, want := range map[string]byte{"query": '"', "operationName": '"', "variables": '{', "extensions": '{'} {
		if m := members[name]; len(m) > 0 && string(m) != "null" && m[0] != want {
			return nil, false
		}
	}
	return members, true
}

// checkGraphQLBody takes and refuses what decoding the body into a map
// does, and finds the same members: escaped names, repeated members (the
// last counts), nested values, strings holding brackets and quotes.
func FuzzCheckGraphQLBodyAsAMap(f *testing.F) {
	for _, seed := range []string{`{"query":"{ a }"}`, ` {"query":"x","query":"y"} `, `{"\u0071uery":"x"}`, `{"Query":"x"}`,
		`{"variables":{"a":["}",{"b":"\"]"}],"c":null},"query":"q"}`, `{"a":1e5,"b":true,"c":[],"operationName":null}`,
		`{"query":"x"} {}`, `{"query":"x",}`, `{"extenſions":{}}`, "{\"query\":\"\xff\"}", `{"query":1}`, `{}`, `[]`, `{"query":"x"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want, ok := checkBodyByMap([]byte(raw))
		got, err := checkGraphQLBody([]byte(raw))
		if ok != (err == nil) {
			t.Fatalf("%q: by the map ok=%v, now err=%v", raw, ok, err)
		}
		if !ok {
			return
		}
		for _, name := range graphQLMembers {
			if w, g := want[name], *got.member([]byte(name)); !bytes.Equal(w, g) {
				t.Fatalf("%q: member %s is %q, by the map %q", raw, name, g, w)
			}
		}
	})
}

// BenchmarkCheckGraphQLBody checks the body of scripts/wrk-graphql.lua, by
// the walk and, for comparison, by the map it replaced.
func BenchmarkCheckGraphQLBody(b *testing.B) {
	body := []byte(`{"query":"query($a:String){actions(filter:{account:$a},limit:10){actions{action_id trace_id tx_hash type status value start_lt start_utime end_lt end_utime} address_book}}","variables":{"a":"0:64ED11B954753A2B258EBBBA872FBD966728E426A450F6D7E66886717EDF7CE9"}}`)
	b.Run("walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := checkGraphQLBody(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := checkBodyByMap(body); !ok {
				b.Fatal("refused")
			}
		}
	})
}
