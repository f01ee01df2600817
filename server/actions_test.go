package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// fixture is a server over a store seeded with a generated data set, and
// that data set kept in memory as the reference the answers are checked
// against.
type fixture struct {
	h       http.Handler
	all     []*chain.Action
	facts   map[string]chain.AddressFacts
	params  synth.Params
	testnet bool
}

func newFixture(t *testing.T, db testenv.Database) *fixture {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, db.URL)

	f := &fixture{params: synth.Params{Seed: 7, Actions: 420, Accounts: 25, HotAccounts: 2, HotActions: 90, StartUtime: 1_700_000_000},
		facts: map[string]chain.AddressFacts{}}
	b := &store.Batch{}
	require.NoError(t, synth.Generate(f.params, func(a *chain.Action) error {
		f.all = append(f.all, a)
		b.Actions = append(b.Actions, *a)
		return nil
	}))
	// Account states decide the bounceable flag: some wallets, some
	// contracts, the rest unknown; a few accounts have .ton names.
	for i := 0; i < f.params.Accounts; i += 3 {
		addr := synth.Account(f.params.Seed, i)
		s := chain.AccountState{Address: addr, Status: chain.AccountActive, IsWallet: i%2 == 0, LastTxLt: 1}
		b.Accounts = append(b.Accounts, s)
		fa := chain.AddressFacts{Known: true, Status: s.Status, IsWallet: s.IsWallet}
		if i%6 == 0 {
			fa.Domain = fmt.Sprintf("user%d.ton", i)
			b.DNS = append(b.DNS, chain.DNSName{Address: addr, Domain: fa.Domain})
		}
		f.facts[addr] = fa
	}
	require.NoError(t, st.SaveBatch(ctx, b))
	// Saving the same batch again must change nothing.
	require.NoError(t, st.SaveBatch(ctx, b))
	f.h = newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
	return f
}

func (f *fixture) get(t *testing.T, query string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v3/actions?"+query, nil))
	return rec.Code, rec.Body.Bytes()
}

func (f *fixture) graphql(t *testing.T, query string, vars map[string]any) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	f.h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	return rec.Body.Bytes()
}

// expect evaluates a query over the in-memory set: the reference the store
// and resolvers must agree with.
func (f *fixture) expect(v url.Values) []string {
	typeList := func(param string) []string {
		var out []string
		for _, s := range v[param] {
			for _, n := range strings.Split(s, ",") {
				switch n {
				case "NativeTransfer", "ton_transfer":
					n = "TonTransfer"
				case "jetton_transfer":
					n = "JettonTransfer"
				case "jetton_swap":
					n = "JettonSwap"
				}
				out = append(out, n)
			}
		}
		return out
	}
	types, excluded := typeList("action_type"), typeList("exclude_action_type")
	num := func(k string) (uint64, bool) {
		if s := v.Get(k); s != "" {
			n, _ := strconv.ParseUint(s, 10, 64)
			return n, true
		}
		return 0, false
	}
	norm := func(in []string) []string {
		var out []string
		for _, s := range in {
			h, _ := chain.ParseHash(s)
			out = append(out, h.Base64())
		}
		return out
	}
	traceIDs, txHashes := norm(v["trace_id"]), norm(v["tx_hash"])
	account := ""
	if s := v.Get("account"); s != "" {
		account, _ = chain.NormalizeAddress(s)
	}
	var out []*chain.Action
	for _, a := range f.all {
		if ids := v["action_id"]; len(ids) > 0 && !slices.Contains(ids, a.ActionID) {
			continue
		}
		if len(traceIDs) > 0 && !slices.Contains(traceIDs, a.TraceID) {
			continue
		}
		if len(txHashes) > 0 && !slices.ContainsFunc(a.Transactions, func(h string) bool { return slices.Contains(txHashes, h) }) {
			continue
		}
		if lt, ok := num("tx_lt"); ok && !slices.Contains(a.TxLts, lt) {
			continue
		}
		if account != "" && !slices.ContainsFunc(a.Participants, func(x chain.ActionAccount) bool { return x.Address == account }) {
			continue
		}
		if len(types) > 0 && !slices.Contains(types, a.Type) || slices.Contains(excluded, a.Type) {
			continue
		}
		if len(types) == 0 && !supportedV1OrNamed(v["supported_action_types"], a.Type) {
			continue
		}
		if sl, ok := num("start_lt"); ok && a.StartLt < sl {
			continue
		}
		if el, ok := num("end_lt"); ok && a.EndLt > el {
			continue
		}
		if mc, ok := num("mc_seqno"); ok && (a.McSeqno == nil || uint64(*a.McSeqno) != mc) {
			continue
		}
		if su, ok := num("start_utime"); ok && uint64(a.StartUtime) < su {
			continue
		}
		if eu, ok := num("end_utime"); ok && uint64(a.EndUtime) > eu {
			continue
		}
		out = append(out, a)
	}
	asc := v.Get("sort") == "asc"
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		less := x.EndLt < y.EndLt || (x.EndLt == y.EndLt && x.ActionID < y.ActionID)
		if asc {
			return less
		}
		return !less && (x.EndLt != y.EndLt || x.ActionID != y.ActionID)
	})
	limit, offset := 10, 0
	if s := v.Get("limit"); s != "" {
		limit, _ = strconv.Atoi(s)
	}
	if s := v.Get("offset"); s != "" {
		offset, _ = strconv.Atoi(s)
	}
	ids := []string{}
	for i := offset; i < len(out) && i < offset+limit; i++ {
		ids = append(ids, out[i].ActionID)
	}
	return ids
}

type restPage struct {
	Actions []struct {
		ActionID string          `json:"action_id"`
		Value    json.RawMessage `json:"value"`
	} `json:"actions"`
	AddressBook map[string]struct {
		UserFriendly string  `json:"user_friendly"`
		Domain       *string `json:"domain"`
	} `json:"address_book"`
}

func forEachDatabase(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) { fn(t, newFixture(t, db)) })
	}
}
