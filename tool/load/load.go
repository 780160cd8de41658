// Package load is the shared script loader of docs/spec/registry.md §7: `harn
// tool schema`, `harn tool run`, `harn tool completions` and `harn serve
// mcp --surface script` all load a script through Load, which compiles
// it, installs the project manifest (installManifest), runs it once (its output goes to stderr: stdout belongs to the
// adapter), reads what it published and validates the registry. The VM
// stays alive so adapters can call the original handler closures.
//
// The VM detects deadlocks (vm.VM.DetectDeadlocks): a wait that no
// thread of the VM can end fails with the deadlock error, while loading
// and in a handler call alike. An adapter calls handlers one at a time,
// each on a thread of its own; one that keeps serving between calls
// makes the thread of the last call stand for the calls still to come
// (adapter/mcp's VMRuntime), so that tasks waiting for a later call are
// not reported.
//
// Error is the one load failure of the tool layer: the exports surface
// (tool/exports) reports its failures with it too, so every adapter
// prints and exits the same way for both surfaces.
package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Options configures a load.
type Options struct {
	// Stderr receives the script's stdout and stderr output and its
	// warnings (default os.Stderr).
	Stderr io.Writer
	// Stdin is the script's standard input (default os.Stdin).
	Stdin io.Reader
}

// Script is a loaded script.
type Script struct {
	Path    string
	Session *interp.Session
	// Publication is what the run published (registry, resources,
	// templates, prompts, server metadata).
	Publication tool.Published
	// Registry is the validated published registry.
	Registry *tool.Registry
}

// VM is the script's VM; call handlers on threads of it.
func (s *Script) VM() *vm.VM { return s.Session.VM }

// Thread returns a new thread of the script's VM.
func (s *Script) Thread() *vm.Thread { return s.Session.VM.NewThread() }

// Error is a load failure. Status is the exit status an adapter should
// use (1, or the status the script requested with exit()).
type Error struct {
	Msg    string
	Status int
	// Rendered, when set, is the complete diagnostic output (compile
	// errors with source excerpts) to print instead of "error: Msg".
	Rendered string
}

func (e *Error) Error() string { return e.Msg }

// Render is the text an adapter prints on stderr.
func (e *Error) Render() string {
	if e.Rendered != "" {
		return e.Rendered
	}
	return "error: " + e.Msg + "\n"
}

// Report writes a load failure to w the way every one-shot adapter
// prints it and returns the exit status to use: the *Error's status, or
// 1 when it has none (a script that called exit(0) while loading still
// failed to load).
func Report(w io.Writer, err error) int {
	le, ok := err.(*Error)
	if !ok {
		io.WriteString(w, "error: "+err.Error()+"\n")
		return 1
	}
	io.WriteString(w, le.Render())
	if le.Status != 0 {
		return le.Status
	}
	return 1
}

// NotPublished is the message of a script that published no registry.
const NotPublished = "pipeline did not publish a tool registry\nhint: call harness.tools.mcp_tools(tools) from main"

// Load compiles and runs the script at path once and returns its
// validated publication. A missing publication fails even if an earlier
// run in the same process published one: each load starts from a fresh
// VM and clears its publication before running.
func Load(path string, opts Options) (*Script, error) {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	mode, err := interp.ParseWarningMode(os.Getenv("HARN_WARNINGS"))
	if err != nil {
		return nil, &Error{Msg: err.Error(), Status: 2}
	}
	sess := interp.NewSession(interp.Options{Stdout: stderr, Stderr: stderr, Stdin: opts.Stdin})
	// Only the script's own threads, and its handlers' calls, can end
	// its waits: a wait none of them can end fails as a deadlock, as
	// under harn run, instead of hanging the adapter (DetectDeadlocks).
	sess.VM.DetectDeadlocks()
	m, err := sess.LoadFile(path)
	promoted := warn(stderr, sess, mode, sess.Warnings)
	if err != nil {
		return nil, compileError(sess, err)
	}
	if promoted > 0 {
		return nil, &Error{Msg: promotedMsg(promoted), Status: 1}
	}
	if err := installManifest(path); err != nil {
		return nil, err
	}
	pub := tool.PublicationFor(sess.VM)
	pub.Reset()
	if _, err := sess.Run(m); err != nil {
		return nil, LocatedRunError(sess, "script", err)
	}
	snap := pub.Snapshot()
	if !snap.Registry.IsValid() {
		return nil, &Error{Msg: NotPublished, Status: 1}
	}
	reg, err := tool.Normalize(snap.Registry, tool.CacheFor(sess.VM))
	if err != nil {
		return nil, &Error{Msg: "invalid tool registry: " + tool.Message(err, ""), Status: 1}
	}
	var defWarnings diag.List
	for _, w := range reg.Warnings() {
		defWarnings = append(defWarnings, &diag.Error{Msg: w, Severity: diag.SevWarning})
	}
	if n := warn(stderr, sess, mode, defWarnings); n > 0 {
		return nil, &Error{Msg: promotedMsg(n), Status: 1}
	}
	return &Script{Path: path, Session: sess, Publication: snap, Registry: reg}, nil
}

// warn prints warnings the way HARN_WARNINGS asks and returns how many
// it reported as errors.
func warn(w io.Writer, sess *interp.Session, mode interp.WarningMode, ws diag.List) int {
	shown, promoted := mode.Apply(ws)
	sess.WriteWarnings(w, shown)
	return promoted
}

func promotedMsg(n int) string {
	return strings.TrimSuffix(strings.TrimPrefix(interp.PromotedText(n), "error: "), "\n")
}

func compileError(sess *interp.Session, err error) *Error {
	if le, ok := DiagnosticError(sess, err); ok {
		return le
	}
	// A module that cannot be loaded (a missing file, a parse error, an
	// unknown std module) stops the load before anything ran: it is
	// shown as harn run shows it, at the import, with its help line.
	return LocatedRunError(sess, "script", err)
}

// LocatedRunError is RunError for a failure while loading — running a
// script, initialising a module or a module it imports — shown as harn run shows it (interp.Session.RenderError):
// the message, `--> file:line:col` with the source line and a caret at
// the innermost frame outside the std modules, any help line and the
// stack trace. A thrown value keeps its one-line summary (it is never
// printed, nor the source that threw it: it may hold anything), and
// exit() its one line and status.
func LocatedRunError(sess *interp.Session, what string, err error) *Error {
	le := RunError(what, err)
	e, ok := err.(*vm.Error)
	if !ok || e.Kind == vm.KindThrown || e.Kind == vm.KindExit {
		return le
	}
	le.Rendered = sess.RenderError(err)
	return le
}

// DiagnosticError is the load error of a program that failed its static
// checks (err is a diag.List or a *diag.Error): the golden message, and
// the diagnostics rendered with their source. ok is false for any other
// error.
func DiagnosticError(sess *interp.Session, err error) (le *Error, ok bool) {
	switch err.(type) {
	case diag.List, *diag.Error:
		return &Error{Msg: interp.GoldenText(err), Status: 1, Rendered: sess.RenderError(err)}, true
	}
	return nil, false
}

// RunError turns a failure while loading — running a script, or
// initialising a module (what names which) — into a load error. A thrown
// value is summarized without being rendered: it may hold anything.
func RunError(what string, err error) *Error {
	e, ok := err.(*vm.Error)
	if !ok {
		return &Error{Msg: err.Error(), Status: 1}
	}
	switch e.Kind {
	case vm.KindExit:
		return &Error{Msg: fmt.Sprintf("%s exited with status %d while loading", what, e.Code&0xff), Status: e.Code & 0xff}
	case vm.KindThrown:
		return &Error{Msg: "Runtime error: " + tool.SummaryUndeclaredThrow, Status: 1}
	}
	return &Error{Msg: strings.TrimSuffix(e.UncaughtText(), "\n"), Status: 1}
}

// Located is a failure of a loaded registry that only an adapter finds
// (its preparation, docs/spec/cli-projection.md §9; a tool without a
// local handler) as a load error whose text is msg. When the failure
// belongs to a tool whose registration the script made (a
// *tool.SiteError: the tool_define, tool_registry_from, tool_def call or
// `tool` declaration that first took its definition), the rendered
// report adds that place as harn run shows a runtime error's: `-->
// file:line:col`, the source line and a caret. sess may be nil (the
// exports surface, whose tools no call registered).
func Located(sess *interp.Session, err error, msg string) *Error {
	le := &Error{Msg: msg, Status: 1}
	var se *tool.SiteError
	if sess == nil || !errors.As(err, &se) || se.Site.Line <= 0 {
		return le
	}
	d := &diag.Error{File: se.Site.File, Line: se.Site.Line, Col: se.Site.Col}
	le.Rendered = "error: " + msg + "\n" + diag.RenderLocation(d, sess.Sources[se.Site.File])
	return le
}
