package main

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// pgStop is issue 29's "Postgres stop under load": eight clients read
// actions pages under a key as fast as they can for 25 s; Postgres is
// stopped at once (as a crash would) 5 s in and started again 10 s in. It
// reports the answers and their p99 in each phase, the server's CPU over
// the run and its worst RSS, and how many answers were not 5xx: the units
// the key must be charged, which scripts/probe.sh compares with what the
// server stored once it has stopped.
//
// It runs only when probe.sh gave it the commands that stop and start a
// private cluster (-pg-stop, -pg-start): it never stops a database other
// processes share.
func (p *probe) pgStop(stop, start string) string {
	if stop == "" || start == "" || p.key == "" {
		return "skipped (needs -pg-stop, -pg-start and -key: probe.sh runs it on a private cluster)"
	}
	const workers = 8
	phases := []struct {
		name string
		from time.Duration
	}{{"before", 0}, {"down", 5 * time.Second}, {"after", 10 * time.Second}}
	type answer struct {
		phase int
		code  string
		took  time.Duration
		at    time.Time // when it was answered
	}
	var (
		mu      sync.Mutex
		answers []answer
		wg      sync.WaitGroup
	)
	begin := time.Now()
	end := begin.Add(25 * time.Second)
	phaseAt := func(t time.Time) int {
		i := 0
		for j, ph := range phases {
			if t.Sub(begin) >= ph.from {
				i = j
			}
		}
		return i
	}
	client := &http.Client{Timeout: 30 * time.Second}
	url := p.base + "/" + p.key + "/api/v3/actions?limit=10"
	for range workers {
		wg.Go(func() {
			for time.Now().Before(end) {
				t0 := time.Now()
				code := "no answer"
				if resp, err := client.Get(url); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code = fmt.Sprint(resp.StatusCode)
				}
				mu.Lock()
				answers = append(answers, answer{phaseAt(t0), code, time.Since(t0), time.Now()})
				mu.Unlock()
			}
		})
	}
	cpu0 := p.cpu()
	var worstRSS int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for time.Now().Before(end) {
			worstRSS = max(worstRSS, p.rss())
			time.Sleep(100 * time.Millisecond)
		}
	}()
	ctlErr := ""
	var started time.Time // when the start command returned: Postgres accepts connections
	for _, step := range []struct {
		at  time.Duration
		cmd string
	}{{phases[1].from, stop}, {phases[2].from, start}} {
		time.Sleep(time.Until(begin.Add(step.at)))
		if out, err := exec.Command("sh", "-c", step.cmd).CombinedOutput(); err != nil {
			ctlErr += fmt.Sprintf("; %q failed: %v %s", step.cmd, err, strings.TrimSpace(string(out)))
		}
		started = time.Now()
	}
	wg.Wait()
	<-sampled
	cpu := p.cpu() - cpu0

	var parts []string
	charged := 0
	for i, ph := range phases {
		codes := map[string]int{}
		var took []time.Duration
		for _, a := range answers {
			if a.phase == i {
				codes[a.code]++
				took = append(took, a.took)
			}
		}
		var cs []string
		for c, n := range codes {
			cs = append(cs, fmt.Sprintf("%dx%s", n, c))
		}
		slices.Sort(cs)
		parts = append(parts, fmt.Sprintf("%s: %s, p99 %.1f ms", ph.name, strings.Join(cs, " "), p99(took)))
	}
	recovered := "never"
	for _, a := range answers { // in the order they were answered
		if a.code == "200" && a.at.After(started) {
			recovered = fmt.Sprintf("%.2f s", a.at.Sub(started).Seconds())
			break
		}
	}
	parts = append(parts, fmt.Sprintf("Postgres up %.1f s in, first 200 %s later", started.Sub(begin).Seconds(), recovered))
	for _, a := range answers {
		if a.code != "no answer" && !strings.HasPrefix(a.code, "5") {
			charged++
		}
	}
	return fmt.Sprintf("%s; server CPU %.1f s over 25 s, worst RSS %d MB; chargeable=%d%s",
		strings.Join(parts, "; "), cpu.Seconds(), worstRSS>>20, charged, ctlErr)
}
