// Command gen writes the harn-tools/2.0 protocol artifacts (the JSON
// Schema, the TypeScript declarations and their manifest) from the
// catalog types of package tool. Run it through `go generate ./tool`;
// with -check it writes nothing and fails when a checked-in file differs
// (`make check-protocol-artifacts`).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnlang/harn/tool"
)

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "report drift instead of writing")
	flag.Parse()
	files := []struct {
		path string
		data []byte
	}{
		{tool.ArtifactPaths.Schema, tool.JSONSchemaArtifact()},
		{tool.ArtifactPaths.TypeScript, tool.TypeScriptArtifact()},
		{tool.ArtifactPaths.Manifest, tool.ManifestArtifact()},
	}
	drift := false
	for _, f := range files {
		p := filepath.Join(*root, f.path)
		if *check {
			old, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(old, f.data) {
				fmt.Fprintf(os.Stderr, "%s is out of date; run `go generate ./tool`\n", f.path)
				drift = true
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if drift {
		os.Exit(1)
	}
}
