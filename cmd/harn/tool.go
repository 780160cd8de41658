//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
)

// `harn tool SUBCOMMAND`: the registry adapters. `schema` is here,
// `run` and `completions` (adapter/cli) are in toolcli.go.
var toolCommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"schema":      cmdToolSchema,
	"run":         cmdToolRun,
	"completions": cmdToolCompletions,
	"sdk":         cmdToolSDK,
	"diff":        cmdToolDiff,
}

const toolHelp = `Usage: harn tool schema FILE [--surface script|exports|auto] [--pretty]
       harn tool run FILE [COMMAND...] [ARGS...]
       harn tool completions FILE --shell bash|zsh|fish|powershell
       harn tool sdk (CATALOG.json | FILE) --lang ts|go|python --out DIR
       harn tool diff OLD NEW [--json] [--fail-on breaking|any]

Project a script's published ToolRegistry:
  schema        print its harn-tools/2.0 catalog (see 'harn help tool schema')
  run           run it as a nested command-line program (see 'harn help tool run')
  completions   print shell completions for that program (see 'harn help tool completions')
  sdk           write a typed MCP client package for its catalog (see 'harn help tool sdk')
  diff          classify the changes between two catalogs (see 'harn help tool diff')
`

const toolSchemaHelp = `Usage: harn tool schema FILE [--surface script|exports|auto] [--pretty]

Run FILE once, read the ToolRegistry it publishes with
harness.tools.mcp_tools(...) and print its harn-tools/2.0 catalog: the tools
whose governance includes the "catalog" audience, without handlers. The
output is one line of JSON (--pretty: indented with two spaces), followed by
a newline, byte-for-byte stable across runs. Output the script prints while
loading goes to stderr.

  --surface script   run FILE and read its published registry
  --surface exports  derive the catalog from FILE's public functions without
                     running anything (see docs/exports.md)
  --surface auto     exports when FILE has a public function, else script
                     (the default, as for harn serve mcp)

Exit status: 0 on success, 1 when the script fails to load, publishes
nothing or publishes an invalid registry, or when an export has a type with
no JSON Schema form, 2 on a usage error.
`

// toolArgs are the arguments of a `harn tool` subcommand that takes one
// FILE and options.
type toolArgs struct {
	file   string
	flags  map[string]bool   // the boolean flags given
	values map[string]string // the options given with a value
}

// parseToolArgs reads one FILE, the boolean flags and the options with a
// value (`--name V` or `--name=V`) of `harn tool SUB`. When ok is false
// the command is over with status: 0 after --help, 2 after a usage error
// (printed with help).
func parseToolArgs(sub, help string, args, flags, options []string, stdout, stderr io.Writer) (a toolArgs, status int, ok bool) {
	a = toolArgs{flags: map[string]bool{}, values: map[string]string{}}
	usage := func(format string, args ...any) (toolArgs, int, bool) {
		fmt.Fprintf(stderr, "error: "+format+"\n\n%s", append(args, help)...)
		return a, 2, false
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, _, _ := strings.Cut(arg, "=")
		switch {
		case arg == "--help" || arg == "-h":
			fmt.Fprint(stdout, help)
			return a, 0, false
		case slices.Contains(flags, arg):
			a.flags[arg] = true
		case slices.Contains(options, name):
			value, last, err := flagValue(args, i)
			if err != nil {
				return usage("%v", err)
			}
			a.values[name], i = value, last
		case strings.HasPrefix(arg, "-") && arg != "-":
			return usage("%s", unknownOption(arg, append(append([]string{"--help"}, flags...), options...)...))
		case a.file == "":
			a.file = arg
		default:
			return usage("unexpected argument %q", arg)
		}
	}
	if a.file == "" {
		return usage("harn tool %s needs a FILE", sub)
	}
	return a, 0, true
}

func cmdTool(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
		if len(args) == 0 {
			fmt.Fprint(stderr, toolHelp)
			return 2
		}
		fmt.Fprint(stdout, toolHelp)
		return 0
	}
	if sub, ok := toolCommands[args[0]]; ok {
		return sub(args[1:], stdin, stdout, stderr)
	}
	subs := make([]string, 0, len(toolCommands))
	for name := range toolCommands {
		subs = append(subs, name)
	}
	fmt.Fprintf(stderr, "error: %s\n\n%s", unknownCommand("tool subcommand", args[0], subs), toolHelp)
	return 2
}

// schemaSurfaces are the values of `harn tool schema --surface`.
var schemaSurfaces = []string{exports.SurfaceScript, exports.SurfaceExports, exports.SurfaceAuto}

// surfaceCatalog is the catalog `harn tool schema` prints for a surface.
// The script surface runs the script and emits its published registry's
// catalog audience; it applies the registry rules only and does not
// prepare the catalog (docs/spec/registry.md §3). The exports surface reads the
// module's public functions without running anything (module
// initialisers aside). Ctrl-C while it runs ends the command with status
// 130 (harn tool schema, sdk and diff; exitOnSignal).
func surfaceCatalog(surface, path string, stdin io.Reader, stderr io.Writer) (*tool.Catalog, error) {
	defer exitOnSignal(stderr)()
	if exports.ResolveNoting(surface, path, stderr) == exports.SurfaceExports {
		return exports.Catalog(path, exports.Options{Stderr: stderr, Stdin: stdin})
	}
	s, err := load.Load(path, load.Options{Stderr: stderr, Stdin: stdin})
	if err != nil {
		return nil, err
	}
	return s.Registry.CatalogFor(tool.AudienceCatalog), nil
}

func cmdToolSchema(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a, status, ok := parseToolArgs("schema", toolSchemaHelp, args, []string{"--pretty"}, []string{"--surface"}, stdout, stderr)
	if !ok {
		return status
	}
	file, pretty := a.file, a.flags["--pretty"]
	surface, given := a.values["--surface"]
	if !given {
		surface = exports.SurfaceAuto
	}
	if !slices.Contains(schemaSurfaces, surface) {
		fmt.Fprintf(stderr, "error: unsupported --surface %q (available: %s)\n", surface, strings.Join(schemaSurfaces, ", "))
		return 2
	}
	cat, err := surfaceCatalog(surface, file, stdin, stderr)
	if err == nil {
		err = cat.Check()
	}
	if err != nil {
		return load.Report(stderr, err)
	}
	out := cat.Marshal()
	if pretty {
		out = cat.MarshalIndent()
	}
	stdout.Write(append(out, '\n'))
	return 0
}
