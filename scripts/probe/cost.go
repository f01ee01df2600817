package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/loopstate"
	"github.com/tonql/tonql/internal/walletmsg"
	"github.com/tonql/tonql/store"
)

// Issue 29's attacks on the cost model (docs/OPERATIONS.md, "One cost
// model"). Each reports the answers (for a batch, its calls' codes), the
// worst wall time, the server CPU of the whole class and the RSS after.

// seedLoop stores the looping contract's state in the server's database
// the way import stores states.
func seedLoop(url string) error {
	st, err := store.Open(context.Background(), url)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := loopstate.State(uint32(time.Now().Unix()))
	if err != nil {
		return err
	}
	return st.SaveBatch(context.Background(), &store.Batch{Accounts: []chain.AccountState{s}})
}

func costClasses(p *probe) []class {
	return []class{
		{name: "29 Postgres stop under load", raw: func(p *probe) string { return p.pgStop(p.pgStopCmd, p.pgStartCmd) }},
		{name: "29 runGetMethod batch x100, looping contract", raw: func(p *probe) string {
			call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"runGetMethod","params":{"address":%q,"method":"seqno","stack":[]}}`, loopstate.Address)
			return p.concurrent(1, func(int) (string, string) { return "/" + p.key + "/api/v2/jsonRPC", batch(call, 100) })
		}},
		{name: "29 ten include_transactions pages at once", raw: func(p *probe) string {
			return p.concurrent(10, func(int) (string, string) {
				return "/" + p.key + "/api/v3/actions?limit=1000&include_transactions=true", ""
			})
		}},
		{name: "29 ten include_transactions limit=100 at once", raw: func(p *probe) string {
			return p.concurrent(10, func(int) (string, string) {
				return "/" + p.key + "/api/v3/actions?limit=100&include_transactions=true", ""
			})
		}},
		{name: "29 offset 1e9 and 390,000", raw: func(p *probe) string {
			return p.concurrent(2, func(i int) (string, string) {
				return "/" + p.key + "/api/v3/actions?offset=" + []string{"1000000000", "390000"}[i], ""
			})
		}},
		{name: "29 100-call batch, burst-5 key", raw: func(p *probe) string {
			return p.concurrent(1, func(int) (string, string) {
				return "/" + p.key5 + "/api/v2/jsonRPC", batch(`{"jsonrpc":"2.0","id":1,"method":"getMasterchainInfo"}`, 100)
			})
		}},
		{name: "29 30 estimateFee aliases, burst-5 key", raw: func(p *probe) string {
			time.Sleep(6 * time.Second) // the bucket refills after the batch (5 tokens; a key in debt waits longer)
			var q strings.Builder
			q.WriteString("{")
			for i := range 30 {
				body, _ := walletmsg.Deploy(uint32(time.Now().UnixNano()) + uint32(i))
				var d struct{ Address, Body, Init_code, Init_data string }
				_ = json.Unmarshal([]byte(body), &d)
				fmt.Fprintf(&q, ` a%d: estimateFee(address: %q, body: %q, init_code: %q, init_data: %q) { source_fees { gas_fee } }`,
					i, d.Address, d.Body, d.Init_code, d.Init_data)
			}
			q.WriteString(" }")
			return p.concurrent(1, func(int) (string, string) { return "/" + p.key5 + "/graphql", gql(q.String(), nil) })
		}},
	}
}

func batch(call string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(call+",", n), ",") + "]"
}

// concurrent sends n requests at once and sums up their answers: the HTTP
// status, and inside a JSON-RPC batch or a GraphQL answer the code of each
// call or error.
func (p *probe) concurrent(n int, req func(i int) (path, body string)) string {
	if p.key == "" || p.key5 == "" {
		return "skipped (needs -key and -key5)"
	}
	cpu0 := p.cpu()
	var mu sync.Mutex
	codes := map[string]int{}
	var worst time.Duration
	var wg sync.WaitGroup
	for i := range n {
		path, body := req(i)
		wg.Go(func() {
			method := http.MethodGet
			if body != "" {
				method = http.MethodPost
			}
			r, _ := http.NewRequest(method, p.base+path, strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			start := time.Now()
			resp, err := p.client.Do(r)
			var got []string
			size := 0
			if err != nil {
				got = []string{"no answer"}
			} else {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				size = len(b)
				got = answerCodes(resp.StatusCode, b)
			}
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			worst = max(worst, took)
			for _, c := range got {
				codes[fmt.Sprintf("%s(%dKB)", c, size>>10)]++
			}
		})
	}
	wg.Wait()
	var out []string
	for c, k := range codes {
		out = append(out, fmt.Sprintf("%dx%s", k, c))
	}
	slices.Sort(out)
	return fmt.Sprintf("%s; worst %.0f ms, CPU %.0f ms in all, RSS %d MB", strings.Join(out, " "),
		float64(worst.Microseconds())/1000, float64((p.cpu()-cpu0).Microseconds())/1000, p.rss()>>20)
}

func answerCodes(status int, b []byte) []string {
	var items []struct {
		OK   bool `json:"ok"`
		Code int  `json:"code"`
	}
	if json.Unmarshal(b, &items) == nil {
		var out []string
		for _, it := range items {
			if it.OK {
				out = append(out, "call ok")
			} else {
				out = append(out, fmt.Sprintf("call %d", it.Code))
			}
		}
		return out
	}
	var g struct {
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(b, &g) == nil && len(g.Errors) > 0 {
		out := make([]string, len(g.Errors))
		for i, e := range g.Errors {
			out[i] = fmt.Sprintf("%d/%s", status, e.Extensions.Code)
		}
		return out
	}
	return []string{fmt.Sprint(status)}
}
