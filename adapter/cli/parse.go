package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/tool"
)

// What a command line asks for.
type requestKind int

const (
	reqInvoke     requestKind = iota // run the leaf's tool
	reqHelp                          // print cmd's help to stdout, status 0
	reqHelpOfHelp                    // help of the implicit help subcommand
	reqVersion                       // print the version, status 0
	reqMissingSub                    // a parent without subcommand: help on stderr, status 1
)

// request is a parsed command line.
type request struct {
	kind requestKind
	cmd  *tool.CLICommand
	// the leaf invocation: raw values in command-line order, the
	// --harn-input text (nil when absent) and the output mode
	values []assignment
	input  *string
	output string
}

// assignment is one raw value given for an argument.
type assignment struct {
	arg *tool.CLIArg
	raw string
}

// usageError is a parse error of the generated program. It is printed
// with the usage line of cmd, the way conventional parsers do, after a
// "tip:" line when one helps (a similar spelling, or "--" before a value
// that looks like an option).
type usageError struct {
	cmd *tool.CLICommand
	msg string
	tip string
}

func (e *usageError) Error() string { return e.msg }

// parse interprets everything after FILE (docs/spec/cli-projection.md §2-§4).
func (p *Program) parse(args []string) (*request, error) {
	cmd := p.Root
	i := 0
	for !cmd.Leaf() {
		if i == len(args) {
			return &request{kind: reqMissingSub, cmd: cmd}, nil
		}
		tok := args[i]
		opts := p.builtins(cmd)
		if b := builtinToken(opts, tok); b != nil {
			if b.long == flagVersion {
				return &request{kind: reqVersion, cmd: cmd}, nil
			}
			return &request{kind: reqHelp, cmd: cmd}, nil
		}
		switch {
		case tok == "help":
			return p.parseHelp(cmd, args[i+1:])
		case tok == "--":
			return parentDoubleDash(cmd, args[i+1:])
		case strings.HasPrefix(tok, "-") && tok != "-":
			return nil, parentOptionError(cmd, tok, opts)
		}
		child := cmd.Child(tok)
		if child == nil {
			return nil, subcommandError(cmd, tok, true)
		}
		cmd = child
		i++
	}
	return p.parseLeaf(cmd, args[i:])
}

// parseHelp is the implicit `help [COMMAND]...` subcommand of a parent.
// As clap's help subcommand does, it reads every word after it as the
// name of a subcommand, below the command the previous words reached:
// it has no options ("-h", "--help") and no "--" (docs/tool-run.md), so
// such a word is an unrecognized subcommand of the command reached, like
// any other word naming none.
func (p *Program) parseHelp(parent *tool.CLICommand, args []string) (*request, error) {
	cmd := parent
	for i, tok := range args {
		if tok == "help" && !cmd.Leaf() {
			// the help subcommand of the command reached (help things
			// help is things help help), which names no further command
			if i+1 < len(args) {
				return nil, &usageError{cmd: cmd, msg: fmt.Sprintf("unrecognized subcommand '%s'", args[i+1])}
			}
			return &request{kind: reqHelpOfHelp, cmd: cmd}, nil
		}
		var child *tool.CLICommand
		if !cmd.Leaf() {
			child = cmd.Child(tok)
		}
		if child == nil {
			return nil, subcommandError(cmd, tok, i == 0)
		}
		cmd = child
	}
	return &request{kind: reqHelp, cmd: cmd}, nil
}

// parentDoubleDash reads the words after a "--" given to a parent: it
// ends options, so they are all positional, and a parent takes none. A
// subcommand's name there is an error with a tip to drop the "--"; any
// other word is an unrecognized subcommand, as without the "--"; nothing
// after it is a parent invoked without subcommand.
func parentDoubleDash(parent *tool.CLICommand, rest []string) (*request, error) {
	if len(rest) == 0 {
		return &request{kind: reqMissingSub, cmd: parent}, nil
	}
	tok := rest[0]
	if tok == "help" || parent.Child(tok) != nil {
		return nil, &usageError{cmd: parent, msg: fmt.Sprintf("unexpected argument '%s' found", tok),
			tip: fmt.Sprintf("subcommand '%s' exists; to use it, remove the '--' before it", tok)}
	}
	return nil, subcommandError(parent, tok, true)
}

// subcommandError is an unrecognized subcommand of parent, with a tip
// naming the closest visible spelling (help too when withHelp).
func subcommandError(parent *tool.CLICommand, tok string, withHelp bool) *usageError {
	var names []string
	if !parent.Leaf() {
		for _, ch := range parent.Children {
			if !ch.Hidden {
				names = append(names, ch.Name)
				names = append(names, ch.Aliases...)
			}
		}
	}
	if withHelp {
		names = append(names, "help")
	}
	return &usageError{cmd: parent, msg: fmt.Sprintf("unrecognized subcommand '%s'", tok), tip: similarTip("subcommand", tok, names, "")}
}

// parentOptionError is an option a parent does not have: it has only
// its built-in options opts (--help, and --version on the root of a
// versioned program).
func parentOptionError(parent *tool.CLICommand, tok string, opts []*builtinOption) *usageError {
	name := optionName(tok)
	var longs []string
	for _, b := range opts {
		longs = append(longs, b.long)
	}
	tip := ""
	if long, ok := strings.CutPrefix(name, "--"); ok {
		tip = similarTip("argument", long, longs, "--")
	}
	return &usageError{cmd: parent, msg: fmt.Sprintf("unexpected argument '%s' found", name), tip: tip}
}

// similarTip names the candidate closest to typed by the rule of
// lang/diag.Suggest, written with prefix ("--" for options), or is "".
func similarTip(what, typed string, candidates []string, prefix string) string {
	if s := diag.Suggest(typed, candidates); s != "" {
		return fmt.Sprintf("a similar %s exists: '%s%s'", what, prefix, s)
	}
	return ""
}

// optionName is the option part of an --opt=value token; a token with
// no name before its "=" (--=x) is named whole.
func optionName(tok string) string {
	if strings.HasPrefix(tok, "--") {
		if k := strings.IndexByte(tok, '='); k > 2 {
			return tok[:k]
		}
	}
	return tok
}

// option is one named option of a leaf: a tool argument or one of the
// built-in options every leaf has.
type option struct {
	arg     *tool.CLIArg   // nil for built-in options
	builtin *builtinOption // nil for tool arguments
}

func (o option) takesValue() bool {
	if o.arg != nil {
		return !o.arg.Presence()
	}
	return o.builtin.value != ""
}

// display is the option as parse errors name it: --long <VALUE_NAME>.
func (o option) display() string {
	if o.arg != nil {
		return argDisplay(o.arg)
	}
	return o.builtin.display()
}

func argDisplay(a *tool.CLIArg) string {
	if a.Positional {
		return "[" + a.ValueName + "]"
	}
	if a.Presence() {
		return "--" + a.Long
	}
	return "--" + a.Long + " <" + a.ValueName + ">"
}

func lookupLong(leaf *tool.CLICommand, name string) (option, bool) {
	for _, a := range leaf.Args {
		if a.Positional {
			continue
		}
		if a.Long == name {
			return option{arg: a}, true
		}
		for _, al := range a.Aliases {
			if al == name {
				return option{arg: a}, true
			}
		}
	}
	if b := builtinLong(builtins(leaf, false), name); b != nil {
		return option{builtin: b}, true
	}
	return option{}, false
}

func lookupShort(leaf *tool.CLICommand, c byte) (option, bool) {
	if b := builtinShort(builtins(leaf, false), c); b != nil {
		return option{builtin: b}, true
	}
	for _, a := range leaf.Args {
		if !a.Positional && len(a.Short) == 1 && a.Short[0] == c {
			return option{arg: a}, true
		}
	}
	return option{}, false
}

// leafParser holds the state of parsing one leaf's tokens.
type leafParser struct {
	leaf    *tool.CLICommand
	req     *request
	pos     []*tool.CLIArg
	posIdx  int
	seen    map[*tool.CLIArg]bool
	seenFW  map[*builtinOption]bool
	outFlag *builtinOption // the first of --json / --harn-output given
}

func (p *Program) parseLeaf(leaf *tool.CLICommand, toks []string) (*request, error) {
	lp := &leafParser{
		leaf:   leaf,
		req:    &request{kind: reqInvoke, cmd: leaf, output: "json"},
		seen:   map[*tool.CLIArg]bool{},
		seenFW: map[*builtinOption]bool{},
	}
	for _, a := range leaf.Args {
		if a.Positional {
			lp.pos = append(lp.pos, a)
		}
	}
	ddash := false
	for j := 0; j < len(toks); j++ {
		tok := toks[j]
		switch {
		case ddash || tok == "-" || !strings.HasPrefix(tok, "-"):
			if err := lp.positional(tok); err != nil {
				return nil, err
			}
			continue
		case tok == "--":
			ddash = true
			continue
		case lp.posIdx < len(lp.pos) && lp.hyphenValue(lp.pos[lp.posIdx], tok):
			if err := lp.positional(tok); err != nil {
				return nil, err
			}
			continue
		}
		if strings.HasPrefix(tok, "--") {
			name, val, hasVal := strings.Cut(tok[2:], "=")
			o, ok := lookupLong(leaf, name)
			if !ok {
				return nil, lp.unknownOption(optionName(tok), tok, similarTip("argument", name, visibleLongs(leaf), "--"))
			}
			if !o.takesValue() {
				if hasVal {
					return nil, lp.errorf("unexpected value '%s' for '%s' found; no more were expected", val, o.display())
				}
				if done, err := lp.flag(o); err != nil || done {
					return lp.result(err)
				}
				continue
			}
			if !hasVal {
				var err error
				if val, err = lp.next(o, toks, &j); err != nil {
					return nil, err
				}
			}
			if err := lp.value(o, val); err != nil {
				return nil, err
			}
			continue
		}
		// short options, possibly clustered: -vq, -t value, -tvalue, -t=value
		rest := tok[1:]
		for rest != "" {
			o, ok := lookupShort(leaf, rest[0])
			if !ok {
				r, _ := utf8.DecodeRuneInString(rest)
				return nil, lp.unknownOption(fmt.Sprintf("-%c", r), tok, "")
			}
			if !o.takesValue() {
				if done, err := lp.flag(o); err != nil || done {
					return lp.result(err)
				}
				if val, ok := strings.CutPrefix(rest[1:], "="); ok {
					// -v=x: a value for a flag, as --verbose=x
					return nil, lp.errorf("unexpected value '%s' for '%s' found; no more were expected", val, o.display())
				}
				rest = rest[1:]
				continue
			}
			val := strings.TrimPrefix(rest[1:], "=")
			if rest[1:] == "" {
				var err error
				if val, err = lp.next(o, toks, &j); err != nil {
					return nil, err
				}
			}
			if err := lp.value(o, val); err != nil {
				return nil, err
			}
			break
		}
	}
	return lp.req, nil
}

// result ends parsing early: with an error, or with a help request.
func (lp *leafParser) result(err error) (*request, error) {
	if err != nil {
		return nil, err
	}
	return lp.req, nil
}

func (lp *leafParser) errorf(format string, args ...any) error {
	return &usageError{cmd: lp.leaf, msg: fmt.Sprintf(format, args...)}
}

// unknownOption is an option the leaf does not have (name, in token
// tok), with the tip of a similar spelling; without one, when a visible
// positional could still take a value, the tip says how to pass the
// whole token as that value.
func (lp *leafParser) unknownOption(name, tok, tip string) error {
	if tip == "" && lp.visiblePositionalLeft() {
		tip = fmt.Sprintf("to pass '%s' as a value, use '-- %s'", tok, tok)
	}
	return &usageError{cmd: lp.leaf, msg: fmt.Sprintf("unexpected argument '%s' found", name), tip: tip}
}

// visiblePositionalLeft reports whether a positional the help shows can
// still take a value.
func (lp *leafParser) visiblePositionalLeft() bool {
	for _, a := range lp.pos[min(lp.posIdx, len(lp.pos)):] {
		if !a.Hidden {
			return true
		}
	}
	return false
}

// visibleLongs are the long spellings the leaf's help shows, without
// dashes: its visible arguments' longs and aliases, and the built-in
// options.
func visibleLongs(leaf *tool.CLICommand) []string {
	var out []string
	for _, a := range leaf.Args {
		if !a.Positional && !a.Hidden {
			out = append(out, a.Long)
			out = append(out, a.Aliases...)
		}
	}
	for _, b := range builtins(leaf, false) {
		out = append(out, b.long)
	}
	return out
}

// next takes the token after an option as its value. A hyphen-leading
// token is a value only when it is "-" or, for a numeric argument, a
// negative number.
func (lp *leafParser) next(o option, toks []string, j *int) (string, error) {
	if *j+1 < len(toks) {
		t := toks[*j+1]
		if t == "-" || !strings.HasPrefix(t, "-") || (o.arg != nil && lp.hyphenValue(o.arg, t)) {
			*j++
			return t, nil
		}
	}
	return "", lp.errorf("a value is required for '%s' but none was supplied", o.display())
}

// hyphenValue reports whether the hyphen-leading token t is a value of
// a rather than an option: a negative number for a numeric argument, or
// one of a's candidates (enum values, advisory completions) that names no
// option of the leaf, since completion offers those words as values.
func (lp *leafParser) hyphenValue(a *tool.CLIArg, t string) bool {
	if a.Negative && isNegativeNumber(t) {
		return true
	}
	return slices.Contains(a.Candidates, t) && !spellsOption(lp.leaf, t)
}

// spellsOption reports whether the token t starts with a spelling of an
// option of leaf, hidden ones included (--name, --name=..., or a short
// letter). It is the one rule for hyphen-leading words: the parser reads
// such a token as that option, and completion offers no value candidate
// spelled so (leafOptions).
func spellsOption(leaf *tool.CLICommand, t string) bool {
	if long, ok := strings.CutPrefix(t, "--"); ok {
		name, _, _ := strings.Cut(long, "=")
		_, found := lookupLong(leaf, name)
		return found
	}
	if len(t) < 2 || t[0] != '-' {
		return false
	}
	_, found := lookupShort(leaf, t[1])
	return found
}

// flag applies an option that takes no value. done reports a help
// request, which ends parsing.
func (lp *leafParser) flag(o option) (done bool, err error) {
	if o.arg != nil {
		if lp.seen[o.arg] {
			return false, lp.errorf("the argument '%s' cannot be used multiple times", o.display())
		}
		lp.seen[o.arg] = true
		v := "true"
		if o.arg.Style == tool.BooleanSetFalse {
			v = "false"
		}
		lp.req.values = append(lp.req.values, assignment{o.arg, v})
		return false, nil
	}
	switch o.builtin.long {
	case flagHelp:
		lp.req.kind = reqHelp
		return true, nil
	case flagJSON:
		if err := lp.once(o); err != nil {
			return false, err
		}
		if err := lp.outputSelector(o); err != nil {
			return false, err
		}
		lp.req.output = "json"
	}
	return false, nil
}

func (lp *leafParser) once(o option) error {
	if lp.seenFW[o.builtin] {
		return lp.errorf("the argument '%s' cannot be used multiple times", o.display())
	}
	lp.seenFW[o.builtin] = true
	return nil
}

// outputSelector enforces that --json and --harn-output exclude each
// other.
func (lp *leafParser) outputSelector(o option) error {
	if lp.outFlag != nil && lp.outFlag != o.builtin {
		return lp.errorf("the argument '%s' cannot be used with '%s'", lp.outFlag.display(), o.display())
	}
	lp.outFlag = o.builtin
	return nil
}

// value applies an option's value.
func (lp *leafParser) value(o option, val string) error {
	if a := o.arg; a != nil {
		if lp.seen[a] && !a.Repeatable {
			return lp.errorf("the argument '%s' cannot be used multiple times", o.display())
		}
		lp.seen[a] = true
		lp.req.values = append(lp.req.values, assignment{a, val})
		return nil
	}
	if err := lp.once(o); err != nil {
		return err
	}
	switch o.builtin.long {
	case flagHarnInput:
		lp.req.input = &val
	case flagHarnOutput:
		if err := lp.outputSelector(o); err != nil {
			return err
		}
		if !oneOf(val, outputModes) {
			return &usageError{cmd: lp.leaf, msg: fmt.Sprintf("invalid value '%s' for '%s'\n  [possible values: %s]", val, o.display(), strings.Join(outputModes, ", ")),
				tip: similarTip("value", val, outputModes, "")}
		}
		lp.req.output = val
	}
	return nil
}

func (lp *leafParser) positional(tok string) error {
	if lp.posIdx >= len(lp.pos) {
		return lp.errorf("unexpected argument '%s' found", tok)
	}
	a := lp.pos[lp.posIdx]
	lp.req.values = append(lp.req.values, assignment{a, tok})
	if !a.Repeatable {
		lp.posIdx++
	}
	return nil
}

// isNegativeNumber reports a token such as -1, -2.5 or -1e3.
func isNegativeNumber(s string) bool {
	if len(s) < 2 || s[0] != '-' || !(isDigit(s[1]) || s[1] == '.') {
		return false
	}
	_, err := strconv.ParseFloat(s[1:], 64)
	return err == nil && !strings.ContainsAny(s, "xXpP_")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}
