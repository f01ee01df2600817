package ingest

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

type parsed struct {
	p   *Parsed
	err error
}

// parseAll parses files on every core, at most parseAhead files ahead of
// the consumer, and returns the function that hands out the results in
// file order (each call the next file; ctx's error once ctx is cancelled).
// Decoding blocks is the import's largest CPU cost and a single parser
// could not keep the writer busy.
//
// A parser takes a slot before it takes the next file, and the consumer
// frees the slot of each file it receives, so the file the consumer waits
// for always has a parser: every file taken before it holds a slot only
// until received, and a free slot goes to the lowest file not taken yet.
func parseAll(ctx context.Context, wg *sync.WaitGroup, files []string) (next func() parsed) {
	results := make([]chan parsed, len(files))
	for i := range results {
		results[i] = make(chan parsed, 1)
	}
	slots := make(chan struct{}, parseAhead)
	var taken atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(taken.Add(1)) - 1
				if i >= len(files) {
					return
				}
				p, err := ParseFile(files[i])
				results[i] <- parsed{p, err}
			}
		})
	}
	i := 0
	return func() parsed {
		select {
		case r := <-results[i]:
			i++
			<-slots
			return r
		case <-ctx.Done():
			return parsed{err: ctx.Err()}
		}
	}
}
