package exports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/load"
	"github.com/harnlang/harn/tool/tooltest"
)

var update = flag.Bool("update", false, "rewrite the golden catalogs and refusal messages")

// quiet collects warnings instead of printing them.
func quiet() Options { return Options{Stderr: &bytes.Buffer{}, Stdin: strings.NewReader("")} }

// TestGoldenCatalogs derives the catalog of every module under
// testdata/golden and compares it byte for byte with NAME.json (go test
// ./tool/exports -update rewrites them). Each catalog must also be a
// valid harn-tools/2.0 document exactly as a script catalog is: it
// validates against the generated JSON Schema artifact, reads back
// through the ToolCatalog reader unchanged, and prepares (validators
// compiled, MCP projection bundled).
func TestGoldenCatalogs(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.harn")
	if len(files) < 40 {
		t.Fatalf("expected at least 40 golden export modules, found %d", len(files))
	}
	artifact := tooltest.ArtifactSchema(t)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".harn")
		t.Run(name, func(t *testing.T) {
			cat, err := Catalog(f, quiet())
			if err != nil {
				t.Fatalf("catalog: %v", err)
			}
			pretty := string(cat.MarshalIndent()) + "\n"
			golden := strings.TrimSuffix(f, ".harn") + ".json"
			if *update {
				os.WriteFile(golden, []byte(pretty), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if pretty != string(want) {
				t.Errorf("catalog differs from %s:\n%s", golden, pretty)
			}
			again, err := Catalog(f, quiet())
			if err != nil || string(again.Marshal()) != string(cat.Marshal()) {
				t.Error("catalog differs between runs")
			}
			checkValid(t, artifact, cat)
		})
	}
}

// checkValid holds an exports catalog to the rules of every catalog,
// and prepares it.
func checkValid(t *testing.T, artifact *js.Schema, cat *tool.Catalog) {
	t.Helper()
	back := tooltest.CheckCatalog(t, artifact, cat.Marshal())
	reg := &tool.Registry{Catalog: back}
	for _, e := range back.Tools {
		reg.Tools = append(reg.Tools, &tool.Tool{Entry: e, Executor: "harn"})
	}
	if _, err := tool.Prepare(reg); err != nil {
		t.Errorf("prepare: %v", err)
	}
}

// TestRefusals: a module under testdata/refuse has a type with no JSON
// Schema form (or another problem that stops publication); Catalog and
// Load both fail with the message in NAME.error, positioned and naming
// the function, and publish nothing.
func TestRefusals(t *testing.T) {
	files, _ := filepath.Glob("testdata/refuse/*.harn")
	if len(files) < 20 {
		t.Fatalf("expected at least 20 refusal modules, found %d", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".harn")
		t.Run(name, func(t *testing.T) {
			cat, err := Catalog(f, quiet())
			if err == nil {
				t.Fatalf("published a catalog:\n%s", cat.MarshalIndent())
			}
			le, ok := err.(*load.Error)
			if !ok || le.Status != 1 {
				t.Fatalf("want a *load.Error with status 1, got %T %v", err, err)
			}
			golden := strings.TrimSuffix(f, ".harn") + ".error"
			if *update {
				os.WriteFile(golden, []byte(le.Msg+"\n"), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if le.Msg+"\n" != string(want) {
				t.Errorf("message\n%s\nwant\n%s", le.Msg, want)
			}
			// the static phase refuses these first, with its golden text
			static := name == "compile_error" || name == "cyclic_alias"
			if !static && !strings.HasPrefix(le.Msg, f+":") {
				t.Errorf("message is not positioned in %s: %s", f, le.Msg)
			}
			if _, err := Load(f, quiet()); err == nil || err.(*load.Error).Msg != le.Msg {
				t.Errorf("Load: %v", err)
			}
		})
	}
}
