package store_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
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
	page := func() ([]*chain.Action, error) {
		p, err := st.ListActions(ctx, store.ActionFilter{Limit: 1000}, store.NoBook)
		return p.Actions, err
	}
	testenv.WaitFor(t, 30*time.Second, "the replica to serve the 200 actions", func() bool {
		got, err := page()
		return err == nil && len(got) == 200 && st.Replicas()[0].Healthy
	})
	if r := st.Replicas()[0]; r.Lag > time.Second || r.Err != "" {
		t.Errorf("replica status %+v", r)
	}
	metrics := server.New(server.Options{Resolver: &resolvers.Resolver{Store: st}})
	if got := replicaGauge(t, metrics, "tonql_replica_healthy", st.Replicas()[0].Name); got != 1 {
		t.Errorf("tonql_replica_healthy = %v for a serving replica", got)
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
	if got := replicaGauge(t, metrics, "tonql_replica_healthy", st.Replicas()[0].Name); got != 0 {
		t.Errorf("tonql_replica_healthy = %v for a stopped replica", got)
	}
	if err := st.ReplicaError(st.Replicas()[0].Name); err == nil {
		t.Error("ReplicaError says nothing of a stopped replica")
	}

	// Back: it serves again once its check sees it.
	replica.Start()
	testenv.WaitFor(t, 30*time.Second, "the replica to be used again", func() bool { return st.Replicas()[0].Healthy })
}

// replicaGauge scrapes /metrics and returns the named family's value for
// one replica (-1 when absent).
func replicaGauge(t *testing.T, h http.Handler, family, replica string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	for _, m := range fams[family].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "replica" && l.GetValue() == replica {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}
