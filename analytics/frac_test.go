package analytics_test

import (
	"context"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
)

// ratRead is how the store read a price before Frac: big.Rat.SetString,
// zero when malformed.
func ratRead(s string) (*big.Rat, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return new(big.Rat), false
	}
	return r, true
}

// TestFracReadsAsRat: a stored price read as a Frac (no gcd, no big.Rat)
// renders digit for digit, compares and writes back as the big.Rat read
// did: over every price the fixtures' real swaps store (each kept width),
// random fractions of every size and sign, and malformed strings.
func TestFracReadsAsRat(t *testing.T) {
	db := testenv.Databases(t)[0]
	st := storetest.Open(t, db.URL)
	importFiles(t, st, fixtureFiles(t))
	var stored []struct {
		Open, High, Low, Close string
	}
	require.NoError(t, st.DB().NewSelect().TableExpr("analytics_candles").Column("open", "high", "low", "close").Scan(context.Background(), &stored))
	require.NotEmpty(t, stored)
	var reduced []string // as big.Rat.String writes them
	for _, r := range stored {
		reduced = append(reduced, r.Open, r.High, r.Low, r.Close)
	}

	rng := rand.New(rand.NewSource(34))
	for _, r := range []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(7, 3), big.NewRat(-7, 3),
		big.NewRat(7, 2), big.NewRat(-7, 2), big.NewRat(5, 4), big.NewRat(-1, 8), big.NewRat(3, 2_000_000_000_000_000_000), // ties round away from zero
		new(big.Rat).SetFrac(big.NewInt(-1<<63), big.NewInt(1)), big.NewRat(1<<63-1, 1), big.NewRat(1, 1<<63-1),
		big.NewRat(-(1<<63 - 1), 1<<63-2), big.NewRat(1<<63-2, 1<<63-1)} {
		reduced = append(reduced, r.String())
	}
	for range 3000 {
		num := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(1+rng.Intn(200))))
		den := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(1+rng.Intn(200))))
		den.Add(den, big.NewInt(1))
		if rng.Intn(2) == 0 {
			num.Neg(num)
		}
		reduced = append(reduced, new(big.Rat).SetFrac(num, den).String())
	}
	// Never written by the store; each must read as big.Rat read it.
	odd := []string{"", "/", "1/0", "0/0", "abc", "1/-2", "-1/-2", "010/3", "0x10/3", "+5/3", "1.5", "-2.25", "1e3", "-0/1", "5", "-5",
		" 1/2", "1/2 ", "1_0/3", "99999999999999999999999/0", "-/1", "1/", "/2", "1/2/3", "2/4", "-6/9", "00/1", "1/01",
		"123456789012345678901234567890/60", "9223372036854775808/1", "-9223372036854775808/1", "-9223372036854775809/2"}

	shifts, digits := []int{-30, -9, -3, 0, 3, 9, 27, 60}, []int{0, 1, 9, 18}
	all := append(append([]string{}, reduced...), odd...)
	fracs := make([]analytics.Frac, len(all))
	rats := make([]*big.Rat, len(all))
	n := 0
	for i, s := range all {
		r, okR := ratRead(s)
		f, okF := analytics.ParseFrac(s)
		require.Equal(t, okR, okF, "%q reads", s)
		require.Zero(t, r.Cmp(f.Rat()), "%q: %s, Frac %s", s, r, f)
		if i < len(reduced) {
			require.Equal(t, r.String(), f.String(), "%q writes back", s)
			require.Equal(t, r.String(), analytics.FracOf(r).String(), "%q from a big.Rat", s)
		}
		for _, sh := range shifts {
			for _, d := range digits {
				require.Equal(t, analytics.Decimal(r, sh, d), f.Decimal(sh, d), "%q shift %d digits %d", s, sh, d)
				n++
			}
		}
		fracs[i], rats[i] = f, r
	}
	for range 50_000 {
		i, j := rng.Intn(len(all)), rng.Intn(len(all))
		require.Equal(t, rats[i].Cmp(rats[j]), fracs[i].Cmp(fracs[j]), "%q vs %q", all[i], all[j])
	}
	t.Logf("%d stored prices of real swaps, %d renderings agree", 4*len(stored), n)
}
