package exports

import (
	"fmt"
	"io"
	"os"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/syntax"
)

// The surfaces an adapter can serve a file through (docs/spec/registry.md §8,
// docs/spec/mcp-projection.md §1).
const (
	SurfaceScript  = "script"  // run the script, read its published registry (tool/load)
	SurfaceExports = "exports" // the module's public functions (this package)
	SurfaceAuto    = "auto"    // exports when the module has a public function, else script
)

// Choose returns the surface that serves path: SurfaceAuto becomes
// SurfaceExports when the module has at least one public function and
// SurfaceScript otherwise; other names are returned unchanged. skipsMain
// is true when auto chose exports for a module that also declares an
// entry `fn main(harness: Harness)`, which usually publishes a registry
// the exports surface never reads. Nothing runs; the file is parsed once.
func Choose(surface, path string) (resolved string, skipsMain bool) {
	if surface != SurfaceAuto {
		return surface, false
	}
	f := parse(path)
	if f == nil || !hasPublicFunctions(path, f) {
		return SurfaceScript, false
	}
	return SurfaceExports, declaresEntryMain(f)
}

// ResolveNoting is Choose's resolved surface; it writes AutoNote to w
// when auto's choice skips the module's main. Callers print the catalog
// or run the program on stdout as before; only stderr gains the note.
func ResolveNoting(surface, path string, w io.Writer) string {
	resolved, skipsMain := Choose(surface, path)
	if skipsMain {
		fmt.Fprintln(w, AutoNote(path))
	}
	return resolved
}

// AutoNote is the note that tells a user auto chose exports over the
// registry path's main publishes.
func AutoNote(path string) string {
	return fmt.Sprintf("note: --surface auto chose exports because %s has public functions; its main was not run. Use --surface script to read the registry main publishes.", path)
}

// parse reads and parses path; nil when either fails.
func parse(path string) *syntax.File {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	f, err := syntax.Parse(path, src)
	if err != nil {
		return nil
	}
	return f
}

// declaresEntryMain reports whether f declares the `fn main` script mode
// calls: a top-level main with a parameter (docs/spec/language.md §5.4).
func declaresEntryMain(f *syntax.File) bool {
	for _, it := range f.Items {
		if fn, ok := it.(*syntax.FnDecl); ok && fn.Name == "main" && len(fn.Params) >= 1 {
			return true
		}
	}
	return false
}

// hasPublicFunctions reports whether the module f, read from path,
// exports a function or pipeline: a `pub fn` or `pub pipeline` of its
// own, or one its `pub import`s re-export. It compiles the module only
// when it has `pub import`s; nothing runs. A module that cannot be
// compiled has none (the script surface then reports the problem).
func hasPublicFunctions(path string, f *syntax.File) bool {
	reexports := false
	for _, it := range f.Items {
		switch d := it.(type) {
		case *syntax.FnDecl:
			if d.Pub {
				return true
			}
		case *syntax.PipelineDecl:
			if d.Pub {
				return true
			}
		case *syntax.ImportDecl:
			reexports = reexports || d.Pub
		}
	}
	if !reexports {
		return false
	}
	sess := interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
	m, err := sess.LoadModule(path)
	if err != nil {
		return false
	}
	for _, name := range m.Exports() {
		if _, decl, ok := m.Exported(name); ok {
			switch decl.(type) {
			case *syntax.FnDecl, *syntax.PipelineDecl:
				return true
			}
		}
	}
	return false
}
