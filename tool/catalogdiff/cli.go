package catalogdiff

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
)

// The CLI-facing fields of a catalog are judged from the point of view of
// a script calling `harn tool run`: a spelling, position or parsing mode
// it relies on that goes away breaks it; a new spelling does not; what
// only help and completion show (hidden, help text, candidates) never
// breaks a call (docs/spec/cli-projection.md §3-§4).

// cli compares a tool's own CLI presentation: its command, aliases,
// hidden flag and the presentation of each input property both sides
// have (a removed or added property is an input change already).
func (d *differ) cli(o, n *tool.Entry, at string) {
	if strings.Join(o.CLI.Command, " ") != strings.Join(n.CLI.Command, " ") {
		d.add(Breaking, CLIPathChanged, o.Name, at+"/cli/command", fmt.Sprintf("the command %q is now %q", strings.Join(o.CLI.Command, " "), strings.Join(n.CLI.Command, " ")))
	}
	d.aliases(o.Name, at+"/cli", "command", o.CLI.Aliases, n.CLI.Aliases)
	d.hidden(o.Name, at+"/cli/hidden", "the command", o.CLI.Hidden, n.CLI.Hidden)
	oldProps, newProps := properties(o), properties(n)
	for _, p := range oldProps {
		if slices.Contains(newProps, p) {
			d.argument(o.Name, at+"/cli/arguments/"+jsonv.EscapePointer(p), p, o.CLI.Arguments[p], n.CLI.Arguments[p])
		}
	}
}

// properties lists the input properties of a tool, in schema order.
func properties(e *tool.Entry) []string {
	in, _ := e.InputSchema.Object()
	pv, _ := in.Get("properties")
	props, _ := pv.(*jsonv.Object)
	var out []string
	for i := 0; i < props.Len(); i++ {
		k, _ := props.At(i)
		out = append(out, k)
	}
	return out
}

// aliases reports the removed (breaking) and added (compatible) command
// aliases under at.
func (d *differ) aliases(toolName, at, what string, o, n []string) {
	for _, a := range o {
		if !slices.Contains(n, a) {
			d.add(Breaking, CLIAliasRemoved, toolName, at+"/aliases", fmt.Sprintf("the %s alias %q was removed", what, a))
		}
	}
	for _, a := range n {
		if !slices.Contains(o, a) {
			d.add(Compatible, CLIAliasAdded, toolName, at+"/aliases", fmt.Sprintf("new %s alias %q", what, a))
		}
	}
}

// hidden reports a change of a hidden flag: help and completion show or
// stop showing the thing, which is still accepted.
func (d *differ) hidden(toolName, at, what string, o, n bool) {
	if o == n {
		return
	}
	state := "hidden from"
	if !n {
		state = "shown in"
	}
	d.add(Compatible, CLIHiddenChanged, toolName, at, fmt.Sprintf("%s is now %s help and completion (still accepted)", what, state))
}

// argView is the effective CLI form of one input property: a missing
// cli.arguments entry, long or boolean_style takes its default.
type argView struct {
	positional bool
	position   int64
	long       string
	short      string
	aliases    []string
	hidden     bool
	repeatable bool
	style      tool.BooleanStyle
}

func viewOf(prop string, a *tool.CLIArgument) argView {
	if a == nil {
		a = &tool.CLIArgument{}
	}
	v := argView{hidden: a.Hidden, repeatable: a.Repeatable, style: a.BooleanStyle, aliases: a.Aliases}
	if v.style == "" {
		v.style = tool.BooleanValue
	}
	if a.Position != nil {
		v.positional, v.position = true, *a.Position
		return v
	}
	v.long = strings.ReplaceAll(prop, "_", "-")
	if a.Long != nil {
		v.long = *a.Long
	}
	if a.Short != nil {
		v.short = *a.Short
	}
	return v
}

// describe names the argument's form for a reason: "positional 0" or
// "the option --name".
func (v argView) describe() string {
	if v.positional {
		return "positional " + strconv.FormatInt(v.position, 10)
	}
	return "the option --" + v.long
}

// spellings maps each spelling a caller can type ("--long", "--alias",
// "-s") to the field that declares it.
func (v argView) spellings() map[string]string {
	if v.positional {
		return nil
	}
	out := map[string]string{"--" + v.long: "long"}
	for _, a := range v.aliases {
		out["--"+a] = "aliases"
	}
	if v.short != "" {
		out["-"+v.short] = "short"
	}
	return out
}

// argument compares the CLI form of property prop on both sides.
func (d *differ) argument(toolName, at, prop string, o, n *tool.CLIArgument) {
	ov, nv := viewOf(prop, o), viewOf(prop, n)
	if ov.positional != nv.positional || ov.position != nv.position {
		d.add(Breaking, CLIPositionChanged, toolName, at+"/position", fmt.Sprintf("the argument %q was %s and is now %s; callers that pass it the old way fail", prop, ov.describe(), nv.describe()))
	} else {
		olds, news := ov.spellings(), nv.spellings()
		for _, s := range slices.Sorted(maps.Keys(olds)) {
			if _, ok := news[s]; !ok {
				d.add(Breaking, CLISpellingRemoved, toolName, at+"/"+olds[s], fmt.Sprintf("the argument %q no longer accepts %s", prop, s))
			}
		}
		for _, s := range slices.Sorted(maps.Keys(news)) {
			if _, ok := olds[s]; !ok {
				d.add(Compatible, CLISpellingAdded, toolName, at+"/"+news[s], fmt.Sprintf("the argument %q now also accepts %s", prop, s))
			}
		}
	}
	if ov.repeatable != nv.repeatable {
		d.add(Breaking, CLIRepeatableChanged, toolName, at+"/repeatable", fmt.Sprintf("the argument %q is %s; callers passing it the old way are read differently", prop, map[bool]string{true: "now repeatable (one item per occurrence)", false: "no longer repeatable"}[nv.repeatable]))
	}
	if ov.style != nv.style {
		d.add(Breaking, CLIBooleanStyle, toolName, at+"/boolean_style", fmt.Sprintf("the argument %q changed its boolean style from %s to %s", prop, ov.style, nv.style))
	}
	d.hidden(toolName, at+"/hidden", fmt.Sprintf("the argument %q", prop), ov.hidden, nv.hidden)
	d.argumentHelp(toolName, at, prop, o, n)
}

// argumentHelp reports what only help and completion show.
func (d *differ) argumentHelp(toolName, at, prop string, o, n *tool.CLIArgument) {
	if o == nil {
		o = &tool.CLIArgument{}
	}
	if n == nil {
		n = &tool.CLIArgument{}
	}
	for _, f := range []struct {
		name     string
		old, new string
	}{
		{"value_name", deref(o.ValueName), deref(n.ValueName)},
		{"help", deref(o.Help), deref(n.Help)},
		{"help_group", deref(o.HelpGroup), deref(n.HelpGroup)},
		{"display_order", order(o.DisplayOrder), order(n.DisplayOrder)},
	} {
		if f.old != f.new {
			d.add(Compatible, DocsChanged, toolName, at+"/"+f.name, fmt.Sprintf("the CLI %s of the argument %q changed", f.name, prop))
		}
	}
	if !slices.Equal(o.Completions, n.Completions) {
		d.add(Compatible, CLICompletions, toolName, at+"/completions", fmt.Sprintf("the completion candidates of the argument %q changed", prop))
	}
	if o.ValueHint != n.ValueHint {
		d.add(Compatible, CLICompletions, toolName, at+"/value_hint", fmt.Sprintf("the value hint of the argument %q changed", prop))
	}
}

// parents compares the catalog's parent command metadata, matched by
// command path; a parent without an entry has no aliases and is shown.
// A parent renamed moves its leaves, each reported as cli-path-changed.
func (d *differ) parents(o, n *tool.CLITreeSpec) {
	oldBy, newBy := parentsByPath(o), parentsByPath(n)
	for _, path := range slices.Sorted(maps.Keys(oldBy)) {
		d.parent(path, "/cli/commands/"+strconv.Itoa(oldBy[path].index), oldBy[path].spec, newBy[path].spec)
	}
	for _, path := range slices.Sorted(maps.Keys(newBy)) {
		if _, ok := oldBy[path]; !ok {
			d.parent(path, "/cli/commands/"+strconv.Itoa(newBy[path].index), nil, newBy[path].spec)
		}
	}
}

type indexedParent struct {
	index int
	spec  *tool.CLICommandSpec
}

func parentsByPath(t *tool.CLITreeSpec) map[string]indexedParent {
	out := map[string]indexedParent{}
	if t == nil {
		return out
	}
	for i, c := range t.Commands {
		out[strings.Join(c.Command, " ")] = indexedParent{i, c}
	}
	return out
}

func (d *differ) parent(path, at string, o, n *tool.CLICommandSpec) {
	if o == nil {
		o = &tool.CLICommandSpec{}
	}
	if n == nil {
		n = &tool.CLICommandSpec{}
	}
	what := fmt.Sprintf("command %q", path)
	d.aliases("", at, what, o.Aliases, n.Aliases)
	d.hidden("", at+"/hidden", "the "+what, o.Hidden, n.Hidden)
	for _, f := range []struct {
		name     string
		old, new string
	}{
		{"title", deref(o.Title), deref(n.Title)},
		{"description", deref(o.Description), deref(n.Description)},
		{"display_order", order(o.DisplayOrder), order(n.DisplayOrder)},
	} {
		if f.old != f.new {
			d.add(Compatible, DocsChanged, "", at+"/"+f.name, fmt.Sprintf("the %s of the %s changed", f.name, what))
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func order(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}
