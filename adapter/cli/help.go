package cli

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
)

// helpCommand is the about text of the help subcommand every parent
// has.
const helpCommand = "Print this message or the help of the given subcommand(s)"

// helpRow is one entry of a help section: the spelling column and the
// description.
type helpRow struct{ spec, text string }

type helpSection struct {
	heading string
	rows    []helpRow
}

// Help renders the help of a command of the tree (docs/spec/cli-projection.md
// §6): about text, usage line, then the Commands section of a parent or
// the Arguments, Options and help-group sections of a leaf. Hidden
// commands and arguments never appear, nor do advisory completions.
func (p *Program) Help(cmd *tool.CLICommand) string {
	var b strings.Builder
	if about := p.aboutText(cmd); about != "" {
		b.WriteString(about)
		b.WriteString("\n\n")
	}
	b.WriteString("Usage: ")
	b.WriteString(p.usage(cmd))
	b.WriteString("\n")
	var sections []helpSection
	if cmd.Leaf() {
		sections = leafSections(cmd)
	} else {
		var cmds helpSection
		cmds.heading = "Commands"
		for _, ch := range cmd.Children {
			if ch.Hidden {
				continue
			}
			cmds.rows = append(cmds.rows, helpRow{ch.Name, joinText(ch.About(), aliasNote(ch.Aliases))})
		}
		cmds.rows = append(cmds.rows, helpRow{"help", helpCommand})
		opts := helpSection{heading: "Options", rows: builtinRows(p.builtins(cmd))}
		sections = []helpSection{cmds, opts}
	}
	for _, s := range sections {
		if len(s.rows) == 0 {
			continue
		}
		b.WriteString("\n")
		b.WriteString(s.heading)
		b.WriteString(":\n")
		writeRows(&b, s.rows)
	}
	return b.String()
}

// helpOfHelp is the help of a parent's implicit help subcommand.
func (p *Program) helpOfHelp(parent *tool.CLICommand) string {
	var b strings.Builder
	b.WriteString(helpCommand)
	b.WriteString("\n\nUsage: ")
	b.WriteString(p.commandLine(parent))
	b.WriteString(" help [COMMAND]...\n\nArguments:\n")
	writeRows(&b, []helpRow{{"[COMMAND]...", "Print help for the subcommand(s)"}})
	return b.String()
}

// aboutText is the root's info.description, or a command's title and
// its description (when it says more than the title). A description
// whose first line is the title (an export's title is the first line of
// its doc comment, docs/spec/registry.md §8.4) is printed alone, so the
// title is not printed twice.
func (p *Program) aboutText(cmd *tool.CLICommand) string {
	if cmd == p.Root {
		return p.About
	}
	if cmd.Title != "" && cmd.Description != "" && cmd.Description != cmd.Title {
		if strings.HasPrefix(cmd.Description, cmd.Title+"\n") {
			return cmd.Description
		}
		return cmd.Title + "\n\n" + cmd.Description
	}
	return cmd.About()
}

// commandLine is the program name followed by the command's path.
func (p *Program) commandLine(cmd *tool.CLICommand) string {
	if len(cmd.Path) == 0 {
		return p.Name
	}
	return p.Name + " " + strings.Join(cmd.Path, " ")
}

// usage is the usage line without its "Usage: " label.
func (p *Program) usage(cmd *tool.CLICommand) string {
	if !cmd.Leaf() {
		return p.commandLine(cmd) + " <COMMAND>"
	}
	s := p.commandLine(cmd) + " [OPTIONS]"
	for _, a := range cmd.Args {
		if a.Required && !a.Positional && !a.Hidden {
			s += " --" + a.Long
			if !a.Presence() {
				s += " <" + a.ValueName + ">"
			}
		}
	}
	for _, a := range cmd.Args {
		if a.Positional && !a.Hidden {
			s += " " + positionalSpec(a)
		}
	}
	return s
}

func positionalSpec(a *tool.CLIArg) string {
	s := "[" + a.ValueName + "]"
	if a.Repeatable {
		s += "..."
	}
	return s
}

// leafSections are a leaf's Arguments and Options sections and one
// section per help group, in first-use order. A positional argument with
// a help group is listed under that group's heading, as an option is
// (clap lists an argument by its heading whatever its kind).
func leafSections(leaf *tool.CLICommand) []helpSection {
	args := helpSection{heading: "Arguments"}
	opts := helpSection{heading: "Options"}
	var groups []*helpSection
	for _, a := range leaf.Args {
		if a.Hidden {
			continue
		}
		row, home := helpRow{positionalSpec(a), argText(a)}, &args
		if !a.Positional {
			row.spec, home = optionSpec(a.Short, a.Long, a.ValueName, a.Presence()), &opts
		}
		switch a.HelpGroup {
		case "":
			home.rows = append(home.rows, row)
			continue
		case args.heading:
			args.rows = append(args.rows, row)
			continue
		case opts.heading:
			opts.rows = append(opts.rows, row)
			continue
		}
		var g *helpSection
		for _, s := range groups {
			if s.heading == a.HelpGroup {
				g = s
			}
		}
		if g == nil {
			g = &helpSection{heading: a.HelpGroup}
			groups = append(groups, g)
		}
		g.rows = append(g.rows, row)
	}
	opts.rows = append(opts.rows, builtinRows(builtins(leaf, false))...)
	out := []helpSection{args, opts}
	for _, g := range groups {
		out = append(out, *g)
	}
	return out
}

// builtinRows are the help rows of built-in options.
func builtinRows(opts []*builtinOption) []helpRow {
	var rows []helpRow
	for _, b := range opts {
		rows = append(rows, helpRow{optionSpec(b.shortName(), b.long, b.value, b.value == ""), b.helpText()})
	}
	return rows
}

// optionSpec is "-s, --long <VALUE>", with the short column left blank
// when there is no short spelling.
func optionSpec(short, long, value string, presence bool) string {
	s := "    --" + long
	if short != "" {
		s = "-" + short + ", --" + long
	}
	if !presence {
		s += " <" + value + ">"
	}
	return s
}

// argText is an argument's help followed by its notes: (required), the
// value's type, long aliases, default and enum values (unless advisory
// completions exist).
func argText(a *tool.CLIArg) string {
	notes := []string{a.Help}
	if a.Required {
		notes = append(notes, "(required)")
	}
	if t := typeNote(a); t != "" {
		notes = append(notes, "[type: "+t+"]")
	}
	if len(a.Aliases) > 0 {
		notes = append(notes, "[aliases: --"+strings.Join(a.Aliases, ", --")+"]")
	}
	if a.HasDefault {
		notes = append(notes, "[default: "+defaultText(a.Default)+"]")
	}
	if len(a.Completions) == 0 && len(a.EnumValues) > 0 {
		notes = append(notes, "[possible values: "+strings.Join(a.EnumValues, ", ")+"]")
	}
	return joinText(notes...)
}

// typeNote names what a value must be: the schema type a token is
// coerced to, or JSON; presence flags take no value.
func typeNote(a *tool.CLIArg) string {
	if a.Presence() {
		return ""
	}
	t := a.Coerce
	if t == "" {
		t = "JSON"
	}
	if a.NullWord() {
		t += " or null"
	}
	if a.Repeatable {
		t += ", repeatable"
	}
	return t
}

func defaultText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return string(jsonv.Marshal(v))
}

// aliasNote shows a command's aliases: [alias: x] or [aliases: x, y].
func aliasNote(aliases []string) string {
	switch len(aliases) {
	case 0:
		return ""
	case 1:
		return "[alias: " + aliases[0] + "]"
	}
	return "[aliases: " + strings.Join(aliases, ", ") + "]"
}

// joinText joins the non-empty parts with spaces.
func joinText(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// writeRows writes a section's rows with the descriptions aligned two
// columns after the widest spelling. Continuation lines of a
// multi-line description are indented to the same column.
func writeRows(b *strings.Builder, rows []helpRow) {
	width := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r.spec); n > width {
			width = n
		}
	}
	for _, r := range rows {
		b.WriteString("  ")
		b.WriteString(r.spec)
		for i, line := range strings.Split(r.text, "\n") {
			switch {
			case line == "":
			case i == 0:
				b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(r.spec)+2))
				b.WriteString(line)
			default:
				b.WriteString(strings.Repeat(" ", width+4))
				b.WriteString(line)
			}
			if i < strings.Count(r.text, "\n") {
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}
}
