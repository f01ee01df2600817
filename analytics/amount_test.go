package analytics_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/analytics"
)

// TestAmountIsBigInt: a volume read, added, printed and divided as an
// Amount (int64 when it fits) gives what big.Int gave, at the int64 edges
// (where a sum overflows into the big path) and over random values of
// every size and sign; what big.Int cannot read, ParseAmount refuses.
func TestAmountIsBigInt(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	var vals []*big.Int
	for _, s := range []string{"0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775806",
		"9223372036854775808", "-9223372036854775809", "18446744073709551616", "123456789000", "987654321"} {
		v, _ := new(big.Int).SetString(s, 10)
		vals = append(vals, v)
	}
	for range 500 {
		v := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(1+rng.Intn(130))))
		if rng.Intn(4) == 0 {
			v.Neg(v)
		}
		vals = append(vals, v)
	}
	amounts := make([]analytics.Amount, len(vals))
	for i, v := range vals {
		a, ok := analytics.ParseAmount(v.String())
		require.True(t, ok, v.String())
		require.Equal(t, v.String(), a.String())
		require.Zero(t, v.Cmp(a.Int()))
		require.Equal(t, a, analytics.AmountOf(new(big.Int).Set(v)), "one form for one value: %s", v)
		amounts[i] = a
	}
	for i := range vals {
		for _, j := range []int{i, (i + 1) % len(vals), rng.Intn(len(vals)), 0, 3, 4} {
			want := new(big.Int).Add(vals[i], vals[j])
			got := amounts[i].Add(amounts[j])
			require.Equal(t, want.String(), got.String(), "%s + %s", vals[i], vals[j])
			require.Equal(t, analytics.AmountOf(want), got, "one form for one value: %s", want)
			// The VWAP: quote volume over base volume, as Decimal renders the big.Rat.
			c := analytics.Candle{VolumeQuote: amounts[i], VolumeBase: amounts[j]}
			for _, shift := range []int{-9, 0, 3} {
				wantVWAP := "0"
				if vals[j].Sign() > 0 {
					wantVWAP = analytics.Decimal(new(big.Rat).SetFrac(vals[i], vals[j]), shift, analytics.PriceDigits)
				}
				require.Equal(t, wantVWAP, c.Point(9+shift, 9).Vwap, "%s / %s shift %d", vals[i], vals[j], shift)
			}
		}
	}
	for _, s := range []string{"", "-", "+5", "1.5", "0x10", " 1", "1 ", "1e3", "abc"} {
		_, okBig := new(big.Int).SetString(s, 10)
		_, ok := analytics.ParseAmount(s)
		require.Equal(t, okBig, ok, "%q", s)
	}
}
