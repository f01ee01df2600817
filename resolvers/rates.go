package resolvers

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/graph/model"
)

// tonapi's /v2/rates and /v2/rates/chart over our own trades: TON ("ton"
// or tonapi's newer "gram") and USD (through USD₮) are the currencies a
// chain knows; fiat ones are refused by name.

// Bounds of tonapi's parameters (its OpenAPI).
const (
	MaxRateTokens     = 100
	MaxRateCurrencies = 50
	MaxChartPoints    = 200
)

// currencyQuote is the quote a tonapi currency name stands for.
func currencyQuote(field, c string) (string, error) {
	switch strings.ToLower(c) {
	case "ton", "gram":
		return analytics.TON, nil
	case "usd", "usdt":
		return analytics.USDT, nil
	}
	return "", apperr.Field(field, "%q is not a currency this server prices in: ton (or gram) and usd (through USD₮ trades)", c)
}

// now is the resolver's clock.
func (r *Resolver) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// rateToken is a tonapi token argument: "ton"/"gram" or a jetton.
func (r *Resolver) rateToken(ctx context.Context, field, s string) (*model.Token, error) {
	switch strings.ToLower(s) {
	case "ton", "gram":
		return &model.Token{Address: "", Kind: "ton"}, nil
	}
	return r.knownJetton(ctx, field, s)
}

// TokenRates is tonapi's TokenRates. Diffs are tonapi's strings
// ("+1.28%", "−0.56%" with U+2212, "0.00%"), keyed like Prices.
type TokenRates struct {
	Prices  map[string]float64 `json:"prices"`
	Diff24h map[string]string  `json:"diff_24h"`
	Diff7d  map[string]string  `json:"diff_7d"`
	Diff30d map[string]string  `json:"diff_30d"`
}

// rateDiff is tonapi's change of a price: (now - then) / now in percent,
// rounded to two places (tonapi divides by the present price, not the
// past one: kept, so the figures mean what tonapi's do); "0.00%" when
// there is no past price.
func rateDiff(now, then *big.Rat) string {
	if then == nil || then.Sign() == 0 || now.Sign() == 0 {
		return "0.00%"
	}
	d := new(big.Rat).Sub(now, then)
	d.Quo(d, now).Mul(d, big.NewRat(100, 1))
	s := d.FloatString(2)
	switch {
	case s == "0.00" || s == "-0.00":
		return "0.00%"
	case d.Sign() < 0:
		return "−" + s[1:] + "%"
	}
	return "+" + s + "%"
}

// Rates is /v2/rates: each token's last price in each currency, keyed as
// asked (currencies upper-cased, as tonapi keys them). A token with no
// price in a currency has no key for it.
func (r *Resolver) Rates(ctx context.Context, tokens, currencies []string) (map[string]TokenRates, error) {
	switch {
	case len(tokens) == 0:
		return nil, apperr.Field("tokens", "required: ton or jetton master addresses, comma-separated")
	case len(tokens) > MaxRateTokens:
		return nil, apperr.Field("tokens", "%d given; at most %d", len(tokens), MaxRateTokens)
	case len(currencies) == 0:
		return nil, apperr.Field("currencies", "required: ton, usd")
	case len(currencies) > MaxRateCurrencies:
		return nil, apperr.Field("currencies", "%d given; at most %d", len(currencies), MaxRateCurrencies)
	}
	quotes := make([]string, len(currencies))
	for i, c := range currencies {
		var err error
		if quotes[i], err = currencyQuote("currencies", c); err != nil {
			return nil, err
		}
	}
	now := r.now().Unix()
	out := make(map[string]TokenRates, len(tokens))
	for _, t := range tokens {
		tok, err := r.rateToken(ctx, "tokens", t)
		if err != nil {
			return nil, err
		}
		rates := TokenRates{Prices: map[string]float64{}, Diff24h: map[string]string{}, Diff7d: map[string]string{}, Diff30d: map[string]string{}}
		for i, q := range quotes {
			// As of the clock: the minutes starting at or before it.
			p, _, _, err := r.wholePriceAt(ctx, tok, q, now+1)
			if err != nil {
				return nil, err
			}
			if p == nil {
				continue
			}
			key := strings.ToUpper(currencies[i])
			rates.Prices[key], _ = p.Float64()
			for _, d := range []struct {
				days int64
				into map[string]string
			}{{1, rates.Diff24h}, {7, rates.Diff7d}, {30, rates.Diff30d}} {
				then, _, _, err := r.wholePriceAt(ctx, tok, q, now-d.days*86400+1)
				if err != nil {
					return nil, err
				}
				d.into[key] = rateDiff(p, then)
			}
		}
		out[t] = rates
	}
	return out, nil
}

// ChartArgs are /v2/rates/chart's parameters.
type ChartArgs struct {
	Token, Currency    string
	StartDate, EndDate *int64
	PointsCount        *int
}

// Chart is /v2/rates/chart: [time, price] pairs, oldest first, the close
// of each interval of the narrowest width that fits the range in
// points_count points; for USD without a USD₮ pair, the jetton's TON close
// times TON's USD₮ price as of that interval.
func (r *Resolver) Chart(ctx context.Context, a ChartArgs) ([][2]float64, error) {
	points := MaxChartPoints
	if a.PointsCount != nil {
		if *a.PointsCount < 0 || *a.PointsCount > MaxChartPoints {
			return nil, apperr.Field("points_count", "must be from 0 to %d", MaxChartPoints)
		}
		if *a.PointsCount > 0 {
			points = *a.PointsCount
		}
	}
	currency := a.Currency
	if currency == "" {
		currency = "usd"
	}
	quote, err := currencyQuote("currency", currency)
	if err != nil {
		return nil, err
	}
	end := time.Now().Unix()
	if a.EndDate != nil {
		end = *a.EndDate
	}
	start := end - 7*86400
	if a.StartDate != nil {
		start = *a.StartDate
	}
	switch {
	case start < 0 || start > MaxTime:
		return nil, apperr.Field("start_date", "must be a unix time from 0 to %d", MaxTime)
	case end > MaxTime:
		return nil, apperr.Field("end_date", "must be a unix time up to %d", MaxTime)
	case end <= start:
		return nil, apperr.Field("start_date", "must be before end_date (%d is not before %d)", start, end)
	}
	iv := analytics.Intervals[len(analytics.Intervals)-1]
	for _, v := range analytics.Intervals {
		if (end-v.Bucket(start)+v.Seconds-1)/v.Seconds <= int64(points) {
			iv = v
			break
		}
	}
	if n := (end - iv.Bucket(start) + iv.Seconds - 1) / iv.Seconds; n > int64(points) {
		return nil, apperr.Field("start_date", "the range needs %d daily points; points_count allows %d", n, points)
	}
	tok, err := r.knownJetton(ctx, "token", a.Token)
	if err != nil {
		return nil, err
	}
	qd := analytics.TONDecimals
	if quote == analytics.USDT {
		qd = analytics.USDTDecimals
	}
	from := iv.Bucket(start)
	direct, err := r.Store.Candles(ctx, tok.Address, quote, iv, from, end, cost.MaxPoints)
	if err != nil {
		return nil, err
	}
	out := [][2]float64{}
	if len(direct) > 0 || quote == analytics.TON {
		for i := range direct {
			f, _ := analytics.WholePrice(direct[i].Close.Rat(), decimalsOf(tok), qd).Float64()
			out = append(out, [2]float64{float64(direct[i].Bucket), f})
		}
		return out, nil
	}
	inTON, err := r.Store.Candles(ctx, tok.Address, analytics.TON, iv, from, end, cost.MaxPoints)
	if err != nil || len(inTON) == 0 {
		return out, err
	}
	// TON's USD price as of each interval: the last USD₮/TON close at or
	// before it (from the whole history before the range, too).
	usdt, err := r.Store.Candles(ctx, analytics.USDT, analytics.TON, iv, from, end, cost.MaxPoints)
	if err != nil {
		return nil, err
	}
	before, err := r.Store.CandleBefore(ctx, analytics.USDT, analytics.TON, iv, from)
	if err != nil {
		return nil, err
	}
	if before != nil {
		usdt = append([]analytics.Candle{*before}, usdt...)
	}
	j := -1
	for i := range inTON {
		for j+1 < len(usdt) && usdt[j+1].Bucket <= inTON[i].Bucket {
			j++
		}
		if j < 0 {
			continue
		}
		tonUSD := new(big.Rat).Inv(analytics.WholePrice(usdt[j].Close.Rat(), analytics.USDTDecimals, analytics.TONDecimals))
		p := analytics.WholePrice(inTON[i].Close.Rat(), decimalsOf(tok), analytics.TONDecimals)
		f, _ := p.Mul(p, tonUSD).Float64()
		out = append(out, [2]float64{float64(inTON[i].Bucket), f})
	}
	return out, nil
}
