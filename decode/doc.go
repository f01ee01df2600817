// Package decode names message op codes and decodes message bodies with
// tongo's abi decoders, in the shape toncenter's /api/v3/decode answers:
// a name per op code, an object per body ({"@type": name, fields...}).
// It reads nothing from the store.
package decode

//go:generate go run ./internal/gen
