package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tonql/tonql/ingest"
)

// defaultProgressEvery is how often an import prints a progress line: after
// a file when the last line is older, and while one file takes longer.
const defaultProgressEvery = 2 * time.Second

// importProgress prints an import's progress lines on stderr. Lines come
// from two goroutines (the importer's report after each file, and watch
// while a long file is parsed or saved), so they go through one lock.
type importProgress struct {
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	start time.Time
	last  time.Time // of the last progress line
	done  int
	total int
	txs   int
	acts  int
}

func newImportProgress(w io.Writer, total int, every time.Duration) *importProgress {
	if every <= 0 {
		every = defaultProgressEvery
	}
	now := time.Now()
	return &importProgress{w: w, every: every, start: now, last: now, total: total}
}

func (p *importProgress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}

// fileDone counts a file reported (imported or not) with the totals so
// far, and prints a line when the last is old or this was the last file.
func (p *importProgress) fileDone(txs, acts int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.txs, p.acts = p.done+1, txs, acts
	if time.Since(p.last) < p.every && p.done < p.total {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "[%d/%d files] %d transactions, %d actions, %.0f tx/s\n",
		p.done, p.total, p.txs, p.acts, float64(p.txs)/time.Since(p.start).Seconds())
}

// watch prints, while one file keeps the import busy longer than every,
// what it is doing with which file and for how long, every interval; the
// returned function stops it.
func (p *importProgress) watch(im *ingest.Importer) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.busy(im.Activity())
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func (p *importProgress) busy(a ingest.Activity) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a.Stage == "" || time.Since(a.Since) < p.every || time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	what := a.File
	switch {
	case a.Stage == "parsing":
		if info, err := os.Stat(a.File); err == nil {
			what = fmt.Sprintf("%s (%.1f MB)", a.File, float64(info.Size())/1e6)
		}
	case a.Files > 1:
		what = fmt.Sprintf("%d files up to %s (%d transactions)", a.Files, filepath.Base(a.File), a.Transactions)
	default:
		what = fmt.Sprintf("%s (%d transactions)", a.File, a.Transactions)
	}
	fmt.Fprintf(p.w, "[%d/%d files] %d transactions, %d actions; %s %s for %s\n",
		p.done, p.total, p.txs, p.acts, a.Stage, what, time.Since(a.Since).Round(time.Second))
}
