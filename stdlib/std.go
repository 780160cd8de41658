package stdlib

// The embedded std/* modules (builtins.md §4.10): Harn source files under
// std/, loaded by `import "std/NAME"`.

import (
	"embed"
)

//go:embed std/*.harn
var stdFiles embed.FS

// StdModule returns the source of the embedded module std/NAME (name
// without the "std/" prefix), or false when there is no such module.
func StdModule(name string) ([]byte, bool) {
	if name == "" || name != cleanStdName(name) {
		return nil, false
	}
	b, err := stdFiles.ReadFile("std/" + name + ".harn")
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
