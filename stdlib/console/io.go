package console

import (
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The `__io_*` bridge of the newer upstream (docs/spec/newer.md §2.1): global
// builtins newer scripts print and read through. They share stdout, stderr
// and stdin with print, read_line and harness.stdio.

func init() {
	lib.Def("__io_print", "__io_print(v?, ...)", "write display(v) to stdout; extra arguments are ignored", builtinPrint)
	lib.Def("__io_println", "__io_println(v?, ...)", "write display(v) and a newline to stdout; extra arguments are ignored", builtinPrintln)
	lib.Def("__io_eprint", "__io_eprint(v)", "write display(v) to stderr", builtinEprint)
	lib.Def("__io_eprintln", "__io_eprintln(v)", "write display(v) and a newline to stderr", builtinEprintln)
	lib.Def("__io_write_stdout", "__io_write_stdout(v)", "write display(v) to stdout as is", builtinPrint)
	lib.Def("__io_write_stderr", "__io_write_stderr(v)", "write display(v) to stderr as is", builtinEprint)
	lib.Def("__io_read_line", "__io_read_line(options?)", "one line of stdin as {ok, status, value?}; options prompt, timeout_ms, trim, echo, raw", ioReadLine)
}

// ioReadLine reads one line. Status is "ok" (with value), "eof",
// "timeout" (timeout_ms passed first) or "error".
func ioReadLine(th *vm.Thread, args vm.Args) (vm.Value, error) {
	opts := vm.NewDict()
	if args.Given(0) {
		d, ok := args.Dict(0)
		if !ok {
			return vm.Value{}, lib.BadOptions("__io_read_line", args.At(0))
		}
		opts = d
	}
	if p, ok := opts.Get("prompt"); ok && !p.IsNil() {
		writeOut(th, vm.ToDisplay(p))
		if f, ok := th.VM().Stdout.(interface{ Flush() error }); ok {
			f.Flush()
		}
	}
	trim := true
	if t, ok := opts.Get("trim"); ok && !t.IsNil() {
		trim = t.Truth()
	}
	var (
		line  string
		got   bool
		rerr  error
		timed bool
	)
	timeout := time.Duration(-1)
	if t, ok := opts.Get("timeout_ms"); ok {
		if ms, isInt := t.AsInt(); isInt && ms >= 0 {
			timeout = lib.Millis(int64(ms))
		} else if d, isDur := t.AsDuration(); isDur && d >= 0 {
			timeout = lib.Millis(int64(d))
		}
	}
	// trim: false keeps the line's terminator (docs/spec/newer.md §2.1)
	line, got, timed, rerr = readLineRaw(th, timeout)
	b := vm.NewDictBuilder(4)
	switch {
	case rerr != nil:
		return vm.Value{}, rerr
	case timed:
		b.Set("ok", vm.False)
		b.Set("status", vm.Str("timeout"))
	case !got:
		b.Set("ok", vm.False)
		b.Set("status", vm.Str("eof"))
	default:
		if trim {
			line = strings.TrimSpace(line)
		}
		b.Set("ok", vm.True)
		b.Set("status", vm.Str("ok"))
		b.Set("value", vm.Str(line))
	}
	return vm.Of(b.Build()), nil
}
