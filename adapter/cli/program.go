package cli

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
	"github.com/harnlang/harn/vm"
)

// Program is the command-line program generated from a prepared
// catalog: its name, version and about text and the command tree.
type Program struct {
	// Name is the program name of usage lines and completion scripts:
	// info.name, else the stem of the script file, else "harn-tool".
	Name string
	// Version is info.version; empty disables --version.
	Version string
	// About is info.description, the root's help text.
	About string
	// Root is the prepared command tree.
	Root *tool.CLICommand
}

// New builds the program of a prepared catalog loaded from path. It
// fails when the command-line parser cannot be built (an unresolved
// $ref or an unknown type in a CLI leaf's property, docs/spec/cli-projection.md
// §4).
func New(p *tool.Prepared, path string) (*Program, error) {
	tree, err := p.CLITree()
	if err != nil {
		return nil, err
	}
	prog := &Program{Name: programName(p.Info(), path), Version: tree.Version, Root: tree.Root}
	if info := p.Info(); info != nil {
		prog.About = info.Description
	}
	return prog, nil
}

func programName(info *tool.Info, path string) string {
	if info != nil && info.Name != "" {
		return info.Name
	}
	if stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)); path != "" && stem != "" && stem != "." && stem != "/" {
		return stem
	}
	return "harn-tool"
}

// Caller runs a tool with a complete argument object and classifies the
// outcome (validation included): tool.PreparedTool.Invoke on a thread
// of the VM that owns the registry.
type Caller func(t *tool.PreparedTool, args *jsonv.Object) *tool.Outcome

// Stdio are the standard streams of one run.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ThreadCaller is the Caller of a VM: each call runs on a new thread.
func ThreadCaller(v *vm.VM) Caller {
	return func(t *tool.PreparedTool, args *jsonv.Object) *tool.Outcome {
		return t.Invoke(v.NewThread(), args)
	}
}

// LoadFile loads a script with the shared loader, prepares its registry
// and builds its program. On failure it writes the diagnostic to stderr
// and returns the exit status to use.
func LoadFile(path string, std Stdio) (*Program, *vm.VM, int) {
	return LoadSurface(exports.SurfaceScript, path, std)
}

// LoadSurface is LoadFile for a chosen surface: "script" runs the file
// and reads the registry it publishes; "exports" builds one tool per
// public function without running main (docs/spec/registry.md §8.4); "auto"
// picks exports when the module has public functions.
func LoadSurface(surface, path string, std Stdio) (*Program, *vm.VM, int) {
	var reg *tool.Registry
	var machine *vm.VM
	var sess *interp.Session
	if exports.ResolveNoting(surface, path, std.Stderr) == exports.SurfaceExports {
		lib, err := exports.Load(path, exports.Options{Stderr: std.Stderr, Stdin: std.Stdin})
		if err != nil {
			return nil, nil, load.Report(std.Stderr, err)
		}
		reg, machine = lib.Registry, lib.VM()
	} else {
		s, err := load.Load(path, load.Options{Stderr: std.Stderr, Stdin: std.Stdin})
		if err != nil {
			return nil, nil, load.Report(std.Stderr, err)
		}
		reg, machine, sess = s.Registry, s.VM(), s.Session
	}
	// A registry the program cannot be built from is reported at the
	// script's call that registered the offending tool (load.Located).
	p, err := tool.Prepare(reg)
	if err == nil {
		err = p.RequireHandlers(tool.AudienceCLI)
	}
	if err != nil {
		return nil, nil, load.Report(std.Stderr, load.Located(sess, err, err.Error()))
	}
	prog, err := New(p, path)
	if err != nil {
		return nil, nil, load.Report(std.Stderr, load.Located(sess, err, err.Error()))
	}
	return prog, machine, 0
}

// RunFile is `harn tool run FILE ARGS...`: it loads the script and runs
// its program on args. It returns the exit status.
func RunFile(path string, args []string, std Stdio) int {
	return RunSurface(exports.SurfaceScript, path, args, std)
}

// RunSurface is RunFile for a chosen surface (see LoadSurface).
func RunSurface(surface, path string, args []string, std Stdio) int {
	prog, machine, status := LoadSurface(surface, path, std)
	if prog == nil {
		return status
	}
	return prog.Run(args, ThreadCaller(machine), std)
}

// CompletionsFile is `harn tool completions FILE --shell SHELL` once the
// shell is known: it writes the completion script to stdout.
func CompletionsFile(path string, shell Shell, std Stdio) int {
	return CompletionsSurface(exports.SurfaceScript, path, shell, std)
}

// CompletionsSurface is CompletionsFile for a chosen surface.
func CompletionsSurface(surface, path string, shell Shell, std Stdio) int {
	prog, _, status := LoadSurface(surface, path, std)
	if prog == nil {
		return status
	}
	io.WriteString(std.Stdout, prog.Completions(shell))
	return 0
}
