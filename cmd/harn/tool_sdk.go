//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
	"github.com/harnlang/harn/tool/sdkgen"
)

const toolSDKHelp = `Usage: harn tool sdk (CATALOG.json | FILE.harn) --lang ts|go|python --out DIR
                    [--name PKG] [--surface script|exports|auto]

Write a typed client package for a harn-tools/2.0 catalog: one method per
MCP-audience tool with input, output and error types from its schemas,
calling the tool through the ecosystem's official MCP SDK (spawning
'harn serve mcp FILE' over stdio, or a Streamable HTTP URL). Arguments
are validated against the input schema before they are sent. See
docs/sdk.md.

  --lang ts       package.json, tsconfig.json, src/*.ts (@modelcontextprotocol/sdk)
  --lang go       go.mod, go.sum, *.go (github.com/modelcontextprotocol/go-sdk)
  --lang python   pyproject.toml and a typed package (the mcp package)
  --out DIR       where to write the package (created when missing)
  --name PKG      npm package name, Go module path or Python distribution
                  (default: the catalog's info.name followed by -client)
  --surface S     for a .harn FILE, which catalog to read, as in
                  'harn tool schema' (default auto: exports when FILE has a
                  public function, else the script's published registry)

A file whose name ends in .json is read as a catalog; anything else as a
Harn module. The same catalog always gives the same bytes.

Exit status: 0 on success, 1 when the catalog cannot be read or prepared
or the package cannot be written, 2 on a usage error.
`

// catalogFrom reads the catalog a `harn tool sdk|diff` argument names: a
// serialized catalog (through the ToolCatalog reader) when the path ends
// in .json, else the catalog 'harn tool schema --surface S' prints for
// the module.
func catalogFrom(path, surface string, stdin io.Reader, stderr io.Writer) (*tool.Catalog, error) {
	if strings.HasSuffix(path, ".json") {
		data, err := os.ReadFile(path)
		if err != nil { // worded as harn check words it (docs/check.md)
			return nil, fmt.Errorf("cannot read %s: %s", path, stdlib.OSErrorText(err))
		}
		cat, err := tool.ParseCatalog(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return cat, nil
	}
	return surfaceCatalog(surface, path, stdin, stderr)
}

func cmdToolSDK(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a, status, ok := parseToolArgs("sdk", toolSDKHelp, args, nil, []string{"--lang", "--out", "--name", "--surface"}, stdout, stderr)
	if !ok {
		return status
	}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "error: "+format+"\n\n%s", append(args, toolSDKHelp)...)
		return 2
	}
	lang, out := a.values["--lang"], a.values["--out"]
	switch {
	case lang == "":
		return usage("--lang is required (%s)", strings.Join(sdkgen.Languages, ", "))
	case !slices.Contains(sdkgen.Languages, lang):
		return usage("unsupported --lang %q (available: %s)", lang, strings.Join(sdkgen.Languages, ", "))
	case out == "":
		return usage("--out is required")
	}
	surface, given := a.values["--surface"]
	if !given {
		surface = exports.SurfaceAuto
	}
	if !slices.Contains(schemaSurfaces, surface) {
		return usage("unsupported --surface %q (available: %s)", surface, strings.Join(schemaSurfaces, ", "))
	}
	cat, err := catalogFrom(a.file, surface, stdin, stderr)
	if err != nil {
		return load.Report(stderr, err)
	}
	p, err := sdkgen.Prepare(cat)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	files, err := sdkgen.Generate(p, lang, sdkgen.Options{Name: a.values["--name"]})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	if err := sdkgen.Write(out, files); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}
