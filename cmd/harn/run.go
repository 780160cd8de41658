package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// cmdRun is `harn run FILE [ARGS...]`, `harn run -e CODE [ARGS...]` and
// `harn run - [ARGS...]` (the program on standard input).
func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	handedInterrupt := os.Getenv(interruptedEnv) != ""
	os.Unsetenv(interruptedEnv)
	args, ok := takeMaxMemory(args, stderr)
	if !ok {
		return 2
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, "error: harn run needs a FILE (or -e CODE)\n\n"+commandHelp["run"])
		return 2
	}
	var path string
	var src []byte
	switch args[0] {
	case "-e":
		if len(args) < 2 {
			fmt.Fprint(stderr, "error: -e needs CODE\n")
			return 2
		}
		path, src, args = "<-e>", []byte(args[1]), args[2:]
	case "-h", "--help":
		fmt.Fprint(stdout, commandHelp["run"])
		return 0
	case "-":
		// the program is standard input, read to its end; the program's
		// own reads of standard input then find it ended
		if liteEntry != nil {
			liteEntry(nil)
		}
		data, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "error: cannot read standard input: %s\n", stdlib.OSErrorText(err))
			return 1
		}
		path, src, args = stdinPath, data, args[1:]
	default:
		var ok bool
		if args, ok = fileFirst(args, commandHelp["run"], stderr, "-e", "--max-memory", "--help"); !ok {
			return 2
		}
		path, args = args[0], args[1:]
		fi, err := os.Stat(path)
		if err == nil && fi.IsDir() {
			// `harn run .` runs the project's main.harn (what harn init writes).
			main := filepath.Join(path, "main.harn")
			if fi, err = os.Stat(main); err != nil {
				fmt.Fprintf(stderr, "error: %s is a directory without a main.harn; name the file to run\n", path)
				return 1
			}
			path = main
		}
		if err != nil {
			fmt.Fprintf(stderr, "error: cannot read %s: %s\n", path, stdlib.OSErrorText(err))
			return 1
		}
		if liteEntry != nil {
			liteEntry(fi)
		}
	}
	if args == nil {
		args = []string{}
	}
	warnings, err := interp.ParseWarningMode(os.Getenv("HARN_WARNINGS"))
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	var interrupted, terminated atomic.Bool
	onVM := func(v *vm.VM) {
		if handedInterrupt {
			// as if this process had caught it: a second Ctrl-C kills
			interrupted.Store(true)
			v.Interrupt()
			return
		}
		interruptOnSignal(v, &interrupted, &terminated)
	}
	var vet func(*interp.Session, *interp.Module, error)
	if liteVet != nil {
		vet = func(s *interp.Session, entry *interp.Module, err error) { liteVet(s, entry, err, &interrupted) }
	}
	res := interp.RunProgram(path, src, interp.Options{Argv: args, Stdin: stdin, Stdout: stdout, Stderr: stderr, OnVM: onVM, Warnings: warnings, Vet: vet, StdPredeclared: liteStdNames})
	if res.ResultText != "" {
		io.WriteString(stderr, res.ResultText)
	}
	if interrupted.Load() && res.Status == interruptedStatus {
		// Otherwise the run would end silently, as if it had finished.
		if terminated.Load() {
			fmt.Fprintln(stderr, "error: terminated by SIGTERM")
			return terminatedStatus
		}
		fmt.Fprintln(stderr, "error: interrupted by Ctrl-C")
	}
	return res.Status
}

// liteVet, set in the lite build (lite.go), replaces the process with
// harn-full when the program needs it; interrupted tells whether a
// Ctrl-C came during the static phase.
var liteVet func(s *interp.Session, entry *interp.Module, err error, interrupted *atomic.Bool)

// liteStdNames, set in the lite build (lite.go), names the builtins it
// leaves out, which std/* modules may name in code a program does not
// reach (interp.Options.StdPredeclared).
var liteStdNames func(name string) bool

// interruptedEnv tells harn-full that the lite harn it replaced caught a
// Ctrl-C during the static phase: the run is interrupted, as it would
// have been in harn-full. It never reaches the program.
const interruptedEnv = "HARN_LITE_INTERRUPTED"

// liteEntry, set in the lite build (lite.go), replaces the process with
// harn-full before the program file is read when it cannot be read twice.
var liteEntry func(fi os.FileInfo)

// fileFirst returns args from FILE on, for a command whose options come
// before FILE and whose arguments after it are the script's (docs/run.md):
// `--` ends the options, so `harn run -- -x.harn` runs a file whose name
// starts with a dash, and any other dash argument in FILE's place is an
// unknown option, reported with help (ok false: exit 2); known are the
// options the command takes, for the suggestion.
func fileFirst(args []string, help string, stderr io.Writer, known ...string) (rest []string, ok bool) {
	if args[0] == "--" && len(args) > 1 {
		return args[1:], true
	}
	if len(args[0]) > 1 && args[0][0] == '-' {
		fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(args[0], known...), help)
		return nil, false
	}
	return args, true
}

// interruptedStatus is the exit status of an interrupted run
// (docs/spec/language.md §12.3).
const interruptedStatus = 124

// terminatedStatus is the exit status of a run stopped by SIGTERM
// (128 + 15, as a shell reports a process the signal killed).
const terminatedStatus = 143

// signalStatus is the exit status of a command that is not a run, ended
// by Ctrl-C: 128 + SIGINT, as a shell reports a process the signal
// killed (harn run has its own, interruptedStatus).
const signalStatus = 130

// exitOnSignal makes Ctrl-C (or SIGTERM) end a command that runs a
// script's top level to load its registry (harn tool schema|run|
// completions, harn serve mcp) with one line on stderr and status 130
// (143 for SIGTERM), instead of a silent death: the top level may never
// end, and nothing of the script's is left to finish. stop gives the
// signals back (to their default, or to a server's own handling).
func exitOnSignal(stderr io.Writer) (stop func()) {
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sig:
			if s == syscall.SIGTERM {
				fmt.Fprintln(stderr, "error: terminated by SIGTERM")
				os.Exit(terminatedStatus)
			}
			fmt.Fprintln(stderr, "error: interrupted by Ctrl-C")
			os.Exit(signalStatus)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// interruptOnSignal makes Ctrl-C (or SIGTERM, from `timeout`, a process
// supervisor or `kill`) stop the program at its next check, so it ends
// as an interrupted run, with what it printed flushed, and sets
// interrupted, and terminated for SIGTERM; a second signal kills the
// process at once.
func interruptOnSignal(v *vm.VM, interrupted, terminated *atomic.Bool) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		terminated.Store(s == syscall.SIGTERM)
		interrupted.Store(true)
		v.Interrupt()
		signal.Stop(sig)
	}()
}
