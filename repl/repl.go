// Package repl is the interactive loop behind `harn repl`.
//
// It reads entries with line editing, history and Tab completion
// (github.com/peterh/liner; when standard input is not a terminal liner
// falls back to plain line reading, which is how the transcript tests
// drive it). An entry continues over several lines while a bracket, a
// triple-quoted string or a block comment is open, or after a line ending
// with an operator (Incomplete). Each entry
// is evaluated in one interp.Interactive environment, so bindings,
// functions and imports persist; the value of every top-level expression
// statement is printed in println's display form (nil is not printed);
// errors are printed and the session goes on. Lines starting with ':' are
// commands (:help, :quit, :load FILE, :type EXPR).
package repl

import (
	"errors"
	"fmt"
	"github.com/harnlang/harn/builtindoc"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/peterh/liner"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

const (
	prompt     = "harn> "
	contPrompt = "....> "
)

// Config configures a REPL session.
type Config struct {
	// HistoryPath is the history file; "" keeps no history. History is
	// read and written only when standard input is a terminal.
	HistoryPath string
	// Dir is the directory relative imports resolve against ("" means
	// the working directory).
	Dir string
	// Banner is printed first when standard input is a terminal.
	Banner string
}

// Run runs a REPL on the process's standard streams until :quit or end of
// input and returns the exit status.
func Run(cfg Config) int {
	dir := cfg.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	sess := interp.NewSession(interp.Options{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin})
	r := &REPL{in: sess.NewInteractive(dir), out: os.Stdout, errw: os.Stderr}

	interactive := isTerminal(os.Stdin)
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(r.Complete)
	// liner's fallback prints the prompt but not the line it read; echo it
	// so a piped session reads as a transcript.
	echo := !interactive && (!liner.TerminalSupported() || !isTerminal(os.Stdout))

	if interactive {
		if cfg.Banner != "" {
			fmt.Fprintln(r.out, cfg.Banner)
		}
		if cfg.HistoryPath != "" {
			if f, err := os.Open(cfg.HistoryPath); err == nil {
				ln.ReadHistory(f)
				f.Close()
			}
			defer saveHistory(ln, cfg.HistoryPath, r.errw)
		}
	}

	abandoned, stop := r.catchInterrupts(interactive)
	defer stop()

	var entry strings.Builder
	for {
		p := prompt
		if entry.Len() > 0 {
			p = contPrompt
		}
		line, err := ln.Prompt(p)
		if abandoned.Swap(false) {
			entry.Reset() // the line read was typed after Ctrl-C
		}
		if errors.Is(err, liner.ErrPromptAborted) {
			entry.Reset()
			continue
		}
		if err != nil {
			if entry.Len() > 0 {
				r.Eval(entry.String())
			}
			if interactive || echo {
				fmt.Fprintln(r.out) // end the last prompt's line
			}
			return 0
		}
		if echo {
			fmt.Fprintln(r.out, line)
		}
		if strings.TrimSpace(line) != "" {
			ln.AppendHistory(line)
		}
		if entry.Len() == 0 {
			trimmed := strings.TrimSpace(line)
			if trimmed == "" {
				continue
			}
			if strings.HasPrefix(trimmed, ":") {
				if quit := r.Command(trimmed); quit {
					return 0
				}
				continue
			}
		}
		entry.WriteString(line)
		entry.WriteByte('\n')
		if Incomplete(entry.String()) {
			continue
		}
		src := entry.String()
		entry.Reset()
		if code, exit := r.Eval(src); exit {
			return code
		}
	}
}

func saveHistory(ln *liner.State, path string, errw io.Writer) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		fmt.Fprintf(errw, "warning: cannot save history: %v\n", err)
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		fmt.Fprintf(errw, "warning: cannot save history: %v\n", err)
		return
	}
	defer f.Close()
	ln.WriteHistory(f)
}

// catchInterrupts handles Ctrl-C (SIGINT) for the rest of the session.
// While an entry runs it stops the entry. At the prompt liner reads
// Ctrl-C itself when it edits the line; when it does not (a dumb or
// unsized terminal: liner reads plain lines and the terminal sends the
// signal) the terminal has already thrown the typed line away, so the
// half-typed entry is abandoned too (the flag returned tells the loop)
// and a fresh prompt is shown (docs/repl.md). Without a terminal, Ctrl-C
// at the prompt ends the session, with the status of SIGINT. stop puts
// back the default handling.
func (r *REPL) catchInterrupts(interactive bool) (abandoned *atomic.Bool, stop func()) {
	abandoned = new(atomic.Bool)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	stop = func() {
		signal.Stop(sig)
		close(sig)
	}
	go func() {
		for range sig {
			switch {
			case r.in.Interrupt():
			case interactive:
				abandoned.Store(true)
				fmt.Fprint(r.out, "\n"+prompt)
			default:
				os.Exit(130)
			}
		}
	}()
	return abandoned, stop
}

// REPL evaluates entries and commands in one environment; Run drives it
// from a terminal, tests drive it directly.
type REPL struct {
	in   *interp.Interactive
	out  io.Writer
	errw io.Writer
	// braced: the last entry evaluated ended with a `}`
	braced bool
}

// New makes a REPL whose values and errors go to out and errw (program
// output goes to the session's streams).
func New(in *interp.Interactive, out, errw io.Writer) *REPL {
	return &REPL{in: in, out: out, errw: errw}
}

// Eval evaluates one entry, printing warnings and errors. exit reports
// that the entry called exit(code).
func (r *REPL) Eval(src string) (code int, exit bool) {
	err := r.in.Eval(src)
	r.warnings()
	braced := r.braced
	r.braced = strings.HasSuffix(strings.TrimSpace(src), "}")
	if err == nil {
		return 0, false
	}
	if braced {
		explainDetachedClause(src, err)
	}
	var e *vm.Error
	if errors.As(err, &e) {
		switch e.Kind {
		case vm.KindExit:
			if e.Stop == vm.StopInterrupted {
				fmt.Fprintln(r.errw, "interrupted")
				return 0, false
			}
			return e.Code & 0xff, true
		case vm.KindCancelled:
			fmt.Fprintln(r.errw, "interrupted")
			return 0, false
		}
	}
	io.WriteString(r.errw, r.render(err))
	return 0, false
}

// explainDetachedClause adds a help to the parse error of an entry that
// starts with `else`, `catch` or `finally` after an entry that ended with
// a `}`: a script may put the clause on the line after the `}` it
// follows, but at the prompt that `}` ended the entry, which has run
// (docs/repl.md).
func explainDetachedClause(src string, err error) {
	word := strings.TrimSpace(src)
	if i := strings.IndexFunc(word, func(c rune) bool { return !unicode.IsLetter(c) }); i >= 0 {
		word = word[:i]
	}
	if word != "else" && word != "catch" && word != "finally" {
		return
	}
	var list diag.List
	var one *diag.Error
	switch {
	case errors.As(err, &list) && len(list) > 0:
		one = list[0]
	case errors.As(err, &one):
	default:
		return
	}
	if one.Severity == diag.SevError && one.Line == 1 && one.Help == "" {
		example := map[string]string{"else": "} else {", "catch": "} catch (e) {", "finally": "} finally {"}[word]
		one.Help = fmt.Sprintf("at the prompt, the `}` on the line before ended the entry, which has run; put `%s` on that line (`%s`)", word, example)
	}
}

// render formats an error like `harn run` does, leaving out the stack
// trace of a failure at the top level of an entry (it would only repeat
// the location).
func (r *REPL) render(err error) string {
	s := r.in.Session()
	var e *vm.Error
	if errors.As(err, &e) && len(e.Trace) == 1 && e.Trace[0].Func == "" {
		top := e.Trace[0]
		return "error: " + e.UncaughtText() + "\n" +
			diag.RenderLocation(&diag.Error{File: top.File, Line: top.Line, Col: top.Col}, s.Sources[top.File])
	}
	return s.RenderError(err)
}

// warnings prints the checker warnings of the last entry, except
// undefined-name warnings: running the entry reports those itself.
func (r *REPL) warnings() {
	s := r.in.Session()
	for _, w := range r.in.Warnings() {
		if w.Code == "HARN-NAM-001" {
			continue
		}
		io.WriteString(r.errw, s.RenderDiagnostic(w))
	}
}

const help = `Enter Harn statements and expressions; the value of an expression is
printed. An entry continues on more lines while a bracket, a triple-quoted
string or a block comment is open, or after a line ending with an operator.
Tab completes names and .methods.

Commands:
  :help          show this help
  :help NAME     show a builtin's or std/* function's entry and example (as harn doc)
  :quit          leave the REPL (also Ctrl-D)
  :load FILE     run FILE here: its bindings, functions and imports stay
  :type EXPR     show the static type of EXPR without running it
`

// commandAliases maps each spelling of a command to its name in help.
var commandAliases = map[string]string{"help": "help", "h": "help", "?": "help", "quit": "quit", "q": "quit",
	"exit": "quit", "load": "load", "l": "load", "type": "type", "t": "type"}

// commandHelp is the lines of help describing the command name
// (`:load`, `load`, `:q`), or "" when name is no command.
func commandHelp(name string) string {
	cmd, ok := commandAliases[strings.TrimPrefix(name, ":")]
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(help, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == ":"+cmd {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// Command runs a ':' command and reports whether the REPL should quit.
func (r *REPL) Command(line string) (quit bool) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, ":"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "help", "h", "?":
		if arg == "" {
			fmt.Fprint(r.out, help)
			return false
		}
		es := builtindoc.Lookup(arg)
		if len(es) == 0 {
			// `:help :load` (or `:help load`, no builtin's name): the
			// command's lines of the help
			if lines := commandHelp(arg); lines != "" {
				fmt.Fprint(r.out, lines)
				return false
			}
			if strings.HasPrefix(arg, ":") {
				fmt.Fprintf(r.errw, "error: unknown command %s (try :help)\n", arg)
				return false
			}
			fmt.Fprintf(r.errw, "error: %s\n", builtindoc.NotFound(arg))
		}
		for _, e := range es {
			io.WriteString(r.out, e.Text())
		}
	case "quit", "q", "exit":
		return true
	case "load", "l":
		if arg == "" {
			fmt.Fprintln(r.errw, "error: :load needs a FILE")
			return false
		}
		if err := r.in.EvalFile(arg); err != nil {
			r.warnings()
			io.WriteString(r.errw, r.render(err))
			return false
		}
		r.warnings()
	case "type", "t":
		if arg == "" {
			fmt.Fprintln(r.errw, "error: :type needs an EXPR")
			return false
		}
		t, err := r.in.TypeOf(arg)
		if err != nil {
			io.WriteString(r.errw, r.in.Session().RenderError(err))
			return false
		}
		fmt.Fprintln(r.out, t)
	default:
		fmt.Fprintf(r.errw, "error: unknown command :%s (try :help)\n", name)
	}
	return false
}

var commands = []string{":help", ":load ", ":quit", ":type "}

// Complete is liner's word completer: the word before the cursor is
// completed from commands (at the start of the line), method names (after
// a '.'), or keywords, builtins, host globals and bound names.
func (r *REPL) Complete(line string, pos int) (head string, completions []string, tail string) {
	if pos > len(line) {
		pos = len(line)
	}
	before := line[:pos]
	if cmd := strings.TrimLeft(before, " \t"); strings.HasPrefix(cmd, ":") && !strings.ContainsAny(cmd, " \t") {
		for _, c := range commands {
			if strings.HasPrefix(c, cmd) {
				completions = append(completions, c)
			}
		}
		return before[:len(before)-len(cmd)], completions, line[pos:]
	}
	start := pos
	for start > 0 && isIdentByte(line[start-1]) {
		start--
	}
	word := line[start:pos]
	head, tail = line[:start], line[pos:]
	switch {
	case start > 0 && line[start-1] == '.':
		completions = prefixed(methodNames(), word)
	case word != "":
		completions = prefixed(r.names(), word)
	}
	return head, completions, tail
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func prefixed(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !strings.HasPrefix(n, "__") {
			out = append(out, n)
		}
	}
	return out
}

// names lists what a bare word may complete to, sorted and unique.
func (r *REPL) names() []string {
	u := r.in.Session().Universe
	seen := map[string]bool{}
	var out []string
	add := func(list []string) {
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	add(syntax.Keywords())
	add(u.BuiltinNames())
	add(u.GlobalNames())
	add(r.in.Names())
	sort.Strings(out)
	return out
}

// methodNames lists every method name of the builtin method table.
func methodNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range stdlib.Methods() {
		if m.Name != "*" && !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, m.Name)
		}
	}
	sort.Strings(out)
	return out
}

// HistoryPath is where `harn repl` keeps its history: $HARN_REPL_HISTORY
// when set (empty: no history), else repl_history in the harn directory
// of $XDG_STATE_HOME or, failing that, of the user's config directory.
func HistoryPath() string {
	if p, ok := os.LookupEnv("HARN_REPL_HISTORY"); ok {
		return p
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "harn", "repl_history")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "harn", "repl_history")
	}
	return ""
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
