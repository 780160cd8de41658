package cli

import (
	"strings"

	"github.com/harnlang/harn/tool"
)

// Long spellings of the built-in options, without dashes.
const (
	flagHarnInput  = "harn-input"
	flagHarnOutput = "harn-output"
	flagJSON       = "json"
	flagHelp       = "help"
	flagVersion    = "version"
)

// Output modes of --harn-output.
var outputModes = []string{"json", "pretty", "text"}

// builtinOption is an option of the generated program that no tool
// argument declares (docs/spec/cli-projection.md §1, §3): the framework
// options of every leaf, and help and version. builtinOptions is the one
// list of them: the parser, the help text and the completion scripts all
// read it, in its order (the help order).
type builtinOption struct {
	long  string
	short byte   // 0: none
	value string // the value name; "" for a flag
	help  string
	// notes follow the help text in the help output
	notes      string
	candidates []string
	hint       tool.ValueHint
	// exclusive options (help, version) end the command line
	exclusive bool
	// conflicts are the long spellings of the options this one excludes
	// (when the command has them)
	conflicts []string
	// on reports whether cmd has the option; versioned says cmd is the
	// root of a program with a version
	on func(cmd *tool.CLICommand, versioned bool) bool
}

var builtinOptions = []builtinOption{
	{long: flagHarnInput, value: "JSON|@FILE|-", help: "Base JSON object; individual arguments override its properties",
		hint: hintHarnInput, on: onLeaf},
	{long: flagHarnOutput, value: "FORMAT", help: "Output encoding",
		notes:      "[default: json] [possible values: " + strings.Join(outputModes, ", ") + "]",
		candidates: outputModes, conflicts: []string{flagJSON}, on: onLeaf},
	{long: flagJSON, help: "Emit compact JSON (alias for --harn-output json)",
		conflicts: []string{flagHarnOutput}, on: func(cmd *tool.CLICommand, _ bool) bool { return cmd.Leaf() && cmd.JSONFlag }},
	{long: flagHelp, short: 'h', help: "Print help", exclusive: true,
		on: func(*tool.CLICommand, bool) bool { return true }},
	{long: flagVersion, short: 'V', help: "Print version", exclusive: true,
		on: func(_ *tool.CLICommand, versioned bool) bool { return versioned }},
}

func onLeaf(cmd *tool.CLICommand, _ bool) bool { return cmd.Leaf() }

// builtins are the built-in options of cmd, in help order; versioned
// says cmd is the root of a program with a version (a leaf never is).
func builtins(cmd *tool.CLICommand, versioned bool) []*builtinOption {
	var out []*builtinOption
	for i := range builtinOptions {
		if b := &builtinOptions[i]; b.on(cmd, versioned) {
			out = append(out, b)
		}
	}
	return out
}

// builtins are the built-in options of cmd, a command of p.
func (p *Program) builtins(cmd *tool.CLICommand) []*builtinOption {
	return builtins(cmd, cmd == p.Root && p.Version != "")
}

// builtinLong is the option of opts spelled --long, or nil.
func builtinLong(opts []*builtinOption, long string) *builtinOption {
	for _, b := range opts {
		if b.long == long {
			return b
		}
	}
	return nil
}

// builtinShort is the option of opts spelled -c, or nil.
func builtinShort(opts []*builtinOption, c byte) *builtinOption {
	for _, b := range opts {
		if b.short != 0 && b.short == c {
			return b
		}
	}
	return nil
}

// builtinToken is the option of opts a whole token spells (--help, -h),
// or nil.
func builtinToken(opts []*builtinOption, tok string) *builtinOption {
	if long, ok := strings.CutPrefix(tok, "--"); ok {
		return builtinLong(opts, long)
	}
	if len(tok) == 2 && tok[0] == '-' {
		return builtinShort(opts, tok[1])
	}
	return nil
}

// display is the option as help and parse errors name it: --long
// <VALUE>.
func (b *builtinOption) display() string {
	if b.value == "" {
		return "--" + b.long
	}
	return "--" + b.long + " <" + b.value + ">"
}

// helpText is the help column of the option.
func (b *builtinOption) helpText() string { return joinText(b.help, b.notes) }

// shortName is the short spelling without its dash, or "".
func (b *builtinOption) shortName() string {
	if b.short == 0 {
		return ""
	}
	return string(b.short)
}
