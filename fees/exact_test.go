package fees

import (
	"context"
	"testing"
)

// TestExactReplay estimates each external message of a real mainnet block on
// the states before the block and compares with what the chain charged.
func TestExactReplay(t *testing.T) {
	r := loadReplay(t)
	if len(r.ext) != 12 {
		t.Fatalf("fixture has %d external messages, want 12", len(r.ext))
	}
	est := r.estimator(Options{})
	byRef := 0
	for _, x := range r.ext {
		res, err := est.Estimate(context.Background(), x.request(t))
		if err != nil {
			t.Errorf("%s: %v", short(x.Account), err)
			continue
		}
		got, want := res.SourceFees, x.Charged
		t.Logf("%s byRef=%v got=%+v want=%+v dest=%d", short(x.Account), x.BodyByRef, got, want, len(res.DestinationFees))
		if got.StorageFee != want.StorageFee || got.GasFee != want.GasFee || got.FwdFee != want.FwdFee {
			t.Errorf("%s: storage/gas/fwd %d/%d/%d, chain charged %d/%d/%d", short(x.Account),
				got.StorageFee, got.GasFee, got.FwdFee, want.StorageFee, want.GasFee, want.FwdFee)
		}
		if !x.BodyByRef && got.InFwdFee != want.InFwdFee {
			t.Errorf("%s: in_fwd_fee %d, chain charged %d", short(x.Account), got.InFwdFee, want.InFwdFee)
		}
		if x.BodyByRef {
			byRef++
		}
		if res.ConfigSource != ConfigFromSource {
			t.Errorf("config source %q", res.ConfigSource)
		}
	}
	if byRef != 2 {
		t.Errorf("%d messages with the body by reference, want 2", byRef)
	}
}

// TestExactReplayWholeMessage estimates the same 12 messages given whole
// (boc), as TON Connect hands them over: emulated in the sender's own
// layout, every fee matches the chain, in_fwd_fee of the two by-reference
// bodies included. The message names its account; the answer is the same
// estimate.
func TestExactReplayWholeMessage(t *testing.T) {
	r := loadReplay(t)
	est := r.estimator(Options{})
	for _, x := range r.ext {
		req, err := ParseParams(Params{Boc: x.Message})
		if err != nil {
			t.Fatalf("%s: %v", short(x.Account), err)
		}
		if req.Account != x.Account {
			t.Fatalf("destination %s, want %s", req.Account.ToRaw(), x.Account.ToRaw())
		}
		res, err := est.Estimate(context.Background(), req)
		if err != nil {
			t.Errorf("%s: %v", short(x.Account), err)
			continue
		}
		if res.SourceFees != x.Charged {
			t.Errorf("%s (by ref: %v): %+v, chain charged %+v", short(x.Account), x.BodyByRef, res.SourceFees, x.Charged)
		}
	}
}
