package rest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// StreamBuffer bounds the bytes of one stream that wait in the server for
// its client: the stream stops reading events (from the store or its
// queue) while they are full, so a client that does not read costs at
// most this twice (what waits and the write in flight) plus the replay
// page its subscription holds.
const StreamBuffer = 32 << 10

var errStalled = errors.New("the client took nothing")

// sseOut hands a stream's bytes to its client from a goroutine of its own,
// so the stream sees a client that takes nothing (a write that stays
// blocked) instead of blocking with it, and can end it with the documented
// last event rather than a broken connection.
type sseOut struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	limit int
	stall time.Duration
	more  chan struct{} // wakes the writer
	room  chan struct{} // wakes the stream: a write ended
	done  chan struct{}

	mu      sync.Mutex
	pending []byte
	pendID  uint64 // the last id in pending, when pendHas
	pendHas bool
	sentID  uint64    // the last id handed to the socket
	since   time.Time // start of the write in flight; zero when none
	closing bool      // the writer ends once pending is written
	err     error     // the write that failed
}

func startOut(w http.ResponseWriter, rc *http.ResponseController, limit int, stall time.Duration) *sseOut {
	o := &sseOut{w: w, rc: rc, limit: limit, stall: stall,
		more: make(chan struct{}, 1), room: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// put queues b for the client; id is the position it ends at (hasID).
func (o *sseOut) put(b []byte, id uint64, hasID bool) {
	if len(b) == 0 {
		return
	}
	o.mu.Lock()
	o.pending = append(o.pending, b...)
	if hasID {
		o.pendID, o.pendHas = id, true
	}
	o.mu.Unlock()
	poke(o.more)
}

// wait returns when there is room for more, or errStalled when a write has
// been blocked for the stall time, or the write's error, or ctx's.
func (o *sseOut) wait(ctx context.Context) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		o.mu.Lock()
		full, err, since := len(o.pending) >= o.limit, o.err, o.since
		o.mu.Unlock()
		switch {
		case err != nil:
			return err
		case !since.IsZero() && time.Since(since) >= o.stall:
			return errStalled
		case !full:
			return nil
		}
		left := o.stall - time.Since(since)
		if since.IsZero() {
			left = o.stall // the writer is about to start
		}
		if timer == nil {
			timer = time.NewTimer(left)
		} else {
			timer.Reset(left)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-o.room:
		case <-timer.C:
		}
	}
}

// stalled tells whether a write has been blocked for the stall time.
func (o *sseOut) stalled() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.since.IsZero() && time.Since(o.since) >= o.stall
}

// failed is the write error, once a write failed.
func (o *sseOut) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// last ends the stream with its last words (words(pos), pos being the
// position the client has when it reads them). A client that took nothing
// for the stall time (drop) gets them in place of what waits, after the
// write in flight (pos is then the last id handed to the socket); any other
// gets what waits first. It waits for the writer: at most twice the stall
// time.
func (o *sseOut) last(drop bool, words func(pos uint64) []byte) {
	o.mu.Lock()
	pos := o.sentID
	if drop {
		o.pending = o.pending[:0]
	} else if o.pendHas {
		pos = o.pendID
	}
	o.pending, o.pendHas = append(o.pending, words(pos)...), false
	o.closing = true
	o.mu.Unlock()
	poke(o.more)
	<-o.done
}

// close lets the writer send what waits and waits for it.
func (o *sseOut) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	poke(o.more)
	<-o.done
}

// abort drops what waits and ends the write in flight: the client is gone.
func (o *sseOut) abort() {
	o.mu.Lock()
	o.pending, o.closing = nil, true
	o.mu.Unlock()
	_ = o.rc.SetWriteDeadline(time.Now())
	poke(o.more)
	<-o.done
}

func (o *sseOut) run() {
	defer close(o.done)
	var chunk []byte
	for {
		o.mu.Lock()
		for len(o.pending) == 0 && !o.closing {
			o.mu.Unlock()
			<-o.more
			o.mu.Lock()
		}
		if len(o.pending) == 0 {
			o.mu.Unlock()
			return
		}
		chunk, o.pending = o.pending, chunk[:0:cap(chunk)]
		if o.pendHas {
			o.sentID, o.pendHas = o.pendID, false
		}
		o.since = time.Now()
		o.mu.Unlock()
		// A write may take the stall time (then the stream is cut) and as
		// long again for the client to take it and the last event.
		_ = o.rc.SetWriteDeadline(time.Now().Add(2 * o.stall))
		_, err := o.w.Write(chunk)
		if err == nil {
			err = o.rc.Flush()
		}
		o.mu.Lock()
		o.since, o.err = time.Time{}, err
		if len(chunk) < o.limit/2 || len(chunk) > 4*o.limit {
			// Kept only by a busy stream, so an idle one holds no buffer
			// and a huge event's buffer is not kept.
			chunk = nil
		}
		o.mu.Unlock()
		poke(o.room)
		if err != nil {
			return
		}
	}
}
