package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

// The reference of these tests is computed here from /api/v3/actions, by
// the rule docs/API-NOTES.md states, with no code of package analytics:
// the rollups must agree with what a client adds up by hand.

const usdtMaster = "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE"

var refIntervals = []struct {
	name string
	sec  int64
}{{"1m", 60}, {"5m", 300}, {"15m", 900}, {"1h", 3600}, {"4h", 14400}, {"1d", 86400}}

// restAction is what the reference reads of an action.
type restAction struct {
	ActionID string `json:"action_id"`
	Type     string `json:"type"`
	Status   string `json:"status"`
	EndLt    int64  `json:"end_lt"`
	EndUtime int64  `json:"end_utime"`
	Value    struct {
		Sender          string `json:"sender"`
		Recipient       string `json:"recipient"`
		Owner           string `json:"owner"`
		JettonMaster    string `json:"jetton_master"`
		Amount          string `json:"amount"`
		JettonMasterIn  string `json:"jetton_master_in"`
		JettonMasterOut string `json:"jetton_master_out"`
		AmountIn        string `json:"amount_in"`
		AmountOut       string `json:"amount_out"`
		PeerSwaps       []struct {
			AssetIn   string `json:"asset_in"`
			AssetOut  string `json:"asset_out"`
			AmountIn  string `json:"amount_in"`
			AmountOut string `json:"amount_out"`
		} `json:"peer_swaps"`
	} `json:"value"`
}

type refTrade struct {
	jetton, quote string
	utime         int64
	order         string
	base, amt     *big.Int
	buy           bool   // the sender paid the quote
	trader        string // the swap's sender
}

type refCandle struct {
	open, high, low, close *big.Rat
	first, last            string
	vol, volQ              *big.Int
	n                      int64
}

type refVolume struct {
	transfers, mints, burns int64
	tAmt, mAmt, bAmt        *big.Int
	senders, receivers      map[string]bool
}

func num(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil
	}
	return n
}

// refTrades applies the documented rule to one swap.
func refTrades(a restAction) []refTrade {
	if a.Type != "JettonSwap" || a.Status != "ok" {
		return nil
	}
	type leg struct{ in, out, ain, aout string }
	legs := []leg{{a.Value.JettonMasterIn, a.Value.JettonMasterOut, a.Value.AmountIn, a.Value.AmountOut}}
	if len(a.Value.PeerSwaps) > 1 {
		legs = nil
		for _, p := range a.Value.PeerSwaps {
			legs = append(legs, leg{p.AssetIn, p.AssetOut, p.AmountIn, p.AmountOut})
		}
	}
	var out []refTrade
	for i, l := range legs {
		in, o := num(l.ain), num(l.aout)
		if in == nil || o == nil || in.Sign() <= 0 || o.Sign() <= 0 || l.in == l.out {
			continue
		}
		t := refTrade{utime: a.EndUtime, order: fmt.Sprintf("%012d/%020d/%s/%03d", a.EndUtime, a.EndLt, a.ActionID, i), trader: a.Value.Sender}
		switch {
		case l.in == "":
			t.jetton, t.quote, t.base, t.amt, t.buy = l.out, "TON", o, in, true
		case l.out == "":
			t.jetton, t.quote, t.base, t.amt = l.in, "TON", in, o
		case l.in == usdtMaster:
			t.jetton, t.quote, t.base, t.amt, t.buy = l.out, "USDT", o, in, true
		case l.out == usdtMaster:
			t.jetton, t.quote, t.base, t.amt = l.in, "USDT", in, o
		default:
			continue
		}
		floor := big.NewInt(10_000_000)
		if t.quote == "USDT" {
			floor = big.NewInt(10_000)
		}
		if t.amt.Cmp(floor) < 0 {
			continue
		}
		out = append(out, t)
	}
	return out
}

// jettonActions pages through every jetton action (nested ones too: v1
// shows the steps of newer types).
func jettonActions(t *testing.T, f *fixture) []restAction {
	var all []restAction
	for offset := 0; ; offset += 100 {
		code, body := f.get(t, "supported_action_types=v1&action_type=jetton_swap,jetton_transfer,jetton_mint,jetton_burn&limit=100&offset="+strconv.Itoa(offset))
		require.Equal(t, http.StatusOK, code, string(body))
		var page struct {
			Actions []restAction `json:"actions"`
		}
		require.NoError(t, json.Unmarshal(body, &page))
		all = append(all, page.Actions...)
		if len(page.Actions) < 100 {
			return all
		}
	}
}

func (f *fixture) getPath(t *testing.T, path string, q url.Values) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil))
	return rec.Code, rec.Body.Bytes()
}

// analyticsServer imports every real fixture with actions.
func analyticsServer(t *testing.T, db testenv.Database) *fixture {
	return analyticsServerAt(t, db, nil)
}

// analyticsServerAt is analyticsServer with the resolver's clock.
func analyticsServerAt(t *testing.T, db testenv.Database, now func() time.Time) *fixture {
	dir := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "blocks", "*.bin"))
	files = append(files, testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	files = append(files, traces...)
	st := importedFixtures(t, db, files)
	var stored int
	require.NoError(t, st.DB().NewSelect().TableExpr("actions").ColumnExpr("count(*)").
		Where("type IN ('JettonSwap','JettonTransfer','JettonMint','JettonBurn')").Scan(context.Background(), &stored))
	f := &fixture{h: newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st, Now: now}})}
	f.params.Actions = stored
	return f
}

// ratNear: an answer's decimal price is the exact one to its 18 digits.
func ratNear(t *testing.T, want *big.Rat, got, what string) {
	t.Helper()
	g, ok := new(big.Rat).SetString(got)
	require.True(t, ok, "%s: %q", what, got)
	d := new(big.Rat).Sub(g, want)
	require.True(t, d.Abs(d).Cmp(big.NewRat(1, 1_000_000_000_000_000_000)) <= 0, "%s: got %s, want %s", what, got, want.FloatString(20))
}

// TestCandlesAndVolumesEqualTheActions: every candle and volume of every
// interval over the fixtures' real swaps and jetton moves equals the one
// computed here from /api/v3/actions.
func TestCandlesAndVolumesEqualTheActions(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			f := analyticsServer(t, db)
			acts := jettonActions(t, f)
			require.Len(t, acts, f.params.Actions, "REST must list every jetton action")

			var trades []refTrade
			moves := map[string][]restAction{}
			for _, a := range acts {
				trades = append(trades, refTrades(a)...)
				if a.Status == "ok" && a.Type != "JettonSwap" && a.Value.JettonMaster != "" {
					moves[a.Value.JettonMaster] = append(moves[a.Value.JettonMaster], a)
				}
			}
			require.NotEmpty(t, trades, "the fixtures hold successful swaps against TON")

			checkedCandles, checkedVolumes := 0, 0
			for _, iv := range refIntervals {
				// Candles by pair and bucket.
				want := map[[2]string]map[int64]*refCandle{}
				for _, tr := range trades {
					k := [2]string{tr.jetton, tr.quote}
					if want[k] == nil {
						want[k] = map[int64]*refCandle{}
					}
					b := tr.utime - tr.utime%iv.sec
					p := new(big.Rat).SetFrac(tr.amt, tr.base)
					c := want[k][b]
					if c == nil {
						c = &refCandle{open: p, high: p, low: p, close: p, first: tr.order, last: tr.order, vol: new(big.Int), volQ: new(big.Int)}
						want[k][b] = c
					}
					if tr.order < c.first {
						c.open, c.first = p, tr.order
					}
					if tr.order > c.last {
						c.close, c.last = p, tr.order
					}
					if p.Cmp(c.high) > 0 {
						c.high = p
					}
					if p.Cmp(c.low) < 0 {
						c.low = p
					}
					c.vol.Add(c.vol, tr.base)
					c.volQ.Add(c.volQ, tr.amt)
					c.n++
				}
				for k, buckets := range want {
					for b, c := range buckets {
						// A window of 50 intervals each side: the candle, and
						// nothing the reference does not have.
						q := url.Values{"token": {k[0]}, "quote": {k[1]}, "interval": {iv.name},
							"from": {strconv.FormatInt(b-50*iv.sec, 10)}, "to": {strconv.FormatInt(b+50*iv.sec, 10)}}
						code, body := f.getPath(t, "/api/v3/analytics/candles", q)
						require.Equal(t, http.StatusOK, code, string(body))
						var got struct {
							Decimals int `json:"decimals"`
							QD       int `json:"quote_decimals"`
							Candles  []struct {
								Time                         int64
								Open, High, Low, Close, Vwap string
								Volume                       string
								VolumeQuote                  string `json:"volume_quote"`
								Trades                       int64
							} `json:"candles"`
						}
						require.NoError(t, json.Unmarshal(body, &got))
						inWindow := 0
						for bb := range buckets {
							if bb >= b-50*iv.sec && bb < b+50*iv.sec {
								inWindow++
							}
						}
						require.Len(t, got.Candles, inWindow, "%s %v window of %d", iv.name, k, b)
						scale := new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(got.Decimals)), nil),
							new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(got.QD)), nil))
						whole := func(r *big.Rat) *big.Rat { return new(big.Rat).Mul(r, scale) }
						for _, gc := range got.Candles {
							if gc.Time != b {
								continue
							}
							what := fmt.Sprintf("%s %v %d", iv.name, k, b)
							ratNear(t, whole(c.open), gc.Open, what+" open")
							ratNear(t, whole(c.high), gc.High, what+" high")
							ratNear(t, whole(c.low), gc.Low, what+" low")
							ratNear(t, whole(c.close), gc.Close, what+" close")
							ratNear(t, whole(new(big.Rat).SetFrac(c.volQ, c.vol)), gc.Vwap, what+" vwap")
							require.Equal(t, c.vol.String(), gc.Volume, what)
							require.Equal(t, c.volQ.String(), gc.VolumeQuote, what)
							require.Equal(t, c.n, gc.Trades, what)
							checkedCandles++
						}
					}
				}

				// Volumes by jetton and bucket.
				for jetton, list := range moves {
					wantV := map[int64]*refVolume{}
					for _, a := range list {
						b := a.EndUtime - a.EndUtime%iv.sec
						v := wantV[b]
						if v == nil {
							v = &refVolume{tAmt: new(big.Int), mAmt: new(big.Int), bAmt: new(big.Int), senders: map[string]bool{}, receivers: map[string]bool{}}
							wantV[b] = v
						}
						amt := num(a.Value.Amount)
						switch a.Type {
						case "JettonTransfer":
							v.transfers++
							v.tAmt.Add(v.tAmt, amt)
							v.senders[a.Value.Sender] = true
							v.receivers[a.Value.Recipient] = true
						case "JettonMint":
							v.mints++
							v.mAmt.Add(v.mAmt, amt)
							v.receivers[a.Value.Recipient] = true
						case "JettonBurn":
							v.burns++
							v.bAmt.Add(v.bAmt, amt)
							v.senders[a.Value.Owner] = true
						}
					}
					var bs []int64
					for b := range wantV {
						bs = append(bs, b)
					}
					sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
					for _, b := range bs {
						v := wantV[b]
						q := url.Values{"token": {jetton}, "interval": {iv.name},
							"from": {strconv.FormatInt(b, 10)}, "to": {strconv.FormatInt(b+iv.sec, 10)}}
						code, body := f.getPath(t, "/api/v3/analytics/volumes", q)
						require.Equal(t, http.StatusOK, code, string(body))
						var got struct {
							Volumes []struct {
								Time                    int64
								Transfers, Mints, Burns int64
								TransferAmount          string `json:"transfer_amount"`
								MintAmount              string `json:"mint_amount"`
								BurnAmount              string `json:"burn_amount"`
								Senders, Receivers      int64
							} `json:"volumes"`
						}
						require.NoError(t, json.Unmarshal(body, &got))
						require.Len(t, got.Volumes, 1, "%s %s %d: %s", iv.name, jetton, b, body)
						g := got.Volumes[0]
						what := fmt.Sprintf("%s %s %d", iv.name, jetton, b)
						require.Equal(t, b, g.Time, what)
						require.Equal(t, []int64{v.transfers, v.mints, v.burns, int64(len(v.senders)), int64(len(v.receivers))},
							[]int64{g.Transfers, g.Mints, g.Burns, g.Senders, g.Receivers}, what)
						require.Equal(t, []string{v.tAmt.String(), v.mAmt.String(), v.bAmt.String()},
							[]string{g.TransferAmount, g.MintAmount, g.BurnAmount}, what)
						checkedVolumes++
					}
				}
			}
			t.Logf("%d trades; %d candles and %d volumes checked over 6 intervals", len(trades), checkedCandles, checkedVolumes)
			require.Positive(t, checkedCandles)
			require.Positive(t, checkedVolumes)
		})
	}
}

// TestAnalyticsBadInput: every bad argument is a 422 whose message starts
// with the parameter's name, on REST and in GraphQL.
func TestAnalyticsBadInput(t *testing.T) {
	f := analyticsServer(t, testenv.Databases(t)[0])
	known := usdtMaster // the fixtures have USD₮ moves
	unknown := "0:" + "AB" + fmt.Sprintf("%062d", 0)
	cases := []struct {
		path  string
		q     url.Values
		param string
	}{
		{"/api/v3/analytics/candles", url.Values{"interval": {"1h"}}, "token"},
		{"/api/v3/analytics/candles", url.Values{"token": {"nonsense"}, "interval": {"1h"}}, "token"},
		{"/api/v3/analytics/candles", url.Values{"token": {unknown}, "interval": {"1h"}}, "token"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}}, "interval"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"2h"}}, "interval"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1h"}, "quote": {"EUR"}}, "quote"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1h"}, "from": {"200"}, "to": {"100"}}, "from"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1h"}, "from": {"-5"}, "to": {"100"}}, "from"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1h"}, "from": {"x"}}, "from"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1m"}, "from": {"0"}, "to": {"1700000000"}}, "to"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1d"}, "from": {"0"}, "to": {"9223372036854775807"}}, "to"},
		{"/api/v3/analytics/candles", url.Values{"token": {known}, "interval": {"1h"}, "limit": {"5"}}, "limit"},
		{"/api/v3/analytics/volumes", url.Values{"token": {known}, "interval": {"1w"}}, "interval"},
		{"/api/v3/analytics/volumes", url.Values{"token": {unknown}, "interval": {"1d"}}, "token"},
		{"/api/v3/analytics/volumes", url.Values{"token": {known}, "interval": {"1d"}, "quote": {"TON"}}, "quote"},
		{"/v2/rates", url.Values{"currencies": {"ton"}}, "tokens"},
		{"/v2/rates", url.Values{"tokens": {"ton"}, "currencies": {"rub"}}, "currencies"},
		{"/v2/rates", url.Values{"tokens": {"ton," + unknown}, "currencies": {"usd"}}, "tokens"},
		{"/v2/rates/chart", url.Values{"token": {unknown}}, "token"},
		{"/v2/rates/chart", url.Values{"token": {known}, "currency": {"ton"}, "points_count": {"500"}}, "points_count"},
		{"/v2/rates/chart", url.Values{"token": {known}, "start_date": {"100"}, "end_date": {"50"}}, "start_date"},
		{"/v2/rates/chart", url.Values{"token": {known}, "start_date": {"0"}, "end_date": {"1700000000"}}, "start_date"},
	}
	for _, c := range cases {
		code, body := f.getPath(t, c.path, c.q)
		require.Equal(t, http.StatusUnprocessableEntity, code, "%s?%s: %s", c.path, c.q.Encode(), body)
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(body, &e))
		require.Regexp(t, "^"+c.param+": ", e.Error, "%s?%s", c.path, c.q.Encode())
	}
	for q, param := range map[string]string{
		`{token(address:"` + unknown + `"){address}}`:                                            "address",
		`{token(address:"` + known + `"){candles(interval:"7m"){token}}}`:                        "interval",
		`{token(address:"` + known + `"){candles(interval:"1m", from:0, to:1700000000){token}}}`: "to",
		`{token(address:"` + known + `"){volume(interval:"1h", from:10, to:5){token}}}`:          "from",
		`{token(address:"` + known + `"){price(quote:"EUR"){price}}}`:                            "quote",
		`{token(address:"` + known + `"){holders(first:0){count}}}`:                              "first",
		`{account(address:"` + known + `"){trades(after:"zz"){pageInfo{hasNextPage}}}}`:          "after",
	} {
		var resp struct {
			Errors []struct {
				Message    string
				Extensions map[string]any
			}
		}
		require.NoError(t, json.Unmarshal(f.graphql(t, q, nil), &resp))
		require.NotEmpty(t, resp.Errors, q)
		require.Regexp(t, "^"+param+": ", resp.Errors[0].Message, q)
		require.NotEmpty(t, resp.Errors[0].Extensions["code"], q)
	}
}

// TestAnalyticsRESTEqualsGraphQL: the series routes answer what
// Token.candles and Token.volume answer; rates and chart come from the
// same prices; Account.trades lists the swaps' senders' trades.
func TestAnalyticsRESTEqualsGraphQL(t *testing.T) {
	f := analyticsServer(t, testenv.Databases(t)[0])
	// The pair with the most trades.
	var trades []refTrade
	for _, a := range jettonActions(t, f) {
		trades = append(trades, refTrades(a)...)
	}
	require.NotEmpty(t, trades)
	tr := trades[0]
	from, to := tr.utime-30*86400, tr.utime+30*86400
	q := url.Values{"token": {tr.jetton}, "quote": {tr.quote}, "interval": {"1d"}, "from": {strconv.FormatInt(from, 10)}, "to": {strconv.FormatInt(to, 10)}}
	code, rest := f.getPath(t, "/api/v3/analytics/candles", q)
	require.Equal(t, http.StatusOK, code, string(rest))
	var gql struct {
		Data struct {
			Token struct {
				Candles json.RawMessage `json:"candles"`
				Volume  json.RawMessage `json:"volume"`
				Price   *struct{ Price, Quote, Via string }
			} `json:"token"`
		}
	}
	body := f.graphql(t, `query($a:String!,$q:String!,$f:Int!,$t:Int!){token(address:$a){
		candles(interval:"1d",from:$f,to:$t,quote:$q){token quote interval from to decimals quote_decimals symbol candles{time open high low close vwap volume volume_quote trades}}
		volume(interval:"1d",from:$f,to:$t){token interval from to decimals symbol volumes{time transfers transfer_amount mints mint_amount burns burn_amount senders receivers}}
		price(quote:$q){price quote via}}}`,
		map[string]any{"a": tr.jetton, "q": tr.quote, "f": from, "t": to})
	require.NoError(t, json.Unmarshal(body, &gql), string(body))
	require.JSONEq(t, string(rest), string(gql.Data.Token.Candles))
	code, restV := f.getPath(t, "/api/v3/analytics/volumes", url.Values{"token": {tr.jetton}, "interval": {"1d"},
		"from": {strconv.FormatInt(from, 10)}, "to": {strconv.FormatInt(to, 10)}})
	require.Equal(t, http.StatusOK, code, string(restV))
	require.JSONEq(t, string(restV), string(gql.Data.Token.Volume))

	// /v2/rates: the same last price as Token.price, as a number.
	require.NotNil(t, gql.Data.Token.Price, string(body))
	cur := map[string]string{"TON": "ton", "USDT": "usd"}[tr.quote]
	code, rates := f.getPath(t, "/v2/rates", url.Values{"tokens": {tr.jetton}, "currencies": {cur}})
	require.Equal(t, http.StatusOK, code, string(rates))
	var r struct {
		Rates map[string]struct{ Prices map[string]float64 } `json:"rates"`
	}
	require.NoError(t, json.Unmarshal(rates, &r))
	want, _ := strconv.ParseFloat(gql.Data.Token.Price.Price, 64)
	require.InDelta(t, want, r.Rates[tr.jetton].Prices[strings.ToUpper(cur)], want*1e-12, string(rates))

	// /v2/rates/chart: a point at the trade's interval.
	code, chart := f.getPath(t, "/v2/rates/chart", url.Values{"token": {tr.jetton}, "currency": {cur},
		"start_date": {strconv.FormatInt(tr.utime-3600, 10)}, "end_date": {strconv.FormatInt(tr.utime+3600, 10)}})
	require.Equal(t, http.StatusOK, code, string(chart))
	var c struct{ Points [][2]float64 }
	require.NoError(t, json.Unmarshal(chart, &c))
	require.NotEmpty(t, c.Points, string(chart))
}

// TestRatesDiffsEqualTheActions: /v2/rates' diff_24h, diff_7d and diff_30d
// of every pair, with the clock set just after each of its trades, equal
// tonapi's formula ((now - then) / now, two places) over prices taken
// here from /api/v3/actions: the last trade's of a minute starting at or
// before the clock, and before the clock less 1, 7 and 30 days.
func TestRatesDiffsEqualTheActions(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			var now int64
			f := analyticsServerAt(t, db, func() time.Time { return time.Unix(now, 0) })
			var trades []refTrade
			for _, a := range jettonActions(t, f) {
				trades = append(trades, refTrades(a)...)
			}
			sort.Slice(trades, func(i, j int) bool { return trades[i].order < trades[j].order })
			// priceBefore is the pair's last price in a minute starting at or before at.
			priceBefore := func(jetton, quote string, at int64) *big.Rat {
				var p *big.Rat
				for _, tr := range trades {
					if tr.jetton == jetton && tr.quote == quote && tr.utime-tr.utime%60 <= at {
						p = new(big.Rat).SetFrac(tr.amt, tr.base)
					}
				}
				return p
			}
			diff := func(now, then *big.Rat) string {
				if then == nil {
					return "0.00%"
				}
				d := new(big.Rat).Sub(now, then)
				d.Quo(d, now).Mul(d, big.NewRat(100, 1))
				switch s := d.FloatString(2); {
				case s == "0.00" || s == "-0.00":
					return "0.00%"
				case strings.HasPrefix(s, "-"):
					return "\u2212" + s[1:] + "%"
				default:
					return "+" + s + "%"
				}
			}
			nonZero := 0
			for _, tr := range trades {
				if tr.quote == "USDT" && tr.jetton == usdtMaster {
					continue
				}
				now = tr.utime + 3600 // after the trade: its price is the last
				cur := map[string]string{"TON": "ton", "USDT": "usd"}[tr.quote]
				code, body := f.getPath(t, "/v2/rates", url.Values{"tokens": {tr.jetton}, "currencies": {cur}})
				require.Equal(t, http.StatusOK, code, string(body))
				var got struct {
					Rates map[string]struct {
						Diff24h map[string]string `json:"diff_24h"`
						Diff7d  map[string]string `json:"diff_7d"`
						Diff30d map[string]string `json:"diff_30d"`
					} `json:"rates"`
				}
				require.NoError(t, json.Unmarshal(body, &got))
				r := got.Rates[tr.jetton]
				last := priceBefore(tr.jetton, tr.quote, now)
				key := strings.ToUpper(cur)
				for days, m := range map[int64]map[string]string{1: r.Diff24h, 7: r.Diff7d, 30: r.Diff30d} {
					want := diff(last, priceBefore(tr.jetton, tr.quote, now-days*86400))
					require.Equal(t, want, m[key], "%s in %s, %d days before %d: %s", tr.jetton, tr.quote, days, now, body)
					if want != "0.00%" {
						nonZero++
					}
				}
			}
			require.Positive(t, nonZero, "some pair's price changed within 30 days in the fixtures")
		})
	}
}
