package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/ratelimit"
	"github.com/tonql/tonql/webhooks"
)

// The webhook routes and GraphQL fields, under a key, on both databases:
// made, listed (REST and GraphQL the same), tested against a real receiver,
// logged and deleted; bad input is 422 naming the field, on both
// transports; no key is 401.
func TestWebhookRoutes(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			e := newAccessEnv(t, db, accessConfig{})
			got := make(chan *http.Request, 4)
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				got <- r
				w.WriteHeader(http.StatusAccepted)
			}))
			defer recv.Close()
			addr := strings.TrimPrefix(recv.URL, "http://")
			e.res.Webhooks = webhooks.New(webhooks.Options{Store: e.st, ExemptAddrs: []string{addr}, MaxAddresses: 2})
			h := e.handler(nil)
			key, _ := e.newKey(t, "hooks", ratelimit.Limit{})
			call := func(method, path, body, key string) (int, map[string]any) {
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				if key != "" {
					req.Header.Set("X-API-Key", key)
				}
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				var out map[string]any
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
				return rec.Code, out
			}
			const acc = "0:561B81016CF0EFE178FBC653F0CF177B852C87333C302C1E4EEAB63ED0105E6A"

			code, _ := call("GET", "/api/v3/webhooks", "", "")
			require.Equal(t, http.StatusUnauthorized, code, "webhooks belong to a key")

			for body, field := range map[string]string{
				`{"url":"ftp://x.example.com/","addresses":["` + acc + `"]}`:                      "url",
				`{"url":"http://127.0.0.1:9/x","addresses":["` + acc + `"]}`:                      "url",
				`{"url":"` + recv.URL + `","addresses":[]}`:                                       "addresses",
				`{"url":"` + recv.URL + `","addresses":["0:00","0:01","0:02"]}`:                   "addresses",
				`{"url":"` + recv.URL + `","addresses":["nope"]}`:                                 "addresses[0]",
				`{"url":"` + recv.URL + `","addresses":["` + acc + `"],"event_types":["gossip"]}`: "event_types",
				`{"url":"` + recv.URL + `","addresses":"` + acc + `"}`:                            "addresses",
				`{"url":"` + recv.URL + `","addresses":["` + acc + `"],"secret":"mine"}`:          "secret",
			} {
				code, out := call("POST", "/api/v3/webhooks", body, key)
				require.Equal(t, http.StatusUnprocessableEntity, code, body)
				require.True(t, strings.HasPrefix(out["error"].(string), field+": "), "%s: %v", body, out["error"])
			}
			code, _ = call("POST", "/api/v3/webhooks", `not json`, key)
			require.Equal(t, http.StatusBadRequest, code)

			code, made := call("POST", "/api/v3/webhooks", `{"url":"`+recv.URL+`/in","addresses":["`+acc+`"]}`, key)
			require.Equal(t, http.StatusCreated, code, made)
			require.True(t, strings.HasPrefix(made["secret"].(string), "whsec_"))
			hook := made["webhook"].(map[string]any)
			id := hook["id"].(string)
			require.Equal(t, "active", hook["status"])

			// REST's list is GraphQL's.
			code, list := call("GET", "/api/v3/webhooks", "", key)
			require.Equal(t, http.StatusOK, code)
			code, gql := call("POST", "/graphql", `{"query":"{ webhooks { id url addresses event_types status created_at pending failing_since last_success_at last_error disabled_at disabled_reason } }"}`, key)
			require.Equal(t, http.StatusOK, code, gql)
			require.Equal(t, list["webhooks"], gql["data"].(map[string]any)["webhooks"])
			require.Len(t, list["webhooks"], 1)

			// GraphQL's bad input names the field too.
			code, gql = call("POST", "/graphql", `{"query":"mutation { createWebhook(url: \"`+recv.URL+`\", addresses: [\"`+acc+`\"], event_types: [\"gossip\"]) { secret } }"}`, key)
			require.Equal(t, http.StatusOK, code)
			gerr := gql["errors"].([]any)[0].(map[string]any)
			require.True(t, strings.HasPrefix(gerr["message"].(string), "event_types: "), gerr)
			require.Equal(t, "INVALID_INPUT", gerr["extensions"].(map[string]any)["code"])

			// A test delivery reaches the receiver, signed, and is logged.
			code, d := call("POST", "/api/v3/webhooks/"+id+"/test", "", key)
			require.Equal(t, http.StatusOK, code, d)
			require.Equal(t, "test", d["outcome"])
			require.EqualValues(t, http.StatusAccepted, d["status_code"])
			r := <-got
			require.Equal(t, id, r.Header.Get(webhooks.HeaderHookID))
			require.True(t, strings.HasPrefix(r.Header.Get(webhooks.HeaderSignature), "v1="))
			code, log := call("GET", "/api/v3/webhooks/"+id+"/deliveries?limit=5", "", key)
			require.Equal(t, http.StatusOK, code)
			require.Len(t, log["deliveries"], 1)
			code, gql = call("POST", "/graphql", `{"query":"{ webhook(id: \"`+id+`\") { deliveries(limit: 5) { event_id attempt outcome status_code latency_ms error at } } }"}`, key)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, log["deliveries"], gql["data"].(map[string]any)["webhook"].(map[string]any)["deliveries"])
			// /metrics counts the attempt and its latency, and reads the outbox.
			fams := scrapeMetrics(t, h)
			byOutcome := map[string]float64{}
			for _, m := range fams["tonql_webhook_deliveries_total"].GetMetric() {
				byOutcome[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
			require.Equal(t, map[string]float64{"delivered": 0, "failed": 0, "expired": 0, "test": 1}, byOutcome)
			require.EqualValues(t, 1, fams["tonql_webhook_delivery_duration_seconds"].GetMetric()[0].GetHistogram().GetSampleCount())
			require.Zero(t, fams["tonql_webhook_queue_depth"].GetMetric()[0].GetGauge().GetValue())
			require.Zero(t, fams["tonql_webhooks_disabled"].GetMetric()[0].GetGauge().GetValue())
			code, out := call("GET", "/api/v3/webhooks/"+id+"/deliveries?limit=0", "", key)
			require.Equal(t, http.StatusUnprocessableEntity, code)
			require.True(t, strings.HasPrefix(out["error"].(string), "limit: "))

			// Another key sees none of it.
			other, _ := e.newKey(t, "other", ratelimit.Limit{})
			code, _ = call("GET", "/api/v3/webhooks/"+id, "", other)
			require.Equal(t, http.StatusNotFound, code)
			code, _ = call("POST", "/api/v3/webhooks/"+id+"/enable", "", other)
			require.Equal(t, http.StatusNotFound, code)

			// Enabling an active hook answers it as it is, in REST and GraphQL
			// alike (webhooks.TestFailingHookIsDisabled enables a disabled one).
			code, on := call("POST", "/api/v3/webhooks/"+id+"/enable", "", key)
			require.Equal(t, http.StatusOK, code, on)
			require.Equal(t, "active", on["status"])
			code, gql = call("POST", "/graphql", `{"query":"mutation { enableWebhook(id: \"`+id+`\") { id status disabled_at } }"}`, key)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, map[string]any{"id": id, "status": "active", "disabled_at": nil}, gql["data"].(map[string]any)["enableWebhook"])
			code, _ = call("GET", "/api/v3/webhooks/"+id+"/enable", "", key)
			require.Equal(t, http.StatusMethodNotAllowed, code)

			code, _ = call("DELETE", "/api/v3/webhooks/"+id, "", key)
			require.Equal(t, http.StatusOK, code)
			code, _ = call("GET", "/api/v3/webhooks/"+id, "", key)
			require.Equal(t, http.StatusNotFound, code)
			code, gql = call("POST", "/graphql", `{"query":"mutation { deleteWebhook(id: \"`+id+`\") }"}`, key)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, "NOT_FOUND", gql["errors"].([]any)[0].(map[string]any)["extensions"].(map[string]any)["code"])
		})
	}
}
