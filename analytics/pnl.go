package analytics

import "math/big"

// Result is an account's realized result in one jetton against one quote,
// by the average-cost rule (package doc): amounts in smallest units,
// money as exact fractions of the quote's smallest units.
type Result struct {
	Jetton, Quote string
	Trades        int64
	Bought, Sold  *big.Int // jetton units
	// Spent on buys and Received for sells, quote units.
	Spent, Received *big.Int
	// Held is what the buys left after the sells (jetton units), at Cost
	// (quote units): the basis the next sell is matched against.
	Held *big.Int
	Cost *big.Rat
	// Realized is what the matched sells brought above their cost.
	Realized *big.Rat
	// Unmatched is the jetton sold beyond what the counted buys left
	// (received by transfer, a mint or an uncounted swap): its cost is not
	// known, so it realized nothing here.
	Unmatched *big.Int
}

// Results applies the average-cost rule to trades (of one account, any
// jettons and quotes), oldest first, in the order their keys sort: one
// Result per jetton and quote, in the order each first traded.
func Results(trades []Trade) []*Result {
	type pair struct{ jetton, quote string }
	by := map[pair]*Result{}
	var out []*Result
	for i := range trades {
		t := &trades[i]
		k := pair{t.Jetton, t.Quote}
		r := by[k]
		if r == nil {
			r = &Result{Jetton: t.Jetton, Quote: t.Quote, Bought: new(big.Int), Sold: new(big.Int), Spent: new(big.Int),
				Received: new(big.Int), Held: new(big.Int), Cost: new(big.Rat), Realized: new(big.Rat), Unmatched: new(big.Int)}
			by[k] = r
			out = append(out, r)
		}
		r.add(t)
	}
	return out
}

// add applies one trade.
func (r *Result) add(t *Trade) {
	r.Trades++
	if t.Buy {
		r.Bought.Add(r.Bought, t.Base)
		r.Spent.Add(r.Spent, t.QuoteAmt)
		r.Held.Add(r.Held, t.Base)
		r.Cost.Add(r.Cost, new(big.Rat).SetInt(t.QuoteAmt))
		return
	}
	r.Sold.Add(r.Sold, t.Base)
	r.Received.Add(r.Received, t.QuoteAmt)
	matched := new(big.Int).Set(t.Base)
	if matched.Cmp(r.Held) > 0 {
		matched.Set(r.Held)
	}
	r.Unmatched.Add(r.Unmatched, new(big.Int).Sub(t.Base, matched))
	if matched.Sign() == 0 {
		return
	}
	// The matched part's share of the proceeds, less its share of the cost.
	proceeds := new(big.Rat).SetFrac(new(big.Int).Mul(t.QuoteAmt, matched), t.Base)
	cost := new(big.Rat).Mul(r.Cost, new(big.Rat).SetFrac(matched, r.Held))
	r.Realized.Add(r.Realized, proceeds.Sub(proceeds, cost))
	r.Cost.Sub(r.Cost, cost)
	r.Held.Sub(r.Held, matched)
}
