package exports

import (
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

// Resolve returns the surface that serves path: SurfaceAuto becomes
// SurfaceExports when the module has at least one public function and
// SurfaceScript otherwise; other names are returned unchanged.
func Resolve(surface, path string) string {
	if surface == SurfaceAuto {
		if HasPublicFunctions(path) {
			return SurfaceExports
		}
		return SurfaceScript
	}
	return surface
}

// HasPublicFunctions reports whether the module at path exports a
// function or pipeline: a `pub fn` or `pub pipeline` of its own, or one
// its `pub import`s re-export. It parses the file, and compiles it only
// when it has `pub import`s; nothing runs. A file that cannot be read or
// compiled has none (the script surface then reports the problem).
func HasPublicFunctions(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, err := syntax.Parse(path, src)
	if err != nil {
		return false
	}
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
