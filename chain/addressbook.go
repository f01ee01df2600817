package chain

import (
	"bytes"
	"io"
	"slices"
	"sort"

	"github.com/tonkeeper/tongo/ton"
)

// AddressBookEntry is how one raw address is shown to people.
type AddressBookEntry struct {
	Address      string   `json:"-"`
	UserFriendly string   `json:"user_friendly"`
	Domain       *string  `json:"domain"`
	Interfaces   []string `json:"interfaces"`
}

// AddressBook maps raw upper-case addresses to their entries. It marshals
// as a JSON object with sorted keys, the same bytes in REST and GraphQL.
type AddressBook map[string]AddressBookEntry

// MarshalGQL makes AddressBook a gqlgen scalar identical to the REST JSON.
func (b AddressBook) MarshalGQL(w io.Writer) {
	if b == nil {
		b = AddressBook{}
	}
	// About 150 bytes an entry. gqlgen writes into a bytes.Buffer: the book
	// is appended in the buffer's own spare room (one growth, no copy of
	// our own); any other writer gets it from one allocation.
	size := 160*len(b) + 2
	if buf, ok := w.(*bytes.Buffer); ok {
		buf.Grow(size)
		_, _ = buf.Write(b.AppendJSON(buf.AvailableBuffer()))
		return
	}
	_, _ = w.Write(b.AppendJSON(make([]byte, 0, size)))
}

// MarshalJSON writes the book as json.Marshal writes the plain map.
func (b AddressBook) MarshalJSON() ([]byte, error) { return b.AppendJSON(nil), nil }

// AppendJSON appends the book as json.Marshal writes the plain map (keys
// sorted), without reflection: it is on every page. TestAddressBookJSON
// keeps the two identical.
func (b AddressBook) AppendJSON(dst []byte) []byte {
	if b == nil {
		return append(dst, "null"...)
	}
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		e := b[k]
		dst = AppendJSONString(dst, k)
		dst = append(dst, `:{"user_friendly":`...)
		dst = AppendJSONString(dst, e.UserFriendly)
		dst = append(dst, `,"domain":`...)
		if e.Domain == nil {
			dst = append(dst, "null"...)
		} else {
			dst = AppendJSONString(dst, *e.Domain)
		}
		dst = append(dst, `,"interfaces":`...)
		dst = AppendJSONStrings(dst, e.Interfaces)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// UnmarshalGQL exists to satisfy gqlgen; the address book is output only.
func (b *AddressBook) UnmarshalGQL(any) error { return errNotInput }

// Entries lists the book sorted by address.
func (b AddressBook) Entries() []*AddressBookEntry {
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*AddressBookEntry, len(keys))
	for i, k := range keys {
		e := b[k]
		e.Address = k
		out[i] = &e
	}
	return out
}

// AddressFacts is what decides how an address is shown.
type AddressFacts struct {
	Known      bool // a state of the account is stored
	Status     string
	IsWallet   bool
	Balance    uint64
	Domain     string
	Interfaces []string
	// Token is the stored TEP-64 metadata of the token at the address (a
	// jetton master, NFT collection or item), nil when it is none the store
	// knows: what the page's `metadata` object shows of it.
	Token *TokenMetadata
}

// Bounceable reports whether the user-friendly form should carry the
// bounce flag: yes for deployed contracts that are not wallets; no for
// wallets (so coins sent to them are never bounced back by mistake) and for
// uninitialized or unknown accounts (a bounceable transfer to them would
// bounce and be lost to the sender's intent).
func (f AddressFacts) Bounceable() bool {
	return f.Known && !f.IsWallet && (f.Status == AccountActive || f.Status == AccountFrozen)
}

// NewAddressBookEntry formats one address; testnet follows the server's network.
func NewAddressBookEntry(raw string, f AddressFacts, testnet bool) (AddressBookEntry, bool) {
	id, err := ton.AccountIDFromRaw(raw)
	if err != nil {
		return AddressBookEntry{}, false
	}
	e := AddressBookEntry{Address: raw, UserFriendly: id.ToHuman(f.Bounceable(), testnet), Interfaces: f.Interfaces}
	if e.Interfaces == nil {
		e.Interfaces = []string{}
	}
	if f.Domain != "" {
		d := f.Domain
		e.Domain = &d
	}
	return e, true
}

// BookAddresses lists, sorted and without repeats, every address the
// page shows: those in the values and, when included, the accounts lists.
// These are the address book's keys.
func (l *ActionList) BookAddresses() []string {
	var out []string
	for _, a := range l.Actions {
		out = append(out, a.Addresses...)
		out = append(out, a.Accounts...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// ActionList is one page of actions with the address book of the addresses
// that appear in them. Its JSON form is the /api/v3/actions response.
type ActionList struct {
	Actions     []*Action   `json:"actions"`
	AddressBook AddressBook `json:"address_book"`
	// Metadata is toncenter's metadata object of the tokens among the
	// address book's addresses.
	Metadata Metadata `json:"metadata"`
}

// Only is the part of b that names one of addrs (never nil): an event
// shares one book read for a whole page of events and shows each only its
// own addresses.
func (b AddressBook) Only(addrs []string) AddressBook {
	out := make(AddressBook, len(addrs))
	for _, a := range addrs {
		if e, ok := b[a]; ok {
			out[a] = e
		}
	}
	return out
}
