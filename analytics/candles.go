package analytics

import (
	"math/big"
	"strings"
)

// Interval is a candle width.
type Interval struct {
	Name    string
	Seconds int64
}

// Intervals are the widths kept, each a whole multiple of the one before:
// a candle of one is merged from the candles of the one before.
var Intervals = []Interval{{"1m", 60}, {"5m", 300}, {"15m", 900}, {"1h", 3600}, {"4h", 14400}, {"1d", 86400}}

// KeptCandles are the widths whose candles the store keeps, each a whole
// multiple of the one before. The candles of the others (5m, 15m, 4h) are
// merged at read from those of the widest kept width that divides them
// (CandleBase): a few rows each, where keeping them cost every write a row
// per trade and width (docs/PERFORMANCE.md).
var KeptCandles = []Interval{Intervals[0], Intervals[3], Intervals[5]}

// CandleBase is the kept width iv's candles are merged from: iv itself
// when its candles are kept.
func (iv Interval) CandleBase() Interval {
	base := KeptCandles[0]
	for _, k := range KeptCandles {
		if k.Seconds <= iv.Seconds && iv.Seconds%k.Seconds == 0 {
			base = k
		}
	}
	return base
}

// ParseInterval finds an interval by name.
func ParseInterval(s string) (Interval, bool) {
	for _, iv := range Intervals {
		if iv.Name == s {
			return iv, true
		}
	}
	return Interval{}, false
}

// IntervalNames lists the names, for messages.
func IntervalNames() string {
	names := make([]string, len(Intervals))
	for i, iv := range Intervals {
		names[i] = iv.Name
	}
	return strings.Join(names, ", ")
}

// Bucket is the start of the interval holding t.
func (iv Interval) Bucket(t int64) int64 { return t - ((t%iv.Seconds)+iv.Seconds)%iv.Seconds }

// Candle is the trades of one jetton against one quote in one interval.
// Prices are reduced fractions (quote units per jetton unit).
type Candle struct {
	Jetton, Quote          string
	Interval               int64 // seconds
	Bucket                 int64 // unix time of its start
	Open, High, Low, Close Frac
	OpenKey, CloseKey      string // Trade.Key of the first and last trade
	VolumeBase             Amount
	VolumeQuote            Amount
	Trades                 int64
}

// CandleOf is the candle of one trade.
func CandleOf(t *Trade, iv Interval) Candle {
	p := FracOf(t.Price())
	k := t.Key()
	return Candle{Jetton: t.Jetton, Quote: t.Quote, Interval: iv.Seconds, Bucket: iv.Bucket(t.Utime),
		Open: p, High: p, Low: p, Close: p, OpenKey: k, CloseKey: k,
		VolumeBase: AmountOf(new(big.Int).Set(t.Base)), VolumeQuote: AmountOf(new(big.Int).Set(t.QuoteAmt)), Trades: 1}
}

// Merge combines candles of the same jetton and quote (of one interval or
// of the narrower ones it holds) into one candle of iv starting at bucket.
// The parts are not changed; len(parts) > 0.
func Merge(parts []Candle, iv Interval, bucket int64) Candle {
	first := parts[0]
	c := Candle{Jetton: first.Jetton, Quote: first.Quote, Interval: iv.Seconds, Bucket: bucket,
		Open: first.Open, High: first.High, Low: first.Low, Close: first.Close,
		OpenKey: first.OpenKey, CloseKey: first.CloseKey}
	for i := range parts {
		p := &parts[i]
		if p.OpenKey < c.OpenKey {
			c.Open, c.OpenKey = p.Open, p.OpenKey
		}
		if p.CloseKey > c.CloseKey {
			c.Close, c.CloseKey = p.Close, p.CloseKey
		}
		if p.High.Cmp(c.High) > 0 {
			c.High = p.High
		}
		if p.Low.Cmp(c.Low) < 0 {
			c.Low = p.Low
		}
		c.VolumeBase = c.VolumeBase.Add(p.VolumeBase)
		c.VolumeQuote = c.VolumeQuote.Add(p.VolumeQuote)
		c.Trades += p.Trades
	}
	return c
}

// Candles merges trades (of any jettons and quotes) into the candles of iv,
// in no particular order.
func Candles(trades []Trade, iv Interval) []Candle {
	parts := make([]Candle, len(trades))
	for i := range trades {
		parts[i] = CandleOf(&trades[i], iv)
	}
	return MergeInto(parts, iv)
}

// Decimal renders a fraction scaled by 10^shift as a decimal string with
// at most digits fractional digits, the last rounded half away from zero
// (as big.Rat's FloatString rounds), trailing zeros dropped: a price in
// whole tokens is the stored fraction scaled by the decimals' difference.
func Decimal(r *big.Rat, shift, digits int) string {
	return decimalOf(r.Num(), r.Denom(), shift, digits)
}

// decimalOf is Decimal of num/den. It divides once in integers instead of
// scaling a big.Rat (a gcd per multiplication) and calling FloatString: a
// year of 1h candles renders 43,800 prices, and that way took ten times
// the database's time for the page (docs/PERFORMANCE.md). den <= 0 (no
// volume, so no average) renders "0".
func decimalOf(num, den *big.Int, shift, digits int) string {
	if den.Sign() <= 0 || num.Sign() == 0 {
		return "0"
	}
	if num.IsInt64() && den.IsInt64() { // a VWAP of volumes that fit: no big arithmetic
		if s, ok := decimalSmall(num.Int64(), den.Int64(), shift, digits); ok {
			return s
		}
	}
	// |num| * 10^(shift+digits) / den, rounded: the digits as an integer.
	n := new(big.Int).Abs(num)
	d := den
	if e := shift + digits; e >= 0 {
		n.Mul(n, pow10(e))
	} else {
		d = new(big.Int).Mul(den, pow10(-e))
	}
	q, rem := n.QuoRem(n, d, new(big.Int))
	if rem.Lsh(rem, 1).CmpAbs(d) >= 0 {
		q.Add(q, one)
	}
	if q.Sign() == 0 {
		return "0"
	}
	return placePoint(q.Append(make([]byte, 0, 48), 10), digits, num.Sign() < 0)
}

var one = big.NewInt(1)

// powers10 are 10^0..10^79, made once: prices scale by at most a few
// dozen digits (decimals up to 255 take pow10's slow path).
var powers10 = func() []*big.Int {
	p := make([]*big.Int, 80)
	p[0] = big.NewInt(1)
	for i := 1; i < len(p); i++ {
		p[i] = new(big.Int).Mul(p[i-1], big.NewInt(10))
	}
	return p
}()

// pow10 is 10^n (n >= 0); the shared values must not be changed.
func pow10(n int) *big.Int {
	if n < len(powers10) {
		return powers10[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// scale is r times 10^shift, a new value.
func scale(r *big.Rat, shift int) *big.Rat {
	n := shift
	if n < 0 {
		n = -n
	}
	p := new(big.Rat).SetInt(pow10(n))
	v := new(big.Rat).Set(r)
	if shift >= 0 {
		return v.Mul(v, p)
	}
	return v.Quo(v, p)
}

// KeptCandlesOf makes the candles of every kept width (in the order of
// KeptCandles) of trades: the narrowest from the trades, each wider one
// merged from the one before, as the store makes them again on a write.
func KeptCandlesOf(trades []Trade) [][]Candle {
	out := make([][]Candle, len(KeptCandles))
	out[0] = Candles(trades, KeptCandles[0])
	for i := 1; i < len(KeptCandles); i++ {
		out[i] = MergeInto(out[i-1], KeptCandles[i])
	}
	return out
}

// MergeInto merges candles (of a narrower interval, any jettons and
// quotes) into the candles of iv, in no particular order.
func MergeInto(parts []Candle, iv Interval) []Candle {
	type key struct {
		jetton, quote string
		bucket        int64
	}
	groups := map[key][]Candle{}
	var order []key
	for _, c := range parts {
		k := key{c.Jetton, c.Quote, iv.Bucket(c.Bucket)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	out := make([]Candle, 0, len(order))
	for _, k := range order {
		out = append(out, Merge(groups[k], iv, k.bucket))
	}
	return out
}
