package server_test

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/synth"
)

// allFields selects every field REST returns; withAccounts adds accounts,
// which REST shows only with include_accounts=true.
const (
	actionFields = `action_id trace_id tx_hash type status title description value start_lt start_utime end_lt end_utime
    transactions trace_end_lt trace_end_utime trace_external_hash_norm mc_seqno`
	allFields = `query($f: ActionFilter, $limit: Int, $offset: Int, $sort: SortOrder) {
  actions(filter: $f, limit: $limit, offset: $offset, sort: $sort) {
    actions { ` + actionFields + ` }
    address_book
    metadata
  }
}`
	withAccounts = `query($f: ActionFilter, $limit: Int, $offset: Int, $sort: SortOrder) {
  actions(filter: $f, limit: $limit, offset: $offset, sort: $sort) {
    actions { ` + actionFields + ` accounts }
    address_book
    metadata
  }
}`
)

// graphqlVars expresses a REST query as the GraphQL variables of allFields.
func graphqlVars(v url.Values) map[string]any {
	f := map[string]any{}
	for _, k := range []string{"action_id", "trace_id", "tx_hash", "action_type", "msg_hash", "exclude_action_type", "supported_action_types"} {
		if len(v[k]) > 0 {
			f[k] = v[k]
		}
	}
	if s := v.Get("account"); s != "" {
		f["account"] = s
	}
	if s := v.Get("include_accounts"); s != "" {
		f["include_accounts"] = s == "true"
	}
	if s := v.Get("include_transactions"); s != "" {
		f["include_transactions"] = s == "true"
	}
	for _, k := range []string{"tx_lt", "start_utime", "end_utime", "start_lt", "end_lt", "mc_seqno"} {
		if s := v.Get(k); s != "" {
			n, _ := strconv.ParseUint(s, 10, 64)
			f[k] = n
		}
	}
	vars := map[string]any{"f": f}
	for _, k := range []string{"limit", "offset"} {
		if s := v.Get(k); s != "" {
			n, _ := strconv.Atoi(s)
			vars[k] = n
		}
	}
	if s := v.Get("sort"); s != "" {
		vars["sort"] = s
	}
	return vars
}

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), string(b))
	out, _ := json.Marshal(v)
	return string(out)
}

// filterCases builds the query table from the generated set, so every
// filter is exercised on values that exist (and some that do not).
func filterCases(f *fixture) map[string]url.Values {
	a, b := f.all[17], f.all[len(f.all)-5]
	hot := synth.HotAccount(f.params.Seed, 0)
	hotID, _ := ton.ParseAccountID(hot)
	traceHex := func(s string) string { h, _ := chain.ParseHash(s); return strings.ToUpper(hex.EncodeToString(h[:])) }
	urlSafe := func(s string) string {
		return strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(s), "=")
	}
	mid := f.all[len(f.all)/2].EndUtime
	var withSeqno *chain.Action
	for _, x := range f.all[200:] {
		if x.McSeqno != nil {
			withSeqno = x
			break
		}
	}
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	u := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
	return map[string]url.Values{
		"defaults":                 q(),
		"asc":                      q("sort", "asc"),
		"desc explicit":            q("sort", "desc"),
		"limit 1000":               q("limit", "1000"),
		"limit 1":                  q("limit", "1"),
		"offset past end":          q("offset", "10000"),
		"action_id":                q("action_id", a.ActionID),
		"action_id repeated":       q("action_id", a.ActionID, "action_id", b.ActionID),
		"action_id unknown":        q("action_id", "nope"),
		"trace_id base64":          q("trace_id", a.TraceID),
		"trace_id url-safe":        q("trace_id", urlSafe(a.TraceID)),
		"trace_id hex":             q("trace_id", traceHex(a.TraceID)),
		"trace_id repeated":        q("trace_id", a.TraceID, "trace_id", b.TraceID),
		"tx_hash first tx":         q("tx_hash", a.TxHash),
		"tx_hash later tx":         q("tx_hash", a.Transactions[len(a.Transactions)-1]),
		"tx_hash hex":              q("tx_hash", traceHex(b.TxHash)),
		"tx_lt":                    q("tx_lt", strconv.FormatUint(a.TxLts[0], 10)),
		"tx_lt none":               q("tx_lt", "0"),
		"account raw":              q("account", hot),
		"account raw lower":        q("account", strings.ToLower(hot)),
		"account bounceable":       q("account", hotID.ToHuman(true, false)),
		"account non-bounceable":   q("account", hotID.ToHuman(false, false)),
		"account std base64":       q("account", strings.NewReplacer("-", "+", "_", "/").Replace(hotID.ToHuman(true, false))),
		"account ordinary":         q("account", a.Participants[1].Address),
		"account jetton wallet":    q("account", b.Participants[len(b.Participants)-1].Address),
		"action_type":              q("action_type", "JettonTransfer"),
		"action_type alias":        q("action_type", "NativeTransfer"),
		"action_type comma":        q("action_type", "TonTransfer,JettonSwap"),
		"action_type repeated":     q("action_type", "NftItemTransfer", "action_type", "JettonBurn"),
		"start_utime":              q("start_utime", u(mid)),
		"end_utime":                q("end_utime", u(mid)),
		"utime inclusive both":     q("start_utime", u(mid), "end_utime", u(mid)),
		"account+type":             q("account", hot, "action_type", "TonTransfer"),
		"account+type+asc":         q("account", hot, "action_type", "JettonTransfer,NativeTransfer", "sort", "asc"),
		"account+time":             q("account", hot, "start_utime", u(mid-30), "end_utime", u(mid+30)),
		"account+trace":            q("account", a.Participants[0].Address, "trace_id", a.TraceID),
		"account+tx_hash":          q("account", a.Participants[0].Address, "tx_hash", a.TxHash),
		"account+offset+limit":     q("account", hot, "offset", "20", "limit", "15"),
		"type+time+asc+page":       q("action_type", "TonTransfer", "start_utime", u(mid), "sort", "asc", "limit", "5", "offset", "3"),
		"trace+type mismatch":      q("trace_id", a.TraceID, "action_type", "JettonMint,ContractDeploy,NftPurchase,SmartContractExec"),
		"tx_lt+account":            q("tx_lt", strconv.FormatUint(b.TxLts[0], 10), "account", b.Participants[0].Address),
		"action_type snake_case":   q("action_type", "ton_transfer,jetton_swap"),
		"exclude_action_type":      q("exclude_action_type", "TonTransfer"),
		"exclude several":          q("exclude_action_type", "jetton_transfer", "exclude_action_type", "NativeTransfer,SmartContractExec"),
		"type minus exclude":       q("action_type", "TonTransfer,JettonTransfer", "exclude_action_type", "JettonTransfer"),
		"start_lt":                 q("start_lt", strconv.FormatUint(f.all[len(f.all)/2].StartLt, 10)),
		"end_lt":                   q("end_lt", strconv.FormatUint(f.all[len(f.all)/2].EndLt, 10)),
		"lt window":                q("start_lt", strconv.FormatUint(f.all[100].StartLt, 10), "end_lt", strconv.FormatUint(f.all[140].EndLt, 10), "sort", "asc", "limit", "50"),
		"mc_seqno":                 q("mc_seqno", strconv.FormatUint(uint64(*withSeqno.McSeqno), 10)),
		"mc_seqno none":            q("mc_seqno", "1"),
		"include_accounts":         q("include_accounts", "true", "limit", "20"),
		"include_accounts false":   q("include_accounts", "false"),
		"account+exclude+lt":       q("account", hot, "exclude_action_type", "TonTransfer", "start_lt", strconv.FormatUint(f.all[50].StartLt, 10)),
		"account+mc_seqno":         q("account", withSeqno.Participants[0].Address, "mc_seqno", strconv.FormatUint(uint64(*withSeqno.McSeqno), 10)),
		"account+include_accounts": q("account", hot, "include_accounts", "true", "sort", "asc"),
		"include_transactions":     q("include_transactions", "true", "limit", "20"),
		"supported v1":             q("supported_action_types", "v1", "limit", "1000"),
		"supported v2":             q("supported_action_types", "v2", "limit", "1000"),
		"supported nft.v3":         q("supported_action_types", "nft.v3", "sort", "asc", "limit", "1000"),
		"supported name":           q("supported_action_types", "jettons,nft_purchase", "limit", "1000"),
		"supported our name":       q("supported_action_types", "NftPurchase", "account", hot, "limit", "1000"),
		"supported latest":         q("supported_action_types", "latest", "limit", "1000"),
		"supported with type":      q("supported_action_types", "v1", "action_type", "NftPurchase,TonTransfer", "limit", "1000"),
		"supported minus exclude":  q("supported_action_types", "v3", "supported_action_types", "v1", "exclude_action_type", "TonTransfer", "limit", "1000"),
		"everything":               q("account", a.Participants[0].Address, "trace_id", a.TraceID, "tx_hash", a.TxHash, "tx_lt", strconv.FormatUint(a.TxLts[0], 10), "action_type", a.Type, "start_utime", u(a.StartUtime), "end_utime", u(a.EndUtime), "action_id", a.ActionID, "sort", "asc", "limit", "3"),
	}
}

func TestActionsFiltersRESTEqualsGraphQL(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, f *fixture) {
		nonEmpty := 0
		for name, v := range filterCases(f) {
			t.Run(name, func(t *testing.T) {
				code, body := f.get(t, v.Encode())
				require.Equal(t, http.StatusOK, code, string(body))
				var page restPage
				require.NoError(t, json.Unmarshal(body, &page))
				got := []string{}
				for _, a := range page.Actions {
					got = append(got, a.ActionID)
				}
				require.Equal(t, f.expect(v), got)
				if len(got) > 0 {
					nonEmpty++
				}
				f.checkAddressBook(t, body)

				var gq struct {
					Data struct {
						Actions json.RawMessage `json:"actions"`
					} `json:"data"`
					Errors []any `json:"errors"`
				}
				query := allFields
				if v.Get("include_accounts") == "true" {
					query = withAccounts
				}
				if v.Get("include_transactions") == "true" {
					query = strings.Replace(query, "mc_seqno }", "mc_seqno transactions_full { "+restTxFields+" } }", 1)
				}
				require.NoError(t, json.Unmarshal(f.graphql(t, query, graphqlVars(v)), &gq))
				require.Empty(t, gq.Errors)
				require.Equal(t, canonical(t, body), canonical(t, gq.Data.Actions), "REST and GraphQL differ")
			})
		}
		require.Greater(t, nonEmpty, 30, "most cases must select something, or the table proves little")
	})
}

// checkAddressBook: an entry for every address in the page and no other;
// the bounceable flag and domain follow the account facts.
func (f *fixture) checkAddressBook(t *testing.T, body []byte) {
	t.Helper()
	var page restPage
	require.NoError(t, json.Unmarshal(body, &page))
	want := map[string]bool{}
	for _, a := range page.Actions {
		var v any
		require.NoError(t, json.Unmarshal(a.Value, &v))
		walkStrings(v, func(s string) {
			if _, err := chain.NormalizeAddress(s); err == nil && strings.Contains(s, ":") {
				want[s] = true
			}
		})
	}
	require.Len(t, page.AddressBook, len(want))
	for addr := range want {
		e, ok := page.AddressBook[addr]
		require.True(t, ok, "address %s missing from the book", addr)
		id, err := ton.ParseAccountID(e.UserFriendly)
		require.NoError(t, err)
		require.Equal(t, addr, chain.RawAddress(id))
		facts := f.facts[addr]
		bounceable := facts.Known && !facts.IsWallet
		require.Equal(t, ton.MustParseAccountID(addr).ToHuman(bounceable, f.testnet), e.UserFriendly, addr)
		if facts.Domain != "" {
			require.NotNil(t, e.Domain)
			require.Equal(t, facts.Domain, *e.Domain)
		} else {
			require.Nil(t, e.Domain)
		}
	}
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	}
}

// Walking every page yields each action once, in order, in both directions
// and under a filter.
func TestActionsStablePaging(t *testing.T) {
	forEachDatabase(t, func(t *testing.T, f *fixture) {
		hot := synth.HotAccount(f.params.Seed, 1)
		for _, base := range []url.Values{{"sort": {"asc"}}, {"sort": {"desc"}}, {"account": {hot}}, {"action_type": {"TonTransfer,JettonTransfer"}, "sort": {"asc"}}} {
			all := url.Values{}
			for k, v := range base {
				all[k] = v
			}
			all.Set("limit", "1000")
			want := f.expect(all)
			require.NotEmpty(t, want)
			var got []string
			for off := 0; ; off += 7 {
				v := url.Values{}
				for k, x := range base {
					v[k] = x
				}
				v.Set("limit", "7")
				v.Set("offset", strconv.Itoa(off))
				code, body := f.get(t, v.Encode())
				require.Equal(t, http.StatusOK, code)
				var page restPage
				require.NoError(t, json.Unmarshal(body, &page))
				if len(page.Actions) == 0 {
					break
				}
				for _, a := range page.Actions {
					got = append(got, a.ActionID)
				}
			}
			require.Equal(t, want, got, "pages of %v", base)
		}
	})
}
