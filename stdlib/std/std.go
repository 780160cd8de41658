// Package std owns the embedded std/* modules (docs/spec/builtins.md §4.10): the
// Harn source files in this directory, loaded by `import "std/NAME"`.
package std

import (
	"embed"
	"strings"
)

//go:embed *.harn
var stdFiles embed.FS

// Module returns the source of the embedded module std/NAME (name
// without the "std/" prefix), or false when there is no such module.
func Module(name string) ([]byte, bool) {
	if name == "" || name != cleanStdName(name) {
		return nil, false
	}
	b, err := stdFiles.ReadFile(name + ".harn")
	if err != nil {
		return nil, false
	}
	return b, true
}

// cleanStdName rejects names that could escape the std directory.
func cleanStdName(name string) string {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return ""
		}
	}
	return name
}

// Names lists the embedded modules, sorted ("math" for std/math).
func Names() []string {
	entries, _ := stdFiles.ReadDir(".")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".harn"); ok {
			out = append(out, name)
		}
	}
	return out
}
