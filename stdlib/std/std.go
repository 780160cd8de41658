// Package std owns the embedded std/* modules (builtins.md §4.10): the
// Harn source files in this directory, loaded by `import "std/NAME"`.
package std

import (
	"embed"
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
