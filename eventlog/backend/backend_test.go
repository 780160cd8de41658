package backend_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog/backend"
	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/eventlog/sqlite"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		name string
		env  func(string) string
		want backend.Config
		err  string
	}{
		{"default", env(), backend.Config{Backend: "sqlite", SQLitePath: "/st/events.sqlite", SQLiteSync: sqlite.Full}, ""},
		{"sqlite named", env("HARN_EVENT_LOG_BACKEND", "SQLite"), backend.Config{Backend: "sqlite", SQLitePath: "/st/events.sqlite", SQLiteSync: sqlite.Full}, ""},
		{"sqlite relative path", env("HARN_EVENT_LOG_SQLITE_PATH", "db/log.sqlite"), backend.Config{Backend: "sqlite", SQLitePath: "/st/db/log.sqlite", SQLiteSync: sqlite.Full}, ""},
		{"sqlite absolute path", env("HARN_EVENT_LOG_SQLITE_PATH", "/var/x.sqlite"), backend.Config{Backend: "sqlite", SQLitePath: "/var/x.sqlite", SQLiteSync: sqlite.Full}, ""},
		{"sqlite normal", env("HARN_EVENT_LOG_SQLITE_SYNC", "Normal"), backend.Config{Backend: "sqlite", SQLitePath: "/st/events.sqlite", SQLiteSync: sqlite.Normal}, ""},
		{"sqlite bad sync", env("HARN_EVENT_LOG_SQLITE_SYNC", "off"), backend.Config{}, "want full or normal"},
		{"sqlite checkpoint", env("HARN_EVENT_LOG_SQLITE_CHECKPOINT", " 250 "), backend.Config{Backend: "sqlite", SQLitePath: "/st/events.sqlite", SQLiteSync: sqlite.Full, SQLiteCheckpoint: 250}, ""},
		{"sqlite bad checkpoint", env("HARN_EVENT_LOG_SQLITE_CHECKPOINT", "0"), backend.Config{}, "want a positive number of pages"},
		{"memory", env("HARN_EVENT_LOG_BACKEND", "memory"), backend.Config{Backend: "memory"}, ""},
		{"url wins", env("HARN_EVENT_LOG_BACKEND", "memory", "HARN_EVENT_LOG_URL", "postgresql://u@h/db"), backend.Config{Backend: "postgres", URL: "postgresql://u@h/db"}, ""},
		{"postgres scheme", env("HARN_EVENT_LOG_URL", "postgres://h/db"), backend.Config{Backend: "postgres", URL: "postgres://h/db"}, ""},
		{"bad url", env("HARN_EVENT_LOG_URL", "mysql://u:secret@h/db"), backend.Config{}, "must be a postgres:// or postgresql:// URL"},
		{"postgres without url", env("HARN_EVENT_LOG_BACKEND", "postgres"), backend.Config{}, "needs HARN_EVENT_LOG_URL"},
		{"file", env("HARN_EVENT_LOG_BACKEND", "file"), backend.Config{Backend: "file", Dir: "/st/events"}, ""},
		{"file dir", env("HARN_EVENT_LOG_BACKEND", "file", "HARN_EVENT_LOG_DIR", "/var/log/harn"), backend.Config{Backend: "file", Dir: "/var/log/harn"}, ""},
		{"unknown backend", env("HARN_EVENT_LOG_BACKEND", "jsonl"), backend.Config{}, `"jsonl" is not a backend`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := backend.Resolve("/st", c.env)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Resolve = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// A HARN_EVENT_LOG_URL that is not a postgres URL is echoed in the error
// with every password masked, whatever form the string has.
func TestResolveMasksPasswords(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"host=db user=u password=secret", `got "host=db user=u password=…"`},
		{"host=db password = secret dbname=harn", `got "host=db password=… dbname=harn"`},
		{`host=db password='sec ret\' x' port=5432`, `got "host=db password=… port=5432"`},
		{"host=db PASSWORD=secret sslpassword=secret", `got "host=db PASSWORD=… sslpassword=…"`},
		{"mysql://u:secret@h/db", `got "mysql://…@h/db"`},
		{"mysql://h/db?user=u&password=secret&sslmode=disable", `got "mysql://h/db?user=u&password=…&sslmode=disable"`},
	} {
		_, err := backend.Resolve("/st", env("HARN_EVENT_LOG_URL", c.url))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "ret") {
			t.Errorf("%s: err = %v, want one containing %s", c.url, err, c.want)
		}
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := backend.Open(ctx, dir, env("HARN_EVENT_LOG_SQLITE_PATH", "sub/e.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Backend() != "sqlite" {
		t.Errorf("Backend() = %q", l.Backend())
	}
	l.Close()
	if m, _ := filepath.Glob(filepath.Join(dir, "sub", "e.sqlite")); len(m) != 1 {
		t.Errorf("no SQLite file at the overridden path")
	}
	l, err = backend.Open(ctx, dir, env("HARN_EVENT_LOG_BACKEND", "memory"))
	if err != nil || l.Backend() != "memory" {
		t.Fatalf("memory: %v, %v", l, err)
	}
	l.Close()
	if _, err := backend.Open(ctx, dir, env("HARN_EVENT_LOG_BACKEND", "nope")); err == nil {
		t.Error("an unknown backend opened")
	}
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestOpenPostgres(t *testing.T) {
	url := pgtest.Schema(t)
	l, err := backend.Open(context.Background(), t.TempDir(), env("HARN_EVENT_LOG_URL", url, "HARN_EVENT_LOG_BACKEND", "memory"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Backend() != "postgres" {
		t.Errorf("Backend() = %q, want postgres", l.Backend())
	}
	if _, err := backend.Open(context.Background(), "", env("HARN_EVENT_LOG_URL", "postgres://u:pw@127.0.0.1:1/db?connect_timeout=2")); err == nil ||
		strings.Contains(err.Error(), "pw@") {
		t.Errorf("unreachable database: %v; want an error without the password", err)
	}
}

// Exists tells a state directory that holds the selected log from one
// that does not, creating nothing: the SQLite file, the file backend's
// journal; a memory log never exists beforehand, a PostgreSQL one is
// taken to.
func TestExists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, backendName := range []string{"sqlite", "file"} {
		getenv := env("HARN_EVENT_LOG_BACKEND", backendName)
		cfg, err := backend.Resolve(dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		if backend.Exists(cfg) {
			t.Fatalf("%s: exists before it was opened", backendName)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 && backendName == "sqlite" {
			t.Fatalf("Exists created %v", entries)
		}
		log, err := backend.Open(ctx, dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		log.Close()
		if !backend.Exists(cfg) {
			t.Errorf("%s: does not exist once opened", backendName)
		}
	}
	if backend.Exists(backend.Config{Backend: "memory"}) || !backend.Exists(backend.Config{Backend: "postgres", URL: "postgres://x"}) {
		t.Error("memory exists, or postgres does not")
	}
}
