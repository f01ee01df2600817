package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/apperr"
)

// Read replicas: Postgres streaming replicas that answer the read path
// (pages of actions, the address book, account states for fees). Each is
// checked every replicaCheckEvery: one that is down, not in recovery, or
// whose replay lags more than the allowed lag is skipped until it is back.
// With none usable, reads go to the primary; with the primary down, reads
// keep working from replicas while writes fail as unavailable.

// replicaCheckEvery is how often each replica's health and lag are read.
const replicaCheckEvery = time.Second

// ReplicaStatus is what /readyz and /metrics show of one replica.
type ReplicaStatus struct {
	Name    string        // host:port/db, no credentials
	Healthy bool          // answering, in recovery and within the allowed lag
	Lag     time.Duration // replay lag (0 when it has replayed all it received)
	Err     string        // why it is skipped, "" when healthy
}

type replica struct {
	name   string
	db     *bun.DB
	status atomic.Pointer[ReplicaStatus]
}

type replicaSet struct {
	all    []*replica
	maxLag time.Duration
	next   atomic.Uint64
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// AddReplicas connects to streaming replicas of a Postgres primary and
// starts checking them; reads then go to the healthy ones, round robin.
// maxLag <= 0 means 5 s. Replicas that cannot be reached now are kept and
// used once they answer.
func (s *Store) AddReplicas(ctx context.Context, urls []string, maxLag time.Duration) error {
	if len(urls) == 0 {
		return nil
	}
	if !s.IsPostgres() {
		return errors.New("DATABASE_REPLICAS needs a Postgres DATABASE_URL")
	}
	if maxLag <= 0 {
		maxLag = 5 * time.Second
	}
	set := &replicaSet{maxLag: maxLag}
	for _, u := range urls {
		if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
			return errors.New("DATABASE_REPLICAS: each replica must be a postgres:// URL")
		}
		r := &replica{name: redactedName(u), db: openPostgres(u, 5*time.Second)}
		r.status.Store(&ReplicaStatus{Name: r.name, Err: "not checked yet"})
		set.all = append(set.all, r)
	}
	checkCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	set.cancel = cancel
	for _, r := range set.all {
		set.check(ctx, r) // know the state before the first read
		set.wg.Add(1)
		go func() {
			defer set.wg.Done()
			t := time.NewTicker(replicaCheckEvery)
			defer t.Stop()
			for {
				select {
				case <-checkCtx.Done():
					return
				case <-t.C:
					set.check(checkCtx, r)
				}
			}
		}()
	}
	s.replicas = set
	return nil
}

// replicaLagQuery is 0 when the replica replayed all it received, else the
// time since the last transaction it replayed; it fails on a primary.
const replicaLagQuery = `SELECT pg_is_in_recovery(),
	CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
	     ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END`

func (set *replicaSet) check(ctx context.Context, r *replica) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st := &ReplicaStatus{Name: r.name}
	var recovering bool
	var lag float64
	err := r.db.QueryRowContext(ctx, replicaLagQuery).Scan(&recovering, &lag)
	switch {
	case err != nil:
		st.Err = "unreachable: " + err.Error()
	case !recovering:
		st.Err = "not a replica (not in recovery)"
	default:
		st.Lag = time.Duration(lag * float64(time.Second))
		if st.Lag > set.maxLag {
			st.Err = "replay lag " + st.Lag.Round(time.Millisecond).String() + " over the limit"
		} else {
			st.Healthy = true
		}
	}
	if old := r.status.Swap(st); old.Healthy != st.Healthy {
		if st.Healthy {
			slog.Info("read replica back in use", "replica", r.name, "lag", st.Lag)
		} else {
			slog.Warn("read replica skipped", "replica", r.name, "why", st.Err)
		}
	}
}

// pick is a healthy replica, round robin, or nil.
func (set *replicaSet) pick() *replica {
	n := len(set.all)
	start := int(set.next.Add(1))
	for i := range n {
		r := set.all[(start+i)%n]
		if r.status.Load().Healthy {
			return r
		}
	}
	return nil
}

// read runs fn on a replica in use, else on the primary. A replica that
// fails to answer (it went down since its last check) is skipped from then
// on and fn runs again on the primary: the client sees no error.
func (s *Store) read(fn func(db *bun.DB) error) error {
	if s.replicas != nil {
		if r := s.replicas.pick(); r != nil {
			err := fn(r.db)
			if err == nil || !isUnavailable(err) {
				return err
			}
			old := r.status.Load()
			r.status.Store(&ReplicaStatus{Name: r.name, Lag: old.Lag, Err: "failed a read: " + err.Error()})
			slog.Warn("read replica skipped", "replica", r.name, "why", err)
		}
	}
	return fn(s.db)
}

// isUnavailable reports a database that did not answer (connection lost,
// refused, shutting down), as opposed to one that answered with an error.
func isUnavailable(err error) bool {
	var e *apperr.Error
	return errors.As(unavailable(err), &e) && e.Kind == apperr.Unavailable
}

// Replicas reports each replica's state (none without DATABASE_REPLICAS).
func (s *Store) Replicas() []ReplicaStatus {
	if s.replicas == nil {
		return nil
	}
	out := make([]ReplicaStatus, len(s.replicas.all))
	for i, r := range s.replicas.all {
		out[i] = *r.status.Load()
	}
	return out
}

func (set *replicaSet) close() {
	set.cancel()
	set.wg.Wait()
	for _, r := range set.all {
		r.db.Close()
	}
}

// redactedName is host:port/database of a URL, never its credentials.
func redactedName(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = rest[at+1:]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q]
	}
	return rest
}

// ReplicaError says why the named replica is skipped, nil when it serves.
func (s *Store) ReplicaError(name string) error {
	for _, r := range s.Replicas() {
		if r.Name == name && !r.Healthy {
			return errors.New(r.Err)
		}
	}
	return nil
}

// PingReads checks that reads can be answered: by the primary, or else by
// a replica in use.
func (s *Store) PingReads(ctx context.Context) error {
	err := s.db.PingContext(ctx)
	if err == nil || s.replicas == nil || s.replicas.pick() == nil {
		return err
	}
	return nil
}

// Pools are the connection pools by name, for their statistics: "primary",
// and each replica under its redacted name.
func (s *Store) Pools() map[string]*sql.DB {
	pools := map[string]*sql.DB{"primary": s.db.DB}
	if s.replicas != nil {
		for _, r := range s.replicas.all {
			pools[r.name] = r.db.DB
		}
	}
	return pools
}
