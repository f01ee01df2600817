package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// runClassify decodes one toncenter trace JSON file offline and prints
// its actions with an address book, shaped as
// /api/v3/actions?include_accounts=true answers. It prints every action,
// the steps of newer types included (actions.HasSteps), as toncenter's
// indexer keeps them; the API shows a step only to a client whose
// supported_action_types lacks its parent's type.
// Without a database, what the address book knows about an account comes
// from the trace itself: its last status, and whether it signed an
// external request (wallets do), which picks the user-friendly form.
func runClassify(_ context.Context, args []string, e *env) error {
	fs := newFlags(e, "classify", "tonql classify [flags] FILE",
		"Prints the actions of one toncenter trace JSON file as /api/v3/actions?include_accounts=true shows them, with the steps of newer action types that only clients pinned to an older version see; no database.")
	cfg := bindConfig(fs, e, groupNetwork)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{err: errors.New("give one toncenter trace JSON file: tonql classify FILE")}
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	tr, err := chain.ParseToncenterFile(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	list := &chain.ActionList{Actions: []*chain.Action{}}
	for _, trace := range chain.NewAssembler().Add(tr.Transactions) {
		for _, a := range actions.Classify(trace, tr.Known) {
			list.Actions = append(list.Actions, &a)
		}
	}
	facts := map[string]chain.AddressFacts{}
	for _, tx := range tr.Transactions {
		f := facts[tx.Account]
		f.Known, f.Status = true, tx.EndStatus
		f.IsWallet = f.IsWallet || (tx.InMsg != nil && tx.InMsg.IsExternalIn())
		facts[tx.Account] = f
	}
	addrs := list.BookAddresses()
	list.AddressBook = make(chain.AddressBook, len(addrs))
	for _, a := range addrs {
		if entry, ok := chain.NewAddressBookEntry(a, facts[a], cfg.Network == "testnet"); ok {
			list.AddressBook[a] = entry
		}
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}
