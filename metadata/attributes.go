package metadata

import (
	"crypto/sha256"
	"encoding/hex"
)

// attributeNames are the attribute names whose keys on-chain content is
// read by: TEP-64's own (uri, name, description, image, image_data,
// symbol, decimals, amount_style, render_type), the jetton extensions in
// use (custom_payload_api_uri for mintless jettons, social, websites) and
// the NFT attributes marketplaces read. On chain a key is sha256 of the
// name, so only names listed here can be told apart; any other key is
// kept under its hex hash (Content.Unknown).
var attributeNames = []string{
	"uri", "name", "description", "image", "image_data", "symbol", "decimals",
	"amount_style", "render_type",
	"custom_payload_api_uri", "social", "websites",
	"attributes", "content_url", "content_type", "lottie", "external_url", "external_link",
	"cover_image", "marketplace", "buttons",
}

// attributeKeys maps sha256(name) to the name. Built once by newKeyTable
// from attributeNames; never written after.
var attributeKeys = newKeyTable(attributeNames)

func newKeyTable(names []string) map[[32]byte]string {
	m := make(map[[32]byte]string, len(names))
	for _, n := range names {
		m[sha256.Sum256([]byte(n))] = n
	}
	return m
}

// AttributeKey is the on-chain dictionary key of an attribute: the hex of
// sha256 of its name.
func AttributeKey(name string) string {
	h := sha256.Sum256([]byte(name))
	return hex.EncodeToString(h[:])
}
