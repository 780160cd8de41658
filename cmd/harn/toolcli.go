//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/harnlang/harn/adapter/cli"
	"github.com/harnlang/harn/tool/exports"
)

// `harn tool run` and `harn tool completions`: the generated command
// line of a script's registry (adapter/cli).

const toolRunHelp = `Usage: harn tool run [--surface script|exports|auto] FILE [COMMAND...] [ARGS...]

Run FILE once, read the ToolRegistry it publishes and run it as a nested
command-line program built from its CLI-audience tools. With --surface
exports the tools are FILE's public functions instead, called without
running main; the default, auto, uses exports when FILE has a pub fn and
script otherwise (like harn serve mcp). Everything after FILE belongs to
that program, --help included:

  harn tool run server.harn --help              the program's commands
  harn tool run server.harn widgets get --help  one command's arguments
  harn tool run server.harn widgets get 42 -v false

Every command that runs a tool also accepts --harn-input JSON|@FILE|- (a
base argument object that individual arguments override), --harn-output
json|pretty|text and, unless the tool has a json input, --json. Arguments
are validated against the tool's input schema before its handler runs.

Exit status: 0 on success and for help, 1 on any failure (load, registry,
parse, validation, handler, declared application error), 2 when FILE is
missing. See docs/tool-run.md.
`

const toolCompletionsHelp = `Usage: harn tool completions FILE --shell bash|zsh|fish|powershell [--surface script|exports|auto]

Run FILE once and print a completion script for the command-line program
that 'harn tool run FILE' projects from its registry: commands, aliases
and options, and for bash, zsh and fish also option values (enum values,
advisory completions and value hints). The script completes the
program name (the registry's info.name, else the file stem), so install
it for a command of that name, e.g. a wrapper that runs
'harn tool run FILE "$@"'.

Exit status: 0 on success, 1 when the script fails to load or its
registry is invalid, 2 on a usage error. See docs/tool-completions.md.
`

func cmdToolRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "error: harn tool run needs a FILE\n\n"+toolRunHelp)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, toolRunHelp)
		return 0
	}
	// --surface comes before FILE: everything after FILE is the program's.
	surface := exports.SurfaceAuto
	if name, _, _ := strings.Cut(args[0], "="); name == "--surface" {
		v, last, err := flagValue(args, 0)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n\n%s", err, toolRunHelp)
			return 2
		}
		surface, args = v, args[last+1:]
	}
	if !slices.Contains(schemaSurfaces, surface) {
		fmt.Fprintf(stderr, "error: unsupported --surface %q (available: %s)\n", surface, strings.Join(schemaSurfaces, ", "))
		return 2
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, "error: harn tool run needs a FILE\n\n"+toolRunHelp)
		return 2
	}
	args, ok := fileFirst(args, toolRunHelp, stderr, "--surface", "--help")
	if !ok {
		return 2
	}
	defer exitOnSignal(stderr)()
	return cli.RunSurface(surface, args[0], args[1:], cli.Stdio{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

func cmdToolCompletions(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a, status, ok := parseToolArgs("completions", toolCompletionsHelp, args, nil, []string{"--shell", "--surface"}, stdout, stderr)
	if !ok {
		return status
	}
	file := a.file
	shell, haveShell := a.values["--shell"]
	if !haveShell {
		fmt.Fprint(stderr, "error: harn tool completions needs --shell bash|zsh|fish|powershell\n\n"+toolCompletionsHelp)
		return 2
	}
	sh, ok := cli.ParseShell(shell)
	if !ok {
		fmt.Fprintf(stderr, "error: invalid value %q for --shell (possible values: bash, zsh, fish, powershell)\n", shell)
		return 2
	}
	surface, given := a.values["--surface"]
	if !given {
		surface = exports.SurfaceAuto
	}
	if !slices.Contains(schemaSurfaces, surface) {
		fmt.Fprintf(stderr, "error: unsupported --surface %q (available: %s)\n", surface, strings.Join(schemaSurfaces, ", "))
		return 2
	}
	defer exitOnSignal(stderr)()
	return cli.CompletionsSurface(surface, file, sh, cli.Stdio{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}
