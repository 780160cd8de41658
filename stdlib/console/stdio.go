package console

import (
	"io"
	"os"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/text"
	"github.com/harnlang/harn/vm"
)

// Standard input and terminal queries (docs/spec/builtins.md §4.9, first bullet),
// shared by the free functions and the harness.stdio handle. Each VM keeps
// one buffered reader over its stdin so consecutive read_line calls never
// lose buffered input, plus the mocks installed by mock_stdin and mock_tty.

func init() {
	harness.RegisterCapability("console", "stdio", stdioMethods())
	lib.Def("read_stdin", "read_stdin() -> string?", "the rest of standard input (nil on error)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return readStdin(th)
	})
	lib.Def("read_line", "read_line() -> string?", "one line of standard input without its line ending; nil at end of input", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		line, ok, err := readLine(th)
		if !ok {
			return vm.Nil, err
		}
		return vm.Str(line), nil
	})
	lib.Def("prompt_user", "prompt_user(msg?)", "write msg to stdout, read a line and trim trailing whitespace", builtinPromptUser)
	lib.Def("mock_stdin", "mock_stdin(text)", "make standard input read from text", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		st := stdinOf(th)
		st.mu.Lock()
		st.mock = newStdinSource(strings.NewReader(args.Text(0)))
		st.mu.Unlock()
		return vm.Nil, nil
	})
	lib.Def("unmock_stdin", "unmock_stdin()", "restore the real standard input", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		st := stdinOf(th)
		st.mu.Lock()
		st.mock = nil
		st.mu.Unlock()
		return vm.Nil, nil
	})
	for _, s := range []string{"stdin", "stdout", "stderr"} {
		stream := s
		lib.Def("is_"+stream+"_tty", "is_"+stream+"_tty()", "whether "+stream+" is a terminal", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, stream)), nil
		})
	}
	lib.Def("mock_tty", "mock_tty(stream, bool)", `pretend "stdin", "stdout" or "stderr" is (or is not) a terminal; any other stream is an error`, func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		stream := args.Text(0)
		switch stream {
		case "stdin", "stdout", "stderr":
			st := stdinOf(th)
			st.mu.Lock()
			st.ttyMock[stream] = args.At(1).Truth()
			st.mu.Unlock()
		default:
			return vm.Value{}, vm.Throwf(`mock_tty: stream must be "stdin", "stdout" or "stderr", got %s`, lib.Shown(args.At(0)))
		}
		return vm.Nil, nil
	})
	lib.Def("unmock_tty", "unmock_tty()", "forget every mock_tty setting", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		st := stdinOf(th)
		st.mu.Lock()
		st.ttyMock = map[string]bool{}
		st.mu.Unlock()
		return vm.Nil, nil
	})
}

type stdioKey struct{}

// stdioState is the per-VM standard input and terminal state.
type stdioState struct {
	mu      sync.Mutex
	real    *stdinSource // over the VM's Stdin, made on first read
	mock    *stdinSource // non-nil while mock_stdin is active
	ttyMock map[string]bool
	ttyHost map[string]bool // set by the host through SetTerminals
}

func stdinState(v *vm.VM) *stdioState {
	return v.Local(stdioKey{}, func() any {
		return &stdioState{ttyMock: map[string]bool{}, ttyHost: map[string]bool{}}
	}).(*stdioState)
}

func stdinOf(th *vm.Thread) *stdioState { return stdinState(th.VM()) }

// SetTerminals tells the library which of the process's standard streams
// are terminals, for hosts whose VM streams are buffers that hide them (a
// buffer with an Unwrap method, like harn run's stdout, needs no telling).
// Without it, a stream counts as a terminal only when the VM's stream, or
// the writer it unwraps to, is one.
func SetTerminals(v *vm.VM, stdin, stdout, stderr bool) {
	st := stdinState(v)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ttyHost["stdin"] = stdin
	st.ttyHost["stdout"] = stdout
	st.ttyHost["stderr"] = stderr
}

// isTerminal answers is_<stream>_tty: a mock wins, then the host's word,
// then a look at the VM's own stream.
func isTerminal(th *vm.Thread, stream string) bool {
	st := stdinOf(th)
	st.mu.Lock()
	if b, ok := st.ttyMock[stream]; ok {
		st.mu.Unlock()
		return b
	}
	if b, ok := st.ttyHost[stream]; ok {
		st.mu.Unlock()
		return b
	}
	st.mu.Unlock()
	var s any
	switch stream {
	case "stdin":
		s = th.VM().Stdin
	case "stdout":
		s = th.VM().Stdout
	case "stderr":
		s = th.VM().Stderr
	}
	if u, ok := s.(interface{ Unwrap() io.Writer }); ok {
		s = u.Unwrap() // harn run's buffered stdout (interp.Output)
	}
	f, ok := s.(*os.File)
	return ok && fileIsTerminal(f)
}

// source returns the reader stdin reads come from.
func (st *stdioState) source(v *vm.VM) *stdinSource {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.mock != nil {
		return st.mock
	}
	if st.real == nil {
		in := v.Stdin
		if in == nil {
			in = strings.NewReader("")
		}
		st.real = newStdinSource(in)
	}
	return st.real
}

// readStdin reads the rest of stdin; nil when reading fails.
func readStdin(th *vm.Thread) (vm.Value, error) {
	text, ok, err := stdinOf(th).source(th.VM()).readAll(th)
	if err != nil || !ok {
		return vm.Nil, err
	}
	return vm.Str(text), nil
}

// readLine reads one line without its `\n` / `\r\n`; ok=false at end of
// input.
func readLine(th *vm.Thread) (line string, ok bool, err error) {
	line, ok, _, err = ReadLine(th, -1)
	return line, ok, err
}

func builtinPromptUser(th *vm.Thread, args vm.Args) (vm.Value, error) {
	return prompt(th, args.Given(0), args.Text(0))
}

// prompt writes msg (when given), reads a line and trims trailing
// whitespace; end of input reads as "".
func prompt(th *vm.Thread, hasMsg bool, msg string) (vm.Value, error) {
	if hasMsg {
		writeOut(th, msg)
		if f, ok := th.VM().Stdout.(interface{ Flush() error }); ok {
			f.Flush()
		}
	}
	line, _, err := readLine(th)
	if err != nil {
		return vm.Value{}, err
	}
	return vm.Str(strings.TrimRightFunc(line, text.IsSpace)), nil
}

// stdioMethods are harness.stdio's methods: the output and stdin
// builtins, sharing their streams and buffers.
func stdioMethods() []harness.CapabilityMethod {
	fn := func(b vm.BuiltinFunc) vm.MethodFunc {
		return func(th *vm.Thread, _ vm.Value, args vm.Args) (vm.Value, error) { return b(th, args) }
	}
	return []harness.CapabilityMethod{
		{Name: "print", Sig: "stdio.print(v?) -> nil", Doc: "write display(v) to stdout", Fn: fn(builtinPrint)},
		{Name: "println", Sig: "stdio.println(v?) -> nil", Doc: "write display(v) and a newline to stdout", Fn: fn(builtinPrintln)},
		{Name: "eprint", Sig: "stdio.eprint(v?) -> nil", Doc: "write display(v) to stderr", Fn: fn(builtinEprint)},
		{Name: "eprintln", Sig: "stdio.eprintln(v?) -> nil", Doc: "write display(v) and a newline to stderr", Fn: fn(builtinEprintln)},
		{Name: "log", Sig: "stdio.log(v) -> nil", Doc: "write `[harn] ` + display(v) and a newline to stdout", Fn: fn(builtinLog)},
		{Name: "progress", Sig: "stdio.progress(phase, message, progress_or_options?, total?) -> nil", Doc: "write one progress line to stdout", Fn: fn(builtinProgress)},
		{Name: "read_line", Sig: "stdio.read_line(options?)", Doc: "one line of stdin (nil at end); given an options dict, __io_read_line: {ok, status, value?} with the options prompt, trim (default true) and timeout_ms", Fn: fn(stdioReadLine)},
		{Name: "read_stdin", Sig: "stdio.read_stdin() -> string?", Doc: "the rest of stdin", Fn: fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return readStdin(th)
		})},
		{Name: "prompt", Sig: "stdio.prompt(message) -> string", Doc: "write message, read one line", Fn: fn(builtinPromptUser)},
		{Name: "is_stdin_tty", Sig: "stdio.is_stdin_tty() -> bool", Doc: "whether stdin is a terminal", Fn: fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, "stdin")), nil
		})},
		{Name: "is_stdout_tty", Sig: "stdio.is_stdout_tty() -> bool", Doc: "whether stdout is a terminal", Fn: fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, "stdout")), nil
		})},
		{Name: "is_stderr_tty", Sig: "stdio.is_stderr_tty() -> bool", Doc: "whether stderr is a terminal", Fn: fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, "stderr")), nil
		})},
	}
}

// stdioReadLine is read_line; given an options dict it is __io_read_line,
// the bridge newer upstream reads stdin through: {ok, status, value?}
// with the options prompt, trim (default true), timeout_ms (status
// "timeout"). Before, the options were ignored, so a prompt was never
// written and the line was not trimmed as __io_read_line's was.
func stdioReadLine(th *vm.Thread, args vm.Args) (vm.Value, error) {
	if _, withOptions := args.Dict(0); withOptions {
		return ioReadLine(th, args)
	}
	line, ok, err := readLine(th)
	if err != nil {
		return vm.Value{}, err
	}
	if !ok {
		return vm.Nil, nil
	}
	return vm.Str(line), nil
}
