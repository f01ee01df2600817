package fees

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tonql/tonql/apperr"
)

func TestHeadClock(t *testing.T) {
	reads := 0
	var utime uint32 = 1778681725
	var lt uint64 = 76734069000123
	var fail error
	c := NewHeadClock(func(context.Context) (uint32, uint64, error) {
		reads++
		return utime, lt, fail
	}, time.Hour)
	at, err := c.Now(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if at != (ChainTime{Unix: 1778681725, Lt: 76734069000000}) {
		t.Fatalf("head %+v: want the block's time and the start of its logical time", at)
	}
	if _, err := c.Now(context.Background()); err != nil || reads != 1 {
		t.Fatalf("read the head %d times within maxAge (%v)", reads, err)
	}

	empty := NewHeadClock(func(context.Context) (uint32, uint64, error) { return 0, 0, nil }, time.Hour)
	_, err = empty.Now(context.Background())
	wantKind(t, err, apperr.Unavailable, "FEE_CLOCK=head, but the database holds no blocks")

	fail = errors.New("database down")
	broken := NewHeadClock(func(context.Context) (uint32, uint64, error) { return 0, 0, fail }, time.Hour)
	_, err = broken.Now(context.Background())
	wantKind(t, err, apperr.Unavailable, "unavailable")
}
