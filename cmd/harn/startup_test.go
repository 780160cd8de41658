package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"
)

// startupProbe, set in the environment of a re-executed test binary,
// names a script: the child runs it as `harn run` does and prints whether
// the JSON Schema meta-schemas were compiled, on a fresh process (this
// test binary's other tests compile schemas).
const startupProbe = "HARN_TEST_STARTUP_PROBE"

// TestStartupSkipsSchemaCompiler checks that `harn run` of a script that
// never validates does not compile the JSON Schema meta-schemas (1.7 MB and
// 21,000 allocations that jsonschema used to spend in its init), and that
// one that validates does.
func TestStartupSkipsSchemaCompiler(t *testing.T) {
	if path := os.Getenv(startupProbe); path != "" {
		if code := run([]string{"run", path}, strings.NewReader(""), io.Discard, os.Stderr); code != 0 {
			t.Fatalf("harn run %s: status %d", path, code)
		}
		fmt.Printf("metaschemas compiled: %v\n", js.MetaschemasCompiled())
		return
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "false"},
		{"no-schema", "let xs = [3, 1, 2]\nprintln(xs.sort())\n", "false"},
		{"validates", `println(schema_is(3, {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer"}))` + "\n", "true"},
	} {
		path := filepath.Join(dir, tc.name+".harn")
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestStartupSkipsSchemaCompiler$")
		cmd.Env = append(os.Environ(), startupProbe+"="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, out)
		}
		if want := "metaschemas compiled: " + tc.want; !strings.Contains(string(out), want) {
			t.Errorf("%s: want %q in\n%s", tc.name, want, out)
		}
	}
}
