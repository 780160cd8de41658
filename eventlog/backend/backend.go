// Package backend chooses and opens the event log a process uses, from its
// state directory and environment (docs/spec/orchestrator.md §4):
//
//	HARN_EVENT_LOG_URL            postgres:// or postgresql:// URL: the postgres
//	                              backend, shared by every process pointed at it
//	HARN_EVENT_LOG_BACKEND        sqlite (default), file or memory, when no URL
//	                              is set
//	HARN_EVENT_LOG_DIR            the file backend's directory, relative to the
//	                              state directory (default events)
//	HARN_EVENT_LOG_SQLITE_PATH    the SQLite file, relative to the state
//	                              directory (default events.sqlite)
//	HARN_EVENT_LOG_SQLITE_SYNC    full (default) or normal: see eventlog/sqlite
//	HARN_EVENT_LOG_SQLITE_CHECKPOINT
//	                              how many pages written to the WAL start a
//	                              checkpoint (default 1000): see eventlog/sqlite
//
// It is the only package that imports every backend, so the orchestrator
// and the operator commands depend on the eventlog interface alone.
package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/postgres"
	"github.com/harnlang/harn/eventlog/sqlite"
)

// DefaultSQLiteFile is the SQLite log's file name in the state directory.
const DefaultSQLiteFile = "events.sqlite"

// DefaultFileDir is the file log's directory in the state directory.
const DefaultFileDir = "events"

// Config is what Open resolved from the environment.
type Config struct {
	Backend    string // "sqlite", "postgres", "file" or "memory"
	Dir        string // the directory, for file
	SQLitePath string // the SQLite file, for sqlite
	SQLiteSync sqlite.Synchronous
	// SQLiteCheckpoint is HARN_EVENT_LOG_SQLITE_CHECKPOINT, 0 when unset.
	SQLiteCheckpoint int
	URL              string // the database URL, for postgres
}

// Resolve reads the environment through getenv and says which backend
// Open would use, without opening anything.
func Resolve(stateDir string, getenv func(string) string) (Config, error) {
	if u := strings.TrimSpace(getenv("HARN_EVENT_LOG_URL")); u != "" {
		if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
			return Config{}, fmt.Errorf("HARN_EVENT_LOG_URL must be a postgres:// or postgresql:// URL, got %q", redact(u))
		}
		return Config{Backend: "postgres", URL: u}, nil
	}
	switch b := strings.ToLower(strings.TrimSpace(getenv("HARN_EVENT_LOG_BACKEND"))); b {
	case "", "sqlite":
		p, err := inStateDir(stateDir, getenv("HARN_EVENT_LOG_SQLITE_PATH"), DefaultSQLiteFile, "sqlite")
		if err != nil {
			return Config{}, err
		}
		sync, err := sqlite.ParseSynchronous(getenv("HARN_EVENT_LOG_SQLITE_SYNC"))
		if err != nil {
			return Config{}, fmt.Errorf("HARN_EVENT_LOG_SQLITE_SYNC: %w", err)
		}
		pages := 0
		if v := strings.TrimSpace(getenv("HARN_EVENT_LOG_SQLITE_CHECKPOINT")); v != "" {
			if pages, err = strconv.Atoi(v); err != nil || pages <= 0 {
				return Config{}, fmt.Errorf("HARN_EVENT_LOG_SQLITE_CHECKPOINT=%q: want a positive number of pages", v)
			}
		}
		return Config{Backend: "sqlite", SQLitePath: p, SQLiteSync: sync, SQLiteCheckpoint: pages}, nil
	case "memory":
		return Config{Backend: "memory"}, nil
	case "file":
		d, err := inStateDir(stateDir, getenv("HARN_EVENT_LOG_DIR"), DefaultFileDir, "file")
		if err != nil {
			return Config{}, err
		}
		return Config{Backend: "file", Dir: d}, nil
	case "postgres", "postgresql":
		return Config{}, fmt.Errorf("HARN_EVENT_LOG_BACKEND=%s needs HARN_EVENT_LOG_URL (a postgres:// URL)", b)
	default:
		return Config{}, fmt.Errorf("HARN_EVENT_LOG_BACKEND=%q is not a backend (want sqlite, file or memory, or set HARN_EVENT_LOG_URL for postgres)", b)
	}
}

// Open opens the event log that the environment selects; see the package
// comment for the variables.
func Open(ctx context.Context, stateDir string, getenv func(string) string) (eventlog.Log, error) {
	cfg, err := Resolve(stateDir, getenv)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	switch cfg.Backend {
	case "postgres":
		return postgres.Open(ctx, cfg.URL)
	case "memory":
		return memory.New(), nil
	case "file":
		return memory.OpenDir(cfg.Dir)
	default:
		return sqlite.OpenOptions(ctx, cfg.SQLitePath, sqlite.Options{Sync: cfg.SQLiteSync, CheckpointPages: cfg.SQLiteCheckpoint})
	}
}

// Exists says whether the log cfg names is there already, without
// opening or creating anything: the SQLite file, or the file backend's
// journal. A PostgreSQL log is taken to exist (its database is shared,
// and opening it creates the schema); a memory log never does.
func Exists(cfg Config) bool {
	switch cfg.Backend {
	case "postgres":
		return true
	case "memory":
		return false
	case "file":
		return memory.HoldsLog(cfg.Dir)
	}
	fi, err := os.Stat(cfg.SQLitePath)
	return err == nil && fi.Mode().IsRegular()
}

// redact hides the passwords in a connection string for error messages:
// a URL's user information, and every password or sslpassword setting —
// a key/value DSN's (password=…, password = '…') or a URL's query
// parameter.
func redact(u string) string {
	u = passwordSetting().ReplaceAllString(u, "${1}=…")
	if at := strings.LastIndex(u, "@"); at >= 0 {
		if colon := strings.Index(u[:at], "://"); colon >= 0 {
			return u[:colon+3] + "…" + u[at:]
		}
		return "…" + u[at:]
	}
	return u
}

// passwordSetting matches a password setting and its value: quoted (with
// backslash escapes, as libpq reads it) or up to a space or &.
var passwordSetting = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b((?:ssl)?password)\s*=\s*(?:'(?:[^'\\]|\\.)*'?|[^\s&]*)`)
})

// inStateDir is the path a backend keeps its files at: setting (or def
// when empty), relative to the state directory unless absolute.
func inStateDir(stateDir, setting, def, backend string) (string, error) {
	if stateDir == "" {
		return "", fmt.Errorf("the %s event log needs a state directory", backend)
	}
	p := strings.TrimSpace(setting)
	if p == "" {
		p = def
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(stateDir, p)
	}
	return p, nil
}
