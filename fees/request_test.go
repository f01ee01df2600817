package fees

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
)

// A real wallet address and signed body (from the replay fixture's era, but
// built here so the table runs on a fresh clone).
const (
	goodRaw = "0:BC91B30E0AFE5CB6DB47B1F2127C83B63F75207102FC3499A6A7B8182C85115E"
)

func goodFriendly() string {
	return ton.MustParseAccountID(goodRaw).ToHuman(true, false)
}

func bocB64(t testing.TB, c *boc.Cell) string {
	t.Helper()
	s, err := c.ToBocBase64()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func goodBody(t testing.TB) string {
	c := boc.NewCell()
	_ = c.WriteUint(0x12345678, 32)
	_ = c.WriteUint(7, 64)
	return bocB64(t, c)
}

// chainOf is a linear chain of n cells: depth n-1.
func chainOf(t testing.TB, n int) string {
	c := boc.NewCell()
	for i := 1; i < n; i++ {
		p := boc.NewCell()
		_ = p.WriteUint(uint64(i), 16)
		_ = p.AddRef(c)
		c = p
	}
	return bocB64(t, c)
}

// handmade BOCs tongo's serializer cannot produce.
var (
	twoRoots  = "b5ee9c72010102020004000100000000"  // two empty root cells
	selfCycle = "b5ee9c72010101010003000100" + "00" // one cell referencing itself
)

func hexB64(t testing.TB, h string) string {
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func flipCRC(s string) string {
	b := []byte(s)
	last := len(b) - 1
	if b[last] == 'A' {
		b[last] = 'B'
	} else {
		b[last] = 'A'
	}
	return string(b)
}

func TestMalformedRequests(t *testing.T) {
	body := goodBody(t)
	addr := `"address":"` + goodRaw + `"`
	withBody := addr + `,"body":"` + body + `"`
	big := strings.Repeat("A", 100000) // base64 of 75000 zero bytes: over the BOC limit
	hexAddr := strings.TrimPrefix(goodRaw, "0:")
	cases := []struct {
		name, json, field string
	}{
		{"not an object: array", `[1,2]`, "params"},
		{"not an object: string", `"x"`, "params"},
		{"not an object: number", `42`, "params"},
		{"address missing", `{"body":"` + body + `"}`, "address"},
		{"address empty", `{"address":"","body":"` + body + `"}`, "address"},
		{"address null", `{"address":null,"body":"` + body + `"}`, "address"},
		{"address number", `{"address":1,"body":"` + body + `"}`, "address"},
		{"address bool", `{"address":true,"body":"` + body + `"}`, "address"},
		{"address object", `{"address":{},"body":"` + body + `"}`, "address"},
		{"address array", `{"address":["` + goodRaw + `"],"body":"` + body + `"}`, "address"},
		{"raw 63 hex digits", `{"address":"0:` + hexAddr[1:] + `","body":"` + body + `"}`, "address"},
		{"raw 65 hex digits", `{"address":"0:0` + hexAddr + `","body":"` + body + `"}`, "address"},
		{"raw not hex", `{"address":"0:` + strings.Repeat("Z", 64) + `","body":"` + body + `"}`, "address"},
		{"raw bad workchain", `{"address":"x:` + hexAddr + `","body":"` + body + `"}`, "address"},
		{"raw unknown workchain", `{"address":"5:` + hexAddr + `","body":"` + body + `"}`, "address"},
		{"raw workchain out of range", `{"address":"300:` + hexAddr + `","body":"` + body + `"}`, "address"},
		{"friendly bad CRC", `{"address":"` + flipCRC(goodFriendly()) + `","body":"` + body + `"}`, "address"},
		{"friendly 47 chars", `{"address":"` + goodFriendly()[1:] + `","body":"` + body + `"}`, "address"},
		{"friendly 49 chars", `{"address":"` + goodFriendly() + `A","body":"` + body + `"}`, "address"},
		{"friendly bad characters", `{"address":"` + strings.Repeat("!", 48) + `","body":"` + body + `"}`, "address"},
		{"address too long", `{"address":"` + strings.Repeat("0", 300) + `","body":"` + body + `"}`, "address"},
		{"body missing", `{` + addr + `}`, "body"},
		{"body empty", `{` + addr + `,"body":""}`, "body"},
		{"body number", `{` + addr + `,"body":12}`, "body"},
		{"body not base64", `{` + addr + `,"body":"!!!notbase64"}`, "body"},
		{"body mixed alphabets", `{` + addr + `,"body":"ab+c-d"}`, "body"},
		{"body inner whitespace", `{` + addr + `,"body":"te6c cgEB"}`, "body"},
		{"body not a BOC", `{` + addr + `,"body":"aGVsbG8gd29ybGQ="}`, "body"},
		{"body truncated BOC", `{` + addr + `,"body":"` + body[:len(body)/2] + `"}`, "body"},
		{"body two roots", `{` + addr + `,"body":"` + hexB64(t, twoRoots) + `"}`, "body"},
		{"body cell cycle", `{` + addr + `,"body":"` + hexB64(t, selfCycle) + `"}`, "body"},
		{"body too deep", `{` + addr + `,"body":"` + chainOf(t, 600) + `"}`, "body"},
		{"body too big", `{` + addr + `,"body":"` + big + `"}`, "body"},
		{"init_code number", `{` + withBody + `,"init_code":5}`, "init_code"},
		{"init_code not base64", `{` + withBody + `,"init_code":"***"}`, "init_code"},
		{"init_code not a BOC", `{` + withBody + `,"init_code":"AAAA"}`, "init_code"},
		{"init_code two roots", `{` + withBody + `,"init_code":"` + hexB64(t, twoRoots) + `"}`, "init_code"},
		{"init_data without init_code", `{` + withBody + `,"init_data":"` + body + `"}`, "init_data"},
		{"init_data array", `{` + withBody + `,"init_code":"` + body + `","init_data":[]}`, "init_data"},
		{"init_data not a BOC", `{` + withBody + `,"init_code":"` + body + `","init_data":"AAAA"}`, "init_data"},
		{"ignore_chksig string", `{` + withBody + `,"ignore_chksig":"true"}`, "ignore_chksig"},
		{"ignore_chksig number", `{` + withBody + `,"ignore_chksig":1}`, "ignore_chksig"},
		{"ignore_chksig object", `{` + withBody + `,"ignore_chksig":{}}`, "ignore_chksig"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeRequest([]byte(c.json))
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("want an apperr.Error, got %v", err)
			}
			if ae.Kind != apperr.Invalid || ae.Field != c.field {
				t.Fatalf("want Invalid naming %q, got kind %d field %q: %s", c.field, ae.Kind, ae.Field, ae.Msg)
			}
			if !strings.HasPrefix(ae.Public(), c.field+":") || len(ae.Public()) > 200 {
				t.Fatalf("message should name the field and stay short: %q", ae.Public())
			}
		})
	}
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestNotJSONIsBadRequest(t *testing.T) {
	for _, in := range []string{``, `{`, `{"address":}`, `nope`} {
		_, err := DecodeRequest([]byte(in))
		if ae := apperr.From(err); ae.Kind != apperr.BadRequest {
			t.Errorf("%q: kind %d, want BadRequest", in, ae.Kind)
		}
	}
}

func TestValidRequests(t *testing.T) {
	body := goodBody(t)
	urlBody := strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(body), "=")
	f := goodFriendly()
	urlSafeToStd := strings.NewReplacer("-", "+", "_", "/").Replace(f)
	for _, in := range []string{
		`{"address":"` + goodRaw + `","body":"` + body + `"}`,
		`{"address":"` + strings.ToLower(goodRaw) + `","body":"` + urlBody + `"}`,
		`{"address":"` + f + `","body":"` + body + `","ignore_chksig":false,"extra":1}`,
		`{"address":"` + urlSafeToStd + `","body":"` + body + `","init_code":"","init_data":null}`,
		`{"address":"` + goodRaw + `","body":"` + body + `","init_code":"` + body + `"}`,
		`{"address":"` + goodRaw + `","body":"` + chainOf(t, 500) + `"}`,
	} {
		r, err := DecodeRequest([]byte(in))
		if err != nil {
			t.Errorf("%.80s: %v", in, err)
			continue
		}
		if r.Account != ton.MustParseAccountID(goodRaw) {
			t.Errorf("address decoded to %s", r.Account.ToRaw())
		}
	}
	r, _ := DecodeRequest([]byte(`{"address":"` + goodRaw + `","body":"` + body + `"}`))
	if !r.IgnoreChksig {
		t.Error("ignore_chksig must default to true")
	}
	r, _ = DecodeRequest([]byte(`{"address":"` + goodRaw + `","body":"` + body + `","ignore_chksig":false}`))
	if r.IgnoreChksig {
		t.Error("ignore_chksig false was lost")
	}
}

func FuzzDecodeRequest(f *testing.F) {
	body := goodBody(f)
	f.Add([]byte(`{"address":"` + goodRaw + `","body":"` + body + `"}`))
	f.Add([]byte(`{"address":"` + goodFriendly() + `","body":"` + body + `","init_code":"` + body + `","init_data":"` + body + `","ignore_chksig":false}`))
	f.Add([]byte(`{"address":"` + goodRaw + `","body":"` + hexB64(f, selfCycle) + `"}`))
	f.Add([]byte(`{"address":"` + goodRaw + `","body":"` + hexB64(f, twoRoots) + `"}`))
	f.Add([]byte(`{"address":"` + goodRaw + `","body":"` + chainOf(f, 20) + `"}`))
	f.Add([]byte(`[]`))
	// whole messages (boc): an external message, a body alone, both forms at once
	ext := externalMessage(ton.AccountID{Workchain: 0, Address: [32]byte{1}}, mustRoot(f, body), nil, false)
	extBOC := marshalB64(f, ext)
	f.Add([]byte(`{"boc":"` + extBOC + `"}`))
	f.Add([]byte(`{"boc":"` + extBOC + `","ignore_chksig":false}`))
	f.Add([]byte(`{"boc":"` + body + `"}`))
	f.Add([]byte(`{"boc":"` + extBOC + `","address":"` + goodRaw + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRequest(data)
		if err == nil {
			if r.Body == nil {
				t.Fatal("accepted without a body")
			}
			if r.Message != nil {
				if _, _, err := r.MessageHashes(); err != nil {
					t.Fatalf("accepted a message that does not decode: %v", err)
				}
			}
			if r.InitData != nil && r.InitCode == nil {
				t.Fatal("accepted init_data without init_code")
			}
			return
		}
		var ae *apperr.Error
		if !errors.As(err, &ae) || (ae.Kind != apperr.Invalid && ae.Kind != apperr.BadRequest) {
			t.Fatalf("unclassified error %v", err)
		}
		if ae.Kind == apperr.Invalid && ae.Field == "" {
			t.Fatalf("invalid without a field: %v", err)
		}
	})
}

// FuzzBOC feeds raw bytes to the BOC checks directly, where the fuzzer does
// not have to discover base64 first.
func FuzzBOC(f *testing.F) {
	for _, h := range []string{twoRoots, selfCycle} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	b, _ := base64.StdEncoding.DecodeString(goodBody(f))
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = checkBOC("body", base64.StdEncoding.EncodeToString(data))
	})
}

func mustRoot(t testing.TB, b64 string) *boc.Cell {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func marshalB64(t testing.TB, m tlb.Message) string {
	t.Helper()
	c := boc.NewCell()
	if err := tlb.Marshal(c, m); err != nil {
		t.Fatal(err)
	}
	s, err := c.ToBocBase64()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
