package schema

// Schema validation (docs/spec/builtins.md §4.7) in Harn's schema dialect: schema
// dicts with Harn type names (JSON-Schema spellings are mapped, camelCase
// keys accepted), checked in a fixed order with fixed messages, plus the
// schema builders' helpers and the JSON-Schema / OpenAPI converters.

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/stdlib/text"
	"github.com/harnlang/harn/vm"
)

func init() {
	need := func(name string, n int, fn vm.BuiltinFunc) vm.BuiltinFunc {
		return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if a.Len() < n {
				return vm.Value{}, lib.ArgCountError(name, n)
			}
			return fn(th, a)
		}
	}
	// validating is need for the builtins that apply their second argument
	// as a schema: it is refused first when it cannot work (Check), and fn
	// validates with the checked schema, so a `$schema` document is
	// converted and compiled once per call.
	validating := func(name string, fn func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error)) vm.BuiltinFunc {
		return need(name, 2, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := Check(th, name, a.At(1))
			if err != nil {
				return vm.Value{}, err
			}
			return fn(th, a, s)
		})
	}
	lib.Def("json_validate", "json_validate(v, schema) -> bool", "true, or throw every violation joined by \"; \"", validating("json_validate", func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error) {
		if errs := s.Validate(th, a.At(0)); len(errs) > 0 {
			return vm.Value{}, vm.Throwf("%s", strings.Join(errs, "; "))
		}
		return vm.True, nil
	}))
	lib.Def("schema_check", "schema_check(v, schema) -> Result<any, dict>", "Ok(v) or Err({message, errors, value})", validating("schema_check", func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error) {
		return schemaResult(th, a.At(0), s), nil
	}))
	lib.Def("schema_parse", "schema_parse(v, schema) -> Result<any, dict>", "schema_check after filling defaults", validating("schema_parse", func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error) {
		return schemaResult(th, applySchemaDefaults(a.At(0), a.At(1), a.At(1), 0), s), nil
	}))
	// docs/spec/newer.md §2.22 names schema_report without its fields; these mirror
	// schema_check's Err payload, plus whether the value passed.
	lib.Def("schema_report", "schema_report(v, schema, apply_defaults?) -> dict", "{ok, message, errors, value}: every violation, without throwing", validating("schema_report", func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error) {
		v := a.At(0)
		if a.At(2).Truth() {
			v = applySchemaDefaults(v, a.At(1), a.At(1), 0)
		}
		errs := s.Validate(th, v)
		message := vm.Nil
		if len(errs) > 0 {
			message = vm.Str(errs[0])
		}
		return vm.Of(lib.DictOf("ok", vm.BoolOf(len(errs) == 0), "message", message, "errors", lib.StrList(errs), "value", v)), nil
	}))
	isType := func(name string) vm.BuiltinFunc {
		return validating(name, func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error) {
			return vm.BoolOf(len(s.Validate(th, a.At(0))) == 0), nil
		})
	}
	lib.Def("schema_is", "schema_is(v, schema) -> bool", "whether v satisfies schema", isType("schema_is"))
	lib.Def("is_type", "is_type(v, schema) -> bool", "whether v satisfies schema", isType("is_type"))
	lib.Def("schema_expect", "schema_expect(v, schema, defaults?)", "v (with defaults when asked) or throw the violations", validating("schema_expect", func(th *vm.Thread, a vm.Args, s *Checked) (vm.Value, error) {
		v := a.At(0)
		switch d := a.At(2).Object().(type) {
		case *vm.Dict:
			if vd, ok := v.AsDict(); ok {
				v = vm.Of(d.Merge(vd))
			}
		default:
			if d.Truth() {
				v = applySchemaDefaults(v, a.At(1), a.At(1), 0)
			}
		}
		if errs := s.Validate(th, v); len(errs) > 0 {
			return vm.Value{}, vm.Throwf("%s", strings.Join(errs, "; "))
		}
		return v, nil
	}))
	lib.Def("schema_of", "schema_of(T)", "the JSON-schema dict of a type alias", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if d, ok := a.Dict(0); ok {
			return vm.Of(d), nil
		}
		return vm.Value{}, vm.Throwf("schema_of: expected a type alias or schema dict, got %s", a.At(0).Type())
	})
	lib.Def("schema_extend", "schema_extend(a, b)", "a with b's keys (shallow)", need("schema_extend", 2, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		x, _ := a.Dict(0)
		y, _ := a.Dict(1)
		if x == nil {
			x = vm.NewDict()
		}
		if y == nil {
			y = vm.NewDict()
		}
		return vm.Of(x.Merge(y)), nil
	}))
	lib.Def("schema_partial", "schema_partial(schema)", "schema without any `required`", need("schema_partial", 1, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return schemaPartial(a.At(0)), nil
	}))
	lib.Def("schema_pick", "schema_pick(schema, keys)", "only the named properties", need("schema_pick", 2, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return schemaSelect("schema_pick", a, true)
	}))
	lib.Def("schema_omit", "schema_omit(schema, keys)", "without the named properties", need("schema_omit", 2, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return schemaSelect("schema_omit", a, false)
	}))
	lib.Def("schema_to_json_schema", "schema_to_json_schema(schema)", "convert to JSON Schema", need("schema_to_json_schema", 1, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return convertSchema(a.At(0), toJSONSchema), nil
	}))
	lib.Def("schema_to_openapi_schema", "schema_to_openapi_schema(schema)", "convert to an OpenAPI 3 schema", need("schema_to_openapi_schema", 1, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return convertSchema(a.At(0), toOpenAPI), nil
	}))
	lib.Def("schema_from_json_schema", "schema_from_json_schema(schema)", "convert from JSON Schema", need("schema_from_json_schema", 1, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return convertSchema(a.At(0), fromForeign), nil
	}))
	lib.Def("schema_from_openapi_schema", "schema_from_openapi_schema(schema)", "convert from an OpenAPI 3 schema", need("schema_from_openapi_schema", 1, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return convertSchema(a.At(0), fromForeign), nil
	}))
}

func schemaResult(th *vm.Thread, v vm.Value, s *Checked) vm.Value {
	errs := s.Validate(th, v)
	if len(errs) == 0 {
		return vm.Of(vm.Ok(v))
	}
	return vm.Of(vm.Err(vm.Of(lib.DictOf("message", vm.Str(errs[0]), "errors", lib.StrList(errs), "value", v))))
}

// schemaKeys lists each schema keyword with its accepted spellings.
var schemaKeys = map[string][]string{
	"additional_properties": {"additional_properties", "additionalProperties"},
	"min_length":            {"min_length", "minLength"},
	"max_length":            {"max_length", "maxLength"},
	"min_items":             {"min_items", "minItems"},
	"max_items":             {"max_items", "maxItems"},
	"min":                   {"min", "minimum"},
	"max":                   {"max", "maximum"},
	"all_of":                {"all_of", "allOf"},
	"union":                 {"union", "oneOf", "anyOf", "one_of", "any_of"},
	"prefix_items":          {"prefix_items", "prefixItems"},
	"exclusive_minimum":     {"exclusive_minimum", "exclusiveMinimum"},
	"exclusive_maximum":     {"exclusive_maximum", "exclusiveMaximum"},
}

// sget reads a schema keyword in any of its spellings.
func sget(s *vm.Dict, key string) (vm.Value, bool) {
	names, ok := schemaKeys[key]
	if !ok {
		names = []string{key}
	}
	for _, n := range names {
		if v, ok := s.Get(n); ok && !v.IsNil() {
			return v, true
		}
	}
	return vm.Value{}, false
}

// sgetAll reads every spelling of a schema keyword that s gives: a
// schema with both `anyOf` and `oneOf` must satisfy both, as in JSON
// Schema, where reading only the first spelling ignored the other.
func sgetAll(s *vm.Dict, key string) []vm.Value {
	var out []vm.Value
	for _, n := range schemaKeys[key] {
		if v, ok := s.Get(n); ok && !v.IsNil() {
			out = append(out, v)
		}
	}
	return out
}

// harnTypeName maps a schema type name to the Harn name.
func harnTypeName(t string) string {
	switch t {
	case "object":
		return "dict"
	case "array":
		return "list"
	case "integer":
		return "int"
	case "number":
		return "float"
	case "boolean":
		return "bool"
	case "null":
		return "nil"
	}
	return t
}

func typeMatches(t string, v vm.Value) bool {
	switch t {
	case "any", "unknown", "":
		return true
	case "int":
		_, ok := v.AsInt()
		return ok
	case "float":
		_, ok := v.AsFloat()
		return ok
	case "dict":
		switch v.Object().(type) {
		case *vm.Dict, *vm.StructValue:
			return true
		}
		return false
	case "string", "bool", "nil", "list", "set", "bytes", "closure", "duration":
		return v.Type() == t
	}
	if isKindName(t) {
		// a type_of name (docs/spec/builtins.md §1.3: `range`, `struct`,
		// `channel`…): only a value of that kind matches
		return v.Type() == t
	}
	return true // other names (struct or alias names, `fn`) are not checked
}

// isWord reports whether a type name is a lowercase word, as type_of
// names are; a struct's or alias's name (`Point`) or a written type
// (`list<int>`) is not.
func isWord(name string) bool {
	return name != "" && strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz_") == ""
}

// isKindName reports whether name is one type_of returns: a lowercase
// builtin type name (lang/types holds the library's kinds) or one of
// runtimeTypeNames. Another lowercase word (`fn`, a lowercase alias's
// name) names no kind, so it is not checked, as `Point` is not: matching
// it by kind would reject every value.
func isKindName(name string) bool {
	return isWord(name) && (runtimeTypeNames[name] || types.IsBuiltinTypeName(name))
}

// schemaTypeNames are the names a schema's `type` gives besides the
// type_of names: the Harn dialect's and the JSON Schema ones it maps.
var schemaTypeNames = []string{"any", "unknown", "int", "float", "string", "bool", "nil", "list", "dict",
	"object", "array", "integer", "number", "boolean", "null"}

// runtimeTypeNames are type_of names (docs/spec/builtins.md §1.3 and the
// library's kinds) that are close to a schema type name, yet no slip, or
// that no annotation spells (`enum`, `struct`, `cell`).
var runtimeTypeNames = map[string]bool{"set": true, "cell": true, "name": true, "pair": true, "error": true,
	"enum": true, "iter": true, "rng": true, "range": true, "atomic": true, "struct": true, "bytes": true,
	"stream": true, "generator": true}

// typeNameProblem describes a `type` name that is most likely a slip
// for a schema type name (`strng`, `integr`): a lowercase word no type_of
// name spells, close to one of schemaTypeNames. Such a name used to let
// every value pass; any other lowercase word is a type_of name, matched by
// values of that kind alone, and other names (`Point`) are not checked.
func typeNameProblem(t vm.Value) string {
	var names []vm.Value
	if l, ok := t.AsList(); ok {
		names = l.Items()
	} else {
		names = []vm.Value{t}
	}
	for _, n := range names {
		x, ok := n.AsString()
		if !ok {
			continue
		}
		name := x.Go()
		if !isWord(name) || slices.Contains(schemaTypeNames, name) || isKindName(name) {
			continue
		}
		if slip := typeNameSlip(name); slip != "" {
			return fmt.Sprintf("unknown type '%s' (did you mean '%s'?)", name, slip) // the schema messages' quotes
		}
	}
	return ""
}

// typeNameSlip is the schema type name that name most likely misspells
// (`strng` → string), or "": the closest (diag.Suggest) of those fewer
// than half of whose letters differ, so a word that merely shares a few
// letters with a short name (`point`, two edits from `int`) is taken for
// a name of its own (docs/json-schema.md).
func typeNameSlip(name string) string {
	var close []string
	for _, c := range schemaTypeNames {
		if 2*diag.EditDistance(name, c, len(c)) < len(c) {
			close = append(close, c)
		}
	}
	return diag.Suggest(name, close)
}

// schemaPath joins a path step: "root" for the top, "a.b", "a[0]", "[2]".
func schemaChild(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func schemaIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

type schemaValidator struct {
	th   *vm.Thread
	root vm.Value
	errs []string
}

// ValidateSchema checks v against a Harn schema and returns every
// violation message ("at PATH: …"), in check order.
//
// A schema that declares `$schema` is a standard JSON Schema document: it
// is compiled once (cached by content) by the Draft 2020-12 validator of
// stdlib/jsonschema, and its violations are reported in the same
// "at PATH: message" form. Every other schema dict is the Harn dialect of
// docs/spec/builtins.md §4.7.
func ValidateSchema(th *vm.Thread, v, schema vm.Value) []string {
	if !isJSONSchemaDoc(schema) {
		return (&Checked{schema: schema}).Validate(th, v)
	}
	val, err := jsonschema.CompileValue(schema)
	if err != nil {
		return []string{"invalid schema: " + err.Error()}
	}
	return (&Checked{schema: schema, compiled: val}).Validate(th, v)
}

// Checked is a schema Check accepted, ready to validate values: a
// `$schema` document is compiled by Check, so validating against it again
// does not convert and compile it again.
type Checked struct {
	schema   vm.Value
	compiled *jsonschema.Validator // the `$schema` document's validator, else nil
}

// Validate checks v against the checked schema, as ValidateSchema does.
func (c *Checked) Validate(th *vm.Thread, v vm.Value) []string {
	if c.compiled != nil {
		if err := c.compiled.ValidateValue(v); err != nil {
			return jsonschema.Violations(err)
		}
		return nil
	}
	sv := &schemaValidator{th: th, root: c.schema}
	sv.check(v, c.schema, "", 0)
	return sv.errs
}

// isJSONSchemaDoc reports whether schema declares `$schema`, making it a
// standard JSON Schema document rather than the Harn dialect.
func isJSONSchemaDoc(schema vm.Value) bool {
	d, ok := schema.AsDict()
	return ok && d.Has("$schema")
}

// CheckSchema refuses a schema that cannot be applied, before any value is
// validated against it, so a broken schema is an error rather than a
// silent pass or fail: a `pattern` that is not a regular expression
// (`json_validate: invalid schema: at properties.b: pattern '(' is not a
// valid regular expression (missing closing ))`), or a `$schema` document
// the Draft 2020-12 compiler rejects. name is the builtin that reports it.
func CheckSchema(th *vm.Thread, name string, schema vm.Value) error {
	_, err := Check(th, name, schema)
	return err
}

// Check is CheckSchema returning the accepted schema, to validate values
// against without checking or compiling it again.
func Check(th *vm.Thread, name string, schema vm.Value) (*Checked, error) {
	if t, ok := schema.AsString(); ok {
		// A type name stands for {type: NAME}: is_type(v, "string").
		schema = vm.Of(lib.DictOf("type", vm.Str(t.Go())))
	}
	switch schema.Object().(type) {
	case *vm.Dict, vm.Bool:
	default:
		// Anything else (nil, a number, a struct's constructor…) would
		// check nothing and let every value pass.
		return nil, vm.Throwf("%s: schema must be a schema dict, a type name or a type alias, got %s", name, schema.Type())
	}
	if isJSONSchemaDoc(schema) {
		val, err := jsonschema.CompileValue(schema)
		if err != nil {
			return nil, vm.Throwf("%s: invalid schema: %s", name, err)
		}
		return &Checked{schema: schema, compiled: val}, nil
	}
	if problem := schemaProblem(th, schema, "", 0); problem != "" {
		return nil, vm.Throwf("%s: invalid schema: %s", name, problem)
	}
	return &Checked{schema: schema}, nil
}

// schemaProblem walks the places of a Harn-dialect schema that hold
// schemas (the keywords check reads: properties, items,
// additional_properties, all_of, union in every spelling, $defs and
// definitions) and describes the first keyword that cannot work, with its
// place in the schema (`at properties.b: …`), or returns "".
func schemaProblem(th *vm.Thread, schema vm.Value, at string, depth int) string {
	s, ok := schema.AsDict()
	if !ok || depth > 64 {
		return ""
	}
	place := at
	if place == "" {
		place = "root"
	}
	if p, ok := sget(s, "pattern"); ok {
		pat := vm.ToDisplay(p)
		if why := text.RegexProblem(th, pat); why != "" {
			return fmt.Sprintf("at %s: pattern '%s' is not a valid regular expression (%s)", place, pat, why)
		}
	}
	if why := keywordProblem(s); why != "" {
		return fmt.Sprintf("at %s: %s", place, why)
	}
	if t, ok := s.Get("type"); ok {
		if why := typeNameProblem(t); why != "" {
			return fmt.Sprintf("at %s: %s", place, why)
		}
	}
	var problem string
	for _, key := range []string{"properties", "$defs", "definitions"} {
		if m, ok := s.Get(key); ok {
			if md, ok := m.AsDict(); ok {
				md.Range(func(k string, sub vm.Value) bool {
					problem = schemaProblem(th, sub, schemaChild(at, key+"."+k), depth+1)
					return problem == ""
				})
			}
		}
		if problem != "" {
			return problem
		}
	}
	for _, key := range schemaKeys["prefix_items"] {
		if l, ok := s.Get(key); ok {
			if ll, ok := l.AsList(); ok {
				for i, sub := range ll.Items() {
					if problem = schemaProblem(th, sub, schemaIndex(schemaChild(at, key), i), depth+1); problem != "" {
						return problem
					}
				}
			}
		}
	}
	for _, key := range []string{"items", "additional_properties", "additionalProperties"} {
		if sub, ok := s.Get(key); ok {
			if problem = schemaProblem(th, sub, schemaChild(at, key), depth+1); problem != "" {
				return problem
			}
		}
	}
	for _, key := range append(append([]string(nil), schemaKeys["all_of"]...), schemaKeys["union"]...) {
		if l, ok := s.Get(key); ok {
			if ll, ok := l.AsList(); ok {
				for i, sub := range ll.Items() {
					if problem = schemaProblem(th, sub, schemaIndex(schemaChild(at, key), i), depth+1); problem != "" {
						return problem
					}
				}
			}
		}
	}
	return ""
}

// keywordKinds are the keywords whose value must have a certain kind for
// the validator to use it, with the kind and its test.
var keywordKinds = []struct {
	key, want string
	ok        func(vm.Value) bool
}{
	{"required", "a list of key names", isList},
	{"enum", "a list", isList},
	{"properties", "a dict of schemas", isDict},
	{"all_of", "a list of schemas", isList},
	{"union", "a list of schemas", isList},
	{"prefix_items", "a list of schemas", isList},
	{"min_length", "a number", isNumber},
	{"max_length", "a number", isNumber},
	{"min_items", "a number", isNumber},
	{"max_items", "a number", isNumber},
	{"min", "a number", isNumber},
	{"max", "a number", isNumber},
	{"exclusive_minimum", "a number (or a bool, with minimum)", isNumberOrBool},
	{"exclusive_maximum", "a number (or a bool, with maximum)", isNumberOrBool},
}

func isList(v vm.Value) bool   { _, ok := v.AsList(); return ok }
func isDict(v vm.Value) bool   { _, ok := v.AsDict(); return ok }
func isNumber(v vm.Value) bool { _, ok := lib.ToFloat(v); return ok }
func isNumberOrBool(v vm.Value) bool {
	_, ok := v.AsBool()
	return ok || isNumber(v)
}

// keywordProblem describes a keyword of s (or one of its aliases) whose
// value has a kind it cannot work with (`required` that is not a list, a
// `min_length` that is not a number…), which the validator would
// otherwise skip silently.
func keywordProblem(s *vm.Dict) string {
	for _, c := range keywordKinds {
		for _, name := range append([]string{c.key}, schemaKeys[c.key]...) {
			if v, present := s.Get(name); present && !v.IsNil() && !c.ok(v) {
				return fmt.Sprintf("'%s' must be %s, got %s", name, c.want, v.Type())
			}
		}
	}
	return ""
}

func (sv *schemaValidator) fail(path, format string, args ...any) {
	p := path
	if p == "" {
		p = "root"
	}
	sv.errs = append(sv.errs, "at "+p+": "+fmt.Sprintf(format, args...))
}

// matches reports whether v passes schema without recording errors.
func (sv *schemaValidator) matches(v, schema vm.Value, path string, depth int) bool {
	sub := &schemaValidator{th: sv.th, root: sv.root}
	sub.check(v, schema, path, depth)
	return len(sub.errs) == 0
}

func (sv *schemaValidator) resolveRef(ref string) (vm.Value, bool) {
	if !strings.HasPrefix(ref, "#") {
		if d, ok := sv.root.AsDict(); ok {
			for _, defs := range []string{"$defs", "definitions"} {
				if m, ok := d.Get(defs); ok {
					if md, ok := m.AsDict(); ok {
						if t, ok := md.Get(ref); ok {
							return t, true
						}
					}
				}
			}
		}
		return vm.Value{}, false
	}
	toks, err := json.ParsePointer("$ref", vm.Str(strings.TrimPrefix(ref, "#")))
	if err != nil {
		return vm.Value{}, false
	}
	cur := sv.root
	for _, t := range toks {
		next, ok := json.PointerStep(cur, t)
		if !ok {
			return vm.Value{}, false
		}
		cur = next
	}
	return cur, true
}

func (sv *schemaValidator) check(v, schema vm.Value, path string, depth int) {
	s, ok := schema.AsDict()
	if !ok {
		if b, isBool := schema.AsBool(); isBool && !bool(b) {
			sv.fail(path, "value is not allowed")
		}
		return
	}
	if depth > 64 {
		sv.fail(path, "schema nesting too deep")
		return
	}
	if ref, ok := sget(s, "$ref"); ok {
		target, found := sv.resolveRef(vm.ToDisplay(ref))
		if !found {
			sv.fail(path, "unresolved $ref '%s'", vm.ToDisplay(ref))
			return
		}
		sv.check(v, target, path, depth+1)
		return
	}
	if n, ok := sget(s, "nullable"); ok && n.Truth() && v.IsNil() {
		return
	}
	if c, ok := s.Get("const"); ok {
		if !vm.Equal(json.Data(v), json.Data(c)) {
			sv.fail(path, "expected constant %s, got %s", vm.ToDisplay(c), vm.ToDisplay(v))
			return
		}
	}
	for _, all := range sgetAll(s, "all_of") {
		if l, ok := all.AsList(); ok {
			for _, sub := range l.Items() {
				sv.check(v, sub, path, depth+1)
			}
		}
	}
	for _, u := range sgetAll(s, "union") {
		if l, ok := u.AsList(); ok {
			matched := false
			for _, sub := range l.Items() {
				if sv.matches(v, sub, path, depth+1) {
					matched = true
					break
				}
			}
			if !matched {
				sv.fail(path, "value did not match any union branch")
				return
			}
		}
	}
	if t, ok := s.Get("type"); ok && !t.IsNil() {
		var names []string
		switch x := t.Object().(type) {
		case *vm.List:
			for _, it := range x.Items() {
				names = append(names, harnTypeName(vm.ToDisplay(it)))
			}
		default:
			names = []string{harnTypeName(vm.ToDisplay(t))}
		}
		good := false
		for _, n := range names {
			if typeMatches(n, v) {
				good = true
				break
			}
		}
		if !good {
			sv.fail(path, "expected type '%s', got '%s'", strings.Join(names, "' or '"), v.Type())
			return
		}
	}
	if x, ok := v.AsString(); ok {
		sv.checkString(x.Go(), s, path)
	}
	switch x := v.Object().(type) {
	case *vm.Dict:
		sv.checkDict(x, s, path, depth)
	case *vm.StructValue:
		sv.checkDict(StructFields(x), s, path, depth)
	case *vm.List:
		sv.checkList(x, s, path, depth)
	case vm.Int, vm.Float:
		sv.checkNumber(v, s, path)
	}
}

func StructFields(st *vm.StructValue) *vm.Dict {
	b := vm.NewDictBuilder(len(st.Fields))
	for _, f := range st.Fields {
		b.Set(f.Name, f.Value)
	}
	return b.Build()
}

func (sv *schemaValidator) checkDict(d *vm.Dict, s *vm.Dict, path string, depth int) {
	if req, ok := sget(s, "required"); ok {
		if l, ok := req.AsList(); ok {
			for _, k := range l.Items() {
				if !d.Has(vm.ToDisplay(k)) {
					sv.fail(path, "missing required key '%s'", vm.ToDisplay(k))
				}
			}
		}
	}
	props, _ := sget(s, "properties")
	pd, _ := props.AsDict()
	if pd != nil {
		pd.Range(func(k string, sub vm.Value) bool {
			if val, ok := d.Get(k); ok {
				sv.check(val, sub, schemaChild(path, k), depth+1)
			}
			return true
		})
	}
	if ap, ok := sget(s, "additional_properties"); ok {
		d.Range(func(k string, val vm.Value) bool {
			if pd != nil && pd.Has(k) {
				return true
			}
			switch x := ap.Object().(type) {
			case vm.Bool:
				if !bool(x) {
					sv.fail(path, "unexpected key '%s'", k)
				}
			case *vm.Dict:
				sv.check(val, ap, schemaChild(path, k), depth+1)
			}
			return true
		})
	}
}

func (sv *schemaValidator) checkList(l *vm.List, s *vm.Dict, path string, depth int) {
	if n, ok := schemaInt(s, "min_items"); ok && int64(l.Len()) < n {
		sv.fail(path, "expected at least %d items, got %d", n, l.Len())
	}
	if n, ok := schemaInt(s, "max_items"); ok && int64(l.Len()) > n {
		sv.fail(path, "expected at most %d items, got %d", n, l.Len())
	}
	// prefixItems checks the first items position by position (a tuple,
	// JSON Schema 2020-12); items then checks the rest
	first := 0
	if p, ok := sget(s, "prefix_items"); ok {
		if pl, ok := p.AsList(); ok {
			for i, it := range l.Items() {
				if i >= pl.Len() {
					break
				}
				sv.check(it, pl.At(i), schemaIndex(path, i), depth+1)
			}
			first = pl.Len()
		}
	}
	if items, ok := sget(s, "items"); ok {
		for i, it := range l.Items() {
			if i >= first {
				sv.check(it, items, schemaIndex(path, i), depth+1)
			}
		}
	}
}

func (sv *schemaValidator) checkString(str string, s *vm.Dict, path string) {
	n := lib.RuneCount(str)
	if m, ok := schemaInt(s, "min_length"); ok && int64(n) < m {
		sv.fail(path, "expected length >= %d, got %d", m, n)
	}
	if m, ok := schemaInt(s, "max_length"); ok && int64(n) > m {
		sv.fail(path, "expected length <= %d, got %d", m, n)
	}
	if p, ok := sget(s, "pattern"); ok {
		pat := vm.ToDisplay(p)
		if matched, err := text.RegexMatches(sv.th, pat, str); err == nil && !matched {
			sv.fail(path, "value does not match pattern '%s'", pat)
		}
	}
	sv.checkEnum(vm.Str(str), s, path)
}

func (sv *schemaValidator) checkNumber(v vm.Value, s *vm.Dict, path string) {
	f, _ := lib.ToFloat(v)
	// exclusive_minimum is a bound of its own (JSON Schema draft 6 on) or,
	// as `true` in draft 4, makes `min` exclusive; every spelling given
	// applies, as for min and max
	exMins, exMaxs := sgetAll(s, "exclusive_minimum"), sgetAll(s, "exclusive_maximum")
	minExclusive, maxExclusive := anyTrueBool(exMins), anyTrueBool(exMaxs)
	for _, m := range sgetAll(s, "min") {
		if mf, ok := lib.ToFloat(m); ok && minExclusive && f <= mf {
			sv.fail(path, "expected value > %s, got %s", json.Stringify(m), json.Stringify(v))
		} else if ok && f < mf {
			sv.fail(path, "expected value >= %s, got %s", json.Stringify(m), json.Stringify(v))
		}
	}
	for _, ex := range exMins {
		if mf, ok := lib.ToFloat(ex); ok && f <= mf {
			sv.fail(path, "expected value > %s, got %s", json.Stringify(ex), json.Stringify(v))
		}
	}
	for _, m := range sgetAll(s, "max") {
		if mf, ok := lib.ToFloat(m); ok && maxExclusive && f >= mf {
			sv.fail(path, "expected value < %s, got %s", json.Stringify(m), json.Stringify(v))
		} else if ok && f > mf {
			sv.fail(path, "expected value <= %s, got %s", json.Stringify(m), json.Stringify(v))
		}
	}
	for _, ex := range exMaxs {
		if mf, ok := lib.ToFloat(ex); ok && f >= mf {
			sv.fail(path, "expected value < %s, got %s", json.Stringify(ex), json.Stringify(v))
		}
	}
	sv.checkEnum(v, s, path)
}

// anyTrueBool reports whether one of vs is the bool true (draft 4's
// exclusiveMinimum: true).
func anyTrueBool(vs []vm.Value) bool {
	for _, v := range vs {
		if b, ok := v.AsBool(); ok && bool(b) {
			return true
		}
	}
	return false
}

func (sv *schemaValidator) checkEnum(v vm.Value, s *vm.Dict, path string) {
	e, ok := sget(s, "enum")
	if !ok {
		return
	}
	l, ok := e.AsList()
	if !ok {
		return
	}
	for _, it := range l.Items() {
		if vm.Equal(it, v) {
			return
		}
	}
	sv.fail(path, "value must be one of %s", vm.ToDisplay(vm.Of(l)))
}

func schemaInt(s *vm.Dict, key string) (int64, bool) {
	v, ok := sget(s, key)
	if !ok {
		return 0, false
	}
	switch n := v.Object().(type) {
	case vm.Int:
		return int64(n), true
	case vm.Float:
		return int64(n), true
	}
	return 0, false
}

// filledDefault is the value a missing property with sub-schema sub takes:
// its `default`, with that default's own missing properties filled in.
// A sub-schema that is a `$ref` (against root; not inside a filled-in
// default, where root is nil) takes the default of the schema it refers to.
func filledDefault(sub, root vm.Value, depth int) (vm.Value, bool) {
	for hops := 0; ; hops++ {
		sd, ok := sub.AsDict()
		if !ok {
			return vm.Nil, false
		}
		if def, ok := sd.Get("default"); ok {
			return applySchemaDefaults(def, sub, vm.Nil, depth+1), true
		}
		ref, ok := sget(sd, "$ref")
		if !ok || root.IsNil() || hops > 64 {
			return vm.Nil, false
		}
		target, found := (&schemaValidator{root: root}).resolveRef(vm.ToDisplay(ref))
		if !found {
			return vm.Nil, false
		}
		sub = target
	}
}

// applySchemaDefaults fills the `default` of missing properties (and of a
// nil value), recursively. A filled-in default gets its own properties'
// defaults too, but without following `$ref` (root nil): a schema whose
// references loop back to it would otherwise grow a default without end.
func applySchemaDefaults(v, schema, root vm.Value, depth int) vm.Value {
	s, ok := schema.AsDict()
	if !ok || depth > 64 {
		return v
	}
	if ref, ok := sget(s, "$ref"); ok {
		sv := &schemaValidator{root: root}
		if target, found := sv.resolveRef(vm.ToDisplay(ref)); found {
			return applySchemaDefaults(v, target, root, depth+1)
		}
		return v
	}
	if v.IsNil() {
		if def, ok := s.Get("default"); ok && !def.IsNil() {
			return applySchemaDefaults(def, schema, vm.Nil, depth+1)
		} else if ok {
			return def
		}
		return v
	}
	switch x := v.Object().(type) {
	case *vm.Dict:
		props, _ := sget(s, "properties")
		if pd, ok := props.AsDict(); ok {
			out := x
			pd.Range(func(k string, sub vm.Value) bool {
				cur, present := out.Get(k)
				if !present {
					if def, ok := filledDefault(sub, root, depth); ok {
						out = out.Set(k, def)
					}
					return true
				}
				if nv := applySchemaDefaults(cur, sub, root, depth+1); !vm.Identical(nv, cur) {
					out = out.Set(k, nv)
				}
				return true
			})
			return vm.Of(out)
		}
	case *vm.StructValue:
		// The result stays an instance of the same struct, with the
		// defaulted fields added (docs/spec/newer.md §2.22).
		props, _ := sget(s, "properties")
		pd, ok := props.AsDict()
		if !ok {
			return v
		}
		fields := append([]vm.Field(nil), x.Fields...)
		changed := false
		pd.Range(func(k string, sub vm.Value) bool {
			at := -1
			for i, f := range fields {
				if f.Name == k {
					at = i
					break
				}
			}
			if at >= 0 && fields[at].Value.IsValid() && !fields[at].Value.IsNil() {
				if nv := applySchemaDefaults(fields[at].Value, sub, root, depth+1); !vm.Identical(nv, fields[at].Value) {
					fields[at].Value, changed = nv, true
				}
				return true
			}
			def, ok := filledDefault(sub, root, depth)
			if !ok {
				return true
			}
			if at >= 0 {
				fields[at].Value = def
			} else {
				fields = append(fields, vm.Field{Name: k, Value: def})
			}
			changed = true
			return true
		})
		if !changed {
			return v
		}
		sort.SliceStable(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
		return vm.Of(&vm.StructValue{Name: x.Name, Fields: fields})
	case *vm.List:
		if items, ok := sget(s, "items"); ok {
			out := make([]vm.Value, x.Len())
			for i, it := range x.Items() {
				out[i] = applySchemaDefaults(it, items, root, depth+1)
			}
			return vm.Of(vm.NewList(out))
		}
	}
	return v
}

// schemaPartial drops `required` everywhere.
func schemaPartial(v vm.Value) vm.Value {
	switch x := v.Object().(type) {
	case *vm.Dict:
		b := vm.NewDictBuilder(x.Len())
		x.Range(func(k string, val vm.Value) bool {
			if k != "required" {
				b.Set(k, schemaPartial(val))
			}
			return true
		})
		return vm.Of(b.Build())
	case *vm.List:
		out := make([]vm.Value, x.Len())
		for i, it := range x.Items() {
			out[i] = schemaPartial(it)
		}
		return vm.Of(vm.NewList(out))
	}
	return v
}

func schemaSelect(name string, a vm.Args, keep bool) (vm.Value, error) {
	keys, ok := a.List(1)
	if !ok {
		return vm.Value{}, vm.Throwf("%s: keys must be a list", name)
	}
	s, ok := a.Dict(0)
	if !ok {
		return a.At(0), nil
	}
	want := map[string]bool{}
	for _, k := range keys.Items() {
		want[vm.ToDisplay(k)] = true
	}
	out := s
	if props, ok := s.Get("properties"); ok {
		if pd, ok := props.AsDict(); ok {
			b := vm.NewDictBuilder(pd.Len())
			pd.Range(func(k string, v vm.Value) bool {
				if want[k] == keep {
					b.Set(k, v)
				}
				return true
			})
			out = out.Set("properties", vm.Of(b.Build()))
		}
	}
	if req, ok := s.Get("required"); ok {
		if l, ok := req.AsList(); ok {
			var kept []vm.Value
			for _, k := range l.Items() {
				if want[vm.ToDisplay(k)] == keep {
					kept = append(kept, k)
				}
			}
			out = out.Set("required", vm.Of(vm.NewList(kept)))
		}
	}
	return vm.Of(out), nil
}

// ---- converters ----

type schemaDialect int

const (
	toJSONSchema schemaDialect = iota
	toOpenAPI
	fromForeign
)

var harnToJSONType = map[string]string{"dict": "object", "list": "array", "int": "integer", "float": "number", "bool": "boolean", "nil": "null", "string": "string"}

var camelOf = map[string]string{
	"additional_properties": "additionalProperties", "min_length": "minLength", "max_length": "maxLength",
	"min_items": "minItems", "max_items": "maxItems", "min": "minimum", "max": "maximum", "all_of": "allOf", "union": "anyOf",
	"exclusive_minimum": "exclusiveMinimum", "exclusive_maximum": "exclusiveMaximum", "prefix_items": "prefixItems",
	"one_of": "oneOf", // schema_from_json_schema's spelling of a oneOf beside an anyOf
}

var snakeOf = map[string]string{
	"additionalProperties": "additional_properties", "minLength": "min_length", "maxLength": "max_length",
	"minItems": "min_items", "maxItems": "max_items", "minimum": "min", "maximum": "max", "allOf": "all_of",
	"anyOf": "union", "oneOf": "union", "exclusiveMinimum": "exclusive_minimum", "exclusiveMaximum": "exclusive_maximum",
	"prefixItems": "prefix_items",
}

// schemaChildKeys are keywords whose values are schemas (or lists/dicts of
// schemas) and are converted recursively.
var schemaChildKeys = map[string]string{
	"properties": "map", "$defs": "map", "definitions": "map",
	"items": "one", "additional_properties": "one", "additionalProperties": "one",
	"all_of": "list", "allOf": "list", "union": "list", "anyOf": "list", "oneOf": "list", "one_of": "list",
	"prefix_items": "list", "prefixItems": "list",
}

func convertSchema(v vm.Value, dialect schemaDialect) vm.Value {
	s, ok := v.AsDict()
	if !ok {
		return v
	}
	b := vm.NewDictBuilder(s.Len())
	nullable := false
	s.Range(func(k string, val vm.Value) bool {
		key := k
		switch dialect {
		case toJSONSchema, toOpenAPI:
			if c, ok := camelOf[k]; ok {
				key = c
			}
		case fromForeign:
			if c, ok := snakeOf[k]; ok {
				key = c
			}
			if k == "oneOf" && s.Has("anyOf") {
				key = "one_of" // both apply: the two must not become one `union`
			}
		}
		switch schemaChildKeys[k] {
		case "map":
			if m, ok := val.AsDict(); ok {
				mb := vm.NewDictBuilder(m.Len())
				m.Range(func(pk string, pv vm.Value) bool {
					mb.Set(pk, convertSchema(pv, dialect))
					return true
				})
				val = vm.Of(mb.Build())
			}
		case "one":
			val = convertSchema(val, dialect)
		case "list":
			if l, ok := val.AsList(); ok {
				out := make([]vm.Value, l.Len())
				for i, it := range l.Items() {
					out[i] = convertSchema(it, dialect)
				}
				val = vm.Of(vm.NewList(out))
			}
		}
		if k == "type" {
			val = convertTypeName(val, dialect, &nullable)
			if val.IsNil() {
				return true
			}
		}
		if k == "nullable" && dialect != fromForeign {
			nullable = val.Truth()
			if dialect == toJSONSchema {
				return true
			}
		}
		b.Set(key, val)
		return true
	})
	out := b.Build()
	if dialect == toOpenAPI {
		out = openAPINullable(out, &nullable)
		out = openAPITuple(out)
	}
	if nullable {
		out = enumWithNull(out)
		switch dialect {
		case toJSONSchema:
			if t, ok := out.Get("type"); ok {
				if ts, ok := t.AsString(); ok {
					out = out.Set("type", vm.Of(vm.NewList([]vm.Value{vm.Str(ts.Go()), vm.Str("null")})))
				}
			} else {
				out = out.Set("nullable", vm.True)
			}
		default:
			out = out.Set("nullable", vm.True)
		}
	}
	return vm.Of(out)
}

// enumWithNull adds null to the enum of a nullable schema: Harn lets nil
// pass before it looks at the enum, but a JSON Schema or OpenAPI
// validator checks the enum too and would refuse null.
func enumWithNull(out *vm.Dict) *vm.Dict {
	e, ok := out.Get("enum")
	l, isList := e.AsList()
	if !ok || !isList {
		return out
	}
	for _, it := range l.Items() {
		if it.IsNil() {
			return out
		}
	}
	return out.Set("enum", vm.Of(vm.NewList(append(append([]vm.Value{}, l.Items()...), vm.Nil))))
}

// openAPITuple rewrites a tuple's prefixItems, which OpenAPI 3.0 lacks
// (its items must be one schema, never `false`), as items that may be any
// of the positions' schemas: the positions are lost, the element kinds
// and the length bounds (minItems/maxItems, set by a tuple type) remain.
func openAPITuple(out *vm.Dict) *vm.Dict {
	p, ok := out.Get("prefixItems")
	positions, isList := p.AsList()
	if !ok || !isList {
		return out
	}
	out = out.Delete("prefixItems")
	branches := positions.Items()
	if rest, ok := out.Get("items"); ok {
		if _, isSchema := rest.AsDict(); isSchema {
			branches = append(slices.Clone(branches), rest) // the items after the positions
		}
	}
	switch len(branches) {
	case 0:
		return out.Delete("items")
	case 1:
		return out.Set("items", branches[0])
	}
	return out.Set("items", vm.Of(lib.DictOf("anyOf", vm.Of(vm.NewList(slices.Clone(branches))))))
}

// openAPINullable rewrites null types, which OpenAPI 3.0 lacks, as
// `nullable: true`: a null type alone, and null branches of an anyOf (a
// single branch left replaces the anyOf).
func openAPINullable(out *vm.Dict, nullable *bool) *vm.Dict {
	if t, ok := out.Get("type"); ok && vm.ToDisplay(t) == "null" {
		out = out.Delete("type")
		*nullable = true
	}
	l, ok := out.Get("anyOf")
	branches, isList := l.AsList()
	if !ok || !isList {
		return out
	}
	var kept []vm.Value
	for _, br := range branches.Items() {
		if d, ok := br.AsDict(); ok && d.Len() == 1 {
			if v, ok := d.Get("nullable"); ok && v.Truth() {
				*nullable = true
				continue
			}
		}
		kept = append(kept, br)
	}
	if len(kept) == len(branches.Items()) {
		return out
	}
	out = out.Delete("anyOf")
	if len(kept) == 1 {
		if d, ok := kept[0].AsDict(); ok {
			d.Range(func(k string, v vm.Value) bool {
				out = out.Set(k, v)
				return true
			})
			return out
		}
	}
	if len(kept) > 0 {
		out = out.Set("anyOf", vm.Of(vm.NewList(kept)))
	}
	return out
}

func convertTypeName(t vm.Value, dialect schemaDialect, nullable *bool) vm.Value {
	if x, ok := t.AsString(); ok {
		name := x.Go()
		if dialect == fromForeign {
			return vm.Str(harnTypeName(name))
		}
		if j, ok := harnToJSONType[harnTypeName(name)]; ok {
			return vm.Str(j)
		}
		if name == "any" {
			return vm.Nil
		}
		return vm.Str(x.Go())
	}
	switch x := t.Object().(type) {
	case *vm.List:
		var names []vm.Value
		for _, it := range x.Items() {
			n := vm.ToDisplay(it)
			if (dialect == fromForeign || dialect == toOpenAPI) && (n == "null" || n == "nil") {
				*nullable = true
				continue
			}
			names = append(names, convertTypeName(vm.Str(n), dialect, nullable))
		}
		if len(names) == 1 && dialect != toJSONSchema {
			return names[0]
		}
		return vm.Of(vm.NewList(names))
	}
	return t
}
