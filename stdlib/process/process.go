package process

// Processes and system information (docs/spec/builtins.md §4.2). Commands run with
// stdin closed and their output captured; the VM lock is released while
// they run. A non-zero exit status is a result, not an error.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("exec", "exec(cmd, ...args)", "run a program without a shell → {stdout, stderr, status, success}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("exec: command is required")
		}
		return runProcess(th, "exec", fs.ExecutionRoot(th), a.Text(0), textArgs(a, 1))
	})
	lib.Def("exec_at", "exec_at(dir, cmd, ...args)", "exec in a directory", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) || !a.Given(1) {
			return vm.Value{}, vm.Throwf("exec_at: directory and command are required")
		}
		return runProcess(th, "exec", fs.ResolvePath(th, a.Text(0)), a.Text(1), textArgs(a, 2))
	})
	lib.Def("shell", "shell(cmd)", "run a command line through the default shell", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("shell: command string is required")
		}
		sh, flag := defaultShell()
		return runProcess(th, "shell", fs.ExecutionRoot(th), sh, []string{flag, a.Text(0)})
	})
	lib.Def("shell_at", "shell_at(dir, cmd)", "shell in a directory", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) || !a.Given(1) {
			return vm.Value{}, vm.Throwf("shell_at: directory and command string are required")
		}
		sh, flag := defaultShell()
		return runProcess(th, "shell", fs.ResolvePath(th, a.Text(0)), sh, []string{flag, a.Text(1)})
	})
	root := func(th *vm.Thread, a vm.Args) (vm.Value, error) { return vm.Str(fs.ExecutionRoot(th)), nil }
	lib.Def("cwd", "cwd() -> string", "the run's working directory", root)
	lib.Def("execution_root", "execution_root()", "the run's working directory", root)
	src := func(th *vm.Thread, a vm.Args) (vm.Value, error) { return vm.Str(sourceDir(th)), nil }
	lib.Def("source_dir", "source_dir()", "the running script's directory", src)
	lib.Def("asset_root", "asset_root()", "the running script's directory", src)
	lib.Def("project_root", "project_root()", "nearest ancestor directory containing harn.toml", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if p := ProjectRoot(th); p != "" {
			return vm.Str(p), nil
		}
		return vm.Nil, nil
	})
	lib.Def("runtime_paths", "runtime_paths()", "{execution_root, asset_root, state_root, run_root, worktree_root}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		state := StateRoot(th)
		return vm.Of(lib.DictOf("execution_root", vm.Str(fs.ExecutionRoot(th)), "asset_root", vm.Str(sourceDir(th)),
			"state_root", vm.Str(state), "run_root", vm.Str(state+"/runs"), "worktree_root", vm.Str(fs.ExecutionRoot(th)))), nil
	})
	lib.Def("hostname", "hostname() -> string", "the machine's host name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		h, _ := os.Hostname()
		return vm.Str(h), nil
	})
	lib.Def("home_dir", "home_dir() -> string", "the user's home directory", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		h, _ := os.UserHomeDir()
		return vm.Str(h), nil
	})
	lib.Def("pid", "pid() -> int", "the process id", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return lib.IntOf(os.Getpid()), nil
	})
}

func textArgs(a vm.Args, from int) []string {
	var out []string
	for k := from; k < a.Len(); k++ {
		if l, ok := a.At(k).AsList(); ok && a.Len() == from+1 {
			// exec(cmd, [args]) passes the arguments as one list
			for _, it := range l.Items() {
				out = append(out, vm.ToDisplay(it))
			}
			continue
		}
		out = append(out, a.Text(k))
	}
	return out
}

// defaultShell is HARN_DEFAULT_SHELL, else $SHELL, else sh, with the
// flag that makes it run one command line.
func defaultShell() (string, string) {
	sh := os.Getenv("HARN_DEFAULT_SHELL")
	if sh == "" {
		sh = os.Getenv("SHELL")
	}
	if sh == "" {
		sh = "sh"
	}
	base := strings.ToLower(filepath.Base(sh))
	switch strings.TrimSuffix(base, ".exe") {
	case "cmd":
		return sh, "/C"
	case "powershell", "pwsh":
		return sh, "-Command"
	}
	return sh, "-c"
}

// runProcess runs name with args in dir and returns the result dict.
func runProcess(th *vm.Thread, kind, dir, name string, args []string) (vm.Value, error) {
	if name == "" {
		// spawning an empty program name fails as a missing file, as
		// Rust's Command does (Go's says "exec: no command")
		return vm.Value{}, vm.Throwf("%s failed: %s", kind, fs.OSErrorText(syscall.ENOENT))
	}
	var stdout, stderr bytes.Buffer
	var runErr error
	var state *os.ProcessState
	stopErr := htime.BlockingCtx(th, func(ctx context.Context) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		// after a cancellation, do not wait long for grandchildren that
		// still hold the output pipes
		cmd.WaitDelay = 500 * time.Millisecond
		runErr = cmd.Run()
		state = cmd.ProcessState
	})
	if stopErr != nil {
		return vm.Value{}, stopErr
	}
	if runErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(runErr, &exitErr) {
			return vm.Value{}, vm.Throwf("%s failed: %s", kind, fs.OSErrorText(runErr))
		}
	}
	status := 0
	if state != nil {
		status = state.ExitCode()
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = -1
		}
	}
	return vm.Of(lib.DictOf("stdout", vm.Str(lib.LossyUTF8(stdout.Bytes())), "stderr", vm.Str(lib.LossyUTF8(stderr.Bytes())),
		"status", lib.IntOf(status), "success", vm.BoolOf(status == 0))), nil
}

// sourceDir is the running script's directory (fallback: the execution root).
func sourceDir(th *vm.Thread) string {
	if d := th.VM().ScriptDir; d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
		return d
	}
	return fs.ExecutionRoot(th)
}

// ProjectRoot is the nearest ancestor of the script directory (or the
// execution root) that contains harn.toml; "" when there is none.
func ProjectRoot(th *vm.Thread) string {
	for _, start := range []string{sourceDir(th), fs.ExecutionRoot(th)} {
		if dir := ManifestDir(start); dir != "" {
			return dir
		}
	}
	return ""
}

// ManifestDir is the nearest directory at or above dir that contains
// harn.toml; "" when there is none.
func ManifestDir(dir string) string {
	for {
		if st, err := os.Stat(filepath.Join(dir, "harn.toml")); err == nil && !st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// StateRoot is where persistent run state lives: $HARN_STATE_DIR, else
// .harn under the project root (or the execution root).
func StateRoot(th *vm.Thread) string {
	if d := os.Getenv("HARN_STATE_DIR"); d != "" {
		return fs.ResolvePath(th, d)
	}
	base := ProjectRoot(th)
	if base == "" {
		base = fs.ExecutionRoot(th)
	}
	return filepath.Join(base, ".harn")
}
