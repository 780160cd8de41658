// Command harn runs Harn scripts and projects their tool registries into
// catalogs, command-line programs and MCP servers.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/harnlang/harn/vm"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

const usage = `harn — the Harn scripting language

Usage:
  harn run FILE [ARGS...]        run a script
  harn run -e CODE [ARGS...]     run code given on the command line
  harn check [--strict-types] [PATH...]
                                 check scripts statically, without running them
  harn repl                      start an interactive session
  harn init [DIR] [--template script|tool-server|library] [--name NAME]
                                 create a project: harn.toml, main, test, README
  harn fmt [--check] [PATH...]   format .harn files in the canonical layout
  harn lint [--fix] [--disable ID,...] [PATH...]
                                 report (and fix) likely mistakes; --explain ID
  harn lsp                       run the language server on stdin/stdout
  harn test [PATH...] [--filter PAT] [--json] [--junit FILE] [--timeout DUR]
                                 run the test_* and @test functions and pipelines of tests
  harn test conformance [DIR] [--filter PAT]
                                 run .harn conformance tests
  harn tool schema FILE [--surface script|exports|auto] [--pretty]
                                 print the harn-tools/2.0 catalog a script publishes
  harn tool run FILE [COMMAND...] [ARGS...]
                                 run a script's registry as a command-line program
  harn tool completions FILE --shell bash|zsh|fish|powershell
                                 print shell completions for that program
  harn tool sdk CATALOG --lang ts|go|python --out DIR
                                 write a typed MCP client package for a catalog
  harn tool diff OLD NEW [--json] [--fail-on breaking|any]
                                 classify the changes between two catalogs
  harn serve mcp [--surface S] [--watch] [--transport stdio|http] FILE
                                 serve a script's tools, resources and prompts over MCP
  harn mcp serve [--config PATH] [--state-dir DIR] [--transport stdio|http]
                                 serve the project's orchestrator over MCP
  harn mcp discover URL [--json] show an HTTP MCP server's discovery documents
  harn orchestrator fire|queue|dlq list|dlq retry|inspect|replay [--json]
                                 operate the orchestrator from the command line
  harn doc NAME                  print the reference entry of a builtin
  harn version                   print the version, commit and build date
  harn help [COMMAND]            print this help, or a command's

Every command takes --max-memory SIZE before its name (harn --max-memory 1G
serve mcp …): the memory ceiling of the scripts it runs (HARN_MAX_MEMORY).
Run 'harn help COMMAND' for details on a command.
`

// stdinPath names a program read from standard input (`harn run -`,
// `harn check -`, `harn fmt -`) in diagnostics.
const stdinPath = "<stdin>"

func main() {
	if os.Getenv("GOGC") == "" {
		// Scripts allocate many short-lived values; collecting less often
		// trades a little memory for a lot of interpreter speed.
		debug.SetGCPercent(400)
	}
	if path := os.Getenv("HARN_CPUPROFILE"); path != "" {
		// Developer aid: profile a whole command (go tool pprof bin/harn FILE).
		if code, ok := runProfiled(path); ok {
			os.Exit(code)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args, ok := takeMaxMemory(args, stderr)
	if !ok || !limitEnvValid(stderr) {
		return 2
	}
	if len(args) == 0 {
		writeUsage(stderr)
		return 2
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdin, stdout, stderr)
	case "test":
		return cmdTest(args[1:], stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdin, stdout, stderr)
	case "fmt":
		return cmdFmt(args[1:], stdin, stdout, stderr)
	case "init":
		return cmdInit(args[1:], stdout, stderr)
	case "lsp":
		return cmdLsp(args[1:], stdout, stderr)
	case "lint":
		return cmdLint(args[1:], stdin, stdout, stderr)
	case "repl":
		return cmdRepl(args[1:], stdout, stderr)
	case "tool":
		return cmdTool(args[1:], stdin, stdout, stderr)
	case "serve":
		return cmdServe(args[1:], stdin, stdout, stderr)
	case "mcp":
		return cmdMcp(args[1:], stdin, stdout, stderr)
	case "orchestrator":
		return cmdOrchestrator(args[1:], stdout, stderr)
	case "doc":
		return cmdDoc(args[1:], stdout, stderr)
	case "version", "--version", "-V":
		return cmdVersion(args[1:], stdout, stderr)
	case "help", "--help", "-h":
		if len(args) == 2 && (args[1] == "--help" || args[1] == "-h") {
			fmt.Fprint(stdout, commandHelp["help"]) // help's own usage
			return 0
		}
		if len(args) > 1 {
			return cmdHelp(strings.Join(args[1:], " "), stdout, stderr)
		}
		writeUsage(stdout)
		return 0
	}
	if len(args[0]) > 1 && args[0][0] == '-' {
		fmt.Fprintf(stderr, "error: %s\n\nRun 'harn help' for the list of commands.\n",
			unknownOption(args[0], "--help", "--version", "--max-memory"))
		return 2
	}
	fmt.Fprintf(stderr, "error: %s\n\nRun 'harn help' for the list of commands.\n",
		unknownCommand("command", args[0], commandNames))
	return 2
}

// commandNames are the commands `harn` dispatches, for the suggestion of
// an unknown one.
var commandNames = []string{"run", "test", "check", "fmt", "init", "lsp", "lint", "repl", "tool",
	"serve", "mcp", "orchestrator", "doc", "version", "help"}

func cmdHelp(name string, stdout, stderr io.Writer) int {
	if h, ok := commandHelp[name]; ok {
		fmt.Fprint(stdout, h)
		return 0
	}
	if fullOnlyHelp != nil {
		if code, ok := fullOnlyHelp(name, stderr); ok {
			return code
		}
	}
	names := make([]string, 0, len(commandHelp))
	for n := range commandHelp {
		names = append(names, n)
	}
	fmt.Fprintf(stderr, "error: no help for %s\n", unknownCommand("command", name, names))
	return 2
}

// fullOnlyHelp, set in the lite build (lite.go), prints the help of a
// command only harn-full has; ok is false for other names.
var fullOnlyHelp func(name string, stderr io.Writer) (code int, ok bool)

// commandHelp is the text of `harn help COMMAND` and `harn COMMAND
// --help`; the texts of the commands the lite build leaves out are next
// to their commands and added by help_full.go.
var commandHelp = map[string]string{
	"fmt": fmtHelp,
	"run": `Usage: harn run [--max-memory SIZE] FILE [ARGS...]
       harn run [--max-memory SIZE] -e CODE [ARGS...]
       harn run [--max-memory SIZE] - [ARGS...]     (the program on standard input)

Parse, check and run a Harn script. ARGS are available as the global argv.
Standard output is written as the program goes (line-buffered to a terminal)
and flushed before an error report and on exit(), so nothing printed is lost.
HARN_MAX_DEPTH sets the call depth limit (default 10000); --max-memory (or
HARN_MAX_MEMORY) the memory ceiling, e.g. 512M or 2G (default 4G): a program
over it fails with a catchable out of memory error. HARN_WARNINGS=error
turns checker warnings into errors (the program does not run); =off hides them.
Exit status: the program's int result (clamped to 0-255), 1 on an error or a
Result.Err result, 2 on an internal error, or the code passed to exit().
`,
	"check": `Usage: harn check [--strict-types] [PATH...]

Parse, resolve, type-check and compile each file and the modules it
imports, without running anything. A PATH is a .harn file or a directory
(every .harn file under it, hidden directories and node_modules skipped)
or - (the program on standard input); with none, the working directory. Errors and warnings are printed to
stderr with their location. Exit status: 0 when no file has an error
(warnings alone are fine), 1 otherwise, 2 on a usage error.
HARN_WARNINGS=error counts warnings as errors (for CI); =off hides them.
--strict-types (or strict_types = true in the [check] table of the
project's harn.toml) also rejects reading a property of a value from
json_parse or a schema-less llm_call before schema_expect, schema_is or a
shape annotation validates it.
'--' ends options: every argument after it is a PATH (harn check -- -x.harn).
`,
	"repl": `Usage: harn repl

Start an interactive session. Enter statements and expressions; the value
of each expression is printed the way println prints it. Bindings,
functions and imports persist from one entry to the next, and an entry
continues on further lines while a bracket, a triple-quoted string or a
block comment is open. Relative imports resolve against the working
directory. Tab completes keywords, builtins, bound names and, after a dot,
method names. Commands: :help, :quit, :load FILE, :type EXPR.

History is kept in $HARN_REPL_HISTORY if set (set it empty to keep none),
else in harn/repl_history under $XDG_STATE_HOME or the user's config
directory.
`,
	"test conformance": `Usage: harn test conformance [DIR] [--filter PAT]

Run every NAME.harn under DIR (default: conformance) that has a NAME.expected
(compared with the program's trimmed stdout) or a NAME.error (text that must
appear in the error). Prints failures and a final "N passed, N failed" line.
Exit status: 0 when every test passes, 1 when one fails or DIR does not
exist, 2 on bad usage.
`,
	"version": `Usage: harn version      (also: harn --version, harn -V)

Print the harn version, the module, the commit and build date the binary
was built from, and the Go version (docs/version.md). It takes no arguments.
`,
	"help": `Usage: harn help [COMMAND]

Print the list of commands, or with COMMAND (for example 'harn help tool
schema') the usage of that command, as 'harn COMMAND --help' does.
`,
}

// limitEnvValid reports a HARN_MAX_MEMORY or HARN_MAX_DEPTH the VM could
// not read (it would run with its default, which the user did not ask
// for) and returns false, a usage error.
func limitEnvValid(stderr io.Writer) bool {
	if s, set := os.LookupEnv("HARN_MAX_MEMORY"); set && s != "" {
		if n, err := vm.ParseByteSize(s); err != nil || n == 0 {
			fmt.Fprintf(stderr, "error: HARN_MAX_MEMORY=%s: invalid size (bytes, or with a K/M/G/T suffix)\n", s)
			return false
		}
	}
	if s, set := os.LookupEnv("HARN_MAX_DEPTH"); set && s != "" {
		if n, err := strconv.Atoi(s); err != nil || n <= 0 {
			fmt.Fprintf(stderr, "error: HARN_MAX_DEPTH=%s: expected a positive number of call frames (at most %d)\n", s, vm.MaxMaxFrames)
			return false
		}
	}
	return true
}

// takeMaxMemory applies leading `--max-memory SIZE` (or `=SIZE`) options,
// which every command accepts before its name (`harn --max-memory 1G run
// x.harn`) and `harn run` also after its own (docs/limits.md): the memory
// ceiling HARN_MAX_MEMORY otherwise sets. ok is false after a usage error.
func takeMaxMemory(args []string, stderr io.Writer) (rest []string, ok bool) {
	for len(args) > 0 && (args[0] == "--max-memory" || strings.HasPrefix(args[0], "--max-memory=")) {
		val, n := strings.TrimPrefix(args[0], "--max-memory="), 1
		if args[0] == "--max-memory" {
			if len(args) < 2 {
				fmt.Fprintln(stderr, "error: --max-memory needs a SIZE (bytes, or with a K/M/G/T suffix)")
				return nil, false
			}
			val, n = args[1], 2
		}
		size, err := vm.ParseByteSize(val)
		if err != nil || size == 0 {
			fmt.Fprintf(stderr, "error: --max-memory: invalid size %q (bytes, or with a K/M/G/T suffix)\n", val)
			return nil, false
		}
		vm.SetMaxMemory(size)
		args = args[n:]
	}
	return args, true
}
