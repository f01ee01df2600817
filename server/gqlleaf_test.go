package server_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
)

// A list of actions whose selection is all leaves is written in one piece
// (cmd/gqlleaf's leafList); with one field that runs a resolver the same
// list takes gqlgen's path. Both must write the same bytes for the fields
// they share: order, aliases, __typename, numbers, strings and the raw
// value.
func TestLeafListsWriteWhatGqlgenWrites(t *testing.T) {
	f := newFixture(t, testenv.Databases(t)[0])
	const leaves = `__typename id: action_id trace_id tx_hash type status value start_lt start_utime
		end_lt end_utime trace_end_lt trace_end_utime kind: type`
	fast := f.graphql(t, `{ actions(limit: 100) { actions { `+leaves+` } } }`, nil)
	slow := f.graphql(t, `{ actions(limit: 100) { actions { `+leaves+` details { __typename } } } }`, nil)
	require.NotContains(t, string(fast), `"errors"`)
	require.Equal(t, 100, strings.Count(string(fast), `"__typename":"Action"`))
	details := regexp.MustCompile(`,"details":\{"__typename":"\w+"\}`)
	require.Equal(t, 100, len(details.FindAllIndex(slow, -1)))
	require.Equal(t, string(details.ReplaceAll(slow, nil)), string(fast))
}
