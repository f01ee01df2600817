// Package tokens is the token registry: it reads jetton masters and
// wallets, NFT collections and items from their account states with the
// get methods each standard defines (TEP-74 get_jetton_data and
// get_wallet_data, TEP-62 get_collection_data, get_nft_data and the
// collection's get_nft_content), stores what they answer keyed by the
// state's last transaction, and hands content cells to the metadata
// worker.
package tokens

import (
	"context"
	"math/big"
	"strings"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// The standards' get methods, by name (the VM calls them by id).
// Runner runs the get methods (getmethod.StateRunner).
type Runner = getmethod.StateRunner

// Reader reads registry records from account states.
type Reader struct {
	run Runner
}

func NewReader(r Runner) *Reader { return &Reader{run: r} }

// Unreadable are states the reader could not read (a get method that
// needs a library cell this server lacks, or a VM failure): by address,
// why. Their records are unknown, never guessed.
type Unreadable map[string]error

// Read reads every token among states (after-block states of the
// accounts, each at its own last transaction). facts tells what other
// accounts are (for an NFT item's owner: a sale contract or not); nil is
// none known. Accounts that are no token are left out.
func (rd *Reader) Read(ctx context.Context, states []chain.AccountState, saleContracts func(addrs []string) map[string]string) (*chain.TokenRecords, Unreadable, error) {
	out := &chain.TokenRecords{}
	bad := Unreadable{}
	byAddr := make(map[string]*chain.AccountState, len(states))
	for i := range states {
		byAddr[states[i].Address] = &states[i]
	}
	var items []*chain.NftItem
	for i := range states {
		st := &states[i]
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if st.Status != chain.AccountActive || len(st.ShardAccountBOC) == 0 || st.IsWallet {
			continue
		}
		methods, codeHash, dataHash, err := getmethod.Inspect(st)
		if err != nil {
			continue // no code to read: no token
		}
		if err := rd.readOne(ctx, st, methods, codeHash, dataHash, byAddr, out, &items); err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			bad[st.Address] = err
		}
	}
	if len(items) > 0 && saleContracts != nil {
		owners := make([]string, 0, len(items))
		for _, it := range items {
			if it.Owner != "" {
				owners = append(owners, it.Owner)
			}
		}
		sales := saleContracts(owners)
		for _, it := range items {
			if seller, ok := sales[it.Owner]; ok {
				it.SaleContract, it.RealOwner = it.Owner, seller
			}
		}
	}
	for _, it := range items {
		out.NftItems = append(out.NftItems, *it)
	}
	return out, bad, nil
}

// call runs m on st; ok false when the contract does not answer it with
// exit code 0 (not this kind of token).
func (rd *Reader) call(ctx context.Context, st *chain.AccountState, m getmethod.Method, stack tlb.VmStack) (tlb.VmStack, bool, error) {
	res, err := rd.run.RunState(ctx, st, m, stack)
	if err != nil {
		return tlb.VmStack{}, false, err
	}
	if res.ExitCode != 0 && res.ExitCode != 1 {
		return tlb.VmStack{}, false, nil
	}
	return res.Stack, true, nil
}

// readOne tries the standards in turn, the most common first.
func (rd *Reader) readOne(ctx context.Context, st *chain.AccountState, methods getmethod.MethodSet, codeHash, dataHash chain.Hash,
	states map[string]*chain.AccountState, out *chain.TokenRecords, items *[]*chain.NftItem) error {
	lt := st.LastTxLt
	if methods.Has(getmethod.GetWalletData) {
		s, ok, err := rd.call(ctx, st, getmethod.GetWalletData, tlb.VmStack{})
		if err != nil {
			return err
		}
		if w, good := walletData(s); ok && good {
			w.Address, w.CodeHash, w.DataHash, w.LastTxLt, w.LastTxHash = st.Address, codeHash, dataHash, lt, st.LastTxHash
			out.JettonWallets = append(out.JettonWallets, w)
			return nil
		}
	}
	if methods.Has(getmethod.GetJettonData) {
		s, ok, err := rd.call(ctx, st, getmethod.GetJettonData, tlb.VmStack{})
		if err != nil {
			return err
		}
		if m, good := jettonData(s); ok && good {
			m.Address, m.CodeHash, m.DataHash, m.LastTxLt = st.Address, codeHash, dataHash, lt
			out.JettonMasters = append(out.JettonMasters, m)
			return nil
		}
	}
	if methods.Has(getmethod.GetNftData) {
		s, ok, err := rd.call(ctx, st, getmethod.GetNftData, tlb.VmStack{})
		if err != nil {
			return err
		}
		if it, individual, good := nftData(s); ok && good {
			it.Address, it.CodeHash, it.DataHash, it.LastTxLt, it.OwnerKnown = st.Address, codeHash, dataHash, lt, true
			it.Content = rd.itemContent(ctx, &it, individual, states)
			*items = append(*items, &it)
			return nil
		}
	}
	if methods.Has(getmethod.GetCollectionData) {
		s, ok, err := rd.call(ctx, st, getmethod.GetCollectionData, tlb.VmStack{})
		if err != nil {
			return err
		}
		if c, good := collectionData(s); ok && good {
			c.Address, c.CodeHash, c.DataHash, c.LastTxLt = st.Address, codeHash, dataHash, lt
			out.NftCollections = append(out.NftCollections, c)
		}
	}
	return nil
}

// itemContent is an item's full content: its individual content alone
// when it has no collection, else what the collection's get_nft_content
// makes of it, on the collection's state after the same block when the
// block touched it, else on its stored state. nil when it cannot be made.
func (rd *Reader) itemContent(ctx context.Context, it *chain.NftItem, individual *boc.Cell, states map[string]*chain.AccountState) []byte {
	if individual == nil {
		return nil
	}
	if it.Collection == "" {
		b, _ := individual.ToBoc()
		return b
	}
	idx, ok := new(big.Int).SetString(it.Index, 10)
	if !ok {
		return nil
	}
	var stack tlb.VmStack
	stack.Put(tlb.VmStackValue{SumType: "VmStkInt", VmStkInt: tlb.Int257(*idx)})
	cv := tlb.VmStackValue{SumType: "VmStkCell"}
	cv.VmStkCell.Value = *individual
	stack.Put(cv)
	var res *getmethod.Result
	var err error
	if st := states[it.Collection]; st != nil {
		res, err = rd.run.RunState(ctx, st, getmethod.GetNftContent, stack)
	} else {
		id, perr := ton.ParseAccountID(it.Collection)
		if perr != nil {
			return nil
		}
		res, err = rd.run.Run(ctx, id, getmethod.GetNftContent, stack)
	}
	if err != nil || res.ExitCode != 0 || res.Stack.Len() != 1 {
		return nil
	}
	c, ok := getmethod.Cell(res.Stack.PeekBottom(0))
	if !ok {
		return nil
	}
	b, err := c.ToBoc()
	if err != nil {
		return nil
	}
	return b
}

// walletData: balance, owner, jetton, wallet_code.
func walletData(s tlb.VmStack) (w chain.JettonWallet, ok bool) {
	if s.Len() < 3 {
		return w, false
	}
	bal, ok1 := getmethod.Int(s.PeekBottom(0))
	owner, ok2 := getmethod.Address(s.PeekBottom(1))
	jetton, ok3 := getmethod.Address(s.PeekBottom(2))
	if !ok1 || !ok2 || !ok3 || bal.Sign() < 0 || owner == "" || jetton == "" {
		return w, false
	}
	w.Balance, w.Owner, w.Jetton = bal.String(), owner, jetton
	if s.Len() > 3 {
		if c, ok := getmethod.Cell(s.PeekBottom(3)); ok {
			w.WalletCode, _ = c.ToBoc()
		}
	}
	return w, true
}

// jettonData: total_supply, mintable, admin, content, wallet_code.
func jettonData(s tlb.VmStack) (m chain.JettonMaster, ok bool) {
	if s.Len() < 5 {
		return m, false
	}
	supply, ok1 := getmethod.Int(s.PeekBottom(0))
	mintable, ok2 := getmethod.Int(s.PeekBottom(1))
	admin, ok3 := getmethod.Address(s.PeekBottom(2))
	if !ok3 && s.PeekBottom(2).SumType == "VmStkNull" {
		ok3 = true
	}
	content, ok4 := getmethod.Cell(s.PeekBottom(3))
	walletCode, ok5 := getmethod.Cell(s.PeekBottom(4))
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || supply.Sign() < 0 {
		return m, false
	}
	b, err := content.ToBoc()
	if err != nil {
		return m, false
	}
	h, err := walletCode.Hash256()
	if err != nil {
		return m, false
	}
	m.TotalSupply, m.Mintable, m.Admin, m.Content, m.WalletCodeHash = supply.String(), mintable.Sign() != 0, admin, b, chain.Hash(h)
	m.WalletCode, _ = walletCode.ToBoc()
	return m, true
}

// nftData: init?, index, collection, owner, individual_content.
func nftData(s tlb.VmStack) (it chain.NftItem, individual *boc.Cell, ok bool) {
	if s.Len() < 5 {
		return it, nil, false
	}
	init, ok1 := getmethod.Int(s.PeekBottom(0))
	idx, ok2 := getmethod.Int(s.PeekBottom(1))
	coll, ok3 := getmethod.Address(s.PeekBottom(2))
	owner, ok4 := getmethod.Address(s.PeekBottom(3))
	if !ok4 && s.PeekBottom(3).SumType == "VmStkNull" {
		ok4 = true // not initialized yet
	}
	if !ok1 || !ok2 || !ok3 || !ok4 || idx.Sign() < 0 {
		return it, nil, false
	}
	it.Init, it.Index, it.Collection, it.Owner = init.Sign() != 0, idx.String(), coll, owner
	if c, ok := getmethod.Cell(s.PeekBottom(4)); ok {
		individual = c
	}
	return it, individual, true
}

// collectionData: next_item_index, content, owner.
func collectionData(s tlb.VmStack) (c chain.NftCollection, ok bool) {
	if s.Len() < 3 {
		return c, false
	}
	next, ok1 := getmethod.Int(s.PeekBottom(0))
	content, ok2 := getmethod.Cell(s.PeekBottom(1))
	owner, ok3 := getmethod.Address(s.PeekBottom(2))
	if !ok3 && s.PeekBottom(2).SumType == "VmStkNull" {
		ok3 = true
	}
	if !ok1 || !ok2 || !ok3 {
		return c, false
	}
	b, err := content.ToBoc()
	if err != nil {
		return c, false
	}
	c.NextItemIndex, c.Content, c.Owner = next.String(), b, owner
	return c, true
}

// IsSaleInterface tells whether an interface name (as tongo names code)
// is a sale or auction contract's.
func IsSaleInterface(name string) bool {
	return strings.HasPrefix(name, "nft_sale") || strings.HasPrefix(name, "nft_auction")
}
