package toncenter

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apperr"
)

func params(t *testing.T, q string, known ...string) *Params {
	t.Helper()
	v, err := url.ParseQuery(q)
	require.NoError(t, err)
	p, err := Parse(v, known...)
	require.NoError(t, err)
	return p
}

func TestParseRefusesUnknownParameters(t *testing.T) {
	v, _ := url.ParseQuery("account=x&acount=y")
	_, err := Parse(v, "account")
	require.Error(t, err)
	require.Equal(t, apperr.Invalid, apperr.From(err).Kind)
	require.Contains(t, err.Error(), "acount")
	_, err = Parse(url.Values{"api_key": {"k"}}, "account")
	require.NoError(t, err, "api_key is accepted and ignored")
}

func TestHashesInEveryForm(t *testing.T) {
	const hexHash = "c5ca880c8e667af78d193ac5d2f1437c2bcec08d16436f6579f3493e556b4f48"
	const b64 = "xcqIDI5meveNGTrF0vFDfCvOwI0WQ29lefNJPlVrT0g="
	const b64url = "xcqIDI5meveNGTrF0vFDfCvOwI0WQ29lefNJPlVrT0g"
	p := params(t, "hash="+hexHash+"&hash="+url.QueryEscape(b64)+","+b64url, "hash")
	got, err := p.Hashes("hash", 10)
	require.NoError(t, err)
	require.Equal(t, []string{b64, b64, b64}, got)
	_, err = params(t, "hash=abc", "hash").Hashes("hash", 10)
	require.ErrorContains(t, err, "hash")
	_, err = params(t, "hash="+hexHash+","+hexHash, "hash").Hashes("hash", 1)
	require.ErrorContains(t, err, "at most 1")
}

func TestOpcodeForms(t *testing.T) {
	for in, want := range map[string]uint32{"0x7362d09c": 0x7362d09c, "0X7362D09C": 0x7362d09c,
		"1935855772": 0x7362d09c, "-1": 0xffffffff, "0": 0} {
		got, err := params(t, "opcode="+url.QueryEscape(in), "opcode").Opcode("opcode")
		require.NoError(t, err, in)
		require.Equal(t, want, *got, in)
	}
	for _, in := range []string{"0x1ffffffff", "4294967296", "-2147483649", "op"} {
		_, err := params(t, "opcode="+url.QueryEscape(in), "opcode").Opcode("opcode")
		require.ErrorContains(t, err, "opcode", in)
	}
}

func TestPageBounds(t *testing.T) {
	pg, err := params(t, "", PageParams...).Page()
	require.NoError(t, err)
	require.Equal(t, Page{Limit: DefaultLimit, Desc: true}, pg)
	pg, err = params(t, "limit=1000&offset=5&sort=asc", PageParams...).Page()
	require.NoError(t, err)
	require.Equal(t, Page{Limit: 1000, Offset: 5}, pg)
	for q, field := range map[string]string{"limit=0": "limit", "limit=1001": "limit", "limit=x": "limit",
		"offset=-1": "offset", "sort=up": "sort", "limit=1&limit=2": "limit"} {
		_, err := params(t, q, PageParams...).Page()
		require.ErrorContains(t, err, field, q)
	}
}

func TestAddressNullable(t *testing.T) {
	got, err := params(t, "source=null", "source").Address("source", true)
	require.NoError(t, err)
	require.Equal(t, "", *got)
	_, err = params(t, "source=null", "source").Address("source", false)
	require.ErrorContains(t, err, "source")
	got, err = params(t, "source=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "source").Address("source", true)
	require.NoError(t, err)
	require.Equal(t, "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE", *got)
}

// Shards come as toncenter writes them (hex) or as tonlib prints them
// (signed decimal); both name the same shard.
func TestShardInBothForms(t *testing.T) {
	for _, q := range []string{"shard=8000000000000000", "shard=0x8000000000000000", "shard=-9223372036854775808"} {
		got, err := params(t, q, "shard").Shard("shard")
		require.NoError(t, err, q)
		require.Equal(t, int64(-1<<63), *got, q)
	}
	_, err := params(t, "shard=xyz", "shard").Shard("shard")
	require.ErrorContains(t, err, "shard")
}
