package resolvers

import (
	"context"
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/analytics"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/cost"
	"github.com/tonql/tonql/graph/model"
	"github.com/tonql/tonql/store"
)

// MaxTime is the latest unix time a range may name (tonapi's bound of its
// chart dates, 2037-01-01): past it the arithmetic of intervals would
// overflow long before any answer.
const MaxTime = 2114380800

// DefaultPoints is the intervals a series spans when from is not given.
const DefaultPoints = 100

// SeriesArgs are the arguments of a candle or volume series. Quote is
// "TON" (default) or "USDT" (candles only); From and To are unix times
// (To defaults to now, From to DefaultPoints intervals before To).
type SeriesArgs struct {
	Token    string
	Quote    string
	Interval string
	From, To *int64
}

// series is a checked SeriesArgs.
type series struct {
	token    *model.Token
	quote    string
	iv       analytics.Interval
	from, to int64
}

// quoteOf reads the quote argument.
func quoteOf(field, s string) (string, int, error) {
	switch strings.ToUpper(s) {
	case "", "TON", "GRAM":
		return analytics.TON, analytics.TONDecimals, nil
	case "USDT", "USD₮":
		return analytics.USDT, analytics.USDTDecimals, nil
	}
	return "", 0, apperr.Field(field, "%q is not a quote: TON or USDT", s)
}

// quoteName is the quote as answers name it.
func quoteName(q string) string {
	if q == analytics.USDT {
		return "USDT"
	}
	return "TON"
}

func (r *Resolver) seriesOf(ctx context.Context, a SeriesArgs) (*series, error) {
	iv, ok := analytics.ParseInterval(a.Interval)
	if !ok {
		return nil, apperr.Field("interval", "%q is not an interval: one of %s", a.Interval, analytics.IntervalNames())
	}
	quote, _, err := quoteOf("quote", a.Quote)
	if err != nil {
		return nil, err
	}
	to := time.Now().Unix()
	if a.To != nil {
		to = *a.To
	}
	from := to - DefaultPoints*iv.Seconds
	if a.From != nil {
		from = *a.From
	}
	switch {
	case from < 0 || from > MaxTime:
		return nil, apperr.Field("from", "must be a unix time from 0 to %d", MaxTime)
	case to > MaxTime:
		return nil, apperr.Field("to", "must be a unix time up to %d", MaxTime)
	case to <= from:
		return nil, apperr.Field("from", "must be before to (%d is not before %d)", from, to)
	}
	// Whole intervals: from's bucket up to the one holding to.
	from = iv.Bucket(from)
	if err := cost.Points("to", (to-from+iv.Seconds-1)/iv.Seconds); err != nil {
		return nil, err
	}
	tok, err := r.knownJetton(ctx, "token", a.Token)
	if err != nil {
		return nil, err
	}
	return &series{token: tok, quote: quote, iv: iv, from: from, to: to}, nil
}

// knownJetton reads a jetton argument: the registry's token, or one the
// store has trades or moves of (a jetton the registry has not met); any
// other address is unknown.
func (r *Resolver) knownJetton(ctx context.Context, field, address string) (*model.Token, error) {
	raw, err := chain.NormalizeAddress(address)
	if err != nil {
		return nil, apperr.Field(field, "%s", err.Error())
	}
	toks, err := r.Tokens(ctx, []string{raw}, chain.TokenJettonMaster)
	if err != nil {
		return nil, err
	}
	t := toks[raw]
	if t.Reason != nil && *t.Reason == "unknown" && t.TotalSupply == nil {
		seen, err := r.Store.JettonSeen(ctx, raw)
		if err != nil {
			return nil, err
		}
		if !seen {
			return nil, apperr.Field(field, "unknown jetton %s: the store has no registry entry, trade or transfer of it", raw)
		}
	}
	return t, nil
}

// decimalsOf are a token's decimals: the registry's, TEP-64's 9 when it
// knows none (and USD₮'s 6, a fixed fact of that master).
func decimalsOf(t *model.Token) int {
	switch {
	case t.Decimals != nil:
		return *t.Decimals
	case t.Address == analytics.USDT:
		return analytics.USDTDecimals
	}
	return 9
}

// head is what the answer says of the series.
func (s *series) head() analytics.Series {
	return analytics.Series{Token: s.token.Address, Interval: s.iv.Name, From: s.from, To: s.to, Decimals: decimalsOf(s.token), Symbol: s.token.Symbol}
}

// Candles is a jetton's candles against a quote.
func (r *Resolver) Candles(ctx context.Context, a SeriesArgs) (*analytics.CandleSeries, error) {
	s, err := r.seriesOf(ctx, a)
	if err != nil {
		return nil, err
	}
	list, err := r.Store.Candles(ctx, s.token.Address, s.quote, s.iv, s.from, s.to, cost.MaxPoints)
	if err != nil {
		return nil, err
	}
	_, qd, _ := quoteOf("quote", quoteName(s.quote))
	out := &analytics.CandleSeries{Series: s.head(), Quote: quoteName(s.quote), QuoteDecimals: qd, Candles: make([]analytics.CandlePoint, len(list))}
	for i := range list {
		out.Candles[i] = list[i].Point(out.Decimals, qd)
	}
	return out, nil
}

// TokenVolumes is a jetton's activity per interval.
func (r *Resolver) TokenVolumes(ctx context.Context, a SeriesArgs) (*analytics.VolumeSeries, error) {
	a.Quote = ""
	s, err := r.seriesOf(ctx, a)
	if err != nil {
		return nil, err
	}
	list, err := r.Store.Volumes(ctx, s.token.Address, s.iv, s.from, s.to, cost.MaxPoints)
	if err != nil {
		return nil, err
	}
	out := &analytics.VolumeSeries{Series: s.head(), Volumes: make([]analytics.VolumePoint, len(list))}
	for i := range list {
		out.Volumes[i] = list[i].Point()
	}
	return out, nil
}

// wholePrice is a jetton's last price in whole quote tokens per whole
// jetton, and the time of the trade; nil when it never traded so. USD₮
// goes through TON when the jetton has no USD₮ pair (and TON itself,
// token "", is priced by USD₮'s TON price).
func (r *Resolver) wholePrice(ctx context.Context, tok *model.Token, quote string) (*big.Rat, int64, string, error) {
	return r.wholePriceAt(ctx, tok, quote, math.MaxInt64)
}

// wholePriceAt is wholePrice as of the minutes starting before at: the
// close of the last 1m candle among them.
func (r *Resolver) wholePriceAt(ctx context.Context, tok *model.Token, quote string, at int64) (*big.Rat, int64, string, error) {
	if tok.Address == quote {
		return big.NewRat(1, 1), 0, "direct", nil
	}
	_, qd, _ := quoteOf("quote", quoteName(quote))
	if tok.Address != "" {
		c, err := r.Store.CandleBefore(ctx, tok.Address, quote, analytics.Intervals[0], at)
		if err != nil {
			return nil, 0, "", err
		}
		if c != nil {
			return analytics.WholePrice(c.Close.Rat(), decimalsOf(tok), qd), lastTime(c), "direct", nil
		}
	}
	if quote != analytics.USDT {
		if tok.Address == "" { // TON in TON
			return big.NewRat(1, 1), 0, "direct", nil
		}
		return nil, 0, "", nil
	}
	// USD₮ through TON: the jetton in TON times TON in USD₮ (the inverse
	// of USD₮'s TON price).
	usdt, err := r.Store.CandleBefore(ctx, analytics.USDT, analytics.TON, analytics.Intervals[0], at)
	if err != nil || usdt == nil {
		return nil, 0, "", err
	}
	tonUSD := new(big.Rat).Inv(analytics.WholePrice(usdt.Close.Rat(), analytics.USDTDecimals, analytics.TONDecimals))
	if tok.Address == "" {
		return tonUSD, lastTime(usdt), "direct", nil
	}
	inTON, t, _, err := r.wholePriceAt(ctx, tok, analytics.TON, at)
	if err != nil || inTON == nil {
		return nil, 0, "", err
	}
	return inTON.Mul(inTON, tonUSD), min(t, lastTime(usdt)), "TON", nil
}

// lastTime is the unix time of a candle's last trade.
func lastTime(c *analytics.Candle) int64 {
	u, _, _, _, _ := analytics.ParseKey(c.CloseKey)
	return u
}

// Price is a jetton's last trade price in a quote; nil when none.
func (r *Resolver) Price(ctx context.Context, tok *model.Token, quote string) (*analytics.TokenPrice, error) {
	q, _, err := quoteOf("quote", quote)
	if err != nil {
		return nil, err
	}
	p, t, via, err := r.wholePrice(ctx, tok, q)
	if err != nil || p == nil {
		return nil, err
	}
	return &analytics.TokenPrice{Quote: quoteName(q), Price: analytics.Decimal(p, 0, analytics.PriceDigits), Time: t, Via: via}, nil
}

// offsetPage reads first and after of a list paged by offset (after is the
// offset's cursor); limit includes one more row that tells a next page.
func offsetPage(first *int, after *string, def int) (limit, offset int, err error) {
	limit = def
	if first != nil {
		if *first < 1 || *first > MaxTokenLimit {
			return 0, 0, apperr.Field("first", "must be from 1 to %d", MaxTokenLimit)
		}
		limit = *first
	}
	if after != nil && *after != "" {
		b, err := base64.RawURLEncoding.DecodeString(*after)
		if err == nil {
			offset, err = strconv.Atoi(string(b))
		}
		if err != nil || offset < 0 {
			return 0, 0, apperr.Field("after", "not a cursor of this list")
		}
		if offset > cost.MaxOffset {
			return 0, 0, apperr.Field("after", "past the deepest page (%d rows)", cost.MaxOffset)
		}
	}
	return limit + 1, offset, nil
}

// Holders is Token.holders: the jetton's wallets the store knows, largest
// balance first.
func (r *Resolver) Holders(ctx context.Context, tok *model.Token, first *int, after *string) (*model.TokenHolderConnection, error) {
	limit, offset, err := offsetPage(first, after, DefaultTokenLimit)
	if err != nil {
		return nil, err
	}
	list, err := r.Store.JettonWallets(ctx, store.JettonWalletFilter{Jettons: []string{tok.Address}, ExcludeZero: true, SortBalance: "desc",
		TokenPage: store.TokenPage{Limit: limit, Offset: offset}})
	if err != nil {
		return nil, err
	}
	count, err := r.Store.JettonHolderCount(ctx, tok.Address)
	if err != nil {
		return nil, err
	}
	n := min(len(list), limit-1)
	out := &model.TokenHolderConnection{Count: count, PageInfo: &model.PageInfo{HasNextPage: len(list) == limit}}
	for i, w := range list[:n] {
		if w.Balance == "" {
			break // unknown balances come last
		}
		c := base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset + i + 1)))
		out.Edges = append(out.Edges, &model.TokenHolderEdge{Cursor: c,
			Node: &model.TokenHolder{Owner: w.Owner, Wallet: w.Address, Balance: actions.BigInt(w.Balance)}})
		out.PageInfo.EndCursor = &c
	}
	if out.Edges == nil {
		out.Edges = []*model.TokenHolderEdge{}
	}
	return out, nil
}

// AccountTrades is Account.trades: its counted swap hops, newest first.
func (r *Resolver) AccountTrades(ctx context.Context, account string, first *int, after *string) (*model.TradeConnection, error) {
	limit := DefaultActionsLimit
	if first != nil {
		if *first < 1 || *first > MaxTokenLimit {
			return nil, apperr.Field("first", "must be from 1 to %d", MaxTokenLimit)
		}
		limit = *first
	}
	before := ""
	if after != nil && *after != "" {
		b, err := base64.RawURLEncoding.DecodeString(*after)
		if _, _, _, _, ok := analytics.ParseKey(string(b)); err != nil || !ok {
			return nil, apperr.Field("after", "not a cursor of this list")
		}
		before = string(b)
	}
	list, err := r.Store.Trades(ctx, account, before, limit+1)
	if err != nil {
		return nil, err
	}
	out := &model.TradeConnection{Edges: []*model.TradeEdge{}, PageInfo: &model.PageInfo{HasNextPage: len(list) > limit}}
	list = list[:min(len(list), limit)]
	jettons := make([]string, 0, len(list))
	for _, t := range list {
		jettons = append(jettons, t.Jetton)
	}
	toks, err := r.Tokens(ctx, jettons, chain.TokenJettonMaster)
	if err != nil {
		return nil, err
	}
	for _, t := range list {
		qd := analytics.TONDecimals
		if t.Quote == analytics.USDT {
			qd = analytics.USDTDecimals
		}
		c := base64.RawURLEncoding.EncodeToString([]byte(t.Key()))
		out.Edges = append(out.Edges, &model.TradeEdge{Cursor: c, Node: &model.Trade{ActionID: t.ActionID, Hop: t.Hop, TraceID: t.TraceID,
			Time: int(t.Utime), Jetton: t.Jetton, Quote: quoteName(t.Quote), Buy: t.Buy,
			Amount: actions.BigInt(t.Base.String()), QuoteAmount: actions.BigInt(t.QuoteAmt.String()),
			Price: analytics.Decimal(t.Price(), decimalsOf(toks[t.Jetton])-qd, analytics.PriceDigits)}})
		out.PageInfo.EndCursor = &c
	}
	return out, nil
}

// MaxResultTrades bounds the trades Account.trade_results totals: a result
// needs every trade from the first, so past it the answer is refused
// rather than wrong.
const MaxResultTrades = cost.MaxOffset

// AccountTradeResults is Account.trade_results: the realized result per
// jetton and quote by average cost (analytics.Results).
func (r *Resolver) AccountTradeResults(ctx context.Context, account string) ([]*model.TradeResult, error) {
	list, err := r.Store.TradesOldest(ctx, account, MaxResultTrades+1)
	if err != nil {
		return nil, err
	}
	if len(list) > MaxResultTrades {
		return nil, apperr.Field("trade_results", "the account has more than %d trades: too many to total in one answer", MaxResultTrades)
	}
	out := []*model.TradeResult{}
	for _, res := range analytics.Results(list) {
		qd := analytics.TONDecimals
		if res.Quote == analytics.USDT {
			qd = analytics.USDTDecimals
		}
		out = append(out, &model.TradeResult{Jetton: res.Jetton, Quote: quoteName(res.Quote), Trades: int(res.Trades),
			Bought: actions.BigInt(res.Bought.String()), Sold: actions.BigInt(res.Sold.String()),
			Spent: actions.BigInt(res.Spent.String()), Received: actions.BigInt(res.Received.String()),
			Held: actions.BigInt(res.Held.String()), HeldCost: analytics.Decimal(res.Cost, -qd, analytics.PriceDigits),
			Realized: analytics.Decimal(res.Realized, -qd, analytics.PriceDigits), Unmatched: actions.BigInt(res.Unmatched.String())})
	}
	return out, nil
}

// int64p widens a GraphQL Int argument.
func int64p(v *int) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}

func strOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}
