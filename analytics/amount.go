package analytics

import (
	"math/big"
	"strconv"
)

// Amount is a rollup's sum (a candle's volume, an interval's transfer,
// mint or burn amount): an integer in a token's smallest units.
// Most volumes fit an int64 and cost no allocation to read back, add and
// print; a year of 1h candles reads 17,520 of them, and parsing each into
// a big.Int only to print the same digits was a quarter of a candle's
// rendering (docs/PERFORMANCE.md). Larger ones hold a big.Int. The zero
// Amount is 0.
type Amount struct {
	n int64    // the value when b is nil
	b *big.Int // the value when not nil; never changed
}

// AmountOf is x as an Amount (x is not changed later by the caller).
func AmountOf(x *big.Int) Amount {
	if x.IsInt64() {
		return Amount{n: x.Int64()}
	}
	return Amount{b: x}
}

// ParseAmount reads what Amount.String (and big.Int's String) wrote, a
// decimal integer; ok is false for anything else.
func ParseAmount(s string) (a Amount, ok bool) {
	if canonical(s, true) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Amount{n: n}, true
		}
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Amount{}, false
	}
	return AmountOf(b), true
}

// Int is a as a big.Int (a new one for a small a; the held one, not to be
// changed, otherwise).
func (a Amount) Int() *big.Int {
	if a.b == nil {
		return big.NewInt(a.n)
	}
	return a.b
}

// Add is a + o.
func (a Amount) Add(o Amount) Amount {
	if a.b == nil && o.b == nil {
		s := a.n + o.n
		if (s > a.n) == (o.n > 0) { // no overflow
			return Amount{n: s}
		}
	}
	return AmountOf(new(big.Int).Add(a.Int(), o.Int()))
}

func (a Amount) String() string {
	if a.b == nil {
		return strconv.FormatInt(a.n, 10)
	}
	return a.b.String()
}

// quotientDecimal renders num/den as Decimal renders it ("0" when den is
// not positive): a candle's VWAP from its two volumes.
func quotientDecimal(num, den Amount, shift, digits int) string {
	if num.b == nil && den.b == nil {
		if den.n <= 0 {
			return "0"
		}
		if s, ok := decimalSmall(num.n, den.n, shift, digits); ok {
			return s
		}
	}
	return decimalOf(num.Int(), den.Int(), shift, digits)
}
