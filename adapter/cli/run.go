package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
	stdfs "github.com/harnlang/harn/stdlib/fs"
	stdjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Run executes one command line of the generated program (everything
// after FILE) and returns the exit status (docs/spec/cli-projection.md §5).
func (p *Program) Run(args []string, call Caller, std Stdio) int {
	req, err := p.parse(args)
	if err != nil {
		p.writeUsageError(std.Stderr, err)
		return 1
	}
	switch req.kind {
	case reqHelp:
		io.WriteString(std.Stdout, p.Help(req.cmd))
		return 0
	case reqHelpOfHelp:
		io.WriteString(std.Stdout, p.helpOfHelp(req.cmd))
		return 0
	case reqVersion:
		fmt.Fprintf(std.Stdout, "%s %s\n", p.Name, p.Version)
		return 0
	case reqMissingSub:
		io.WriteString(std.Stderr, p.Help(req.cmd))
		return 1
	}
	obj, err := buildArguments(req, std.Stdin)
	if err != nil {
		fmt.Fprintf(std.Stderr, "error: %s\n", escapeControls(err.Error()))
		return 1
	}
	o := call(req.cmd.Tool, obj)
	status := render(o, req.output, std)
	if o.Kind == tool.InvalidInput {
		for _, h := range inputHints(req.cmd, o.Contract, obj) {
			fmt.Fprintln(std.Stderr, h)
		}
	}
	return status
}

func (p *Program) writeUsageError(w io.Writer, err error) {
	ue, ok := err.(*usageError)
	if !ok {
		fmt.Fprintf(w, "error: %s\n", escapeControls(err.Error()))
		return
	}
	fmt.Fprintf(w, "error: %s\n\n", escapeControls(ue.msg))
	if ue.tip != "" {
		fmt.Fprintf(w, "  tip: %s\n\n", escapeControls(ue.tip))
	}
	fmt.Fprintf(w, "Usage: %s\n\nFor more information, try '--help'.\n", p.usage(ue.cmd))
}

// escapeControls writes the control characters an error quotes from the
// command line (an argument holding ESC sequences or a NUL) as \xNN or
// \u{N} escapes, so an error can never drive the user's terminal.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r) // the error's own layout
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// buildArguments merges the --harn-input base object and the coerced
// command-line values (docs/spec/cli-projection.md §4 "Building the argument
// object"). Flags override base properties.
func buildArguments(req *request, stdin io.Reader) (*jsonv.Object, error) {
	obj := jsonv.NewObject(len(req.values))
	if req.input != nil {
		base, err := readInput(*req.input, stdin)
		if err != nil {
			return nil, err
		}
		obj = base.Copy()
	}
	var lists map[*tool.CLIArg][]any
	for _, v := range req.values {
		x, err := coerce(v.arg, v.raw)
		if err != nil {
			return nil, err
		}
		if !v.arg.Repeatable {
			obj.Set(v.arg.Property, x)
			continue
		}
		if lists == nil {
			lists = map[*tool.CLIArg][]any{}
		}
		lists[v.arg] = append(lists[v.arg], x)
		obj.Set(v.arg.Property, lists[v.arg])
	}
	return obj, nil
}

// readInput resolves --harn-input: a JSON literal, @PATH or - (stdin).
func readInput(spec string, stdin io.Reader) (*jsonv.Object, error) {
	var data []byte
	switch {
	case spec == "-":
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("failed to read --harn-input from stdin: %s", stdfs.OSErrorText(err))
		}
		data = b
	case strings.HasPrefix(spec, "@"):
		path := spec[1:]
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("failed to read --harn-input file %q: %s", path, stdfs.OSErrorText(err))
		}
		data = b
	default:
		data = []byte(spec)
	}
	v, err := jsonv.ParseLimit(data, jsonv.SerdeDepth)
	if err != nil {
		return nil, fmt.Errorf("invalid --harn-input JSON: %s", stdjson.ErrorText(data, err))
	}
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil, fmt.Errorf("--harn-input must resolve to a JSON object")
	}
	return o, nil
}

// coerce converts one token by the argument's prepared coercion type
// (docs/spec/cli-projection.md §4). Errors name the property's derived flag.
func coerce(a *tool.CLIArg, raw string) (any, error) {
	if !utf8.ValidString(raw) {
		// JSON text is Unicode: a value would lose its bytes to U+FFFD
		return nil, fmt.Errorf("%s expects valid UTF-8", a.Flag)
	}
	if raw == "null" && a.NullWord() {
		// a nullable integer, number or boolean reads scalars as plain
		// words, so null needs its word too (docs/tool-run.md)
		return nil, nil
	}
	switch a.Coerce {
	case "string":
		return raw, nil
	case "integer":
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s expects an integer", a.Flag)
		}
		return jsonv.Int(n), nil
	case "number":
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(raw, "xX_") {
			return nil, fmt.Errorf("%s expects a number", a.Flag)
		}
		return floatNumber(f), nil
	case "boolean":
		switch raw {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%s expects true or false", a.Flag)
	}
	v, err := jsonv.ParseLimit([]byte(raw), jsonv.SerdeDepth)
	if err != nil {
		// help and completion offer the string enum values and advisory
		// completions as bare words: one of them that is not JSON is
		// that string (docs/tool-run.md)
		if oneOf(raw, a.Candidates) {
			return raw, nil
		}
		return nil, fmt.Errorf("%s expects JSON: %s", a.Flag, stdjson.ErrorText([]byte(raw), err))
	}
	return v, nil
}

// floatNumber is a coerced number option: a 64-bit float
// (docs/spec/cli-projection.md §4) that stays a float in the handler's
// arguments, an integral one too (--x 3 and --x 3.0 are 3.0, so 3 / 2 is
// 1.5), where the JSON text "3" would read as the int 3.
func floatNumber(f float64) json.Number {
	n := jsonv.Float(f)
	if !strings.ContainsAny(string(n), ".eE") {
		n += ".0"
	}
	return n
}

// render writes a classified outcome in the selected output mode and
// returns the exit status (docs/spec/cli-projection.md §5). Thrown values are
// never printed: failures are rendered from their value-free summaries.
func render(o *tool.Outcome, mode string, std Stdio) int {
	switch o.Kind {
	case tool.Success:
		std.Stdout.Write(encode(o.Result, mode))
		return 0
	case tool.ApplicationError:
		if mode != "text" {
			env := jsonv.NewObject(2)
			e := jsonv.NewObject(3)
			e.Append("kind", "application")
			e.Append("tool", o.Tool)
			e.Append("data", o.Data)
			env.Append("ok", false)
			env.Append("error", e)
			std.Stdout.Write(encode(env, mode))
		}
		fmt.Fprintf(std.Stderr, "error: tool %q returned application error: %s\n", o.Tool, tool.SummaryApplicationError)
		return 1
	case tool.InvalidInput:
		fmt.Fprintf(std.Stderr, "error: %s\n", o.Summary)
		return 1
	case tool.RuntimeFailure:
		if o.Err != nil && o.Err.Kind == vm.KindExit {
			// the handler called exit(n): the status is the script's choice
			return o.Err.Code & 0xff
		}
	}
	fmt.Fprintf(std.Stderr, "error: %s\n", o.FailureText())
	return 1
}

// encode renders a JSON value for an output mode, newline included.
func encode(v any, mode string) []byte {
	switch mode {
	case "pretty":
		return append(jsonv.MarshalIndent(v), '\n')
	case "text":
		if s, ok := v.(string); ok {
			return []byte(s + "\n")
		}
		return append(jsonv.MarshalIndent(v), '\n')
	}
	return append(jsonv.Marshal(v), '\n')
}
