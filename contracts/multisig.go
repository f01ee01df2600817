package contracts

import (
	"context"
	"math/big"
	"slices"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/getmethod"
)

// MultisigV2Code is the hash of multisig v2's code (ton-blockchain's
// multisig-contract-v2), the one code toncenter's indexer and tongo's ABI
// know it by. Its orders' code is a library cell (hash a01e057f...), not
// read here: docs/API-NOTES.md.
var MultisigV2Code = chain.Hash(ton.MustParseHash("d3d14da9a627f0ec3533341829762af92b9540b21bf03665fac09c2b46eabbac"))

// readMultisig runs get_multisig_data on a multisig v2 state; ok false
// when it does not answer in that contract's layout.
func (rd *Reader) readMultisig(ctx context.Context, st *chain.AccountState) (m chain.Multisig, ok bool, err error) {
	s, ok, err := rd.call(ctx, st, getmethod.GetMultisigData)
	if err != nil || !ok {
		return m, false, err
	}
	m, ok = multisigData(s)
	return m, ok, nil
}

// multisigData decodes get_multisig_data (next order seqno, threshold,
// signers dictionary, proposers dictionary or null) with tongo's ABI
// types.
func multisigData(s tlb.VmStack) (m chain.Multisig, ok bool) {
	_, v, err := abi.DecodeGetMultisigDataResult(s)
	if err != nil {
		return m, false
	}
	r, ok := v.(abi.GetMultisigDataResult)
	if !ok {
		return m, false
	}
	signers, ok := indexed(r.Signers.Signers.Items())
	if !ok || len(signers) == 0 {
		return m, false
	}
	var proposers []string
	if r.Proposers != nil {
		if proposers, ok = indexed(r.Proposers.Proposers.Items()); !ok {
			return m, false
		}
	}
	seqno := big.Int(r.Seqno)
	return chain.Multisig{NextOrderSeqno: seqno.String(), Threshold: int(r.Threshold), Signers: signers,
		Proposers: proposers}, true
}

// indexed is a signer or proposer dictionary's addresses in index order.
func indexed(items []tlb.HashmapItem[tlb.Uint8, tlb.MsgAddress]) ([]string, bool) {
	slices.SortFunc(items, func(a, b tlb.HashmapItem[tlb.Uint8, tlb.MsgAddress]) int { return int(a.Key) - int(b.Key) })
	out := make([]string, 0, len(items))
	for _, it := range items {
		id, err := ton.AccountIDFromTlb(it.Value)
		if err != nil || id == nil {
			return nil, false
		}
		out = append(out, chain.RawAddress(*id))
	}
	return out, true
}
