package chain

// Contracts other than tokens whose state toncenter's v3 API answers
// from (package contracts reads them with their get methods): NFT sale
// contracts, vesting wallets and TON DNS items. Each is keyed by the state's last
// transaction like the token registry's rows.

// ContractState is what a contract's row records of the state it was
// read from: its hashes, the transaction it was read at, and Known,
// false when the account had a transaction after that state (what such
// a transaction may change is then unknown; each type says what).
type ContractState struct {
	CodeHash, DataHash Hash
	LastTxLt           uint64
	Known              bool
}

// NftSale is a fixed-price sale contract (get_sale_data).
type NftSale struct {
	Address     string
	Nft         string
	Seller      string // the NFT's owner while it is on sale ("" before the NFT arrives)
	Marketplace string
	FullPrice   string // decimal nanotons
	// MarketplaceFee and RoyaltyAmount are decimal nanotons; RoyaltyAddress
	// where royalties go.
	MarketplaceFee, RoyaltyAddress, RoyaltyAmount string
	// Unknown (Known false): Seller and the prices (empty).
	ContractState
}

// Vesting is a vesting wallet (get_vesting_data, get_whitelist).
type Vesting struct {
	Address                                       string
	StartTime, TotalDuration, UnlockPeriod, Cliff int64
	TotalAmount                                   string // decimal nanotons
	Sender, Owner                                 string
	Whitelist                                     []string
	// Unknown (Known false): Whitelist (nil). The other values are fixed
	// at deployment (the contract has no message that changes them).
	ContractState
}

// DNSEntry is a TON DNS item (an NFT of a DNS root collection, .ton or
// t.me) with the records toncenter answers from its record set
// (dnsresolve of "." in all categories): wallet, next resolver, site
// ADNL address and storage bag.
type DNSEntry struct {
	Address string // the item
	Owner   string // "" while none (an open auction, a released name)
	Domain  string // the full name: "alice.ton", "alice.t.me"
	// NextResolver and Wallet are raw addresses ("" no such record);
	// SiteADNL and StorageBagID base64 of their 32 bytes.
	NextResolver, Wallet, SiteADNL, StorageBagID string
	LastTxLt                                     uint64
	// Known is false when the item had a transaction after the state
	// read: its owner and records are then unknown (empty). The domain is
	// fixed at deployment.
	Known bool
}

// ContractRecords are what one set of states held.
type ContractRecords struct {
	Sales     []NftSale
	Vestings  []Vesting
	DNS       []DNSEntry
	Multisigs []Multisig
	Orders    []MultisigOrder
}

// Empty tells whether there is nothing to write.
func (c *ContractRecords) Empty() bool {
	return c == nil || len(c.Sales)+len(c.Vestings)+len(c.DNS)+len(c.Multisigs)+len(c.Orders) == 0
}

// Behind are the touched accounts (raw address -> lt of the batch's
// newest transaction of each) that no readable state as recent covers:
// a registry row read from an older state (or from none, or from a state
// whose get methods could not run, unreadable) is no longer current, and
// what it says that changes with transactions becomes unknown. The token
// registry and package contracts both mark these.
func Behind(states []AccountState, unreadable map[string]error, touched map[string]uint64) map[string]uint64 {
	read := make(map[string]uint64, len(states))
	for i := range states {
		if unreadable[states[i].Address] == nil {
			read[states[i].Address] = states[i].LastTxLt
		}
	}
	behind := map[string]uint64{}
	for addr, lt := range touched {
		if got, ok := read[addr]; !ok || got < lt {
			behind[addr] = lt
		}
	}
	return behind
}
