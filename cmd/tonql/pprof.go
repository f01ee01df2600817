package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// servePprof serves Go's profiler on its own listener (PPROF_ADDR), never
// on the API's: profiles show memory contents and cost seconds of CPU to
// take, so they belong on a loopback or admin address, not under any key.
// Handlers are put on a private mux: importing net/http/pprof also adds
// them to http.DefaultServeMux, which nothing here serves.
func servePprof(addr string, log *slog.Logger) (stop func(), err error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("PPROF_ADDR: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("pprof server stopped", "err", err)
		}
	}()
	log.Info("profiler", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return func() { _ = srv.Close() }, nil
}

// sampleMemory turns Go's heap profile sampling on (its default rate) or
// off. Without PPROF_ADDR nothing can read the heap profile, yet the
// runtime would still record the stack of one allocation in every 512 KB:
// a GraphQL page allocates some 85 KB through stacks 60 frames deep, and
// unwinding them was 0.7% of its instructions (callgrind, issue 17).
func sampleMemory(on bool) {
	if on {
		runtime.MemProfileRate = defaultMemProfileRate
	} else {
		runtime.MemProfileRate = 0
	}
}

// defaultMemProfileRate is the runtime's own default (runtime.MemProfileRate).
const defaultMemProfileRate = 512 * 1024
