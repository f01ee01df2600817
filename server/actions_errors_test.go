package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/ton"
)

// Every bad input is a 422 in the v3 envelope whose message names the
// parameter; never a 500.
func TestActionsBadInput(t *testing.T) {
	long := strings.Repeat("A", 200)
	cases := []struct{ query, param string }{
		{"limit=0", "limit"},
		{"limit=1001", "limit"},
		{"limit=-1", "limit"},
		{"limit=ten", "limit"},
		{"limit=1.5", "limit"},
		{"limit=", "limit"},
		{"limit=1&limit=2", "limit"},
		{"limit=99999999999999999999", "limit"},
		{"offset=-1", "offset"},
		{"offset=x", "offset"},
		{"offset=1e3", "offset"},
		{"sort=up", "sort"},
		{"sort=ASC", "sort"},
		{"sort=asc&sort=desc", "sort"},
		{"tx_lt=-5", "tx_lt"},
		{"tx_lt=abc", "tx_lt"},
		{"tx_lt=18446744073709551616", "tx_lt"},
		{"start_utime=-1", "start_utime"},
		{"start_utime=4294967296", "start_utime"},
		{"end_utime=soon", "end_utime"},
		{"start_utime=10&end_utime=9", "start_utime"},
		{"account=hello", "account"},
		{"account=0:1234", "account"},
		{"account=0:" + strings.Repeat("G", 64), "account"},
		{"account=" + badCRC(), "account"},
		{"account=EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0Xgg", "account"},
		{"account=a&account=b", "account"},
		{"trace_id=xyz", "trace_id"},
		{"trace_id=" + strings.Repeat("ab", 31), "trace_id"},
		{"trace_id=AAAA", "trace_id"},
		{"tx_hash=%25%25%25", "tx_hash"},
		{"tx_hash=" + long, "tx_hash"},
		{"action_type=Transfer", "action_type"},
		{"action_type=tontransfer", "action_type"},
		{"action_type=TonTransfer,", "action_type"},
		{"action_type=", "action_type"},
		{"action_id=", "action_id"},
		{"action_id=" + long, "action_id"},
		{"msg_hash=nothex", "msg_hash"},
		{"msg_hash=" + long, "msg_hash"},
		{"msg_hash=%00", "msg_hash"},
		{"start_lt=-1", "start_lt"},
		{"start_lt=9223372036854775808", "start_lt"},
		{"end_lt=later", "end_lt"},
		{"start_lt=10&end_lt=9", "start_lt"},
		{"end_lt=1&end_lt=2", "end_lt"},
		{"mc_seqno=abc", "mc_seqno"},
		{"mc_seqno=4294967296", "mc_seqno"},
		{"mc_seqno=-3", "mc_seqno"},
		{"exclude_action_type=Nope", "exclude_action_type"},
		{"exclude_action_type=ton_transfer,", "exclude_action_type"},
		{"include_accounts=maybe", "include_accounts"},
		{"include_accounts=true&include_accounts=false", "include_accounts"},
		{"supported_action_types=v9", "supported_action_types"},
		{"supported_action_types=v1,", "supported_action_types"},
		{"supported_action_types=", "supported_action_types"},
		{"supported_action_types=V1", "supported_action_types"},
		{"supported_action_types=v1&supported_action_types=nope&action_type=TonTransfer", "supported_action_types"},
		{"include_transactions=maybe", "include_transactions"},
		{"include_transactions=true&include_transactions=true", "include_transactions"},
	}
	forEachDatabase(t, func(t *testing.T, f *fixture) {
		require.GreaterOrEqual(t, len(cases), 30)
		for _, c := range cases {
			code, body := f.get(t, c.query)
			require.Equal(t, http.StatusUnprocessableEntity, code, "%s: %s", c.query, body)
			var e struct {
				Error string `json:"error"`
				Code  int    `json:"code"`
			}
			require.NoError(t, json.Unmarshal(body, &e), c.query)
			require.Equal(t, 422, e.Code)
			require.True(t, strings.HasPrefix(e.Error, c.param+":"), "%s: error %q does not name %s", c.query, e.Error, c.param)
		}
		// The unknown-type error lists the valid names.
		_, body := f.get(t, "action_type=Nope")
		require.Contains(t, string(body), "JettonTransfer")
		require.Contains(t, string(body), "snake_case")
		// The unknown-shortcut error names the value and the shortcuts.
		_, body = f.get(t, "supported_action_types=v1,v9")
		require.Contains(t, string(body), `\"v9\"`)
		require.Contains(t, string(body), "latest")
	})
}

// badCRC is a well-formed user-friendly address with its checksum broken.
func badCRC() string {
	good := ton.MustParseAccountID("0:"+strings.Repeat("5", 64)).ToHuman(true, false)
	last := good[len(good)-1]
	swap := byte('A')
	if last == 'A' {
		swap = 'B'
	}
	return good[:len(good)-1] + string(swap)
}

func TestActionsMethodAndGraphQLErrors(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, f *fixture) {
		rec := doRequest(f.h, http.MethodPost, "/api/v3/actions", "")
		require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
		require.JSONEq(t, `{"error":"method POST not allowed; use GET","code":405}`, rec.Body.String())

		out := f.graphql(t, `{ actions(limit: 0) { actions { action_id } } }`, nil)
		var gq struct {
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(out, &gq))
		require.Len(t, gq.Errors, 1)
		require.Equal(t, "limit: must be between 1 and 1000", gq.Errors[0].Message)
		require.Equal(t, "INVALID_INPUT", gq.Errors[0].Extensions["code"])
		require.Equal(t, "limit", gq.Errors[0].Extensions["field"])
	})
}
