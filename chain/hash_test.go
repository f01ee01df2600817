package chain

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// TestParseHashForms: every form a client or the store writes reads back
// as the same 32 bytes, and every malformed one is refused with the
// error that says why.
func TestParseHashForms(t *testing.T) {
	for i := range 200 {
		want := Hash(sha256.Sum256([]byte{byte(i), byte(i >> 8)}))
		std := base64.StdEncoding.EncodeToString(want[:])
		url := base64.URLEncoding.EncodeToString(want[:])
		for _, s := range []string{std, strings.TrimRight(std, "="), url, strings.TrimRight(url, "="),
			hex.EncodeToString(want[:]), strings.ToUpper(hex.EncodeToString(want[:])), std + "==="} {
			got, err := ParseHash(s)
			if err != nil || got != want {
				t.Fatalf("ParseHash(%q) = %x, %v; want %x", s, got, err, want)
			}
		}
	}
	for s, why := range map[string]string{
		"":                                      "must encode 32 bytes",
		"AAAA":                                  "must encode 32 bytes",
		strings.Repeat("A", 44) + "=":           "must encode 32 bytes",
		strings.Repeat("A", 42) + "!":           "not 64 hex digits nor base64",
		strings.Repeat("A", 41) + "+-":          "not 64 hex digits nor base64", // two alphabets at once
		strings.Repeat("A", 42) + " ":           "not 64 hex digits nor base64",
		strings.Repeat("g", 64):                 "must encode 32 bytes", // not hex: base64 of 48 bytes
		strings.Repeat("A", 42) + "\xff":        "not 64 hex digits nor base64",
		"uGrkBrZG8+tvUZaPYnRyWAxXrnkLaW9jyw==Z": "not 64 hex digits nor base64",
	} {
		if _, err := ParseHash(s); err == nil || err.Error() != why {
			t.Errorf("ParseHash(%q) = %v; want %q", s, err, why)
		}
	}
}

// TestParseHashStoredFormAllocatesNothing: the store reads several hashes
// per row of every page, all in this form.
func TestParseHashStoredFormAllocatesNothing(t *testing.T) {
	s := Hash(sha256.Sum256([]byte("tonql"))).Base64()
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseHash(s) }); n != 0 {
		t.Fatalf("ParseHash of a stored hash allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseHash("") }); n != 0 {
		t.Fatalf("ParseHash of an absent hash allocates %v times", n)
	}
}
