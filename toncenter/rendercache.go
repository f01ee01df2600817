package toncenter

import (
	"maps"
	"strconv"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/tonql/tonql/chain"
)

// decodedCacheSize bounds the raw transactions whose decoded part one
// process keeps: a few KB each (the messages' BOCs and the description),
// so some 10-20 MB.
const decodedCacheSize = 4096

// decoded is what RenderTransaction reads from a raw transaction's BOC.
// Decoding it (tongo's TL-B, then every message's cells hashed and
// serialized again) was about half of a /api/v3/transactions page's CPU
// and 42% of a traces page's (server.BenchmarkChainPages profile), while
// the same transactions come back page after page (a wallet's newest,
// polled by every client). A BOC never changes, so its decoded part is
// kept, keyed by the BOC itself and the account's workchain (the two
// inputs of decode: the key cannot name a different transaction, which a
// hash passed alongside could). It is never changed once made: each
// render copies the messages it hands out (callers set fields on them).
type decoded struct {
	prevTransHash, prevTransLt string
	feesExtra                  map[string]string
	description                *TransactionDescr
	stateBefore, stateAfter    string // account state hashes
	inMsg                      *Message
	outMsgs                    []*Message
}

var decodedCache, _ = lru.New[string, *decoded](decodedCacheSize)

// decodedOf is t's decoded part, from the cache or decoded now.
func decodedOf(t *chain.Transaction) (*decoded, error) {
	key := strconv.Itoa(int(workchainOf(t.Account))) + ":" + string(t.BOC)
	if d, ok := decodedCache.Get(key); ok {
		return d, nil
	}
	d, err := decodeBOC(t)
	if err != nil {
		return nil, err
	}
	decodedCache.Add(key, d)
	return d, nil
}

// apply sets d's fields on out, with copies of its messages.
func (d *decoded) apply(out *Transaction) {
	out.PrevTransHash, out.PrevTransLt = ptr(d.prevTransHash), ptr(d.prevTransLt)
	out.TotalFeesExtraCurrencies = maps.Clone(d.feesExtra)
	out.Description = d.description
	out.AccountStateBefore = &AccountState{Hash: d.stateBefore, BalanceExtraCurrencies: map[string]string{}}
	out.AccountStateAfter = &AccountState{Hash: d.stateAfter, BalanceExtraCurrencies: map[string]string{}}
	if d.inMsg != nil {
		m := *d.inMsg
		out.InMsg = &m
	}
	for _, o := range d.outMsgs {
		m := *o
		out.OutMsgs = append(out.OutMsgs, &m)
	}
}
