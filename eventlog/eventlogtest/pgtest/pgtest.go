// Package pgtest gives tests that need PostgreSQL (the event log's, and
// the orchestrator's multi-node tests) a server: the one
// named by HARN_TEST_POSTGRES_URL, or else a throwaway server this package
// starts from the Debian postgresql binaries (initdb and pg_ctl) in a
// temporary data directory, listening on a free loopback port, as the
// postgres user when the tests run as root (PostgreSQL refuses root). It is
// stopped and removed when the package's tests end: a test package opts in
// with `func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }` and gets
// an empty schema per test from Schema(t).
//
// When no server can be had the tests skip and say why — unless CI is
// set, where a missing PostgreSQL fails them: CI must exercise the
// backend (the Makefile's pg-test-deps installs it).
package pgtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

var (
	once        sync.Once
	serverURL   string
	unavailable string
	stopServer  func()
	schemas     atomic.Int64
)

// Main runs the tests and then stops the server, if one of them started
// it; a package's TestMain is `os.Exit(pgtest.Main(m))`. The server starts
// at the first URL or Schema call, so a run whose filter selects no
// PostgreSQL test starts none.
func Main(m *testing.M) int {
	code := m.Run()
	if stopServer != nil {
		stopServer()
	}
	return code
}

// URL returns the server's URL for t, starting the server on first use,
// or skips t (fails it under CI) when there is no server.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		var err error
		if stopServer, err = start(); err != nil {
			unavailable = err.Error()
		}
	})
	if serverURL == "" {
		msg := "PostgreSQL unavailable: " + unavailable +
			" (install the postgresql package, e.g. `make pg-test-deps` as root, or set HARN_TEST_POSTGRES_URL)"
		if os.Getenv("CI") != "" && os.Getenv("CI") != "false" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return serverURL
}

// Schema creates a fresh schema on the server, dropped when t ends, and
// returns a URL whose connections use it: each test gets an empty log.
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), schemas.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: drop schema: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema: %v", err)
		}
	})
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

func start() (stop func(), err error) {
	if u := os.Getenv("HARN_TEST_POSTGRES_URL"); u != "" {
		serverURL = u
		return nil, nil
	}
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	// As root, run the server as the postgres user the package created.
	var asUser []string
	var uid, gid = -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and there is no postgres user to run the server as")
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			return nil, fmt.Errorf("running as root without runuser to drop to the postgres user")
		}
		asUser = []string{runuser, "-u", "postgres", "--"}
	}
	dir, err := os.MkdirTemp("", "harn-pgtest-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	if uid >= 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			cleanup()
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) error {
		argv := append(append(asUser, filepath.Join(bin, name)), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		return nil
	}
	if err := run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		cleanup()
		return nil, err
	}
	// A free port can be taken by someone else before the server binds it;
	// try a few.
	for try := 0; ; try++ {
		port, err := freePort()
		if err != nil {
			cleanup()
			return nil, err
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c max_connections=200 -c fsync=on",
			port, dir)
		err = run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-o", opts, "-w", "-t", "60", "start")
		if err == nil {
			serverURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
			break
		}
		if try == 2 {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			cleanup()
			return nil, fmt.Errorf("%v\n%s", err, log)
		}
	}
	// A watchdog stops the server and removes its files if this process
	// dies before stop runs (a panic, a test timeout, a kill): it waits
	// for EOF on a pipe whose write end only this process holds.
	guardR, guardW, err := os.Pipe()
	if err != nil {
		run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
		cleanup()
		return nil, err
	}
	script := fmt.Sprintf(`read _; %q -D %q -m immediate -w stop >/dev/null 2>&1; rm -rf %q`,
		filepath.Join(bin, "pg_ctl"), data, dir)
	argv := append(append([]string(nil), asUser...), "/bin/sh", "-c", script)
	guard := exec.Command(argv[0], argv[1:]...)
	guard.Stdin = guardR
	if err := guard.Start(); err != nil {
		guardR.Close()
		guardW.Close()
		run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
		cleanup()
		return nil, err
	}
	guardR.Close()
	return func() {
		run("pg_ctl", "-D", data, "-m", "fast", "-w", "-t", "60", "stop")
		guardW.Close() // the watchdog finds the server stopped and ends
		guard.Wait()
		cleanup()
	}, nil
}

// binDir finds the PostgreSQL server binaries: pg_ctl on PATH, or the
// newest Debian /usr/lib/postgresql/<version>/bin.
func binDir() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "initdb")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin")
}

func version(binDir string) int {
	v, _ := strconv.Atoi(strings.Split(filepath.Base(filepath.Dir(binDir)), ".")[0])
	return v
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
