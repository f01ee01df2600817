package analytics

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

// floatStringDecimal is Decimal the plain way (scale the big.Rat, then
// FloatString): the reference decimalOf must agree with digit for digit.
func floatStringDecimal(r *big.Rat, shift, digits int) string {
	s := scale(r, shift).FloatString(digits)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func TestDecimalRendersAsFloatString(t *testing.T) {
	rng := rand.New(rand.NewSource(34)) // math/rand: big.Int.Rand takes its *Rand
	cases := []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 3), big.NewRat(5, 10), big.NewRat(-5, 10),
		big.NewRat(1, 2_000_000_000_000_000_000), big.NewRat(-1, 2_000_000_000_000_000_000), big.NewRat(1093, 1_000_000)}
	for range 5000 {
		num := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(1+rng.Intn(200))))
		den := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(1+rng.Intn(200))))
		den.Add(den, big.NewInt(1))
		if rng.Intn(2) == 0 {
			num.Neg(num)
		}
		cases = append(cases, new(big.Rat).SetFrac(num, den))
	}
	n := 0
	for _, r := range cases {
		for _, shift := range []int{-40, -18, -9, -3, 0, 3, 9, 27, 90} {
			for _, digits := range []int{0, 1, 2, 9, 18, 30} {
				want, got := floatStringDecimal(r, shift, digits), Decimal(r, shift, digits)
				if got != want {
					t.Fatalf("Decimal(%s, %d, %d) = %q, FloatString says %q", r, shift, digits, got, want)
				}
				n++
			}
		}
	}
	// A candle's VWAP without volume has no average: "0", not a panic.
	if got := decimalOf(big.NewInt(5), new(big.Int), 0, 18); got != "0" {
		t.Fatalf("no volume: %q", got)
	}
	t.Logf("%d renderings agree", n)
}

// BenchmarkCandlePoint renders one stored candle (four prices, the VWAP,
// two volumes): a year of 1h candles is 8,760 of them.
func BenchmarkCandlePoint(b *testing.B) {
	c := Candle{Bucket: 1, Open: FracOf(big.NewRat(1093, 1_000_000)), High: FracOf(big.NewRat(1100, 1_000_000)), Low: FracOf(big.NewRat(1000, 1_000_000)),
		Close: FracOf(big.NewRat(1051, 1_000_000)), VolumeBase: AmountOf(big.NewInt(123456789000)), VolumeQuote: AmountOf(big.NewInt(987654321)), Trades: 7}
	b.ReportAllocs()
	for range b.N {
		c.Point(9, 9)
	}
}
