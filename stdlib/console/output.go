package console

import (
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Output builtins (docs/spec/builtins.md §3.1). print, println and log write to the
// VM's stdout, which `harn run` buffers; eprint and eprintln go to stderr.
// Each uses only its first argument.

func init() {
	lib.Def("print", "print(v?)", "write display(v) to stdout", builtinPrint)
	lib.Def("println", "println(v?)", "write display(v) and a newline to stdout", builtinPrintln)
	lib.Def("log", "log(v?)", "write `[harn] ` + display(v) and a newline to stdout", builtinLog)
	lib.Def("eprint", "eprint(v?)", "write display(v) to stderr", builtinEprint)
	lib.Def("eprintln", "eprintln(v?)", "write display(v) and a newline to stderr", builtinEprintln)
	lib.Def("progress", "progress(phase, msg, a?, b?)", "write one progress line to stdout", builtinProgress)
	lib.Def("color", "color(text, name) -> string", "wrap text in an ANSI color when color is enabled", builtinColor)
	lib.Def("bold", "bold(text) -> string", "wrap text in ANSI bold when color is enabled", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(ansi(th, "1", args.Text(0))), nil
	})
	lib.Def("dim", "dim(text) -> string", "wrap text in ANSI dim when color is enabled", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(ansi(th, "2", args.Text(0))), nil
	})
	lib.Def("set_color_mode", "set_color_mode(mode)", `color mode: "auto", "always" or "never"`, builtinSetColorMode)
}

// firstText is display(args[0]), or "" when no argument was passed.
func firstText(args vm.Args) string { return lib.TextOr(args, 0, "") }

func writeOut(th *vm.Thread, s string) {
	io.WriteString(th.VM().Stdout, s)
}

func writeErr(th *vm.Thread, s string) {
	io.WriteString(th.VM().Stderr, s)
}

func builtinPrint(th *vm.Thread, args vm.Args) (vm.Value, error) {
	writeOut(th, firstText(args))
	return vm.Nil, nil
}

func builtinPrintln(th *vm.Thread, args vm.Args) (vm.Value, error) {
	writeOut(th, firstText(args)+"\n")
	return vm.Nil, nil
}

func builtinLog(th *vm.Thread, args vm.Args) (vm.Value, error) {
	writeOut(th, "[harn] "+firstText(args)+"\n")
	return vm.Nil, nil
}

func builtinEprint(th *vm.Thread, args vm.Args) (vm.Value, error) {
	writeErr(th, firstText(args))
	return vm.Nil, nil
}

func builtinEprintln(th *vm.Thread, args vm.Args) (vm.Value, error) {
	writeErr(th, firstText(args)+"\n")
	return vm.Nil, nil
}

func builtinProgress(th *vm.Thread, args vm.Args) (vm.Value, error) {
	writeOut(th, progressLine(args)+"\n")
	return vm.Nil, nil
}

// progressLine formats `[phase] msg` with the optional counter, percentage,
// spinner or bar of docs/spec/builtins.md §3.1.
func progressLine(args vm.Args) string {
	phase, msg := args.Text(0), args.Text(1)
	head := "[" + phase + "] "
	if opts, ok := args.Dict(2); ok {
		mode, _ := opts.Get("mode")
		switch modeText := optText(mode); modeText {
		case "spinner":
			step := dictInt(opts, "step", 0)
			frames := []string{"|", "/", "-", `\`}
			return head + frames[((step%4)+4)%4] + " " + msg
		case "bar":
			return head + progressBar(opts) + " " + msg + " (" + entryText(opts, "current") + "/" + entryText(opts, "total") + ")"
		}
		return head + msg
	}
	a, aok := args.Int(2)
	b, bok := args.Int(3)
	switch {
	case aok && bok:
		return head + msg + " (" + strconv.FormatInt(a, 10) + "/" + strconv.FormatInt(b, 10) + ")"
	case aok:
		return head + msg + " (" + strconv.FormatInt(a, 10) + "%)"
	}
	return head + msg
}

// progressBar renders the `[###-------]` cells of a bar progress line.
func progressBar(opts *vm.Dict) string {
	cur, _ := opts.Get("current")
	tot, _ := opts.Get("total")
	current, _ := lib.ToFloat(cur)
	total, _ := lib.ToFloat(tot)
	width := lib.ClampInt(dictInt(opts, "width", 10), 3, 40)
	filled := int64(0)
	if total > 0 {
		c := math.Max(0, math.Min(current, total))
		filled = int64(math.Round(c / total * float64(width)))
	}
	return "[" + strings.Repeat("#", int(filled)) + strings.Repeat("-", int(width-filled)) + "]"
}

// entryText is the display form of a dict entry, "0" when absent.
func entryText(d *vm.Dict, key string) string {
	if v, ok := d.Get(key); ok {
		return vm.ToDisplay(v)
	}
	return "0"
}

// optText is the display form of an optional dict entry ("" when absent).
func optText(v vm.Value) string {
	if !v.IsValid() {
		return ""
	}
	return vm.ToDisplay(v)
}

// dictInt reads an int entry, def when absent or not an int.
func dictInt(d *vm.Dict, key string, def int64) int64 {
	if v, ok := d.Get(key); ok {
		if n, ok := v.AsInt(); ok {
			return int64(n)
		}
	}
	return def
}

var colorCodes = map[string]string{
	"black": "30", "red": "31", "green": "32", "yellow": "33",
	"blue": "34", "magenta": "35", "cyan": "36", "white": "37",
	"bright_black": "90", "gray": "90", "grey": "90",
	"bright_red": "91", "bright_green": "92", "bright_yellow": "93",
	"bright_blue": "94", "bright_magenta": "95", "bright_cyan": "96", "bright_white": "97",
}

func builtinColor(th *vm.Thread, args vm.Args) (vm.Value, error) {
	text := args.Text(0)
	code, ok := colorCodes[args.Text(1)]
	if !ok {
		return vm.Str(text), nil
	}
	return vm.Str(ansi(th, code, text)), nil
}

// ansi wraps text in an SGR sequence when color output is enabled.
func ansi(th *vm.Thread, code, text string) string {
	if !colorEnabled(th) {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

type colorModeKey struct{}

// colorMode is the per-VM setting of set_color_mode.
type colorMode struct{ mode string }

func colorState(th *vm.Thread) *colorMode {
	return th.VM().Local(colorModeKey{}, func() any { return &colorMode{mode: "auto"} }).(*colorMode)
}

func colorEnabled(th *vm.Thread) bool {
	switch colorState(th).mode {
	case "always":
		return true
	case "never":
		return false
	}
	if _, ok := os.LookupEnv("FORCE_COLOR"); ok {
		return true
	}
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	return isTerminal(th, "stdout")
}

func builtinSetColorMode(th *vm.Thread, args vm.Args) (vm.Value, error) {
	mode := args.Text(0)
	switch mode {
	case "auto", "always", "never":
		colorState(th).mode = mode
		return vm.Nil, nil
	}
	return vm.Value{}, vm.Throwf("set_color_mode: invalid mode '%s'. Expected 'auto', 'always', or 'never'.", mode)
}
