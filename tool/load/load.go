// Package load is the shared script loader of registry.md §7: `harn
// tool schema`, `harn tool run`, `harn tool completions` and `harn serve
// mcp --surface script` all load a script through Load, which compiles
// it, runs it once (its output goes to stderr: stdout belongs to the
// adapter), reads what it published and validates the registry. The VM
// stays alive so adapters can call the original handler closures.
package load

import (
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
	sess := interp.NewSession(interp.Options{Stdout: stderr, Stderr: stderr, Stdin: opts.Stdin})
	m, err := sess.LoadFile(path)
	for _, w := range sess.Warnings {
		io.WriteString(stderr, sess.RenderDiagnostic(w))
	}
	if err != nil {
		return nil, compileError(sess, err)
	}
	pub := tool.PublicationFor(sess.VM)
	pub.Reset()
	if _, err := sess.Run(m); err != nil {
		return nil, runError(sess, err)
	}
	snap := pub.Snapshot()
	if snap.Registry == nil {
		return nil, &Error{Msg: NotPublished, Status: 1}
	}
	reg, err := tool.Normalize(snap.Registry, tool.CacheFor(sess.VM))
	if err != nil {
		return nil, &Error{Msg: "invalid tool registry: " + tool.Message(err, ""), Status: 1}
	}
	return &Script{Path: path, Session: sess, Publication: snap, Registry: reg}, nil
}

func compileError(sess *interp.Session, err error) *Error {
	switch err.(type) {
	case diag.List, *diag.Error:
		return &Error{Msg: interp.GoldenText(err), Status: 1, Rendered: sess.RenderError(err)}
	case *vm.Error:
		return runError(sess, err)
	}
	return &Error{Msg: err.Error(), Status: 1}
}

// runError turns a failure of the script's run into a load error; a
// thrown value is summarized without being rendered.
func runError(sess *interp.Session, err error) *Error {
	e, ok := err.(*vm.Error)
	if !ok {
		return &Error{Msg: err.Error(), Status: 1}
	}
	switch e.Kind {
	case vm.KindExit:
		return &Error{Msg: fmt.Sprintf("script exited with status %d while loading", e.Code&0xff), Status: e.Code & 0xff}
	case vm.KindThrown:
		return &Error{Msg: "Runtime error: " + tool.SummaryUndeclaredThrow, Status: 1}
	}
	return &Error{Msg: strings.TrimSuffix(e.UncaughtText(), "\n"), Status: 1}
}
