package rest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/graph/model"
)

// parseWatch takes a stream's watch parameters out of v: addresses and
// trace_external_hash_norms (repeated or comma-separated), types (the
// same) and min_finality. Nil when none is given.
func parseWatch(v url.Values) (*model.StreamWatch, error) {
	var w model.StreamWatch
	given := false
	for _, p := range []struct {
		name string
		to   *[]string
	}{{"addresses", &w.Addresses}, {"trace_external_hash_norms", &w.TraceExternalHashNorms}, {"types", &w.Types}} {
		if vals, ok := v[p.name]; ok {
			given = true
			*p.to = splitList(vals)
			v.Del(p.name)
		}
	}
	fin, err := single(v, "min_finality")
	if err != nil {
		return nil, err
	}
	v.Del("min_finality")
	w.MinFinality = fin
	if !given && fin == nil {
		return nil, nil
	}
	return &w, nil
}

// bodyParams reads a POST stream's JSON object into the parameters the GET
// route takes: each member a parameter, an array its repeated values, so
// both forms are checked by one parser and name the same fields.
func bodyParams(r *http.Request) (url.Values, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return nil, apperr.New(apperr.BadRequest, "Content-Type: must be application/json, not %q", apperr.Excerpt(ct))
	}
	raw, err := readBody(r)
	if err != nil {
		return nil, err
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil || body == nil {
		return nil, apperr.New(apperr.BadRequest, "body: must be a JSON object of the stream's parameters")
	}
	v := url.Values{}
	for name, raw := range body {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			list = []json.RawMessage{raw}
		}
		for _, item := range list {
			s, ok := scalarText(item)
			if !ok {
				return nil, apperr.Field(name, "must be a string, number, boolean or an array of them")
			}
			v.Add(name, s)
		}
	}
	return v, nil
}

func scalarText(raw json.RawMessage) (string, bool) {
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		return "", false
	}
	switch t := x.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		return string(raw), true // as written: no float rounding of a large lt
	}
	return "", false
}
