package rest

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/webhooks"
)

// The webhook routes (package webhooks), all of the request's API key:
//
//	POST   /api/v3/webhooks                  make one: {"url", "addresses", "event_types"}
//	GET    /api/v3/webhooks                  list them
//	GET    /api/v3/webhooks/{id}             one
//	DELETE /api/v3/webhooks/{id}             delete one
//	POST   /api/v3/webhooks/{id}/test        send it a test event now
//	POST   /api/v3/webhooks/{id}/enable      turn a disabled one back on
//	GET    /api/v3/webhooks/{id}/deliveries  its delivery log, newest first (?limit=1..1000, default 20)
//
// They call the resolvers the GraphQL fields call.

// WebhookRoutes are the routes above, by ServeMux pattern.
func WebhookRoutes(res *resolvers.Resolver) map[string]http.Handler {
	return map[string]http.Handler{
		"/api/v3/webhooks":                 webhooksRoute(res),
		"/api/v3/webhooks/{id}":            webhookRoute(res),
		"/api/v3/webhooks/{id}/test":       webhookTestRoute(res),
		"/api/v3/webhooks/{id}/enable":     webhookEnableRoute(res),
		"/api/v3/webhooks/{id}/deliveries": webhookDeliveriesRoute(res),
	}
}

func methods(w http.ResponseWriter, r *http.Request, allow ...string) bool {
	for _, m := range allow {
		if r.Method == m {
			return true
		}
	}
	list := ""
	for i, m := range allow {
		if i > 0 {
			list += ", "
		}
		list += m
	}
	w.Header().Set("Allow", list)
	WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use %s", r.Method, list))
	return false
}

func webhooksRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !methods(w, r, http.MethodGet, http.MethodPost) {
			return
		}
		if r.Method == http.MethodGet {
			if err := onlyParams(r.URL.Query(), nil); err != nil {
				WriteError(w, r, V3, err)
				return
			}
			list, err := res.ListWebhooks(r.Context())
			if err != nil {
				WriteError(w, r, V3, err)
				return
			}
			if list == nil {
				list = []*webhooks.Hook{}
			}
			WriteJSON(w, map[string]any{"webhooks": list})
			return
		}
		in, err := webhookInput(r)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		made, err := res.CreateWebhook(r.Context(), in)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		b, err := json.Marshal(made)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		writeBody(w, http.StatusCreated, b)
	}
}

// webhookInput reads a creation body: a JSON object of the three fields,
// each checked for its type under its own name.
func webhookInput(r *http.Request) (webhooks.Input, error) {
	var in webhooks.Input
	raw, err := readBody(r)
	if err != nil {
		return in, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return in, apperr.New(apperr.BadRequest, "request body must be a JSON object: {\"url\": ..., \"addresses\": [...], \"event_types\": [...]}")
	}
	for name, v := range obj {
		var err error
		switch name {
		case "url":
			err = json.Unmarshal(v, &in.URL)
		case "addresses":
			err = json.Unmarshal(v, &in.Addresses)
		case "event_types":
			err = json.Unmarshal(v, &in.EventTypes)
		default:
			return in, apperr.Field(name, "is not a field of a webhook (url, addresses, event_types)")
		}
		if err != nil {
			kind := "a string"
			if name != "url" {
				kind = "an array of strings"
			}
			return in, apperr.Field(name, "must be %s", kind)
		}
	}
	return in, nil
}

func webhookRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !methods(w, r, http.MethodGet, http.MethodDelete) {
			return
		}
		id := r.PathValue("id")
		if err := onlyParams(r.URL.Query(), nil); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		if r.Method == http.MethodDelete {
			if err := res.DeleteWebhook(r.Context(), id); err != nil {
				WriteError(w, r, V3, err)
				return
			}
			WriteJSON(w, map[string]any{"id": id, "deleted": true})
			return
		}
		h, err := res.GetWebhook(r.Context(), id)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, h)
	}
}

func webhookTestRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !methods(w, r, http.MethodPost) {
			return
		}
		d, err := res.TestWebhook(r.Context(), r.PathValue("id"))
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, d)
	}
}

func webhookEnableRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !methods(w, r, http.MethodPost) {
			return
		}
		if err := onlyParams(r.URL.Query(), nil); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		h, err := res.EnableWebhook(r.Context(), r.PathValue("id"))
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, h)
	}
}

// webhookDeliveriesParams are what the delivery log takes.
var webhookDeliveriesParams = map[string]bool{"limit": true}

func webhookDeliveriesRoute(res *resolvers.Resolver) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !methods(w, r, http.MethodGet) {
			return
		}
		q := r.URL.Query()
		if err := onlyParams(q, webhookDeliveriesParams); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		limit := 20
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				WriteError(w, r, V3, apperr.Field("limit", "not an integer: %q", apperr.Excerpt(v)))
				return
			}
			limit = n
		}
		list, err := res.WebhookDeliveries(r.Context(), r.PathValue("id"), limit)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		WriteJSON(w, map[string]any{"deliveries": list})
	}
}
