package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/store"
)

// A real streaming replica serves the reads: with the primary stopped,
// every read still answers and writes fail as unavailable; with the
// replica stopped, reads go back to the primary without one failed request.
func TestReadReplicas(t *testing.T) {
	primary, replica := testenv.ReplicatedPostgres(t)
	ctx := context.Background()
	st := storetest.Open(t, primary.URL())
	if err := st.AddReplicas(ctx, []string{replica.URL()}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	b := &store.Batch{}
	if err := synth.Generate(synth.Params{Seed: 3, Actions: 200, Accounts: 20, StartUtime: 1_700_000_000}, func(a *chain.Action) error {
		b.Actions = append(b.Actions, *a)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	page := func() ([]*chain.Action, error) { return st.ListActions(ctx, store.ActionFilter{Limit: 1000}) }
	testenv.WaitFor(t, 30*time.Second, "the replica to serve the 200 actions", func() bool {
		got, err := page()
		return err == nil && len(got) == 200 && st.Replicas()[0].Healthy
	})
	if r := st.Replicas()[0]; r.Lag > time.Second || r.Err != "" {
		t.Errorf("replica status %+v", r)
	}

	// Primary down: reads answered (by the replica), writes unavailable.
	primary.Stop()
	for range 20 {
		got, err := page()
		if err != nil || len(got) != 200 {
			t.Fatalf("read with the primary down: %d actions, %v", len(got), err)
		}
	}
	if _, err := st.AddressFacts(ctx, []string{b.Actions[0].Addresses[0]}); err != nil {
		t.Fatalf("address book with the primary down: %v", err)
	}
	if err := st.PingReads(ctx); err != nil {
		t.Fatalf("reads reported down with a replica serving: %v", err)
	}
	err := st.SaveBatch(ctx, &store.Batch{Actions: b.Actions[:1]})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Kind != apperr.Unavailable {
		t.Fatalf("write with the primary down: %v, want unavailable", err)
	}

	// Replica down (before its next check): the very next reads fall back
	// to the primary.
	primary.Start()
	replica.Stop()
	for i := range 20 {
		got, err := page()
		if err != nil || len(got) != 200 {
			t.Fatalf("read %d with the replica down: %d actions, %v", i, len(got), err)
		}
	}
	if st.Replicas()[0].Healthy {
		t.Error("a stopped replica is still in use")
	}
	if err := st.ReplicaError(st.Replicas()[0].Name); err == nil {
		t.Error("ReplicaError says nothing of a stopped replica")
	}

	// Back: it serves again once its check sees it.
	replica.Start()
	testenv.WaitFor(t, 30*time.Second, "the replica to be used again", func() bool { return st.Replicas()[0].Healthy })
}
