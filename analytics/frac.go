package analytics

import (
	"bytes"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Frac is a price: the fraction num/den with den > 0, as a candle holds
// it. It is not reduced when read back: the store writes reduced fractions
// (big.Rat's String), and reducing again (a gcd each, as big.Rat.SetString
// does) cost a quarter of the server's CPU for a year of 1h candles
// (docs/PERFORMANCE.md). Most prices fit two int64s and cost no
// allocation; others hold big.Ints. The zero Frac is 0.
type Frac struct {
	n, d   int64    // the value when bn is nil (d == 0 reads as 1)
	bn, bd *big.Int // the value when bn is not nil; never changed
}

// FracOf is r as a Frac (r is not changed later by the caller).
func FracOf(r *big.Rat) Frac {
	num, den := r.Num(), r.Denom()
	if num.IsInt64() && den.IsInt64() {
		return Frac{n: num.Int64(), d: den.Int64()}
	}
	return Frac{bn: num, bd: den}
}

// ParseFrac reads what Frac.String (and big.Rat.String) wrote: "num/den"
// in canonical decimal, taken as it is, without reducing. Anything else
// is read as big.Rat.SetString reads it (which reduces), so every string
// means what it meant before; ok is false when that fails too.
func ParseFrac(s string) (f Frac, ok bool) {
	if num, den, found := strings.Cut(s, "/"); found && canonical(num, true) && canonical(den, false) && den != "0" {
		n, errN := strconv.ParseInt(num, 10, 64)
		d, errD := strconv.ParseInt(den, 10, 64)
		if errN == nil && errD == nil {
			return Frac{n: n, d: d}, true
		}
		bn, _ := new(big.Int).SetString(num, 10)
		bd, _ := new(big.Int).SetString(den, 10)
		return Frac{bn: bn, bd: bd}, true
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Frac{}, false
	}
	return FracOf(r), true
}

// canonical tells whether s is a decimal integer as big.Int's String
// writes it: no sign but a leading '-' (when signed), no leading zeros
// (which big.Rat.SetString would read as octal), digits only.
func canonical(s string, signed bool) bool {
	if signed && strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// small tells whether f is two int64s, with its denominator.
func (f Frac) small() (n, d int64, ok bool) {
	if f.bn != nil {
		return 0, 0, false
	}
	if f.d == 0 {
		return f.n, 1, true
	}
	return f.n, f.d, true
}

// Num and Den are f's numerator and denominator as big.Ints (new ones for
// a small f; the held ones, not to be changed, otherwise).
func (f Frac) Num() *big.Int {
	if n, _, ok := f.small(); ok {
		return big.NewInt(n)
	}
	return f.bn
}

func (f Frac) Den() *big.Int {
	if _, d, ok := f.small(); ok {
		return big.NewInt(d)
	}
	return f.bd
}

// Rat is f as a new big.Rat, for arithmetic across pairs.
func (f Frac) Rat() *big.Rat { return new(big.Rat).SetFrac(f.Num(), f.Den()) }

// String is "num/den", as big.Rat's String writes a reduced fraction.
func (f Frac) String() string {
	if n, d, ok := f.small(); ok {
		return strconv.FormatInt(n, 10) + "/" + strconv.FormatInt(d, 10)
	}
	return f.bn.String() + "/" + f.bd.String()
}

// Cmp compares f and g (-1, 0, +1) by cross-multiplication: the merges
// of candles at read and on a write are its only users.
func (f Frac) Cmp(g Frac) int {
	fn, fd, fok := f.small()
	gn, gd, gok := g.small()
	if !fok || !gok {
		a := new(big.Int).Mul(f.Num(), g.Den())
		return a.Cmp(new(big.Int).Mul(g.Num(), f.Den()))
	}
	fs, gs := sign(fn), sign(gn)
	if fs != gs || fs == 0 {
		return cmpInt(fs, gs)
	}
	// Same sign: compare |fn|*gd with |gn|*fd in 128 bits.
	ah, al := bits.Mul64(absU(fn), uint64(gd))
	bh, bl := bits.Mul64(absU(gn), uint64(fd))
	c := cmpInt(ah, bh)
	if c == 0 {
		c = cmpInt(al, bl)
	}
	return c * fs
}

func sign(n int64) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func cmpInt[T int | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// absU is |n| (math.MinInt64 included).
func absU(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

// Decimal renders f as Decimal renders a big.Rat of the same value.
func (f Frac) Decimal(shift, digits int) string {
	if n, d, ok := f.small(); ok {
		if s, ok := decimalSmall(n, d, shift, digits); ok {
			return s
		}
	}
	return decimalOf(f.Num(), f.Den(), shift, digits)
}

// decimalSmall is decimalOf for int64s in 128-bit arithmetic, without an
// allocation but the string; ok is false when the scaled value does not
// fit (decimalOf then renders it).
func decimalSmall(num, den int64, shift, digits int) (string, bool) {
	e := shift + digits
	if den <= 0 || num == 0 {
		return "0", true
	}
	if e < 0 {
		return "", false
	}
	d := uint64(den)
	// q = |num| * 10^e / d by long division, up to 19 digits a step: the
	// remainder r < d, so r*10^k / d fits a step's Div64.
	n := absU(num)
	qh, ql := uint64(0), n/d
	r := n % d
	for e > 0 {
		k := min(e, 19)
		p := pow10u[k]
		hi, lo := bits.Mul64(r, p)
		var chunk uint64
		chunk, r = bits.Div64(hi, lo, d)
		// q = q*p + chunk, failing on overflow of 128 bits.
		h1, l1 := bits.Mul64(ql, p)
		h2, l2 := bits.Mul64(qh, p)
		if h2 != 0 {
			return "", false
		}
		h, carry := bits.Add64(h1, l2, 0)
		if carry != 0 {
			return "", false
		}
		var c2 uint64
		ql, c2 = bits.Add64(l1, chunk, 0)
		if h, carry = bits.Add64(h, 0, c2); carry != 0 {
			return "", false
		}
		qh = h
		e -= k
	}
	if r >= d-r { // 2r >= d, rounding half away from zero
		var c uint64
		if ql, c = bits.Add64(ql, 1, 0); c != 0 {
			if qh == math.MaxUint64 {
				return "", false
			}
			qh++
		}
	}
	if qh == 0 && ql == 0 {
		return "0", true
	}
	if qh >= pow10u[19] { // q >= 10^38: two 19-digit halves will not hold it
		return "", false
	}
	var buf [40]byte
	var s []byte
	if qh == 0 {
		s = strconv.AppendUint(buf[:0], ql, 10)
	} else {
		top, low := bits.Div64(qh, ql, pow10u[19])
		s = strconv.AppendUint(buf[:0], top, 10)
		var lowBuf [20]byte
		l := strconv.AppendUint(lowBuf[:0], low, 10)
		for range 19 - len(l) { // low's leading zeros
			s = append(s, '0')
		}
		s = append(s, l...)
	}
	return placePoint(s, digits, num < 0), true
}

// pow10u are 10^0..10^19.
var pow10u = func() [20]uint64 {
	var p [20]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// placePoint writes the digits s of |value| * 10^digits (no leading
// zeros, not zero) as a decimal with its point, trailing zeros dropped,
// "-" first when neg.
func placePoint(s []byte, digits int, neg bool) string {
	var b strings.Builder
	b.Grow(len(s) + digits + 3)
	if neg {
		b.WriteByte('-')
	}
	var frac []byte
	lead := 0 // zeros between the point and frac
	if len(s) <= digits {
		b.WriteByte('0')
		lead, frac = digits-len(s), s
	} else {
		b.Write(s[:len(s)-digits])
		frac = s[len(s)-digits:]
	}
	if frac = bytes.TrimRight(frac, "0"); len(frac) > 0 {
		b.WriteByte('.')
		for range lead {
			b.WriteByte('0')
		}
		b.Write(frac)
	}
	return b.String()
}
