// Package analytics turns decoded actions into token analytics: trades
// (one per swap hop against TON or USD₮), candles per interval, and jetton
// activity (transfers, mints, burns). It is pure: the store keeps the rows
// current in the transaction that writes the actions (store/analytics.go)
// and calls these functions to make them, so a rebuild from the actions
// and the incremental path share one definition.
//
// Which swaps count (the one rule, applied on write, on rebuild and
// documented in docs/API-NOTES.md):
//   - a JettonSwap whose status is ok; failed or refunded swaps moved no price;
//   - each hop of a multi-pool route (peer_swaps) is a trade of its own, with
//     the amounts into and out of that pool;
//   - a hop is a trade of a jetton against TON when one side is TON, else
//     against USD₮ when one side is USD₮; a hop between two other jettons
//     sets no price (their USD₮ prices come through TON);
//   - dust: a hop whose TON side is below 0.01 TON, or whose USD₮ side is
//     below 0.01 USD₮, or with a zero amount, is left out: such hops are
//     rounding residue and test swaps whose price says nothing;
//   - outliers are kept: a candle records the trades that happened, and a
//     wick from a thin pool is one of them (volume and VWAP say how much
//     traded there).
//
// An account's realized result per jetton and quote (Results) is by
// average cost, over its counted trades oldest first: a buy adds its
// jetton to what is held and its quote amount to the cost of it; a sell
// is matched against what is held (at most all of it), realizing the
// matched part's share of the proceeds less the same share of the cost
// (held cost times matched over held), and the cost and holding shrink by
// that share. Jetton sold beyond what counted buys left (it came by a
// transfer, a mint or a swap the rule does not count) has no known cost:
// it is reported as unmatched and realizes nothing. Results are exact
// fractions of the quote's smallest units until rendered.
//
// Prices are stored as reduced fractions of the trade's smallest units
// (quote units per base unit), volumes as decimal integers: nothing is
// rounded until a price is rendered for an answer.
package analytics
