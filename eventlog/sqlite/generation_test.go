package sqlite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/sqlite"
)

// appendEnv names the file TestMain's child process appends one record
// to before it exits.
const appendEnv = "HARN_SQLITE_TEST_APPEND_TO"

func TestMain(m *testing.M) {
	if path := os.Getenv(appendEnv); path != "" {
		l, err := sqlite.Open(context.Background(), path)
		if err == nil {
			_, err = l.Append(context.Background(), "t", eventlog.Record{Kind: "k"})
			l.Close()
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Generation stays put while nothing is committed and moves after a
// commit of this log, of another handle on the file, and of another
// process.
func TestGeneration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	l := open(t, path)
	defer l.Close()
	gen := func() uint64 {
		t.Helper()
		g, ok := l.Generation()
		if !ok {
			t.Fatal("Generation: the log cannot tell")
		}
		return g
	}
	g := gen()
	if _, err := l.Count(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if gen() != g {
		t.Error("a read moved the generation")
	}
	step := func(what string, commit func()) {
		t.Helper()
		before := gen()
		commit()
		if gen() == before {
			t.Errorf("%s: generation unchanged", what)
		}
		if again := gen(); again != gen() {
			t.Errorf("%s: generation moves with nothing committed", what)
		}
	}
	step("own append", func() {
		if _, err := l.Append(ctx, "t", eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
	})
	step("another handle's append", func() {
		other := open(t, path)
		defer other.Close()
		if _, err := other.Append(ctx, "t", eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
	})
	for i := range 3 {
		step("another process's append", func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), appendEnv+"="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: %v: %s", err, out)
			}
		})
		if n, err := l.Count(ctx, "t"); err != nil || n != int64(3+i) {
			t.Fatalf("count %d, %v; want %d", n, err, 3+i)
		}
	}
}
