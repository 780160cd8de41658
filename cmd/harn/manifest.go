package main

import (
	"path/filepath"

	"github.com/harnlang/harn/stdlib/process"
)

// nearestManifest is the harn.toml nearest above the file path, the one
// whose settings apply to it; "" when there is none.
func nearestManifest(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	dir := process.ManifestDir(filepath.Dir(abs))
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "harn.toml")
}
