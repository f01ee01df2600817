package ingest

import (
	"sync"
	"time"
)

// Activity is what an import is busy with: the file it waits for the
// parse of, or is saving, since when. A long file otherwise shows nothing
// until it is done (progress lines came only between files).
type Activity struct {
	Stage        string // "parsing" or "saving"; "" between steps
	File         string // the file parsed, or the last of the files saved together
	Files        int    // files saved together (1 when parsing)
	Transactions int    // being saved
	Since        time.Time
}

// activity guards an Importer's current Activity; ImportFiles sets it,
// any goroutine may read it.
type activity struct {
	mu  sync.Mutex
	now Activity
}

func (a *activity) set(now Activity) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Stage != "" {
		now.Since = time.Now()
	}
	a.now = now
}

// Activity tells what ImportFiles is busy with now (safe from any
// goroutine).
func (im *Importer) Activity() Activity {
	im.act.mu.Lock()
	defer im.act.mu.Unlock()
	return im.act.now
}
