package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// TestV3TopAccountsByBalance imports the fee-replay file (the states of
// 234 accounts) on SQLite and Postgres and ranks them: the list equals the
// balances the file's account BOCs hold (decoded here with tongo), largest
// first, pages by limit and offset, says it covers the stored accounts
// only, and bad or unknown parameters answer 422 naming them. POST
// /api/v3/message checks the message and, without lite servers, refuses
// to pretend it sent it.
func TestV3TopAccountsByBalance(t *testing.T) {
	path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var file struct {
		Previous []struct {
			Account string `json:"account"`
			BOC     string `json:"shard_account_boc_base64"`
		} `json:"previous_accounts"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	type entry struct {
		Account string `json:"account"`
		Balance string `json:"balance"`
	}
	var want []entry
	for _, a := range file.Previous {
		cells, err := boc.DeserializeBocBase64(a.BOC)
		require.NoError(t, err)
		var sa tlb.ShardAccount
		require.NoError(t, tlb.Unmarshal(cells[0], &sa))
		balance := uint64(0) // an account that does not exist holds nothing
		if sa.Account.SumType == "Account" {
			balance = uint64(sa.Account.Account.Storage.Balance.Grams)
		}
		id := ton.MustParseAccountID(a.Account)
		want = append(want, entry{Account: fmt.Sprintf("%d:%X", id.Workchain, id.Address[:]), Balance: strconv.FormatUint(balance, 10)})
	}
	require.Greater(t, len(want), 50)
	sort.Slice(want, func(i, j int) bool {
		a, _ := strconv.ParseUint(want[i].Balance, 10, 64)
		b, _ := strconv.ParseUint(want[j].Balance, 10, 64)
		if a != b {
			return a > b
		}
		return want[i].Account > want[j].Account
	})

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: r.st}})
			get := func(path string) ([]entry, *httptest.ResponseRecorder) {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				require.Equal(t, 200, rec.Code, rec.Body.String())
				var out []entry
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
				return out, rec
			}
			all, rec := get("/api/v3/topAccountsByBalance?limit=1000")
			require.Equal(t, "stored", rec.Header().Get("Accounts-Scope"))
			require.Equal(t, want, all)
			def, _ := get("/api/v3/topAccountsByBalance") // limit defaults to 10
			require.Equal(t, want[:10], def)
			page, _ := get("/api/v3/topAccountsByBalance?limit=5&offset=7")
			require.Equal(t, want[7:12], page)
			past, _ := get(fmt.Sprintf("/api/v3/topAccountsByBalance?offset=%d", len(want)))
			require.Empty(t, past)
			require.NotNil(t, past, "an empty list, not null")
			_, rec = get("/api/v3/topAccountsByBalance?limit=1&api_key=x")
			require.True(t, strings.HasPrefix(rec.Body.String(), "["))

			for path, field := range map[string]string{
				"/api/v3/topAccountsByBalance?limit=0":      "limit",
				"/api/v3/topAccountsByBalance?limit=1001":   "limit",
				"/api/v3/topAccountsByBalance?offset=-1":    "offset",
				"/api/v3/topAccountsByBalance?offset=10001": "offset",
				"/api/v3/topAccountsByBalance?limit=ten":    "limit",
				"/api/v3/topAccountsByBalance?sort=asc":     "sort",
				"/api/v3/topAccountsByBalance?workchain=0":  "workchain",
			} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, path)
				require.Contains(t, rec.Body.String(), field, path)
			}

			// POST /api/v3/message: a real external message of the block is
			// checked, then refused with 503 (no lite server); bad bodies
			// are 422 naming the member.
			msg := r.msgs[0].Message
			rec = doRequest(h, http.MethodPost, "/api/v3/message", fmt.Sprintf(`{"boc":%q}`, msg))
			require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
			require.Contains(t, rec.Body.String(), "the message was not sent")
			for body, field := range map[string]string{
				`{}`:                             "boc",
				`{"boc":"not base64!"}`:          "boc",
				`{"boc":"te6ccgEBAQEAAgAAAA=="}`: "boc",
				`{"boc":"` + msg + `","x":1}`:    "x",
			} {
				rec := doRequest(h, http.MethodPost, "/api/v3/message", body)
				require.Equal(t, http.StatusUnprocessableEntity, rec.Code, body+" "+rec.Body.String())
				require.Contains(t, rec.Body.String(), field, body)
			}
			rec = doRequest(h, http.MethodGet, "/api/v3/message", "")
			require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
		})
	}
}
