package contracts

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// TON DNS items (TEP-81): NFT items of a DNS root collection whose
// record set dnsresolve answers. Only the roots' own items are read, as
// toncenter does: an item is one when its root's get_nft_address_by_index
// names it, so no other contract can claim a name.

// DNSZone is how the items of a root collection tell their name.
type DNSZone uint8

const (
	// ZoneTon items answer get_domain with their name in .ton.
	ZoneTon DNSZone = iota + 1
	// ZoneTMe items answer get_full_domain with the name's labels from
	// the top, each ended by a zero byte ("me\0t\0alice\0").
	ZoneTMe
)

// DNSRoots are the DNS root collections toncenter reads on a network:
// raw address -> zone (t.me has no testnet root).
func DNSRoots(testnet bool) map[string]DNSZone {
	if testnet {
		return map[string]DNSZone{"0:E33ED33A42EB2032059F97D90C706F8400BB256D32139CA707F1564AD699C7DD": ZoneTon}
	}
	return map[string]DNSZone{
		"0:B774D95EB20543F186C06B371AB88AD704F7E256130CAF96189368A7D0CB6CCF": ZoneTon,
		"0:80D78A35F955A14B679FAA887FF4CD5BFC0F43B4A4EEA2A7E6927F3701B273C2": ZoneTMe,
	}
}

// The record set's keys: sha256 of each category's name (TEP-81).
var (
	catWallet       = tlb.Bits256(sha256.Sum256([]byte("wallet")))
	catNextResolver = tlb.Bits256(sha256.Sum256([]byte("dns_next_resolver")))
	catSite         = tlb.Bits256(sha256.Sum256([]byte("site")))
	catStorage      = tlb.Bits256(sha256.Sum256([]byte("storage")))
)

// readDNS reads st as a DNS item of one of the roots; ok false when it is
// none. states are the batch's states by address: the root's is used
// when the batch holds it, else the stored one.
func (rd *Reader) readDNS(ctx context.Context, st *chain.AccountState, states map[string]*chain.AccountState) (out chain.DNSEntry, ok bool, err error) {
	s, ok, err := rd.call(ctx, st, getmethod.GetNftData)
	if err != nil || !ok || s.Len() != 5 {
		return out, false, err
	}
	index, ok1 := getmethod.Int(s.PeekBottom(1))
	root, ok2 := getmethod.Address(s.PeekBottom(2))
	owner, ok3 := getmethod.Address(s.PeekBottom(3))
	zone := rd.roots[root]
	if !ok1 || !ok2 || !ok3 || zone == 0 {
		return out, false, nil
	}
	if ok, err := rd.rootHolds(ctx, root, index, st.Address, states); err != nil || !ok {
		return out, false, err
	}
	domain, ok, err := rd.domain(ctx, st, zone)
	if err != nil || !ok {
		return out, false, err
	}
	out = chain.DNSEntry{Address: st.Address, Owner: owner, Domain: domain, LastTxLt: st.LastTxLt, Known: true}
	return out, true, rd.records(ctx, st, &out)
}

// rootHolds tells whether root's get_nft_address_by_index(index) is item.
func (rd *Reader) rootHolds(ctx context.Context, root string, index *big.Int, item string, states map[string]*chain.AccountState) (bool, error) {
	var stack tlb.VmStack
	stack.Put(tlb.VmStackValue{SumType: "VmStkInt", VmStkInt: tlb.Int257(*index)})
	var res *getmethod.Result
	var err error
	if rst := states[root]; rst != nil {
		res, err = rd.run.RunState(ctx, rst, getmethod.GetNftAddressByIndex, stack)
	} else {
		id, perr := ton.ParseAccountID(root)
		if perr != nil {
			return false, perr
		}
		res, err = rd.run.Run(ctx, id, getmethod.GetNftAddressByIndex, stack)
	}
	if err != nil {
		return false, fmt.Errorf("DNS root %s: %w", root, err)
	}
	if res.ExitCode == getmethod.ExitNotActive {
		// The store holds no state of the root yet: unknown, not "no".
		return false, fmt.Errorf("DNS root %s: no active state stored", root)
	}
	if res.ExitCode != 0 || res.Stack.Len() != 1 {
		return false, nil
	}
	addr, ok := getmethod.Address(res.Stack.PeekBottom(0))
	return ok && addr == item, nil
}

// domain is the item's full name.
func (rd *Reader) domain(ctx context.Context, st *chain.AccountState, zone DNSZone) (string, bool, error) {
	m := getmethod.GetDomain
	if zone == ZoneTMe {
		m = getmethod.GetFullDomain
	}
	s, ok, err := rd.call(ctx, st, m)
	if err != nil || !ok {
		return "", false, err
	}
	if zone == ZoneTon {
		_, v, err := abi.DecodeGetDomainResult(s)
		if err != nil || v.(abi.GetDomainResult).Domain == "" {
			return "", false, nil
		}
		return v.(abi.GetDomainResult).Domain + ".ton", true, nil
	}
	_, v, err := abi.DecodeGetFullDomainResult(s)
	if err != nil {
		return "", false, nil
	}
	name := FullDomainName(v.(abi.GetFullDomainResult).Domain)
	return name, name != "", nil
}

// FullDomainName turns get_full_domain's labels ("me\0t\0alice\0", the
// top first) into a name ("alice.t.me").
func FullDomainName(labels string) string {
	parts := strings.Split(strings.TrimSuffix(labels, "\x00"), "\x00")
	if slices.Contains(parts, "") {
		return ""
	}
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// records reads the item's record set (dnsresolve of "." in category 0,
// all of them) into e. A record of another type than its category's
// (TEP-81's dns_smc_address for wallet, dns_next_resolver,
// dns_adnl_address for site, dns_storage_address for storage) is left
// out, as toncenter leaves it.
func (rd *Reader) records(ctx context.Context, st *chain.AccountState, e *chain.DNSEntry) error {
	self, err := tlb.TlbStructToVmCellSlice([]byte{0})
	if err != nil {
		return err
	}
	var stack tlb.VmStack
	stack.Put(self)
	stack.Put(tlb.VmStackValue{SumType: "VmStkTinyInt"})
	res, err := rd.run.RunState(ctx, st, getmethod.DNSResolve, stack)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 && res.ExitCode != 1 {
		return fmt.Errorf("dnsresolve: exit code %d", res.ExitCode)
	}
	if res.Stack.Len() == 2 && res.Stack.Peek(0).SumType == "VmStkNull" {
		return nil // no records
	}
	_, v, err := abi.DecodeDnsresolve_RecordsResult(res.Stack)
	if err != nil {
		return fmt.Errorf("dnsresolve: %w", err)
	}
	set := v.(abi.Dnsresolve_RecordsResult)
	if set.ResolvedBits != 8 {
		return fmt.Errorf("dnsresolve resolved %d bits of 8", set.ResolvedBits)
	}
	recs := set.Result.Records
	if r, ok := recs.Get(catWallet); ok && r.Value.SumType == "DNSSmcAddress" {
		e.Wallet = rawOf(r.Value.DNSSmcAddress.Address)
	}
	if r, ok := recs.Get(catNextResolver); ok && r.Value.SumType == "DNSNextResolver" {
		e.NextResolver = rawOf(r.Value.DNSNextResolver)
	}
	if r, ok := recs.Get(catSite); ok && r.Value.SumType == "DNSAdnlAddress" {
		e.SiteADNL = chain.Hash(r.Value.DNSAdnlAddress.Address).Base64()
	}
	if r, ok := recs.Get(catStorage); ok && r.Value.SumType == "DNSStorageAddress" {
		e.StorageBagID = chain.Hash(r.Value.DNSStorageAddress).Base64()
	}
	return nil
}

// rawOf is a record's internal address, "" for any other.
func rawOf(a tlb.MsgAddress) string {
	id, err := ton.AccountIDFromTlb(a)
	if err != nil || id == nil {
		return ""
	}
	return chain.RawAddress(*id)
}
