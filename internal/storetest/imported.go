package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tonql/tonql/store"
)

// Templates. Migrating an empty store takes seconds under -race (SQLite
// 5-10 s on a loaded 2-core machine, Postgres about 3), importing the
// real fixtures tens of seconds to minutes; copying a database takes a
// fraction of a second (Postgres: CREATE DATABASE ... TEMPLATE; SQLite:
// the file). A package whose TestMain runs its tests through
// RunWithTemplates migrates once per run (Open copies a migrated empty
// template into a fresh database) and imports each set of fixtures once
// per run (Imported). Every test still gets a database of its own: it may
// write to it, and no test sees another's writes.

var templates = struct {
	sync.Mutex
	on    bool
	byKey map[string]*template
	dir   string   // SQLite templates' folder
	pg    []string // Postgres templates: a URL on their server, then the name
}{byKey: map[string]*template{}}

// RunWithTemplates runs m's tests with templates on and drops the
// templates after: a package's TestMain returns os.Exit(it).
func RunWithTemplates(m *testing.M) int {
	templates.Lock()
	templates.on = true
	templates.Unlock()
	defer dropTemplates()
	return m.Run()
}

// Imported returns a migrated store at dbURL (a fresh database of
// testenv.Databases) holding what load writes into an empty store. With
// templates on, load runs once per test binary, key and kind of database,
// into a template, and every call gets a copy of it; else load runs for
// each call. key names what load writes (its files and ingest options):
// two loads with the same key must write the same.
func Imported(t testing.TB, dbURL, key string, load func(*store.Store) error) *store.Store {
	t.Helper()
	if !templatesOn() {
		st := Open(t, dbURL)
		if err := load(st); err != nil {
			t.Fatalf("import %s: %v", key, err)
		}
		return st
	}
	copyFrom(t, dbURL, "imported "+key, load)
	return open(t, dbURL)
}

// fromMigrated makes the fresh database at dbURL a copy of the migrated
// empty template, when templates are on and the database is fresh: no
// SQLite file yet, or a Postgres database with no table and nobody
// connected (a second Open of one URL opens what the first made).
func fromMigrated(t testing.TB, dbURL string) {
	t.Helper()
	if !templatesOn() {
		return
	}
	fresh, err := isFresh(dbURL)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	if fresh {
		copyFrom(t, dbURL, "migrated", nil)
	}
}

func templatesOn() bool {
	templates.Lock()
	defer templates.Unlock()
	return templates.on
}

// template is one database that copies are made from.
type template struct {
	once sync.Once
	err  error
	took time.Duration
	name string // Postgres: the database's name
	path string // SQLite: the file
}

// copyFrom builds the template key (once: the migrated empty one when
// load is nil, else a copy of it that load wrote into) and copies it into
// the fresh database at dbURL.
func copyFrom(t testing.TB, dbURL, key string, load func(*store.Store) error) {
	t.Helper()
	start := time.Now()
	tp, err := copyTemplate(dbURL, key, load)
	if err != nil {
		t.Fatalf("storetest: template %s: %v", key, err)
	}
	if load != nil {
		t.Logf("store copied from a template in %s (its import took %s once)", time.Since(start).Round(time.Millisecond), tp.took.Round(time.Millisecond))
	}
}

// copyTemplate is copyFrom's work, its errors returned.
func copyTemplate(dbURL, key string, load func(*store.Store) error) (*template, error) {
	pg := isPostgres(dbURL)
	tp := templateFor(pg, key)
	tp.once.Do(func() { tp.err = tp.build(dbURL, load) })
	if tp.err != nil {
		return tp, tp.err
	}
	if pg {
		return tp, copyPostgres(dbURL, tp.name)
	}
	return tp, copySQLite(tp.path, sqlitePath(dbURL))
}

func templateFor(pg bool, key string) *template {
	templates.Lock()
	defer templates.Unlock()
	k := fmt.Sprint(pg, " ", key)
	tp := templates.byKey[k]
	if tp == nil {
		tp = &template{}
		templates.byKey[k] = tp
	}
	return tp
}

// build makes the template on dbURL's server (or in a folder of its own
// for SQLite): migrated, then load run on a copy of the migrated one.
// Its store is closed after: Postgres copies only a database nobody is
// connected to.
func (tp *template) build(dbURL string, load func(*store.Store) error) error {
	start := time.Now()
	ctx := context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tonql_template_" + hex.EncodeToString(b[:])
	var target string
	if isPostgres(dbURL) {
		if err := adminExec(dbURL, "CREATE DATABASE "+name); err != nil {
			return err
		}
		templates.Lock()
		templates.pg = append(templates.pg, dbURL, name)
		templates.Unlock()
		// A template serves the whole run: its import must not fail on
		// a COPY answered late by a busy server (the store's 10 s).
		tp.name, target = name, patient(withDatabase(dbURL, name))
	} else {
		templates.Lock()
		if templates.dir == "" {
			dir, err := os.MkdirTemp("", "tonql-templates-")
			if err != nil {
				templates.Unlock()
				return err
			}
			templates.dir = dir
		}
		tp.path = filepath.Join(templates.dir, name+".db")
		templates.Unlock()
		target = "sqlite:" + tp.path
	}
	if load != nil {
		if _, err := copyTemplate(target, "migrated", nil); err != nil {
			return err
		}
	}
	st, err := store.Open(ctx, target)
	if err != nil {
		return err
	}
	if _, err := st.Migrate(ctx); err != nil {
		st.Close()
		return err
	}
	if load != nil {
		if err := load(st); err != nil {
			st.Close()
			return err
		}
	}
	if !st.IsPostgres() {
		// Everything into the main file, which is what a copy takes.
		if _, err := st.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			st.Close()
			return err
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	tp.took = time.Since(start)
	return nil
}

func isPostgres(dbURL string) bool {
	return strings.HasPrefix(dbURL, "postgres://") || strings.HasPrefix(dbURL, "postgresql://")
}

func sqlitePath(dbURL string) string { return strings.TrimPrefix(dbURL, "sqlite:") }

func isFresh(dbURL string) (bool, error) {
	if !isPostgres(dbURL) {
		_, err := os.Stat(sqlitePath(dbURL))
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		return false, err
	}
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dbURL)))
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var used bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema')
		OR EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid())`).Scan(&used)
	return !used, err
}

// copyPostgres replaces the fresh database of dbURL with a copy of the
// template, under its name: the test's cleanup drops it as before.
func copyPostgres(dbURL, template string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(u.Path, "/")
	if err := adminExec(dbURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return err
	}
	return adminExec(dbURL, "CREATE DATABASE "+name+" TEMPLATE "+template)
}

func copySQLite(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// dropTemplates removes every template this test binary made.
func dropTemplates() {
	templates.Lock()
	defer templates.Unlock()
	for i := 0; i+1 < len(templates.pg); i += 2 {
		if err := adminExec(templates.pg[i], "DROP DATABASE IF EXISTS "+templates.pg[i+1]+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "drop template database %s: %v\n", templates.pg[i+1], err)
		}
	}
	templates.pg = nil
	if templates.dir != "" {
		_ = os.RemoveAll(templates.dir)
		templates.dir = ""
	}
	templates.byKey = map[string]*template{}
}

// adminExec runs a statement on dbURL's server, connected to its
// maintenance database (no one can drop or copy the database they are
// connected to). Postgres waits up to 5 s for a closed pool's sessions to
// end before refusing to copy a template "being accessed by other users".
func adminExec(dbURL, stmt string) error {
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(withDatabase(dbURL, "postgres"))))
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := db.ExecContext(ctx, stmt)
	return err
}

func withDatabase(dbURL, name string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	u.Path = "/" + name
	return u.String()
}

func patient(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	q := u.Query()
	q.Set("read_timeout", "10m")
	q.Set("write_timeout", "10m")
	u.RawQuery = q.Encode()
	return u.String()
}
