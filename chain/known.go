package chain

// Kinds of contract an indexer may already know an account to be. The
// classifier works without them (it reads message bodies), but uses them to
// name the jetton master or the owner of a wallet that the trace alone does
// not reveal.
const (
	KindJettonWallet = "JettonWallet"
	KindNftItem      = "NftItem"
	KindNftSale      = "NftSale"
	KindNftAuction   = "NftAuction"
	KindDedustPool   = "DedustPool"
	// KindMultisigOrder is an order of a multisig v2 wallet; toncenter
	// reports approvals and executions only for orders it has indexed, and
	// names their signers from that record.
	KindMultisigOrder = "MultisigOrder"
)

// KnownContract is what is known about one account. Addresses are raw
// upper-case, "" when unknown.
type KnownContract struct {
	Kind       string
	Jetton     string // master of a jetton wallet
	Owner      string // owner of a jetton wallet or NFT item; seller of a sale
	Collection string // collection of an NFT item
	Item       string // NFT item of a sale or auction
	Index      string // index of an NFT item in its collection, decimal
	Market     string // marketplace of a sale or auction
	Price      uint64 // full price of a sale, last bid of an auction
	// Assets of a DeDust pool: jetton masters, "" for TON.
	Assets []string
	// Signers of a multisig order, by index.
	Signers []string
	// Content of an NFT item as the indexer read it (name, uri, domain, ...):
	// string values only.
	Content map[string]string
	// DataBOC is the account's persistent data (a BOC), when the indexer
	// kept it: some contracts' roles are read from their data.
	DataBOC []byte
}

// KnownContracts maps a raw upper-case address to what is known about it.
type KnownContracts map[string]KnownContract
