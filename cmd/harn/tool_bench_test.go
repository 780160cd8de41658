package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const widgetScript = "testdata/tool_schema/widget.harn"

// BenchmarkToolSchemaWidget is `harn tool schema` on the seed's widget
// registry, in process: load, run, validate, emit.
func BenchmarkToolSchemaWidget(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if code := run([]string{"tool", "schema", widgetScript}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatal("exit", code)
		}
	}
}

// BenchmarkToolSchemaWidgetProcess is the same command end to end, as a
// fresh process each time (the test binary re-executed as harn).
func BenchmarkToolSchemaWidgetProcess(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(exe, "tool", "schema", widgetScript)
		cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
		if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), `{"schema_version"`) {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
