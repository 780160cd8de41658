package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/tool"
)

// failurePart is one "<path> failed <keyword> (<detail>)" of a schema
// failure summary.
var failurePart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+) failed (\S+)(?: \((.*)\))?$`) })

var requiredDetail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"([^"]+)" is required$`) })

// inputHints turns an input schema failure into `hint:` lines that name
// the flag and say what the schema allows. They are built from the
// schema and the CLI tree; the user's value never appears in them (an
// enum hint may name the enum value closest to it), so they are as safe
// to print as the value-free summary line above them.
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
		} else if path == "/*" || strings.HasPrefix(path, "/*/") {
			// The seed's summary hides which property failed (also
			// for a failure inside one, /*/[]); the given properties
			// whose removal clears this failure are it.
			args = culprits(leaf, input, part)
		}
		for _, a := range args {
			h := hintFor(a, keyword, input, inside(path))
			if keyword == "required" && path != "/" && path != "" {
				// a field is missing inside the given value, not the
				// argument itself
				h = missingFieldHint(a, detail, path)
			}
			if h != "" && !seen[h] {
				seen[h] = true
				hints = append(hints, h)
			}
		}
	}
	return hints
}

// culprits are the given arguments without which the input no longer
// fails with part (one "<path> failed <keyword>" of the summary). Only
// the schema decides, so every keyword (enum, pattern, minimum, …) and
// component reference is covered.
func culprits(leaf *tool.CLICommand, input *jsonv.Object, part string) []*tool.CLIArg {
	if input == nil || leaf.Tool == nil {
		return nil
	}
	var out []*tool.CLIArg
	for _, a := range leaf.Args {
		if !input.Has(a.Property) {
			continue
		}
		if !failsWith(leaf.Tool.ValidateInput(input.Without(a.Property)), part) {
			out = append(out, a)
		}
	}
	return out
}

// failsWith reports whether err is a contract error listing part.
func failsWith(err error, part string) bool {
	c, ok := err.(*tool.ContractError)
	return ok && slices.Contains(strings.Split(c.Details, "; "), part)
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

// inside reports a failure path below a property (/*/[], /tags/0)
// rather than at it.
func inside(path string) bool {
	return strings.Contains(strings.TrimPrefix(path, "/"), "/")
}

// hintFor is the hint for an argument whose value (or, when inner, a
// part of it) failed keyword.
func hintFor(a *tool.CLIArg, keyword string, input *jsonv.Object, inner bool) string {
	name := spelling(a)
	switch keyword {
	case "required":
		return "hint: " + name + " is required"
	case "enum", "const":
		words := a.EnumWords
		if keyword == "const" {
			words = a.ConstWords
		}
		allowed := make([]string, len(words))
		for i, w := range words {
			allowed[i] = shownWord(w)
		}
		if len(allowed) == 1 {
			return "hint: " + name + " must be " + allowed[0]
		}
		if len(allowed) > 0 {
			h := "hint: " + name + " must be one of: " + strings.Join(allowed, ", ")
			if s := similarEnumValue(a, input); s != "" {
				h += " (a similar value exists: '" + s + "')"
			}
			return h
		}
	case "type":
		t := a.Coerce
		if t == "" || a.Presence() {
			return "hint: " + name + " takes JSON of the declared type (see --help)"
		}
		if a.NullWord() {
			t += " or null"
		}
		if a.Repeatable && inner {
			return "hint: each " + name + " value must be " + article(t)
		}
		if a.Repeatable {
			return "hint: " + name + " takes a list: repeat it for each value, each " + article(t)
		}
		return "hint: " + name + " must be " + article(t)
	}
	if rule := ruleNote(a, keyword); rule != "" {
		return "hint: " + name + " " + rule
	}
	return "hint: " + name + " failed the schema's " + keyword + " rule (see --help)"
}

// missingFieldHint is the hint for a "required" failure below an
// argument (path /*, /*/[], …): an object in its value lacks a field the
// schema requires. The field's name comes from the schema, never from
// the value given.
func missingFieldHint(a *tool.CLIArg, detail, path string) string {
	field := "a field the schema requires"
	if r := requiredDetail().FindStringSubmatch(detail); r != nil {
		field = fmt.Sprintf("the field %q", r[1])
	}
	if a.Repeatable && strings.HasPrefix(path, "/*/[]") && strings.Count(path, "/") == 2 {
		return "hint: each " + spelling(a) + " value must include " + field
	}
	if path == "/*" {
		return "hint: " + spelling(a) + " must include " + field
	}
	return "hint: " + spelling(a) + " holds an object without " + field
}

// shownWord is an admitted value as a hint names it: as typed, the
// empty string as the shell spells it, two single quotes.
func shownWord(w string) string {
	if w == "" {
		return "''"
	}
	return w
}

// similarEnumValue is the enum value closest to the string the input
// gives the argument (the first outside the enum, for a repeatable one),
// by lang/diag's rule, or "". Only an enum value is ever named, never
// the value given.
func similarEnumValue(a *tool.CLIArg, input *jsonv.Object) string {
	if input == nil {
		return ""
	}
	v, _ := input.Get(a.Property)
	given := []any{v}
	if l, ok := v.([]any); ok && a.Repeatable {
		given = l
	}
	for _, g := range given {
		if s, ok := g.(string); ok && !slices.Contains(a.EnumValues, s) {
			return diag.Suggest(s, a.EnumValues)
		}
	}
	return ""
}

// ruleWords phrase a bound keyword of the property schema (one without
// a %s, uniqueItems, applies when the keyword is true).
var ruleWords = map[string]string{
	"multipleOf":       "must be a multiple of %s",
	"minProperties":    "needs at least %s properties",
	"maxProperties":    "takes at most %s properties",
	"uniqueItems":      "must not repeat a value",
	"minimum":          "must be at least %s",
	"maximum":          "must be at most %s",
	"exclusiveMinimum": "must be greater than %s",
	"exclusiveMaximum": "must be less than %s",
	"minLength":        "must be at least %s characters long",
	"maxLength":        "must be at most %s characters long",
	"minItems":         "needs at least %s values",
	"maxItems":         "takes at most %s values",
	"pattern":          "must match the pattern %s",
}

// singular puts the counted noun of a rule with the count 1 in the
// singular.
var singular = strings.NewReplacer(" 1 values", " 1 value", " 1 properties", " 1 property", " 1 characters", " 1 character")

// ruleNote states the rule keyword sets in the argument's schema, its
// own or the one its $ref chain leads to (e.g. "must be at least 1"; both
// when each sets a different one), or "" when neither spells it out
// directly (a combinator).
func ruleNote(a *tool.CLIArg, keyword string) string {
	words, ok := ruleWords[keyword]
	if !ok {
		return ""
	}
	var notes []string
	for _, doc := range []any{a.Schema, a.Resolved} {
		schema, isObj := doc.(*jsonv.Object)
		if !isObj {
			continue
		}
		v, ok := schema.Get(keyword)
		if !ok {
			continue
		}
		text, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if s, isStr := v.(string); isStr {
			text = []byte(s)
		}
		note := words
		if strings.Contains(words, "%s") {
			note = fmt.Sprintf(words, text)
			if string(text) == "1" {
				note = singular.Replace(note)
			}
		} else if v != true {
			continue
		}
		if !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
	}
	return strings.Join(notes, " and ")
}

func article(t string) string {
	if strings.ContainsAny(t[:1], "aeiou") {
		return "an " + t
	}
	return "a " + t
}
