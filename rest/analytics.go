package rest

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
)

// Token analytics: our own series routes (the shapes of GraphQL's
// Token.candles and Token.volume) and tonapi's rates routes in tonapi's
// shapes. Errors are in the v3 envelope on every one of them.

// getRoute serves a GET-only route whose parameters are known: answer
// makes the body from the query.
func getRoute(params map[string]bool, answer func(r *http.Request, q url.Values) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, r, V3, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use GET", r.Method))
			return
		}
		q := r.URL.Query()
		if err := onlyParams(q, params); err != nil {
			WriteError(w, r, V3, err)
			return
		}
		v, err := answer(r, q)
		if err != nil {
			WriteError(w, r, V3, err)
			return
		}
		writeBounded(w, r, V3, v)
	}
}

func int64Param(v url.Values, name string) (*int64, error) {
	s, err := single(v, name)
	if s == nil || err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(*s, 10, 64)
	if err != nil {
		return nil, apperr.Field(name, "must be an integer (a unix time)")
	}
	return &n, nil
}

// seriesArgs reads token, interval, from, to (and quote when asked).
func seriesArgs(q url.Values, withQuote bool) (resolvers.SeriesArgs, error) {
	var a resolvers.SeriesArgs
	token, err := single(q, "token")
	if err != nil {
		return a, err
	}
	if token == nil {
		return a, apperr.Field("token", "required: a jetton master address")
	}
	interval, err := single(q, "interval")
	if err != nil {
		return a, err
	}
	if interval == nil {
		return a, apperr.Field("interval", "required: 1m, 5m, 15m, 1h, 4h or 1d")
	}
	a.Token, a.Interval = *token, *interval
	if withQuote {
		quote, err := single(q, "quote")
		if err != nil {
			return a, err
		}
		if quote != nil {
			a.Quote = *quote
		}
	}
	if a.From, err = int64Param(q, "from"); err != nil {
		return a, err
	}
	a.To, err = int64Param(q, "to")
	return a, err
}

// Candles serves GET /api/v3/analytics/candles.
func Candles(res *resolvers.Resolver) http.HandlerFunc {
	return getRoute(map[string]bool{"token": true, "interval": true, "from": true, "to": true, "quote": true},
		func(r *http.Request, q url.Values) (any, error) {
			a, err := seriesArgs(q, true)
			if err != nil {
				return nil, err
			}
			return res.Candles(r.Context(), a)
		})
}

// Volumes serves GET /api/v3/analytics/volumes.
func Volumes(res *resolvers.Resolver) http.HandlerFunc {
	return getRoute(map[string]bool{"token": true, "interval": true, "from": true, "to": true},
		func(r *http.Request, q url.Values) (any, error) {
			a, err := seriesArgs(q, false)
			if err != nil {
				return nil, err
			}
			return res.TokenVolumes(r.Context(), a)
		})
}

// Rates serves tonapi's GET /v2/rates.
func Rates(res *resolvers.Resolver) http.HandlerFunc {
	return getRoute(map[string]bool{"tokens": true, "currencies": true},
		func(r *http.Request, q url.Values) (any, error) {
			rates, err := res.Rates(r.Context(), splitList(q["tokens"]), splitList(q["currencies"]))
			if err != nil {
				return nil, err
			}
			return map[string]any{"rates": rates}, nil
		})
}

// RatesChart serves tonapi's GET /v2/rates/chart.
func RatesChart(res *resolvers.Resolver) http.HandlerFunc {
	return getRoute(map[string]bool{"token": true, "currency": true, "start_date": true, "end_date": true, "points_count": true},
		func(r *http.Request, q url.Values) (any, error) {
			var a resolvers.ChartArgs
			token, err := single(q, "token")
			if err != nil {
				return nil, err
			}
			if token == nil {
				return nil, apperr.Field("token", "required: a jetton master address")
			}
			a.Token = *token
			if c, err := single(q, "currency"); err != nil {
				return nil, err
			} else if c != nil {
				a.Currency = *c
			}
			if a.StartDate, err = int64Param(q, "start_date"); err != nil {
				return nil, err
			}
			if a.EndDate, err = int64Param(q, "end_date"); err != nil {
				return nil, err
			}
			if a.PointsCount, err = intParam(q, "points_count"); err != nil {
				return nil, err
			}
			points, err := res.Chart(r.Context(), a)
			if err != nil {
				return nil, err
			}
			return map[string]any{"points": points}, nil
		})
}
