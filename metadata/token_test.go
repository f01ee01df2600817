package metadata

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDecimals(t *testing.T) {
	for in, want := range map[any]int{
		"9": 9, "0": 0, "255": 255, "018": 18, " 6 ": 6, "6\x00\x00": 6,
		json.Number("6"): 6, json.Number("0"): 0,
	} {
		got, err := ParseDecimals(in)
		require.NoError(t, err, "%q", in)
		require.Equal(t, want, got, "%q", in)
	}
	for _, in := range []any{
		"", " ", "256", "1000", "-1", "+9", "9.0", "1e2", "nine", "0x9", "9 9", "٩", // Arabic-Indic nine
		json.Number("9.0"), json.Number("256"), json.Number("-1"), json.Number("1e1"),
		9.0, 9, true, nil, []any{"9"}, map[string]any{},
	} {
		_, err := ParseDecimals(in)
		require.ErrorIs(t, err, ErrDecimals, "%#v", in)
	}
}
