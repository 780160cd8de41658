//go:build harnlite

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
)

// The lite build of harn (-tags harnlite; what make install and make build
// install as harn) leaves out harn lsp, harn mcp serve and harn orchestrator:
// long-running or operator commands whose dependencies (the LSP library, the
// SQLite and PostgreSQL event logs, JWT verification, cron) every other
// command would otherwise load and initialise at each start. It runs them
// by replacing itself with harn-full, the default build of this package,
// installed next to it. docs/architecture.md ("Start-up") has the figures.

// fullName is the file name of the full build next to the lite one.
const fullName = "harn-full"

func cmdLsp(_ []string, _, stderr io.Writer) int                { return execFull(stderr) }
func mcpServe(_ []string, _ io.Reader, _, stderr io.Writer) int { return execFull(stderr) }
func cmdOrchestrator(_ []string, _, stderr io.Writer) int       { return execFull(stderr) }

func init() {
	fullOnlyHelp = func(name string, stderr io.Writer) (int, bool) {
		if name == "lsp" || name == "mcp serve" || name == "orchestrator" || strings.HasPrefix(name, "orchestrator ") {
			return execFull(stderr), true
		}
		return 0, false
	}
}

// execFull replaces the process with harn-full given the same command line,
// so the standard streams, signals, process id and exit status are the
// command's own. It returns only when harn-full cannot be started.
func execFull(stderr io.Writer) int {
	full := fullName
	self, err := os.Executable()
	if err == nil {
		full = filepath.Join(filepath.Dir(self), fullName)
		// The profiling timer of HARN_CPUPROFILE outlives exec, and its
		// SIGPROF would kill harn-full before its runtime handles the
		// signal; harn-full profiles itself into the same file.
		pprof.StopCPUProfile()
		err = syscall.Exec(full, append([]string{full}, os.Args[1:]...), os.Environ())
	}
	fmt.Fprintf(stderr, "error: this command runs in %s, installed next to harn (make install installs both): %s: %v\n", fullName, full, err)
	return 2
}
