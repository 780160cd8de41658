package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/harnlang/harn/tool/tooltest"
)

// BenchmarkToolSchemaExportsLargeProcess is `harn tool schema FILE
// --surface exports` end to end, as a fresh process each time (the test
// binary re-executed as harn), on the generated module with 1,000 public
// functions over 200 structs. Target: under 150 ms per run.
func BenchmarkToolSchemaExportsLargeProcess(b *testing.B) {
	path, err := tooltest.WriteLargeModule(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(exe, "tool", "schema", path, "--surface", "exports")
		cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
		if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), `{"schema_version"`) {
			b.Fatalf("%v: %.200s", err, out)
		}
	}
}

// BenchmarkToolSchemaExportsLarge is the same command in process.
func BenchmarkToolSchemaExportsLarge(b *testing.B) {
	path, err := tooltest.WriteLargeModule(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if code := run([]string{"tool", "schema", path, "--surface", "exports"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatal("exit", code)
		}
	}
}
