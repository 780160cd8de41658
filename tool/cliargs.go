package tool

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool/internal/schema"
)

// CLIArg is the prepared command-line form of one input property
// (docs/spec/cli-projection.md §3-§4): spelling, help, candidates and the coercion
// the token parser applies. Every tool gets its arguments prepared (the
// P1-P20 rules run over the whole registry); only CLI-audience leaves
// appear in the command tree.
type CLIArg struct {
	Property   string
	Positional bool
	Position   int // when Positional
	// Long is the primary long spelling without "--" ("" for positionals).
	Long    string
	Short   string
	Aliases []string
	// Flag is "--" + the property name with "_" replaced by "-", the
	// spelling coercion errors always use.
	Flag         string
	ValueName    string
	Help         string
	HelpGroup    string
	Hidden       bool
	Style        BooleanStyle
	Repeatable   bool
	ValueHint    ValueHint
	DisplayOrder *int64
	Required     bool // listed in the input schema's required
	// Completions are the advisory candidates; Candidates adds the
	// string enum values not already listed (docs/spec/cli-projection.md §3).
	Completions []string
	Candidates  []string
	// EnumValues are the schema's string enum values (help shows them as
	// possible values when there are no advisory completions).
	EnumValues []string
	// EnumWords are the values the schema's enum admits (of the items,
	// for a repeatable argument), ConstWords the one its const admits:
	// each as typed on the command line, a string bare and any other
	// value as JSON; a string option (Coerce "string") lists only its
	// string values, the words it can be given. Hints of enum and const
	// failures name them.
	EnumWords, ConstWords []string
	// Coerce is the schema type a single token is converted to:
	// "string", "integer", "number", "boolean", or "" for JSON. For a
	// repeatable argument it applies to each occurrence (the items type).
	Coerce string
	// Nullable marks a scalar Coerce whose schema also admits null
	// ({type: ["integer", "null"]}, or anyOf/oneOf a scalar and null).
	Nullable bool
	// Negative allows a hyphen-leading number as a value.
	Negative bool
	// Default is the property schema's default, when declared.
	Default    any
	HasDefault bool
	// Schema is the property schema document; Resolved is where its
	// chain of $ref leads when it has no type of its own (Schema itself
	// otherwise, nil when the chain cannot be followed).
	Schema   any
	Resolved any

	parserErr string // P26, reported only when the CLI parser is built
}

// NullWord reports that the word null gives JSON null: a nullable
// integer, number or boolean. A nullable string keeps taking every
// word, null included, verbatim (docs/tool-run.md).
func (a *CLIArg) NullWord() bool { return a.Nullable && a.Coerce != "" && a.Coerce != "string" }

// Presence reports a set_true/set_false flag (takes no value).
func (a *CLIArg) Presence() bool {
	return a.Style == BooleanSetTrue || a.Style == BooleanSetFalse
}

var (
	longRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`) })
	jsonTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "object": true, "array": true, "null": true}
)

var reservedLong = []string{"harn-input", "harn-output", "help", "version"}

// prepareArgs builds the CLI arguments of one tool and applies P1-P20.
// It returns the arguments in help order and whether the framework
// --json flag exists.
func prepareArgs(e *Entry, comps *SchemaMap) ([]*CLIArg, bool, error) {
	q := fmt.Sprintf("tool %q", e.Name)
	in, _ := e.InputSchema.Object()
	var props *jsonv.Object
	if pv, ok := in.Get("properties"); ok {
		props, _ = pv.(*jsonv.Object)
	}
	required := map[string]bool{}
	if rv, ok := in.Get("required"); ok {
		if l, ok := rv.([]any); ok {
			for _, r := range l {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
	}
	// P1
	names := make([]string, 0, len(e.CLI.Arguments))
	for p := range e.CLI.Arguments {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if !props.Has(p) {
			return nil, false, fmt.Errorf("%s CLI argument metadata names unknown input property %q", q, p)
		}
	}
	var args []*CLIArg
	hasJSON := false
	for i := 0; i < props.Len(); i++ {
		prop, ps := props.At(i)
		spec := e.CLI.Arguments[prop]
		if spec == nil {
			spec = &CLIArgument{BooleanStyle: BooleanValue}
		}
		a, err := prepareArg(q, in, prop, ps, spec, comps)
		if err != nil {
			return nil, false, err
		}
		a.Required = required[prop]
		if prop == "json" || a.Long == "json" {
			hasJSON = true
		}
		for _, al := range a.Aliases {
			if al == "json" {
				hasJSON = true
			}
		}
		args = append(args, a)
	}
	// P8, P10: shared spellings
	longOwner := map[string]string{}
	shortOwner := map[string]string{}
	for _, a := range args {
		if a.Positional {
			continue
		}
		for _, l := range append([]string{a.Long}, a.Aliases...) {
			if prev, ok := longOwner[l]; ok && prev != a.Property {
				return nil, false, fmt.Errorf("%s CLI spelling --%s is shared by properties %q and %q", q, l, prev, a.Property)
			}
			longOwner[l] = a.Property
		}
		if a.Short != "" {
			if prev, ok := shortOwner[a.Short]; ok {
				return nil, false, fmt.Errorf("%s CLI spelling -%s is shared by properties %q and %q", q, a.Short, prev, a.Property)
			}
			shortOwner[a.Short] = a.Property
		}
	}
	// P2-P5: positionals
	var pos []*CLIArg
	for _, a := range args {
		if a.Positional {
			pos = append(pos, a)
		}
	}
	sort.SliceStable(pos, func(i, j int) bool { return pos[i].Position < pos[j].Position })
	for i := 1; i < len(pos); i++ {
		if pos[i].Position == pos[i-1].Position {
			return nil, false, fmt.Errorf("%s CLI position %d is shared by properties %q and %q", q, pos[i].Position, pos[i-1].Property, pos[i].Property)
		}
	}
	for i, a := range pos {
		if a.Position != i {
			return nil, false, fmt.Errorf("%s CLI positional indexes must be dense from 0; expected %d, found %d", q, i, a.Position)
		}
	}
	for i, a := range pos {
		if a.Repeatable && i != len(pos)-1 {
			return nil, false, fmt.Errorf("%s repeatable CLI positional property %q must be last", q, a.Property)
		}
		if i > 0 && a.Required && !pos[i-1].Required {
			return nil, false, fmt.Errorf("%s CLI positional property %q at %d is required after optional property %q", q, a.Property, a.Position, pos[i-1].Property)
		}
	}
	// help order: positionals by position, then named with a display
	// order (ascending), then the rest; ties by property name
	var named []*CLIArg
	for _, a := range args {
		if !a.Positional {
			named = append(named, a)
		}
	}
	sort.SliceStable(named, func(i, j int) bool {
		a, b := named[i], named[j]
		if (a.DisplayOrder != nil) != (b.DisplayOrder != nil) {
			return a.DisplayOrder != nil
		}
		if a.DisplayOrder != nil && *a.DisplayOrder != *b.DisplayOrder {
			return *a.DisplayOrder < *b.DisplayOrder
		}
		return a.Property < b.Property
	})
	return append(pos, named...), !hasJSON, nil
}

func prepareArg(q string, in *jsonv.Object, prop string, ps any, spec *CLIArgument, comps *SchemaMap) (*CLIArg, error) {
	pq := fmt.Sprintf("%s property %q", q, prop)
	a := &CLIArg{
		Property:     prop,
		Flag:         "--" + strings.ReplaceAll(prop, "_", "-"),
		Short:        deref(spec.Short),
		Aliases:      append([]string(nil), spec.Aliases...),
		ValueName:    deref(spec.ValueName),
		Help:         deref(spec.Help),
		HelpGroup:    deref(spec.HelpGroup),
		Hidden:       spec.Hidden,
		Style:        spec.BooleanStyle,
		Repeatable:   spec.Repeatable,
		ValueHint:    spec.ValueHint,
		DisplayOrder: spec.DisplayOrder,
		Completions:  append([]string(nil), spec.Completions...),
		Schema:       ps,
	}
	if a.Style == "" {
		a.Style = BooleanValue
	}
	if spec.Position != nil {
		if spec.Long != nil || spec.Short != nil || len(spec.Aliases) > 0 {
			return nil, fmt.Errorf("%s cannot be both positional and named", pq)
		}
		a.Positional = true
		a.Position = int(*spec.Position)
	} else {
		a.Long = deref(spec.Long)
		if spec.Long == nil {
			a.Long = strings.ReplaceAll(prop, "_", "-")
		}
		for _, l := range append([]string{a.Long}, a.Aliases...) {
			if !longRE().MatchString(l) {
				return nil, fmt.Errorf("%s has invalid CLI spelling --%s", pq, l)
			}
			for _, r := range reservedLong {
				if l == r {
					return nil, fmt.Errorf("%s CLI argument %q collides with reserved --%s", q, prop, r)
				}
			}
		}
		seen := map[string]bool{a.Long: true}
		for _, l := range a.Aliases {
			if seen[l] {
				return nil, fmt.Errorf("%s CLI spelling --%s is shared by properties %q and %q", q, l, prop, prop)
			}
			seen[l] = true
		}
		if spec.Short != nil {
			c := a.Short
			if len(c) != 1 || !isAlnum(c[0]) {
				return nil, fmt.Errorf("%s short spelling must be one ASCII letter or digit", pq)
			}
			if c == "h" || c == "V" {
				return nil, fmt.Errorf("%s CLI argument %q collides with reserved -%s", q, prop, c)
			}
		}
	}
	// P13
	for _, f := range []struct {
		name string
		val  *string
	}{{"value_name", spec.ValueName}, {"help", spec.Help}, {"help_group", spec.HelpGroup}} {
		if f.val != nil && blank(*f.val) {
			return nil, fmt.Errorf("%s CLI argument %s must not be empty", pq, f.name)
		}
	}
	// P14, P15
	seenC := map[string]bool{}
	for _, c := range a.Completions {
		if c == "" || strings.IndexFunc(c, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("%s CLI completion must be non-empty and contain no control characters", pq)
		}
		if seenC[c] {
			return nil, fmt.Errorf("%s has duplicate CLI completion %q", pq, c)
		}
		seenC[c] = true
	}
	// schema type, following $ref (unresolvable counts as no type here)
	node, err := followRefs(ps, in, comps)
	if err != nil {
		a.parserErr = fmt.Sprintf("%s parameter %q contains an unresolved $ref", q, prop)
	}
	a.Resolved = node
	typ, nullable, typeErr := singleType(node)
	if typeErr != "" && a.parserErr == "" {
		a.parserErr = fmt.Sprintf("%s parameter %q uses unsupported JSON Schema type %q", q, prop, typeErr)
	}
	if a.Presence() {
		// P16 reads the `type` keyword as one string: a nullable
		// ["boolean", "null"] has no presence form (absent is false)
		if t, _ := node.(*jsonv.Object); t == nil || !typeKeywordIs(t, "boolean") {
			return nil, fmt.Errorf("%s can use a boolean presence style only when its schema type is boolean", pq)
		}
		if a.Positional || a.Repeatable {
			return nil, fmt.Errorf("%s boolean presence style must be a non-repeatable named option", pq)
		}
		if spec.ValueName != nil || spec.ValueHint != "" || len(spec.Completions) > 0 {
			return nil, fmt.Errorf("%s boolean presence style cannot declare value metadata", pq)
		}
	}
	valueNode := node
	if a.Repeatable {
		if typ != "array" {
			return nil, fmt.Errorf("%s can be repeatable only when its schema type is array", pq)
		}
		items, ok := node.(*jsonv.Object).Get("items")
		switch items.(type) {
		case bool, *jsonv.Object:
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("%s needs one JSON Schema 'items' schema for repeatable CLI tokens", pq)
		}
		inode, ierr := followRefs(items, in, comps)
		if ierr != nil && a.parserErr == "" {
			a.parserErr = fmt.Sprintf("%s parameter %q contains an unresolved $ref", q, prop)
		}
		var ite string
		typ, nullable, ite = singleType(inode)
		if ite != "" && a.parserErr == "" {
			a.parserErr = fmt.Sprintf("%s parameter %q uses unsupported JSON Schema type %q", q, prop, ite)
		}
		valueNode = inode
	}
	switch typ {
	case "string", "integer", "number", "boolean":
		a.Coerce, a.Nullable = typ, nullable
	}
	a.Negative = typ == "integer" || typ == "number"
	if o, ok := valueNode.(*jsonv.Object); ok {
		if ev, ok := o.Get("enum"); ok {
			if l, ok := ev.([]any); ok {
				for _, x := range l {
					s, isString := x.(string)
					if isString {
						a.EnumValues = append(a.EnumValues, s)
					}
					if a.Coerce == "string" && !isString {
						// a string option takes every word verbatim, so
						// no word gives this value (null of an optional
						// string comes only through --harn-input)
						continue
					}
					a.EnumWords = append(a.EnumWords, typedWord(x))
				}
			}
		}
		if cv, ok := o.Get("const"); ok {
			a.ConstWords = []string{typedWord(cv)}
		}
	}
	a.Candidates = append([]string(nil), a.Completions...)
	for _, e := range a.EnumValues {
		if !seenC[e] {
			seenC[e] = true
			a.Candidates = append(a.Candidates, e)
		}
	}
	own, _ := ps.(*jsonv.Object)
	resolved, _ := node.(*jsonv.Object)
	if a.ValueName == "" {
		a.ValueName = stringMember(own, resolved, "title")
		if a.ValueName == "" {
			a.ValueName = strings.ToUpper(prop)
		}
	}
	if a.Help == "" {
		a.Help = stringMember(own, resolved, "description")
	}
	if d, ok := own.Get("default"); ok {
		a.Default, a.HasDefault = d, true
	} else if d, ok := resolved.Get("default"); ok {
		a.Default, a.HasDefault = d, true
	}
	return a, nil
}

func stringMember(own, resolved *jsonv.Object, k string) string {
	for _, o := range []*jsonv.Object{own, resolved} {
		if v, ok := o.Get(k); ok {
			if s, ok := v.(string); ok && !blank(s) {
				return s
			}
		}
	}
	return ""
}

// followRefs follows a chain of $ref from a property schema that has no
// type of its own (docs/spec/cli-projection.md §4): component references resolve
// in the catalog's components, other "#..." pointers inside the document
// they appear in.
func followRefs(s any, doc *jsonv.Object, comps *SchemaMap) (any, error) {
	var root any = doc
	seen := map[*jsonv.Object]bool{}
	for {
		o, ok := s.(*jsonv.Object)
		if !ok {
			return s, nil
		}
		if o.Has("type") {
			return o, nil
		}
		rv, ok := o.Get("$ref")
		if !ok {
			return o, nil
		}
		if seen[o] {
			return nil, fmt.Errorf("reference cycle")
		}
		seen[o] = true
		ref, _ := rv.(string)
		if name, rest, isComp := schema.ComponentRef(ref); isComp {
			c, found := comps.Get(name)
			if !found {
				return nil, fmt.Errorf("dangling")
			}
			t, ok := schema.Pointer(c.Doc(), decodePercent(rest))
			if !ok {
				return nil, fmt.Errorf("unresolved")
			}
			root, s = c.Doc(), t
			continue
		}
		if !strings.HasPrefix(ref, "#") {
			return nil, fmt.Errorf("external")
		}
		t, ok := schema.Pointer(root, decodePercent(ref[1:]))
		if !ok {
			return nil, fmt.Errorf("unresolved")
		}
		s = t
	}
}

var scalarTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true}

// nullableBranch is T for anyOf/oneOf [{type: T}, {type: "null"}] with a
// scalar T, else "".
func nullableBranch(o *jsonv.Object) string {
	for _, key := range []string{"anyOf", "oneOf"} {
		v, _ := o.Get(key)
		l, ok := v.([]any)
		if !ok || len(l) != 2 {
			continue
		}
		types := [2]string{}
		for i, b := range l {
			if bo, ok := b.(*jsonv.Object); ok && bo.Len() == 1 {
				if t, ok := bo.Get("type"); ok {
					types[i], _ = t.(string)
				}
			}
		}
		for i := range types {
			if types[i] == "null" && scalarTypes[types[1-i]] {
				return types[1-i]
			}
		}
	}
	return ""
}

// typeKeywordIs reports whether o's `type` keyword is the single string t.
func typeKeywordIs(o *jsonv.Object, t string) bool {
	tv, _ := o.Get("type")
	s, ok := tv.(string)
	return ok && s == t
}

// singleType returns the type a token of the schema converts to: its
// type keyword when it is one string, or T for a union of a scalar T and
// null (["integer", "null"], anyOf/oneOf), with nullable set. bad is set
// to an unknown type name.
func singleType(s any) (typ string, nullable bool, bad string) {
	o, ok := s.(*jsonv.Object)
	if !ok {
		return "", false, ""
	}
	tv, ok := o.Get("type")
	if !ok {
		t := nullableBranch(o)
		return t, t != "", ""
	}
	t, ok := tv.(string)
	if !ok {
		// ["string", "null"] (an optional `string?`) takes a plain word:
		// JSON only where the type needs it.
		if l, isList := tv.([]any); isList && len(l) == 2 {
			for i, x := range l {
				if other, _ := l[1-i].(string); x == "null" && scalarTypes[other] {
					return other, true, ""
				}
			}
		}
		return "", false, ""
	}
	if !jsonTypes[t] {
		return "", false, t
	}
	return t, false, ""
}

// typedWord is a schema value as a command line gives it: a string
// bare, any other value as JSON.
func typedWord(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(jsonv.Marshal(v))
}
