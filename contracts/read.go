// Package contracts reads the contracts other than tokens that toncenter's
// v3 API answers from their state: NFT sale contracts (get_sale_data),
// vesting wallets (get_vesting_data, get_whitelist), TON DNS items
// (get_nft_data, get_domain, dnsresolve) and multisig v2 wallets
// (get_multisig_data) and their orders (get_order_data). Like the token
// registry it runs their get methods with the project's TVM runner on
// each account's state after an imported or followed batch, and the store
// keeps what they answer keyed by that state's last transaction.
package contracts

import (
	"context"

	"github.com/tonkeeper/tongo/tlb"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// Runner runs the get methods (getmethod.StateRunner).
type Runner = getmethod.StateRunner

// Reader reads contract records from account states.
type Reader struct {
	run   Runner
	roots map[string]DNSZone
}

// NewReader reads with r; DNS items are those of mainnet's roots.
func NewReader(r Runner) *Reader { return &Reader{run: r, roots: DNSRoots(false)} }

// WithDNSRoots reads the DNS items of roots instead (DNSRoots(true) on
// testnet).
func (rd *Reader) WithDNSRoots(roots map[string]DNSZone) *Reader {
	rd.roots = roots
	return rd
}

// Read reads every sale, vesting contract, DNS item and multisig among states; the
// others are left out. bad are the states whose get methods could not run (a library
// this server lacks, a VM failure): unknown, never guessed.
func (rd *Reader) Read(ctx context.Context, states []chain.AccountState) (*chain.ContractRecords, map[string]error, error) {
	out := &chain.ContractRecords{}
	bad := map[string]error{}
	byAddr := make(map[string]*chain.AccountState, len(states))
	for i := range states {
		byAddr[states[i].Address] = &states[i]
	}
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
			continue
		}
		if err := rd.readOne(ctx, st, methods, codeHash, dataHash, byAddr, out); err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			bad[st.Address] = err
		}
	}
	return out, bad, nil
}

func (rd *Reader) readOne(ctx context.Context, st *chain.AccountState, methods getmethod.MethodSet, codeHash, dataHash chain.Hash,
	states map[string]*chain.AccountState, out *chain.ContractRecords) error {
	read := chain.ContractState{CodeHash: codeHash, DataHash: dataHash, LastTxLt: st.LastTxLt, Known: true}
	switch codeHash {
	case MultisigV2Code:
		m, ok, err := rd.readMultisig(ctx, st)
		if err != nil || !ok {
			return err
		}
		m.Address, m.ContractState = st.Address, read
		out.Multisigs = append(out.Multisigs, m)
		return nil
	case MultisigOrderCode:
		o, ok, err := rd.readOrder(ctx, st)
		if err != nil || !ok {
			return err
		}
		o.Address, o.ContractState = st.Address, read
		out.Orders = append(out.Orders, o)
		return nil
	}
	if methods.Has(getmethod.DNSResolve) && methods.Has(getmethod.GetNftData) && len(rd.roots) > 0 {
		e, ok, err := rd.readDNS(ctx, st, states)
		if err != nil {
			return err
		}
		if ok {
			out.DNS = append(out.DNS, e)
			return nil
		}
	}
	if methods.Has(getmethod.GetSaleData) {
		s, ok, err := rd.call(ctx, st, getmethod.GetSaleData)
		if err != nil {
			return err
		}
		if sale, good := saleData(s); ok && good {
			sale.Address, sale.ContractState = st.Address, read
			out.Sales = append(out.Sales, sale)
			return nil
		}
	}
	if methods.Has(getmethod.GetVestingData) && methods.Has(getmethod.GetWhitelist) {
		s, ok, err := rd.call(ctx, st, getmethod.GetVestingData)
		if err != nil {
			return err
		}
		v, good := vestingData(s)
		if !ok || !good {
			return nil
		}
		w, ok, err := rd.call(ctx, st, getmethod.GetWhitelist)
		if err != nil {
			return err
		}
		if v.Whitelist, good = whitelist(w); !ok || !good {
			return nil
		}
		v.Address, v.ContractState = st.Address, read
		out.Vestings = append(out.Vestings, v)
	}
	return nil
}

// call runs m on st; ok false when the contract does not answer it with
// exit code 0 or 1 (not this kind of contract).
func (rd *Reader) call(ctx context.Context, st *chain.AccountState, m getmethod.Method) (tlb.VmStack, bool, error) {
	res, err := rd.run.RunState(ctx, st, m, tlb.VmStack{})
	if err != nil {
		return tlb.VmStack{}, false, err
	}
	if res.ExitCode != 0 && res.ExitCode != 1 {
		return tlb.VmStack{}, false, nil
	}
	return res.Stack, true, nil
}
