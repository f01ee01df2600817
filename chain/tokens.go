package chain

import "encoding/json"

// The token registry's records: what each jetton and NFT contract holds,
// read by its standard get methods on its account state after a block.
// LastTxLt is the logical time of the account's last transaction in that
// state: a record is replaced only by one read at the same or a later
// transaction, and a record older than the newest stored transaction of its
// account shows its changing values (a balance, an owner) as unknown.

// JettonMaster is a jetton minter (TEP-74 get_jetton_data).
type JettonMaster struct {
	Address     string // raw upper-case
	TotalSupply string // decimal
	Mintable    bool
	Admin       string // raw upper-case; "" when none (addr_none)
	// Content is the TEP-64 content cell as a BOC.
	Content []byte
	// ContentJSON is the content's on-chain attributes and uri as a JSON
	// object (toncenter's jetton_content, collection_content); nil when
	// the content does not parse.
	ContentJSON json.RawMessage
	// WalletCodeHash is the representation hash of the jetton wallet code
	// the master hands out (of the library cell when the code is one).
	WalletCodeHash Hash
	// WalletCode is that code as a BOC, as get_jetton_data returned it;
	// not stored (v2 getTokenData shows it, from a fresh read).
	WalletCode []byte
	CodeHash   Hash
	DataHash   Hash
	LastTxLt   uint64
}

// JettonWallet is a jetton wallet (TEP-74 get_wallet_data).
type JettonWallet struct {
	Address string // raw upper-case
	Owner   string
	Jetton  string // the master
	// Balance is decimal; "" when unknown (the account has a newer
	// transaction than the state it was read from).
	Balance string
	// WalletCode is the wallet's code as get_wallet_data returned it (a
	// BOC); not stored, as JettonMaster's.
	WalletCode []byte
	CodeHash   Hash
	DataHash   Hash
	LastTxLt   uint64
	// LastTxHash is the hash of the transaction at LastTxLt when the
	// state was read (the jettons_change event names it); zero on a row
	// read back from the registry, which keeps the lt only.
	LastTxHash Hash
}

// NftCollection is an NFT collection (TEP-62 get_collection_data).
type NftCollection struct {
	Address       string
	Owner         string // "" when none
	NextItemIndex string // decimal; -1 for collections that do not count
	Content       []byte // TEP-64 content cell as a BOC
	// ContentJSON is the content's on-chain attributes and uri as a JSON
	// object (toncenter's jetton_content, collection_content); nil when
	// the content does not parse.
	ContentJSON json.RawMessage
	CodeHash    Hash
	DataHash    Hash
	LastTxLt    uint64
}

// NftItem is an NFT item (TEP-62 get_nft_data).
type NftItem struct {
	Address    string
	Init       bool
	Index      string // decimal
	Collection string // "" for an item without a collection
	// Owner is the owner the item's data names; "" when none or unknown
	// (OwnerKnown false: a newer transaction than the state read).
	Owner      string
	OwnerKnown bool
	// Content is the item's full TEP-64 content (for an item of a
	// collection, after the collection's get_nft_content) as a BOC; nil
	// when it could not be made.
	Content     []byte
	ContentJSON json.RawMessage // as JettonMaster's
	// SaleContract is the item's owner when that owner is a sale or
	// auction contract (the item is on sale), and RealOwner the seller it
	// names; both "" otherwise.
	SaleContract string
	RealOwner    string
	CodeHash     Hash
	DataHash     Hash
	LastTxLt     uint64
}

// TokenRecords are registry records read from one set of states.
type TokenRecords struct {
	JettonMasters  []JettonMaster
	JettonWallets  []JettonWallet
	NftCollections []NftCollection
	NftItems       []NftItem
}

// Empty tells whether there is nothing to write.
func (t *TokenRecords) Empty() bool {
	return t == nil || len(t.JettonMasters)+len(t.JettonWallets)+len(t.NftCollections)+len(t.NftItems) == 0
}
