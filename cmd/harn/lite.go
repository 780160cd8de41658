//go:build harnlite

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/harnlang/harn/interp"
)

// The lite build of harn (-tags harnlite; what make install and make build
// install as harn) links only what `harn run`, `harn fmt`, `harn version`
// and `harn help` need: the language, the compiler, the VM and the light
// areas of the standard library. Every process initialises every package
// linked into it, so the left-out packages (the tool registry and its
// adapters, net/http, TLS, YAML, TOML, JSON Schema, compression, the
// language server, the event logs, ...) would cost each start more than
// the whole run of a small script. Every other command, every program
// that names something only the full library defines (liteVet), and a
// `harn check` with something to report runs by
// replacing this process with harn-full, the default build of this
// package, installed next to it. docs/architecture.md ("Start-up") has
// the figures.

// fullName is the file name of the full build next to the lite one.
const fullName = "harn-full"

func cmdDoc(_ []string, _, stderr io.Writer) int                { return execFull(stderr) }
func cmdInit(_ []string, _, stderr io.Writer) int               { return execFull(stderr) }
func cmdLint(_ []string, _ io.Reader, _, stderr io.Writer) int  { return execFull(stderr) }
func cmdLsp(_ []string, _, stderr io.Writer) int                { return execFull(stderr) }
func cmdMcp(_ []string, _ io.Reader, _, stderr io.Writer) int   { return execFull(stderr) }
func cmdOrchestrator(_ []string, _, stderr io.Writer) int       { return execFull(stderr) }
func cmdRepl(_ []string, _, stderr io.Writer) int               { return execFull(stderr) }
func cmdServe(_ []string, _ io.Reader, _, stderr io.Writer) int { return execFull(stderr) }
func cmdTest(_ []string, _, stderr io.Writer) int               { return execFull(stderr) }
func cmdTool(_ []string, _ io.Reader, _, stderr io.Writer) int  { return execFull(stderr) }

func init() {
	// The help of a command this build leaves out, and of unknown
	// names, is harn-full's to print.
	fullOnlyHelp = func(_ string, stderr io.Writer) (int, bool) { return execFull(stderr), true }
	liteEntry = func(fi os.FileInfo) {
		// The lite harn knows whether it can run a program only once it
		// has read it, and harn-full reads it again: a pipe, a terminal
		// or a FIFO (harn run /dev/stdin), or standard input (harn run -,
		// fi nil) would give it nothing.
		if fi == nil || !fi.Mode().IsRegular() {
			execFull(os.Stderr)
			os.Exit(2)
		}
	}
	liteStdNames = isFullOnly
	liteVet = func(s *interp.Session, entry *interp.Module, err error, interrupted *atomic.Bool) {
		// A static error or warning may suggest a name only the full
		// library has ("did you mean"), so harn-full reports it.
		if err != nil || len(s.Warnings) > 0 || needsFull(s, entry) {
			// From here a Ctrl-C ends the process, as it does before
			// harn-full handles it; one caught already is handed on.
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			if interrupted.Load() {
				os.Setenv(interruptedEnv, "1")
			}
			execFull(os.Stderr)
			os.Exit(2)
		}
	}
}

// runProfiled hands every command run under HARN_CPUPROFILE to harn-full,
// which profiles itself into the file. Linking runtime/pprof here would
// cost every lite start its package inits (compress/flate, hash/crc32)
// and keep the runtime's heap profiling on, which the linker turns off
// in a binary that cannot read it (runtime.MemProfile unlinked).
func runProfiled(string) (int, bool) { return execFull(os.Stderr), true }

// cmdCheck is `harn check FILE...` for files the lite build finds clean,
// with nothing reachable that only harn-full defines (the test of harn
// run, needsFull): harn-full would print nothing and exit 0 too, as its
// check reports what the static phase of harn run does. Anything else
// (a diagnostic, an option, a file that is not a regular file) is
// harn-full's to report.
func cmdCheck(args []string, _ io.Reader, _, stderr io.Writer) int {
	if len(args) == 0 {
		return execFull(stderr)
	}
	if _, err := interp.ParseWarningMode(os.Getenv("HARN_WARNINGS")); err != nil {
		return execFull(stderr)
	}
	for _, path := range args {
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || strings.HasPrefix(path, "-") || strictManifest(path) {
			return execFull(stderr)
		}
		s := interp.NewSession(interp.Options{Stderr: io.Discard, Argv: []string{}, StdPredeclared: isFullOnly})
		m, err := s.LoadFile(path)
		if err != nil || len(s.Warnings) > 0 || needsFull(s, m) {
			return execFull(stderr)
		}
	}
	return 0
}

// execFull replaces the process with harn-full given the same command line,
// so the standard streams, signals, process id and exit status are the
// command's own. It returns only when harn-full cannot be started.
func execFull(stderr io.Writer) int {
	full := fullName
	self, err := os.Executable()
	if err == nil {
		full = filepath.Join(filepath.Dir(self), fullName)
		err = syscall.Exec(full, append([]string{full}, os.Args[1:]...), os.Environ())
	}
	fmt.Fprintf(stderr, "error: this command runs in %s, installed next to harn (make install installs both): %s: %v\n", fullName, full, err)
	return 2
}

// strictManifest reports whether the harn.toml nearest above path may
// turn on strict types (`[check] strict_types`): harn-full reads it
// (docs/check.md), this build links no TOML reader.
func strictManifest(path string) bool {
	manifest := nearestManifest(path)
	if manifest == "" {
		return false
	}
	data, err := os.ReadFile(manifest)
	return err == nil && strings.Contains(string(data), "strict_types")
}
