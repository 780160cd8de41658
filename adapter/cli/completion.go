package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/tool"
)

// Shell is a completion script dialect of `harn tool completions`.
type Shell string

// The supported shells.
const (
	Bash       Shell = "bash"
	Zsh        Shell = "zsh"
	Fish       Shell = "fish"
	PowerShell Shell = "powershell"
)

// Shells lists the accepted --shell values in help order.
var Shells = []Shell{Bash, Zsh, Fish, PowerShell}

// ParseShell reads a --shell value; "power-shell" is accepted as a
// spelling of powershell.
func ParseShell(s string) (Shell, bool) {
	switch s {
	case "bash", "zsh", "fish", "powershell":
		return Shell(s), true
	case "power-shell":
		return PowerShell, true
	}
	return "", false
}

// Completions renders the completion script of the program for a shell
// (docs/spec/cli-projection.md §8). Every script is generated from the same model
// of the command tree, so the shells agree on what they offer.
func (p *Program) Completions(sh Shell) string {
	m := p.completionModel()
	switch sh {
	case Bash:
		return m.bash()
	case Zsh:
		return m.zsh()
	case Fish:
		return m.fish()
	case PowerShell:
		return m.powershell()
	}
	panic("cli: unknown shell " + string(sh))
}

// compModel is the completion view of the command tree: visible
// commands and arguments only, plus the implicit help subcommand of
// every parent. Nothing of a hidden command or argument is in it, not
// even a spelling: the scripts treat an option they do not know as one
// taking a value (docs/tool-completions.md). Nodes are numbered in
// depth-first order (n0 is the root); the scripts use the numbers as
// states, so command names never have to be valid identifiers in any
// shell.
type compModel struct {
	prog  string // program name
	ident string // prog made safe for function names
	nodes []*compNode
}

type compNode struct {
	id       string
	path     []string // primary names from the root
	leaf     bool
	children []compChild
	opts     []compOpt
	pos      []compPos
}

// compChild is a subcommand: its name first, then its aliases. accepts
// are further spellings the walk takes but completion does not offer
// (the aliases of a command named after help, which lists names only).
type compChild struct {
	names   []string
	accepts []string
	about   string
	node    *compNode
}

// spellings are every word that selects the subcommand.
func (c *compChild) spellings() []string {
	return append(append([]string(nil), c.names...), c.accepts...)
}

// compOpt is a named option. shorts and longs are spellings without
// dashes; value is empty for options that take no value.
type compOpt struct {
	short      string
	longs      []string
	help       string
	value      string
	repeatable bool
	candidates []string
	hint       tool.ValueHint
	// exclusive options (help, version) end the command line
	exclusive bool
	// conflicts are spellings of other options this one excludes
	conflicts []string
}

// spellings returns the option's spellings with their dashes.
func (o *compOpt) spellings() []string {
	var out []string
	if o.short != "" {
		out = append(out, "-"+o.short)
	}
	for _, l := range o.longs {
		out = append(out, "--"+l)
	}
	return out
}

// key names the option in the scripts' record of the options given
// before the cursor: its first long spelling.
func (o *compOpt) key() string { return "--" + o.longs[0] }

// keyedOptions calls f for every option of every node with the words
// that name it in the scripts' record of the options given ("NODE
// SPELLING", unquoted): the scripts map them to the option's key. Help
// and version are recorded too, though they exclude nothing, so that a
// cluster holding -h (-he) goes on to its next letters.
func (m *compModel) keyedOptions(f func(o *compOpt, words []string)) {
	for _, n := range m.nodes {
		for i := range n.opts {
			o := &n.opts[i]
			var words []string
			for _, s := range o.spellings() {
				words = append(words, n.id+" "+s)
			}
			f(o, words)
		}
	}
}

// excludedBy are the keys of the options whose presence on the command
// line leaves o out of the options offered: o itself unless it repeats,
// and the options it conflicts with (the parser would refuse either).
// Help and version end the command line and are always offered.
func (o *compOpt) excludedBy() []string {
	if o.exclusive {
		return nil
	}
	var keys []string
	if !o.repeatable {
		keys = append(keys, o.key())
	}
	return append(keys, o.conflicts...)
}

// compPos is a positional argument; index is its position (hidden
// positionals leave gaps).
type compPos struct {
	index      int
	name       string
	help       string
	repeatable bool
	candidates []string
	hint       tool.ValueHint
}

func (p *Program) completionModel() *compModel {
	m := &compModel{prog: p.Name, ident: identifier(p.Name)}
	m.add(p.Root, p.Version != "")
	return m
}

func (m *compModel) newNode(path []string) *compNode {
	n := &compNode{id: fmt.Sprintf("n%d", len(m.nodes)), path: path}
	m.nodes = append(m.nodes, n)
	return n
}

// add adds cmd (and its visible subtree) to the model.
func (m *compModel) add(cmd *tool.CLICommand, version bool) *compNode {
	n := m.newNode(cmd.Path)
	if cmd.Leaf() {
		n.leaf = true
		n.opts, n.pos = leafOptions(cmd)
		return n
	}
	for _, ch := range cmd.Children {
		if ch.Hidden {
			continue
		}
		names := append([]string{ch.Name}, ch.Aliases...)
		n.children = append(n.children, compChild{names: names, about: firstLine(ch.About()), node: m.add(ch, false)})
	}
	n.children = append(n.children, compChild{names: []string{"help"}, about: helpCommand, node: m.addHelp(cmd, append(append([]string(nil), cmd.Path...), "help"))})
	n.opts = builtinCompOpts(builtins(cmd, version))
	return n
}

// addHelp adds the tree of the implicit help subcommand of parent: the
// names of its visible children, recursively.
func (m *compModel) addHelp(parent *tool.CLICommand, path []string) *compNode {
	n := m.newNode(path)
	if parent.Leaf() {
		n.leaf = true
		return n
	}
	for _, ch := range parent.Children {
		if ch.Hidden {
			continue
		}
		n.children = append(n.children, compChild{names: []string{ch.Name}, accepts: ch.Aliases, about: firstLine(ch.About()), node: m.addHelp(ch, append(append([]string(nil), path...), ch.Name))})
	}
	return n
}

// leafOptions are the visible options and positionals of a leaf,
// framework options included. Hidden arguments are left out whole.
func leafOptions(leaf *tool.CLICommand) (opts []compOpt, pos []compPos) {
	for _, a := range leaf.Args {
		if a.Hidden {
			continue
		}
		if a.Positional {
			pos = append(pos, compPos{index: a.Position, name: a.ValueName, help: firstLine(a.Help), repeatable: a.Repeatable, candidates: valueWords(leaf, a), hint: a.ValueHint})
			continue
		}
		o := compOpt{short: a.Short, longs: append([]string{a.Long}, a.Aliases...), help: firstLine(a.Help), repeatable: a.Repeatable}
		if !a.Presence() {
			o.value, o.candidates, o.hint = a.ValueName, valueWords(leaf, a), a.ValueHint
		}
		opts = append(opts, o)
	}
	return append(opts, builtinCompOpts(builtins(leaf, false))...), pos
}

// builtinCompOpts are the completion view of a command's built-in
// options opts; an option conflicts only with those the command has.
func builtinCompOpts(opts []*builtinOption) []compOpt {
	var out []compOpt
	for _, b := range opts {
		o := compOpt{short: b.shortName(), longs: []string{b.long}, help: b.help, value: b.value, candidates: b.candidates, hint: b.hint, exclusive: b.exclusive}
		for _, c := range b.conflicts {
			if builtinLong(opts, c) != nil {
				o.conflicts = append(o.conflicts, "--"+c)
			}
		}
		out = append(out, o)
	}
	return out
}

// hintHarnInput is the value hint of --harn-input, which no tool
// argument can have (registry validation admits only the portable hints):
// file names after an "@", nothing otherwise (JSON is typed, "-" is
// short).
const hintHarnInput tool.ValueHint = "harn-input"

// valueWords are the value candidates of argument a of leaf that
// completion offers: those spelling no option of leaf, hidden ones
// included, which the parser would read as that option (spellsOption).
func valueWords(leaf *tool.CLICommand, a *tool.CLIArg) []string {
	cs := valueCandidates(a)
	if !slices.ContainsFunc(cs, func(c string) bool { return spellsOption(leaf, c) }) {
		return cs
	}
	return slices.DeleteFunc(slices.Clone(cs), func(c string) bool { return spellsOption(leaf, c) })
}

// valueCandidates are the prepared candidates of an argument (advisory
// completions, then enum values); a boolean taking a value with neither
// candidates nor a value hint offers its two spellings, and null when
// it is nullable.
func valueCandidates(a *tool.CLIArg) []string {
	if len(a.Candidates) == 0 && a.ValueHint == "" && a.Coerce == "boolean" && !a.Presence() {
		if a.NullWord() {
			return []string{"true", "false", "null"}
		}
		return []string{"true", "false"}
	}
	return a.Candidates
}

// backslashed puts a backslash before each character of s other than
// ASCII letters and digits, non-ASCII runes and those in safe (what the
// shell's expansion leaves alone); the empty word becomes a pair of
// single quotes.
func backslashed(s, safe string) string {
	var b strings.Builder
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 0x80 || strings.ContainsRune(safe, r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// identifier makes a program name usable in shell function names.
func identifier(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// valueOpts are the options of n that take a separate value.
func (n *compNode) valueOpts() []compOpt {
	var out []compOpt
	for _, o := range n.opts {
		if o.value != "" {
			out = append(out, o)
		}
	}
	return out
}

// longWords lists "NODE --SPELLING" for every long spelling of the
// options of every node, quoted for the shell: those that take a
// separate value when value is true, the others otherwise. Short
// spellings, alone or clustered, are the business of shortLetters.
func (m *compModel) longWords(value bool, quote func(string) string) []string {
	var out []string
	for _, n := range m.nodes {
		for _, o := range n.opts {
			if (o.value != "") != value {
				continue
			}
			for _, l := range o.longs {
				out = append(out, quote(n.id+" --"+l))
			}
		}
	}
	return out
}

// shortLetters are the short letters of n's options that take a value
// (value true) or take none. In a cluster of short options (-ev) the
// first letter taking a value takes the rest of the word as its value,
// or the next word when it is the last letter, as the parser reads it
// (docs/spec/cli-projection.md §4).
func (n *compNode) shortLetters(value bool) []string {
	var out []string
	for _, o := range n.opts {
		if o.short != "" && (o.value != "") == value {
			out = append(out, o.short)
		}
	}
	return out
}

// label is a readable name of a node for comments in the scripts.
func (m *compModel) label(n *compNode) string {
	return strings.Join(append([]string{m.prog}, n.path...), " ")
}
