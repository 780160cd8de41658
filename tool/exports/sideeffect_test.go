package exports

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
)

// sideEffectModule is a library whose script parts would write files,
// run a process and throw: a top-level binding, top-level statements and
// main. Every marker path is absolute, inside dir.
func sideEffectModule(t *testing.T) (path string, marker func(string) string) {
	dir := t.TempDir()
	marker = func(name string) string { return filepath.Join(dir, name) }
	src := fmt.Sprintf(`/** A library with script parts. */
let boot = write_file(%[1]q, "a top-level binding ran")

pub fn safe(x: int) -> int { return x }

fn main(harness: Harness) {
  write_file(%[2]q, "main ran")
  exec("touch", %[3]q)
  throw "main threw"
}

write_file(%[4]q, "a top-level statement ran")
exec("touch", %[5]q)
throw "the top level threw"
`, marker("let"), marker("main"), marker("main_exec"), marker("top"), marker("top_exec"))
	path = filepath.Join(dir, "lib.harn")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, marker
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestCatalogHasNoSideEffect is the proof the issue asks for: deriving
// the catalog of a module whose main and top level write files, exec and
// throw succeeds and leaves no trace — nothing of the module runs, not
// even its top-level bindings.
func TestCatalogHasNoSideEffect(t *testing.T) {
	path, marker := sideEffectModule(t)
	cat, err := Catalog(path, quiet())
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	if len(cat.Tools) != 1 || cat.Tools[0].Name != "safe" {
		t.Fatalf("tools: %s", cat.Marshal())
	}
	for _, m := range []string{"let", "main", "main_exec", "top", "top_exec"} {
		if exists(marker(m)) {
			t.Errorf("building the catalog ran the module: %s exists", m)
		}
	}
}

// TestLoadRunsOnlyModuleInitialisation: loading for dispatch runs what
// importing the module runs (docs/spec/language.md §11.2) — its top-level bindings
// and function declarations — and never main or a top-level statement.
func TestLoadRunsOnlyModuleInitialisation(t *testing.T) {
	path, marker := sideEffectModule(t)
	lib, p := loadPrepared(t, path)
	pt, _ := p.Tool("safe")
	o := pt.Invoke(lib.Thread(), jsonv.FromPlain(map[string]any{"x": 5}))
	if o.Kind != tool.Success || string(jsonv.Marshal(o.Result)) != "5" {
		t.Fatalf("safe: %+v", o)
	}
	if !exists(marker("let")) {
		t.Error("module initialisation did not run the top-level binding")
	}
	for _, m := range []string{"main", "main_exec", "top", "top_exec"} {
		if exists(marker(m)) {
			t.Errorf("loading for dispatch ran %s", m)
		}
	}
}

func writeTemp(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
