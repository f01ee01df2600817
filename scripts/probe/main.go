// Command probe replays the attacks of issue 16 against a running tonql
// and prints, per class of request, the answers, the worst latency and the
// worst server CPU one request took (from /proc/PID/stat of the server,
// requests sent one at a time so the CPU is theirs). docs/OPERATIONS.md
// has its figures before and after the hardening; scripts/probe.sh runs
// it against a binary built from any revision.
//
//	go run ./scripts/probe -url http://127.0.0.1:8080 -pid $(pgrep -n tonql) -key $KEY
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tonql/tonql/internal/walletmsg"
)

type request struct {
	method, path, body string
}

type class struct {
	name string
	reqs func() []request
	// raw classes talk TCP themselves and report their own outcome.
	raw func(p *probe) string
}

type probe struct {
	base   string
	host   string
	key    string
	key5   string // a key with burst 5 (issue 29's classes)
	pid    int
	client *http.Client
	// pgStopCmd and pgStartCmd stop and start the server's private
	// Postgres cluster (the "Postgres stop under load" class).
	pgStopCmd, pgStartCmd string
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "server base URL")
	key := flag.String("key", "", "a valid API key (classes under a key are skipped without one)")
	pid := flag.Int("pid", 0, "server process id, for its CPU time (0: not measured)")
	only := flag.String("only", "", "run only classes whose name contains this")
	key5 := flag.String("key5", "", "a valid API key with burst 5 (issue 29's classes)")
	seed := flag.String("seed-loop", "", "DATABASE_URL of the server: store the looping contract there first")
	pgStop := flag.String("pg-stop", "", "shell command that stops the server's private Postgres cluster")
	pgStart := flag.String("pg-start", "", "shell command that starts it again")
	flag.Parse()
	if *seed != "" {
		if err := seedLoop(*seed); err != nil {
			fmt.Fprintln(os.Stderr, "probe: seed the looping contract:", err)
			os.Exit(2)
		}
	}
	u, err := url.Parse(*base)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(2)
	}
	p := &probe{base: strings.TrimSuffix(*base, "/"), host: u.Host, key: *key, key5: *key5, pid: *pid,
		pgStopCmd: *pgStop, pgStartCmd: *pgStart,
		client: &http.Client{Timeout: 120 * time.Second,
			// a redirect is an answer to report, not to follow
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	fmt.Printf("%-44s %5s  %-40s %10s %12s\n", "class", "reqs", "answers", "worst ms", "worst CPU ms")
	rssBefore := p.rss()
	for _, c := range append(classes(p), costClasses(p)...) {
		if *only != "" && !strings.Contains(c.name, *only) {
			continue
		}
		if c.raw != nil {
			fmt.Printf("%-44s %s\n", c.name, c.raw(p))
			continue
		}
		p.run(c)
	}
	if p.pid != 0 {
		fmt.Printf("server RSS: %d MB before, %d MB after\n", rssBefore>>20, p.rss()>>20)
	}
}

func (p *probe) run(c class) {
	reqs := c.reqs()
	if len(reqs) == 0 {
		fmt.Printf("%-44s skipped (needs -key)\n", c.name)
		return
	}
	codes := map[string]int{}
	var worst, worstCPU time.Duration
	for _, r := range reqs {
		cpu0 := p.cpu()
		start := time.Now()
		code := p.do(r)
		took := time.Since(start)
		cpu := p.cpu() - cpu0
		codes[code]++
		worst, worstCPU = max(worst, took), max(worstCPU, cpu)
	}
	var answers []string
	for code, n := range codes {
		answers = append(answers, fmt.Sprintf("%dx%s", n, code))
	}
	slices.Sort(answers)
	cpu := "-"
	if p.pid != 0 {
		cpu = strconv.FormatFloat(float64(worstCPU.Microseconds())/1000, 'f', 0, 64)
	}
	fmt.Printf("%-44s %5d  %-40s %10.1f %12s\n", c.name, len(reqs), strings.Join(answers, " "),
		float64(worst.Microseconds())/1000, cpu)
}

// do sends r and returns its answer as "status", or for GraphQL
// "status/code" with the first error's extensions.code ("data" without
// errors): GraphQL answers most errors with HTTP 200.
func (p *probe) do(r request) string {
	req, err := http.NewRequest(r.method, p.base+r.path, strings.NewReader(r.body))
	if err != nil {
		return "bad request"
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return "no answer" // connection closed, timeout
	}
	defer resp.Body.Close()
	status := strconv.Itoa(resp.StatusCode)
	if !strings.HasSuffix(r.path, "/graphql") {
		_, _ = io.Copy(io.Discard, resp.Body)
		return status
	}
	var a struct {
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.NewDecoder(resp.Body).Decode(&a) != nil {
		return status + "/not JSON"
	}
	if len(a.Errors) == 0 {
		return status + "/data"
	}
	if a.Errors[0].Extensions.Code == "" {
		return status + "/no code"
	}
	return status + "/" + a.Errors[0].Extensions.Code
}

// cpu is the server's user+system time from /proc (10 ms resolution).
func (p *probe) cpu() time.Duration {
	if p.pid == 0 {
		return 0
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func (p *probe) rss() int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func gql(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

func post(path, body string) request { return request{http.MethodPost, path, body} }
func get(path string) request        { return request{http.MethodGet, path, ""} }

func times(n int, r request) []request {
	out := make([]request, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func randomKey() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x", b)
}

func classes(p *probe) []class {
	keyed := func(f func(k string) []request) func() []request {
		return func() []request {
			if p.key == "" {
				return nil
			}
			return f(p.key)
		}
	}
	return []class{
		{name: "baseline: REST actions page", reqs: func() []request { return times(5, get("/api/v3/actions?limit=20")) }},
		{name: "baseline: GraphQL actions page", reqs: func() []request {
			return times(5, post("/graphql", gql("{ actions(limit: 20) { actions { action_id type value } address_book } }", nil)))
		}},
		{name: "baseline: GraphiQL introspection", reqs: func() []request { return times(3, post("/graphql", gql(introspection(), nil))) }},
		{name: "1 fragments spreading twice, 26 levels", reqs: func() []request { return times(3, post("/graphql", gql(fragmentBomb(26), nil))) }},
		{name: "2 { __typename x 5,000 } (55 KB)", reqs: func() []request {
			return times(3, post("/graphql", gql("{"+strings.Repeat(" __typename", 5000)+"}", nil)))
		}},
		{name: "2 { __typename x 10,000 } (110 KB)", reqs: func() []request {
			return times(2, post("/graphql", gql("{"+strings.Repeat(" __typename", 10000)+"}", nil)))
		}},
		{name: "2 nested repeats { actions {..} } x 800", reqs: func() []request {
			return times(3, post("/graphql", gql("{"+strings.Repeat(" actions { actions { action_id } }", 800)+"}", nil)))
		}},
		// The largest repeats the merge budget admits: what validation
		// costs at the limit.
		{name: "2 at the limit: __typename x 770", reqs: func() []request {
			return times(3, post("/graphql", gql("{"+strings.Repeat(" __typename", 770)+"}", nil)))
		}},
		{name: "2 at the limit: nested repeats x 280", reqs: func() []request {
			return times(3, post("/graphql", gql("{"+strings.Repeat(" actions(limit: 1) { actions { action_id } }", 280)+"}", nil)))
		}},
		{name: "3 list literal nested 100,000 deep", reqs: func() []request {
			d := 100_000
			return times(3, post("/graphql", gql(`{ actions(filter: {action_id: `+strings.Repeat("[", d)+`"x"`+strings.Repeat("]", d)+`}) { actions { action_id } } }`, nil)))
		}},
		{name: "4 20 distinct 0.9 MB alias-heavy queries", reqs: func() []request {
			var out []request
			for i := range 20 {
				var b strings.Builder
				fmt.Fprintf(&b, "{ q%d: __typename", i)
				for j := 0; b.Len() < 900_000; j++ {
					fmt.Fprintf(&b, " a%d: actions(limit: %d, offset: %d) { actions { action_id type } }", j, 1+j%5, j)
				}
				b.WriteString(" }")
				out = append(out, post("/graphql", gql(b.String(), nil)))
			}
			return out
		}},
		{name: "5 NUL in action_id (REST, GraphQL)", reqs: func() []request {
			return []request{get("/api/v3/actions?action_id=%00"), get("/api/v3/actions?action_id=%FF"),
				post("/graphql", gql(`{ actions(filter: {action_id: "\u0000"}) { actions { action_id } } }`, nil))}
		}},
		{name: "6 GraphQL body null and other shapes", reqs: func() []request {
			return []request{post("/graphql", "null"), post("/graphql", "[]"), post("/graphql", `{"query":1}`),
				post("/graphql", `{"query":"{ __typename }","variables":[1]}`)}
		}},
		{name: "7 invalid scalar arguments", reqs: func() []request {
			return []request{
				post("/graphql", gql(`{ actions(filter: {tx_lt: -1}) { actions { action_id } } }`, nil)),
				post("/graphql", gql(`{ actions(filter: {start_utime: "x"}) { actions { action_id } } }`, nil)),
				post("/graphql", gql(`query($s: SortOrder) { actions(sort: $s) { actions { action_id } } }`, map[string]any{"s": "DESC"})),
				post("/graphql", gql(`query($a: String) { actions(filter: {account: $a}) { actions { action_id } } }`, map[string]any{"a": map[string]any{"x": 1}})),
			}
		}},
		{name: "8 key behind //, /./, /api/../ (valid key)", reqs: keyed(func(k string) []request {
			return []request{get("//" + k + "/api/v3/actions"), get("/./" + k + "/api/v3/actions"), get("/api/../" + k + "/api/v3/actions")}
		})},
		{name: "9 /KEY//api, /KEY/./api, /KEY/../KEY/api", reqs: keyed(func(k string) []request {
			return []request{get("/" + k + "//api/v3/actions"), get("/" + k + "/./api/v3/actions"), get("/" + k + "/../" + k + "/api/v3/actions")}
		})},
		{name: "12 500 distinct unknown keys", reqs: func() []request {
			out := make([]request, 500)
			for i := range out {
				out[i] = get("/" + randomKey() + "/api/v3/actions")
			}
			return out
		}},
		{name: "13 JSON-RPC batch of 100 uncached estimates", reqs: keyed(func(k string) []request {
			var out []request
			for range 2 {
				calls := make([]string, 100)
				var seed [4]byte
				_, _ = rand.Read(seed[:])
				base := binary.LittleEndian.Uint32(seed[:])
				for i := range calls {
					body, err := walletmsg.Deploy(base + uint32(i))
					if err != nil {
						panic(err)
					}
					calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"estimateFee","params":%s}`, i, body)
				}
				out = append(out, post("/"+k+"/api/v2/jsonRPC", "["+strings.Join(calls, ",")+"]"))
			}
			return out
		})},
		{name: "14 Content-Length with Transfer-Encoding", raw: smuggle},
		{name: "14 GraphiQL page headers", raw: pageHeaders},
		{name: "29 200 non-reading resumed streams", raw: nonReadingStreams},
	}
}

// smuggle sends one request with both framings and reports whether the
// server closed the connection after answering (RFC 9112 6.3).
func smuggle(p *probe) string {
	conn, err := net.DialTimeout("tcp", p.host, 5*time.Second)
	if err != nil {
		return "error: " + err.Error()
	}
	defer conn.Close()
	body := `{"query":"{ __typename }"}`
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 4\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", p.host, len(body), body)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return "no answer: " + err.Error()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := br.ReadByte(); err == io.EOF {
		return fmt.Sprintf("answered %d, connection closed", resp.StatusCode)
	}
	return fmt.Sprintf("answered %d, connection left open", resp.StatusCode)
}

func pageHeaders(p *probe) string {
	resp, err := p.client.Get(p.base + "/")
	if err != nil {
		return "error: " + err.Error()
	}
	resp.Body.Close()
	csp := "no CSP"
	if resp.Header.Get("Content-Security-Policy") != "" {
		csp = "CSP"
	}
	xfo := resp.Header.Get("X-Frame-Options")
	if xfo == "" {
		xfo = "none"
	}
	return fmt.Sprintf("%d, %s, X-Frame-Options %s", resp.StatusCode, csp, xfo)
}

func fragmentBomb(levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ ...F%d } fragment F0 on Query { __typename }", levels)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ...F%d }", i, i-1, i-1)
	}
	return b.String()
}

// introspection is the shape GraphiQL sends (ofType nine deep).
func introspection() string {
	typeRef := "kind name"
	for range 9 {
		typeRef = "kind name ofType { " + typeRef + " }"
	}
	return `query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name }
	  types { ...FullType } directives { name description locations args { ...InputValue } } } }
	fragment FullType on __Type { kind name description
	  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
	  inputFields { ...InputValue } interfaces { ...TypeRef }
	  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
	fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
	fragment TypeRef on __Type { ` + typeRef + ` }`
}
