package cli

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
)

// failurePart is one "<path> failed <keyword> (<detail>)" of a schema
// failure summary.
var failurePart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+) failed (\S+)(?: \((.*)\))?$`) })

var requiredDetail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"([^"]+)" is required$`) })

// inputHints turns an input schema failure into `hint:` lines that name
// the flag and say what the schema allows. They are built from the
// schema and the CLI tree only, never from the user's value, so they are
// as safe to print as the value-free summary line above them.
func inputHints(leaf *tool.CLICommand, c *tool.ContractError, input *jsonv.Object) []string {
	if leaf == nil || c == nil {
		return nil
	}
	var hints []string
	seen := map[string]bool{}
	for _, part := range strings.Split(c.Details, "; ") {
		m := failurePart().FindStringSubmatch(part)
		if m == nil {
			continue
		}
		path, keyword, detail := m[1], m[2], m[3]
		prop := ""
		if keyword == "required" {
			if r := requiredDetail().FindStringSubmatch(detail); r != nil && (path == "/" || path == "") {
				prop = r[1]
			}
		} else if seg := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 2); seg[0] != "" && seg[0] != "*" {
			prop = jsonv.UnescapePointer(seg[0])
		}
		var args []*tool.CLIArg
		if a := argOf(leaf, prop); a != nil {
			args = append(args, a)
		} else if path == "/*" && keyword == "enum" {
			// The seed's summary hides which property failed; the
			// given properties whose value is outside their enum are it.
			args = enumMisses(leaf, input)
		}
		for _, a := range args {
			if h := hintFor(a, keyword); h != "" && !seen[h] {
				seen[h] = true
				hints = append(hints, h)
			}
		}
	}
	return hints
}

// enumMisses are the arguments given a string outside their enum.
func enumMisses(leaf *tool.CLICommand, input *jsonv.Object) []*tool.CLIArg {
	var out []*tool.CLIArg
	if input == nil {
		return nil
	}
	for _, a := range leaf.Args {
		v, ok := input.Get(a.Property)
		s, isStr := v.(string)
		if !ok || len(a.EnumValues) == 0 || (isStr && slices.Contains(a.EnumValues, s)) {
			continue
		}
		out = append(out, a)
	}
	return out
}

func argOf(leaf *tool.CLICommand, prop string) *tool.CLIArg {
	for _, a := range leaf.Args {
		if a.Property == prop && prop != "" {
			return a
		}
	}
	return nil
}

// spelling is how help shows the argument: --long or [VALUE_NAME].
func spelling(a *tool.CLIArg) string {
	if a.Positional {
		return "[" + a.ValueName + "]"
	}
	return "--" + a.Long
}

func hintFor(a *tool.CLIArg, keyword string) string {
	name := spelling(a)
	switch keyword {
	case "required":
		return "hint: " + name + " is required"
	case "enum", "const":
		if len(a.EnumValues) > 0 {
			return "hint: " + name + " must be one of: " + strings.Join(a.EnumValues, ", ")
		}
	case "type":
		if t := typeNote(a); t != "" && t != "JSON" {
			return "hint: " + name + " must be " + article(t)
		}
		return "hint: " + name + " takes JSON of the declared type (see --help)"
	}
	return "hint: " + name + " failed the schema's " + keyword + " rule (see --help)"
}

func article(t string) string {
	if strings.ContainsAny(t[:1], "aeiou") {
		return "an " + t
	}
	return "a " + t
}
