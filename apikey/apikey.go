// Package apikey makes personal endpoint keys and resolves them for
// requests. A key is 64 lower-case hex digits (32 random bytes), the shape
// hosted TON APIs use, so it fits one path segment and the tools that check
// key formats. Only its SHA-256 is stored: the keys are random, so a plain
// hash is as good as a slow one, and it is cheap enough to compute on every
// request.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Len is the length of a key in characters.
const Len = 64

// Generate makes a new key and its public id (12 hex digits, for logs and
// the CLI; it reveals nothing about the key).
func Generate() (key, id string) {
	var k [Len / 2]byte
	var i [6]byte
	_, _ = rand.Read(k[:]) // crypto/rand never fails on supported platforms
	_, _ = rand.Read(i[:])
	return hex.EncodeToString(k[:]), hex.EncodeToString(i[:])
}

// Hash is what the store keeps and looks keys up by. Keys are hex, so case
// does not matter: one spelling per key.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(key)))
	return hex.EncodeToString(sum[:])
}

// WellFormed tells whether s could be a key at all, so junk in the first
// path segment is refused without a store lookup.
func WellFormed(s string) bool {
	if len(s) != Len {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// Redact replaces every path segment that could be a key (well formed, or
// a long run with digits in it, such as a mistyped key) with "{key}", for
// logs. Route names are words and survive.
func Redact(path string) string {
	if !strings.ContainsAny(path, "0123456789") {
		return path // fast path: no segment can look like a key
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if looksLikeKey(s) {
			segs[i] = "{key}"
		}
	}
	return strings.Join(segs, "/")
}

func looksLikeKey(s string) bool {
	return WellFormed(s) || len(s) >= 16 && strings.ContainsAny(s, "0123456789")
}
