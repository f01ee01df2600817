package analytics

import (
	"math/big"

	"github.com/tonql/tonql/actions"
)

// The shapes of answers (GraphQL binds to them, REST writes them as
// they are). Prices are decimal strings in whole tokens (the stored
// fraction scaled by the two assets' decimals, 18 fractional digits at
// most); amounts are in smallest units, exact.

// PriceDigits is the fractional digits a rendered price keeps.
const PriceDigits = 18

// CandlePoint is one interval of a series.
type CandlePoint struct {
	Time   int64          `json:"time"`
	Open   string         `json:"open"`
	High   string         `json:"high"`
	Low    string         `json:"low"`
	Close  string         `json:"close"`
	Vwap   string         `json:"vwap"`
	Volume actions.BigInt `json:"volume"`
	// VolumeQuote is in the quote's smallest units (nanotons, USD₮ units).
	VolumeQuote actions.BigInt `json:"volume_quote"`
	Trades      int64          `json:"trades"`
}

// Series is what a candle and a volume series share: the jetton, its
// decimals and symbol, and the whole intervals [From, To) they cover.
type Series struct {
	Token    string  `json:"token"`
	Interval string  `json:"interval"`
	From     int64   `json:"from"`
	To       int64   `json:"to"`
	Decimals int     `json:"decimals"`
	Symbol   *string `json:"symbol"`
}

// CandleSeries is a jetton's candles against one quote.
type CandleSeries struct {
	Series
	Quote         string        `json:"quote"`
	QuoteDecimals int           `json:"quote_decimals"`
	Candles       []CandlePoint `json:"candles"`
}

// VolumePoint is a jetton's activity in one interval.
type VolumePoint struct {
	Time           int64          `json:"time"`
	Transfers      int64          `json:"transfers"`
	TransferAmount actions.BigInt `json:"transfer_amount"`
	Mints          int64          `json:"mints"`
	MintAmount     actions.BigInt `json:"mint_amount"`
	Burns          int64          `json:"burns"`
	BurnAmount     actions.BigInt `json:"burn_amount"`
	Senders        int64          `json:"senders"`
	Receivers      int64          `json:"receivers"`
}

// VolumeSeries is a jetton's activity over a range.
type VolumeSeries struct {
	Series
	Volumes []VolumePoint `json:"volumes"`
}

// TokenPrice is a jetton's last trade price.
type TokenPrice struct {
	Quote string `json:"quote"`
	Price string `json:"price"`
	// Time is the unix time of the last trade the price rests on (of the
	// older one, when it goes through TON).
	Time int64 `json:"time"`
	// Via is "direct" (a pair with the quote) or "TON" (jetton/TON times
	// TON/USD₮).
	Via string `json:"via"`
}

// Point renders a stored candle with the base's and quote's decimals.
func (c *Candle) Point(decimals, quoteDecimals int) CandlePoint {
	shift := decimals - quoteDecimals
	return CandlePoint{Time: c.Bucket,
		Open: c.Open.Decimal(shift, PriceDigits), High: c.High.Decimal(shift, PriceDigits),
		Low: c.Low.Decimal(shift, PriceDigits), Close: c.Close.Decimal(shift, PriceDigits),
		Vwap:   quotientDecimal(c.VolumeQuote, c.VolumeBase, shift, PriceDigits),
		Volume: actions.BigInt(c.VolumeBase.String()), VolumeQuote: actions.BigInt(c.VolumeQuote.String()), Trades: c.Trades}
}

// Point renders a stored volume.
func (v *Volume) Point() VolumePoint {
	return VolumePoint{Time: v.Bucket, Transfers: v.Transfers, TransferAmount: actions.BigInt(v.TransferAmount.String()),
		Mints: v.Mints, MintAmount: actions.BigInt(v.MintAmount.String()), Burns: v.Burns, BurnAmount: actions.BigInt(v.BurnAmount.String()),
		Senders: v.Senders, Receivers: v.Receivers}
}

// Decimals of the quotes.
const (
	TONDecimals  = 9
	USDTDecimals = 6
)

// WholePrice is a fraction of smallest units as a fraction of whole
// tokens (exact, for arithmetic across pairs).
func WholePrice(r *big.Rat, decimals, quoteDecimals int) *big.Rat {
	return scale(r, decimals-quoteDecimals)
}
