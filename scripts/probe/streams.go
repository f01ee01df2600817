package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// nonReadingStreams opens 200 SSE streams without a key that resume from
// the first stored action and never read (issue 29), twice: once alone, for
// the server's CPU, the wall time until every admitted stream ended and
// the worst RSS; once while ordinary requests (an actions page, one at a
// time) run, for their p99 against the same before the attack. It reports
// how the streams ended: refused by the per-address limit, or cut for
// reading too slowly (tonql_streams_cut_slow_total).
func nonReadingStreams(p *probe) string {
	baseline := p.pageLatencies(50, nil)
	alone := p.streamAttack(func(done func() bool) {
		for !done() {
			time.Sleep(100 * time.Millisecond)
		}
	})
	var during []time.Duration
	p.streamAttack(func(done func() bool) { during = p.pageLatencies(0, done) })
	return fmt.Sprintf("%s; page p99 %.1f ms before, %.1f ms during (%d pages)", alone, p99(baseline), p99(during), len(during))
}

// streamAttack opens the 200 streams, runs meanwhile until they have
// ended (or 60 s), and reports them.
func (p *probe) streamAttack(meanwhile func(done func() bool)) string {
	const n = 200
	cut0 := p.metric("tonql_streams_cut_slow_total")
	cpu0, start := p.cpu(), time.Now()
	after := base64.RawURLEncoding.EncodeToString([]byte("seq:0"))
	var admitted, refused int
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := dialSmall(p.host)
		if err != nil {
			return "error: " + err.Error()
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /api/v3/actions/stream?after=%s HTTP/1.1\r\nHost: %s\r\n\r\n", after, p.host)
	}
	// A refused stream is answered at once (429); an admitted one starts
	// with "HTTP/1.1 200". Only the status line is read.
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line := make([]byte, 12)
		if _, err := io.ReadFull(c, line); err == nil && strings.HasSuffix(string(line), "429") {
			refused++
		} else {
			admitted++
		}
	}
	var peak int64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, p.rss())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	meanwhile(func() bool {
		return p.metric("tonql_streams_cut_slow_total")-cut0 >= float64(admitted) || time.Since(start) > 60*time.Second
	})
	wall := time.Since(start)
	close(stop)
	<-sampled
	cpu := p.cpu() - cpu0
	cut := p.metric("tonql_streams_cut_slow_total") - cut0
	return fmt.Sprintf("%d admitted, %d refused 429; %d cut slow in %.1f s; server CPU %d ms, peak RSS %d MB",
		admitted, refused, int(cut), wall.Seconds(), cpu.Milliseconds(), peak>>20)
}

// dialSmall connects with a 4 KiB receive buffer, as a client that reads
// nothing would hold.
func dialSmall(host string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); err != nil {
			return err
		}
		return serr
	}}
	return d.Dial("tcp", host)
}

// pageLatencies fetches an actions page n times, or until done says so.
func (p *probe) pageLatencies(n int, done func() bool) []time.Duration {
	var out []time.Duration
	for i := 0; n > 0 && i < n || done != nil && !done(); i++ {
		start := time.Now()
		resp, err := p.client.Get(p.base + "/api/v3/actions?limit=20")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		out = append(out, time.Since(start))
	}
	return out
}

func p99(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[(len(s)*99)/100].Microseconds()) / 1000
}

// metric reads one counter from /metrics (0 when absent).
func (p *probe) metric(name string) float64 {
	resp, err := p.client.Get(p.base + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}
