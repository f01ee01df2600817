package rest

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/resolvers"
)

// A batch's answers stay within the answer's byte bound: the calls are
// answered in order until the next answer would pass it, and that call and
// every later one are answered with an error naming the batch, each with
// its own id, without running. detectAddress needs no store, so the test
// runs the real dispatch with nothing else.
func TestBatchAnswersStayWithinTheByteBound(t *testing.T) {
	const address = "EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG"
	var batch []json.RawMessage
	for i := range 10 {
		batch = append(batch, json.RawMessage(fmt.Sprintf(
			`{"jsonrpc":"2.0","id":%d,"method":"detectAddress","params":{"address":%q}}`, i, address)))
	}
	q := &resolvers.Resolver{}
	r := httptest.NewRequest("POST", "/api/v2/jsonRPC", nil)

	whole := callBatch(r, q, batch, 1<<30)
	sizes := 0
	for i, b := range whole {
		var a struct {
			OK bool            `json:"ok"`
			ID json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal(b, &a))
		require.True(t, a.OK, "call %d: %s", i, b)
		require.Equal(t, fmt.Sprint(i), string(a.ID))
		if i < 3 {
			sizes += len(b)
		}
	}

	// Room for exactly three answers: calls 0-2 answer, 3-9 are refused.
	bounded := callBatch(r, q, batch, sizes)
	for i, b := range bounded {
		if i < 3 {
			require.JSONEq(t, string(whole[i]), string(b), "call %d answers as without the bound", i)
			continue
		}
		var e struct {
			OK    bool            `json:"ok"`
			Error string          `json:"error"`
			Code  int             `json:"code"`
			ID    json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal(b, &e))
		require.False(t, e.OK, "call %d", i)
		require.Equal(t, 422, e.Code)
		require.True(t, strings.HasPrefix(e.Error, "batch: "), e.Error)
		require.Contains(t, e.Error, fmt.Sprintf("hold %d bytes", sizes))
		require.Equal(t, fmt.Sprint(i), string(e.ID), "each refused call keeps its id")
	}
}
