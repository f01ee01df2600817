package preview

import (
	"sort"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// Estimate is a fee estimate and, when asked for, the preview of the same
// emulation: the answer of GraphQL's estimateFee and emulateMessage and of
// POST /api/v3/emulate.
type Estimate struct {
	*fees.Result
	Preview     *Preview // nil when only fees were asked for
	AddressBook chain.AddressBook
	// Metadata is toncenter's metadata object of the tokens the preview
	// names (those the store knows).
	Metadata chain.Metadata
	// RandSeed is the random seed the emulation ran with.
	RandSeed [32]byte
}

// Addresses lists, sorted and once each, every address the preview shows:
// the actions' values, the transactions' accounts, the balance changes
// and the stops. They are the keys of its address book.
func (p *Preview) Addresses() []string {
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, a := range p.Actions {
		for _, x := range a.Addresses {
			add(x)
		}
	}
	for _, t := range p.Transactions {
		add(t.Account)
	}
	for _, c := range p.BalanceChanges.TON {
		add(c.Account)
	}
	for _, c := range p.BalanceChanges.Jettons {
		add(c.JettonWallet)
		if c.Owner != nil {
			add(*c.Owner)
		}
		if c.JettonMaster != nil {
			add(*c.JettonMaster)
		}
	}
	for _, s := range p.Stopped {
		add(s.Account)
	}
	add(p.Risk.Sender)
	for _, m := range p.Risk.masters() {
		add(m)
	}
	for _, n := range p.Risk.Nfts {
		add(n.Nft)
		if n.Collection != nil {
			add(*n.Collection)
		}
	}
	sort.Strings(out)
	return out
}
