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
// commit to its topic by this log, and after any commit of another
// handle on the file or of another process (whose topics it cannot
// tell); this log's appends to other topics leave it.
func TestGeneration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	l := open(t, path)
	defer l.Close()
	gen := func() uint64 {
		t.Helper()
		g, ok := l.Generation("t")
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
	for range 3 {
		before := gen()
		if _, err := l.Append(ctx, "u", eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
		if gen() != before {
			t.Error("an own append to another topic moved the generation")
		}
	}
	step("another handle's append", func() {
		other := open(t, path)
		defer other.Close()
		if _, err := other.Append(ctx, "t", eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
	})
	step("another handle's append to another topic", func() {
		other := open(t, path)
		defer other.Close()
		if _, err := other.Append(ctx, "u", eventlog.Record{Kind: "k"}); err != nil {
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

// While this log appends to other topics as fast as it can (its own
// commits, which it explains), every append of another handle to the
// topic still moves the topic's generation.
func TestGenerationUnderOwnLoad(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	l := open(t, path)
	defer l.Close()
	other := open(t, path)
	defer other.Close()
	stop := make(chan struct{})
	loaded := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { loaded <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := l.Append(ctx, "u", eventlog.Record{Kind: "k"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 50 {
		before, ok := l.Generation("t")
		if !ok {
			t.Fatal("Generation: the log cannot tell")
		}
		if _, err := other.Append(ctx, "t", eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
		if after, _ := l.Generation("t"); after == before {
			t.Fatalf("append %d of another handle left the generation at %d", i, after)
		}
	}
	close(stop)
	for range 4 {
		<-loaded
	}
}
