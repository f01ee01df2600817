package tokens

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/metadata"
)

// contentJSON is a content cell's on-chain attributes as the JSON object
// toncenter shows as jetton_content (and collection_content, an item's
// content): every attribute by name, those of unknown keys by the key's
// hex, and the uri of off-chain and semi-chain content. Made once at write
// time: pages decode nothing. nil when the content does not parse.
func contentJSON(content []byte) json.RawMessage {
	if len(content) == 0 {
		return nil
	}
	c, err := metadata.Parse(content)
	if err != nil {
		return nil
	}
	obj := make(map[string]string, len(c.Attrs)+len(c.Unknown)+1)
	for k, v := range c.Unknown {
		obj[k] = v
	}
	for k, v := range c.Attrs {
		obj[k] = v
	}
	if c.URI != "" {
		obj["uri"] = c.URI
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return b
}

// withContentJSON fills the records' ContentJSON.
func withContentJSON(r *chain.TokenRecords) {
	for i := range r.JettonMasters {
		r.JettonMasters[i].ContentJSON = contentJSON(r.JettonMasters[i].Content)
	}
	for i := range r.NftCollections {
		r.NftCollections[i].ContentJSON = contentJSON(r.NftCollections[i].Content)
	}
	for i := range r.NftItems {
		r.NftItems[i].ContentJSON = contentJSON(r.NftItems[i].Content)
	}
}
