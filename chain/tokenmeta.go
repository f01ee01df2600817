package chain

import (
	"encoding/json"
	"time"
)

// Token kinds that carry TEP-64 content, named as tongo names the contract
// interfaces.
const (
	TokenJettonMaster  = "jetton_master"
	TokenNftCollection = "nft_collection"
	TokenNftItem       = "nft_item"
)

// ValidTokenKind tells whether kind is one of the token kinds above.
func ValidTokenKind(kind string) bool {
	return kind == TokenJettonMaster || kind == TokenNftCollection || kind == TokenNftItem
}

// Where a token's metadata came from (TEP-64 content layouts).
const (
	MetadataOnchain   = "onchain"
	MetadataOffchain  = "offchain"
	MetadataSemichain = "semichain"
)

// TokenContent is a token's TEP-64 content cell as its contract holds it
// (for an NFT item, the full content after the collection's
// get_nft_content): what the token registry hands to the metadata worker.
type TokenContent struct {
	Address     string // raw upper-case
	Kind        string // TokenJettonMaster, TokenNftCollection or TokenNftItem
	ContentHash Hash   // representation hash of the content cell
	Content     []byte // the content cell as a BOC
}

// TokenJob is one token whose metadata is due to be made (again).
type TokenJob struct {
	TokenContent
	// Attempts is the number of failed attempts in a row so far.
	Attempts int
	// Valid: the stored metadata was made from this same content and was
	// valid; a failed refresh keeps it.
	Valid bool
}

// TokenMetadata is a token's metadata as the store holds it: the values
// TEP-64 names, every other attribute in Extra, and how and when it was
// made. A nil value is one the token's content does not give (or not
// yet: FetchedAt nil).
type TokenMetadata struct {
	Address     string
	Kind        string
	ContentHash Hash

	// Valid is false until the metadata has been made, and when it could
	// not be (Reason says why: an off-chain fetch that failed, decimals out
	// of range, content that does not parse). Values known despite the
	// failure (on-chain attributes of semi-chain content) are kept.
	Valid  bool
	Reason string

	Name        *string
	Symbol      *string
	Decimals    *int // jettons only: the content's value, else TEP-64's default 9
	Image       *string
	Description *string
	URI         *string
	// Extra holds every other attribute (on-chain and off-chain), as a JSON
	// object; nil when there are none.
	Extra json.RawMessage
	// Source is the content layout: MetadataOnchain, MetadataOffchain or
	// MetadataSemichain; "" until parsed.
	Source string

	FetchedAt     *time.Time // when the values and Valid were made; nil: not yet
	Attempts      int        // failed attempts in a row
	LastError     string     // reason of the newest failed attempt; "" after a success
	NextAttemptAt *time.Time // when it is due again; nil: not due (changes of content enqueue it)
	UpdatedAt     time.Time

	// entry is the token's entry of the metadata object as appendEntry
	// writes it, kept by WithEntry; nil: written from the fields each time.
	entry []byte
}

// WithEntry is a copy of md that keeps its entry of the metadata object
// (Metadata.AppendJSON's bytes for it), so that every page showing the
// token copies those bytes instead of writing them again: the store keeps
// tokens so (store/tokencache.go), shared by every page, which must not
// change them.
func (md TokenMetadata) WithEntry() *TokenMetadata {
	md.entry = nil
	md.entry = md.appendEntry(nil)
	return &md
}

// EntrySize is the length of the entry WithEntry kept (0 without one).
func (md *TokenMetadata) EntrySize() int { return len(md.entry) }
