package analytics

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/tonql/tonql/chain"
)

// TON is the quote key of prices in Toncoin (a jetton's quote key is its
// master's raw address).
const TON = "TON"

// USDT is the raw address of Tether's USD₮ jetton master on mainnet.
const USDT = "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE"

// Dust thresholds of the rule in the package doc, in smallest units.
var (
	minTON  = big.NewInt(10_000_000) // 0.01 TON
	minUSDT = big.NewInt(10_000)     // 0.01 USD₮ (6 decimals)
)

// Trade is one hop of a successful swap between a jetton (the base) and
// TON or USD₮ (the quote).
type Trade struct {
	ActionID string
	Hop      int
	TraceID  string
	Utime    int64
	Lt       int64
	Jetton   string
	Quote    string
	Base     *big.Int // jetton units
	QuoteAmt *big.Int // nanotons or USD₮ units
	// Buy: the trader paid the quote and got the jetton.
	Buy    bool
	Trader string
}

// Key orders trades in time: by unix time, then logical time, action and
// hop, so the first and last trade of a candle are the same on every path.
func (t *Trade) Key() string {
	return fmt.Sprintf("%012d/%020d/%s/%03d", t.Utime, t.Lt, t.ActionID, t.Hop)
}

// ParseKey reads a Key back; ok false when s is not one.
func ParseKey(s string) (utime, lt int64, actionID string, hop int, ok bool) {
	if len(s) < 12+1+20+1+1+1+3 || s[12] != '/' || s[33] != '/' || s[len(s)-4] != '/' {
		return 0, 0, "", 0, false
	}
	u, err1 := strconv.ParseInt(s[:12], 10, 64)
	l, err2 := strconv.ParseInt(s[13:33], 10, 64)
	h, err3 := strconv.Atoi(s[len(s)-3:])
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, "", 0, false
	}
	return u, l, s[34 : len(s)-4], h, true
}

// Price is the trade's price as a fraction: quote units per jetton unit.
func (t *Trade) Price() *big.Rat { return new(big.Rat).SetFrac(t.QuoteAmt, t.Base) }

type hop struct {
	assetIn, assetOut   string
	amountIn, amountOut string
}

// TradesOf is the trades an action counts as, by the rule of the package
// doc; nil for any other action.
func TradesOf(a *chain.Action) []Trade {
	if a.Type != "JettonSwap" || a.Status != chain.StatusOK {
		return nil
	}
	var v swapFields
	if json.Unmarshal(a.Value, &v) != nil {
		return nil
	}
	hops := []hop{{string(v.JettonMasterIn), string(v.JettonMasterOut), string(v.AmountIn), string(v.AmountOut)}}
	if len(v.PeerSwaps) > 1 {
		hops = hops[:0]
		for _, p := range v.PeerSwaps {
			hops = append(hops, hop{string(p.AssetIn), string(p.AssetOut), string(p.AmountIn), string(p.AmountOut)})
		}
	}
	var out []Trade
	for i, h := range hops {
		t, ok := tradeOf(h)
		if !ok {
			continue
		}
		t.ActionID, t.Hop, t.TraceID = a.ActionID, i, a.TraceID
		t.Utime, t.Lt = int64(a.EndUtime), int64(a.EndLt)
		t.Trader = string(v.Sender)
		out = append(out, t)
	}
	return out
}

// tradeOf pairs a hop's two sides as jetton against quote.
func tradeOf(h hop) (Trade, bool) {
	in, ok1 := new(big.Int).SetString(h.amountIn, 10)
	out, ok2 := new(big.Int).SetString(h.amountOut, 10)
	if !ok1 || !ok2 || in.Sign() <= 0 || out.Sign() <= 0 || h.assetIn == h.assetOut {
		return Trade{}, false
	}
	quoteOf := func(asset string) string {
		switch asset {
		case "":
			return TON
		case USDT:
			return USDT
		}
		return ""
	}
	var t Trade
	switch qi, qo := quoteOf(h.assetIn), quoteOf(h.assetOut); {
	case qi == TON || (qi == USDT && qo != TON):
		// The trader paid TON (or USD₮ for a jetton): a buy of the other side.
		t = Trade{Jetton: h.assetOut, Quote: qi, Base: out, QuoteAmt: in, Buy: true}
	case qo != "":
		t = Trade{Jetton: h.assetIn, Quote: qo, Base: in, QuoteAmt: out}
	default:
		return Trade{}, false
	}
	if t.Jetton == "" {
		return Trade{}, false
	}
	floor := minTON
	if t.Quote == USDT {
		floor = minUSDT
	}
	return t, t.QuoteAmt.Cmp(floor) >= 0
}
