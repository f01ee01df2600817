package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// gqlServer is a server over a fresh store of the first database, with
// the default logger captured so a test can see what errors log.
func gqlServer(t *testing.T) (http.Handler, *testenv.SyncBuffer) {
	t.Helper()
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	return newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}, RequestTimeout: 20 * time.Second,
		Logger: slog.New(slog.DiscardHandler)}), captureDefaultLog(t)
}

// captureDefaultLog sends slog.Default to a buffer for the test (errors
// inside handlers log there).
func captureDefaultLog(t *testing.T) *testenv.SyncBuffer {
	t.Helper()
	buf := &testenv.SyncBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return buf
}

type gqlAnswer struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func postGQL(t *testing.T, h http.Handler, query string, vars map[string]any) (int, gqlAnswer, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	rec := doRequest(h, http.MethodPost, "/graphql", string(body))
	var a gqlAnswer
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &a), rec.Body.String())
	return rec.Code, a, rec.Body.String()
}

func requireCode(t *testing.T, a gqlAnswer, raw, code string) {
	t.Helper()
	require.NotEmpty(t, a.Errors, raw)
	require.Equal(t, code, a.Errors[0].Extensions["code"], raw)
}

// fragmentBomb is a ~2 KB query whose fragments on typ each spread the
// previous one twice: 2^levels fields when expanded. root has "$" where
// the last fragment is spread.
func fragmentBomb(levels int, typ, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ %s } fragment F0 on %s { __typename }", strings.ReplaceAll(root, "$", fmt.Sprintf("...F%d", levels)), typ)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, " fragment F%d on %s { ...F%d ...F%d }", i, typ, i-1, i-1)
	}
	return b.String()
}

// Defect 1: the complexity and shape walks expanded fragments, 2^26 steps
// for 26 levels (18 s of CPU). At 64 levels the old walks never end; now
// the document is measured once per fragment and refused at once.
func TestGraphQLFragmentBombRefusedWithoutExpanding(t *testing.T) {
	h, _ := gqlServer(t)
	for name, q := range map[string]string{
		"plain":            fragmentBomb(64, "Query", "$"),
		"in introspection": fragmentBomb(64, "__Type", "__schema { types { $ } }"),
	} {
		t.Run(name, func(t *testing.T) {
			code, a, raw := postGQL(t, h, q, nil)
			require.Equal(t, http.StatusUnprocessableEntity, code, raw)
			requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
			require.Contains(t, a.Errors[0].Message, "fragments expanded")
		})
	}
	// Fragments spread within the limits still work and count once each.
	code, a, raw := postGQL(t, h, fragmentBomb(3, "Query", "$"), nil)
	require.Equal(t, http.StatusOK, code, raw)
	require.Empty(t, a.Errors, raw)
}

// Defect 2: gqlparser's field-merging rule is quadratic: `{ __typename x
// 5,000 }` took 4.7 s and was answered. The work it would do is now
// bounded before validation, and the parser has a token limit.
func TestGraphQLQuadraticValidationRefused(t *testing.T) {
	h, _ := gqlServer(t)
	q := "{" + strings.Repeat(" __typename", 5000) + "}"
	code, a, raw := postGQL(t, h, q, nil)
	require.Equal(t, http.StatusUnprocessableEntity, code, raw)
	requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
	require.Contains(t, a.Errors[0].Message, "pairs of fields")

	// The same nested: pairs of repeated fields compare their children.
	q = "{" + strings.Repeat(" actions { actions { action_id } }", 800) + "}"
	_, a, raw = postGQL(t, h, q, nil)
	requireCode(t, a, raw, "QUERY_TOO_COMPLEX")

	// 12,000 tokens in 48 KB: refused by the parser's token limit.
	q = `{ actions(filter: {action_id: [` + strings.Repeat(`"a" `, 12_000) + `]}) { actions { action_id } } }`
	_, a, raw = postGQL(t, h, q, nil)
	requireCode(t, a, raw, "GRAPHQL_PARSE_FAILED")
	require.Contains(t, a.Errors[0].Message, "token limit")

	// A realistic repeat (one field in each of many inline fragments) passes.
	var b strings.Builder
	b.WriteString("{ actions(limit: 1) { actions { details {")
	for _, typ := range actions.TypeNames() {
		fmt.Fprintf(&b, " ... on %s { __typename }", typ)
	}
	b.WriteString(" } } } }")
	code, a, raw = postGQL(t, h, b.String(), nil)
	require.Equal(t, http.StatusOK, code, raw)
	require.Empty(t, a.Errors, raw)
}

// Defect 3: a list literal nested 100,000 deep took 7.75 s and its 422
// quoted the whole 200 KB value back.
func TestGraphQLDeepValueRefusedShortly(t *testing.T) {
	h, _ := gqlServer(t)
	for _, depth := range []int{20, 100_000} {
		q := `{ actions(filter: {action_id: ` + strings.Repeat("[", depth) + `"x"` + strings.Repeat("]", depth) + `}) { actions { action_id } } }`
		code, a, raw := postGQL(t, h, q, nil)
		require.Equal(t, http.StatusUnprocessableEntity, code)
		require.Less(t, len(raw), 1000, "the answer must not quote the value")
		requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
	}
	// A wrong value of a sane size is still a validation error, shortened.
	q := `{ actions(filter: {action_id: [[` + strings.Repeat(`"xxxxxxxx" `, 2000) + `]]}) { actions { action_id } } }`
	_, a, raw := postGQL(t, h, q, nil)
	requireCode(t, a, raw, "GRAPHQL_VALIDATION_FAILED")
	require.Less(t, len(raw), 1000)
}

// Defect 4: documents were cached before the limits rejected them; 20
// distinct 0.9 MB alias-heavy queries kept 532 MB. Now they are refused
// before parsing and nothing stays (10 of them here: 266 MB before).
func TestGraphQLRefusedDocumentsAreNotKept(t *testing.T) {
	h, _ := gqlServer(t)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := range 10 {
		var b strings.Builder
		fmt.Fprintf(&b, "{ q%d: __typename", i)
		for j := 0; b.Len() < 900_000; j++ {
			fmt.Fprintf(&b, " a%d: actions(limit: %d, offset: %d) { actions { action_id type } }", j, 1+j%5, j)
		}
		b.WriteString(" }")
		code, a, raw := postGQL(t, h, b.String(), nil)
		require.Equal(t, http.StatusUnprocessableEntity, code, raw)
		requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
	}
	after := heap()
	require.Less(t, int64(after)-int64(before), int64(50<<20), "heap grew from %d to %d bytes", before, after)
}

// GraphiQL's introspection nests ofType nine deep (depth 13); it was
// refused by the depth limit of 10.
func TestGraphiQLIntrospectionPasses(t *testing.T) {
	h, _ := gqlServer(t)
	typeRef := "kind name"
	for range 9 {
		typeRef = "kind name ofType { " + typeRef + " }"
	}
	q := `query IntrospectionQuery { __schema { description queryType { name } mutationType { name } subscriptionType { name }
	  types { ...FullType } directives { name description isRepeatable locations args(includeDeprecated: true) { ...InputValue } } } }
	fragment FullType on __Type { kind name description specifiedByURL
	  fields(includeDeprecated: true) { name description args(includeDeprecated: true) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
	  inputFields(includeDeprecated: true) { ...InputValue } interfaces { ...TypeRef }
	  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
	fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason }
	fragment TypeRef on __Type { ` + typeRef + ` }`
	code, a, raw := postGQL(t, h, q, nil)
	require.Equal(t, http.StatusOK, code, raw[:min(len(raw), 300)])
	require.Empty(t, a.Errors)
	require.Contains(t, string(a.Data), `"queryType":{"name":"Query"}`)

	// Outside introspection the depth limit holds.
	nested := "{ actions { actions { participants { account { actions { edges { node { participants { account { actions { edges { node { type } } } } } } } } } } } } }"
	_, a, raw = postGQL(t, h, nested, nil)
	requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
	require.Contains(t, a.Errors[0].Message, "depth")
}

// Defect 6: the body `null` panicked in gqlgen's transport; other bodies
// of the wrong shape echoed Go type names and the whole body.
func TestGraphQLBodyOfWrongShape(t *testing.T) {
	h, logs := gqlServer(t)
	for body, want := range map[string]string{
		`null`:             `request body must be a JSON object`,
		`[]`:               `request body must be a JSON object`,
		`"{ __typename }"`: `request body must be a JSON object`,
		`1`:                `request body must be a JSON object`,
		`{"query": 1}`:     `query: must be a string`,
		`{"query": "{ __typename }", "variables": [1]}`:     `variables: must be an object`,
		`{"query": "{ __typename }", "operationName": {}}`:  `operationName: must be a string`,
		`{"query": "{ __typename }", "extensions": "x"}`:    `extensions: must be an object`,
		`{"query": "{ __typename }"} trailing`:              `request body is not valid JSON`,
		`{"query": "{ __typename }", "variables": {"a": }}`: `request body is not valid JSON`,
		// Member names are exact; Go's decoder would take these for "query".
		`{"Query": "{ __typename }"}`:                  `Query: unknown member; the name is "query"`,
		`{"querY": "{ __typename }"}`:                  `querY: unknown member; the name is "query"`,
		`{"query": "{ __typename }", "VARIABLES": {}}`: `VARIABLES: unknown member; the name is "variables"`,
	} {
		rec := doRequest(h, http.MethodPost, "/graphql", body)
		require.Equal(t, http.StatusBadRequest, rec.Code, body)
		var a gqlAnswer
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &a), rec.Body.String())
		require.Len(t, a.Errors, 1)
		require.Contains(t, a.Errors[0].Message, want, body)
		require.Equal(t, "BAD_REQUEST", a.Errors[0].Extensions["code"])
		require.NotContains(t, rec.Body.String(), "interface", body)
	}
	require.NotContains(t, logs.String(), "panic")
	require.NotContains(t, logs.String(), `"level":"ERROR"`)
	// What gqlgen answered "transport not supported" without a code.
	for _, c := range []struct {
		method, ctype string
		status        int
		code          string
	}{{http.MethodPost, "", 400, "BAD_REQUEST"}, {http.MethodPost, "text/plain", 400, "BAD_REQUEST"}, {http.MethodPut, "application/json", 405, "METHOD_NOT_ALLOWED"}} {
		req := httptest.NewRequest(c.method, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`))
		req.Header.Set("Content-Type", c.ctype)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, c.status, rec.Code, c.method+" "+c.ctype)
		require.Contains(t, rec.Body.String(), `"code":"`+c.code+`"`)
	}
	for _, q := range []string{"variables=[1]", "variables=x", "variables=%20%20", "extensions=%09", "extensions=1", "a=%zz"} {
		rec := doRequest(h, http.MethodGet, "/graphql?query=%7B__typename%7D&"+q, "")
		require.Equal(t, http.StatusBadRequest, rec.Code, q)
		require.Contains(t, rec.Body.String(), `"code":"BAD_REQUEST"`, q)
	}
	// null members are absent members.
	rec := doRequest(h, http.MethodPost, "/graphql", `{"query": "{ __typename }", "variables": null, "operationName": null}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// Defect 7: arguments gqlgen could not decode were INTERNAL with an ERROR
// log line; variables of the wrong type named Go kinds ("map").
func TestGraphQLInvalidArgumentsNameTheArgument(t *testing.T) {
	h, logs := gqlServer(t)
	cases := []struct {
		query string
		vars  map[string]any
		code  string
		field string
		want  string
	}{
		{`{ actions(filter: {tx_lt: -1}) { actions { action_id } } }`, nil, "INVALID_INPUT", "tx_lt", "tx_lt: must be an integer from 0 to 18446744073709551615"},
		{`{ actions(filter: {start_utime: "x"}) { actions { action_id } } }`, nil, "INVALID_INPUT", "start_utime", "start_utime: must be an integer from 0 to 4294967295"},
		{`{ actions(filter: {mc_seqno: 4294967296}) { actions { action_id } } }`, nil, "INVALID_INPUT", "mc_seqno", "mc_seqno: must be an integer from 0 to 4294967295"},
		{`query($s: SortOrder) { actions(sort: $s) { actions { action_id } } }`, map[string]any{"s": "DESC"}, "", "", "must be one of asc, desc"},
		{`query($a: String) { actions(filter: {account: $a}) { actions { action_id } } }`, map[string]any{"a": map[string]any{"x": 1}}, "", "", "variable $a: must be a string"},
		{`query($f: ActionFilter) { actions(filter: $f) { actions { action_id } } }`, map[string]any{"f": map[string]any{"tx_lt": []any{1}}}, "", "", "tx_lt: must be an integer"},
		{`query($l: Int) { actions(limit: $l) { actions { action_id } } }`, map[string]any{"l": "ten"}, "", "", "variable $l: must be an integer"},
	}
	for _, c := range cases {
		_, a, raw := postGQL(t, h, c.query, c.vars)
		require.NotEmpty(t, a.Errors, raw)
		e := a.Errors[0]
		require.NotEqual(t, "INTERNAL", e.Extensions["code"], raw)
		require.Contains(t, e.Message, c.want, raw)
		if c.code != "" {
			require.Equal(t, c.code, e.Extensions["code"], raw)
			require.Equal(t, c.field, e.Extensions["field"], raw)
		}
		for _, goName := range []string{"map", "slice", "strconv", "float64", "interface"} {
			require.NotContains(t, e.Message, goName, raw)
		}
	}
	require.NotContains(t, logs.String(), `"level":"ERROR"`)
}

// Defect 5: a NUL in action_id answered 500 and logged the database's
// syntax error; bytes that are not UTF-8 did the same on Postgres, in the
// filter and inside a cursor.
func TestControlBytesInTextFiltersAreClientErrors(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}, Logger: slog.New(slog.DiscardHandler)})
			logs := captureDefaultLog(t)
			for _, q := range []string{"action_id=%00", "action_id=%FF", "action_id=a%0Ab", "action_id=ok&action_id=%00x"} {
				rec := doRequest(h, http.MethodGet, "/api/v3/actions?"+q, "")
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, q)
				require.Contains(t, rec.Body.String(), "action_id", q)
			}
			_, a, raw := postGQL(t, h, `{ actions(filter: {action_id: "\u0000"}) { actions { action_id } } }`, nil)
			requireCode(t, a, raw, "INVALID_INPUT")
			require.Equal(t, "action_id", a.Errors[0].Extensions["field"])
			for _, id := range []string{"\x00", "\xff\xfe"} {
				cursor := base64.RawURLEncoding.EncodeToString([]byte("5:" + id))
				_, a, raw = postGQL(t, h, `query($c: String) { account(address: "0:`+strings.Repeat("0", 64)+`") { actions(after: $c) { edges { node { type } } } } }`,
					map[string]any{"c": cursor})
				requireCode(t, a, raw, "INVALID_INPUT")
			}
			require.NotContains(t, logs.String(), `"level":"ERROR"`)
		})
	}
}

// A list costs its page size times its children, whether the size is
// written in the document or passed as a variable; an action's links
// count as ten each. 1,000 actions with participants and transactions
// cost 54,001 (past the 50,000 limit); 900 of them 48,601. Each document
// is sent twice with each size, in turn: the cost kept with a cached
// document must be the one of its variables.
func TestGraphQLComplexityCountsPageSizes(t *testing.T) {
	h, _ := gqlServer(t)
	const sel = `{ actions { action_id participants { roles account { address } } transactions_full { hash lt } } } }`
	for _, tc := range []struct {
		query string
		vars  map[string]any
	}{
		{"{ actions(limit: %d) " + sel, nil},
		{"query($n: Int) { actions(limit: $n) " + sel, map[string]any{"n": "%d"}},
	} {
		for _, size := range []int{900, 1000, 900, 1000} {
			tooComplex := size == 1000
			q, vars := tc.query, map[string]any(nil)
			if tc.vars == nil {
				q = fmt.Sprintf(q, size)
			} else {
				vars = map[string]any{"n": size}
			}
			code, a, raw := postGQL(t, h, q, vars)
			if tooComplex {
				require.Equal(t, http.StatusUnprocessableEntity, code, raw)
				requireCode(t, a, raw, "QUERY_TOO_COMPLEX")
				require.Contains(t, a.Errors[0].Message, "complexity")
			} else {
				require.Equal(t, http.StatusOK, code, raw)
				require.Empty(t, a.Errors, raw)
			}
		}
	}
}
