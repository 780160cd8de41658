package skills

import (
	"fmt"

	"github.com/harnlang/harn/vm"
)

// The fields the library reads, and the kind each must have. Other fields
// are kept as given (metadata for the program or a host).
const (
	fDescription  = "description"
	fWhenToUse    = "when_to_use"
	fInstructions = "instructions"
	fBody         = "body" // another spelling of instructions
	fTags         = "tags"
	fPaths        = "paths"
	fAlwaysOn     = "always_on"
	fName         = "name"
	fHandler      = "handler" // the function of an @acp_skill fn
)

var stringFields = []string{fDescription, fWhenToUse, fInstructions}
var listFields = []string{fTags, fPaths}

// validName reports whether s can name a skill: letters, digits, `_`,
// `-` and `.`, not starting with `-` or `.` (the names skill
// directories use, such as `code-review`).
func validName(s string) bool {
	if s == "" || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

func str(v vm.Value) (string, bool) {
	if s, ok := v.AsString(); ok {
		return s.Go(), true
	}
	return "", false
}

// quoted is a value as it appears in a message: strings in double quotes,
// anything else in its display form.
func quoted(v vm.Value) string {
	if s, ok := str(v); ok {
		return fmt.Sprintf("%q", s)
	}
	return vm.ToDisplay(v)
}

// build makes the skill dict named name from fields (which may hold a
// `name` of its own only when it equals name) and checks the fields the
// library reads. who prefixes every message.
func build(who string, name vm.Value, fields *vm.Dict) (*vm.Dict, error) {
	n, ok := str(name)
	if !ok || !validName(n) {
		return nil, vm.Throwf("%s: name must be a non-empty string of letters, digits, '_', '-' and '.', got %s", who, quoted(name))
	}
	if fields == nil {
		fields = vm.NewDict()
	}
	if given, ok := fields.Get(fName); ok {
		if g, _ := str(given); g != n {
			return nil, vm.Throwf("%s: the name field %s does not match the skill name %q", who, quoted(given), n)
		}
	}
	out := fields.Set(fName, vm.Str(n))
	if body, ok := out.Get(fBody); ok {
		if out.Has(fInstructions) {
			return nil, vm.Throwf("%s: give instructions or body, not both", who)
		}
		out = out.Delete(fBody).Set(fInstructions, body)
	}
	for _, k := range stringFields {
		if v, ok := out.Get(k); ok {
			if _, isStr := str(v); !isStr {
				return nil, vm.Throwf("%s: %s must be a string, got %s", who, k, v.Type())
			}
		}
	}
	for _, k := range listFields {
		if v, ok := out.Get(k); ok {
			l, isList := v.AsList()
			if !isList {
				return nil, vm.Throwf("%s: %s must be a list of strings, got %s", who, k, v.Type())
			}
			for _, it := range l.Items() {
				if _, isStr := str(it); !isStr {
					return nil, vm.Throwf("%s: %s must be a list of strings, got an item of type %s", who, k, it.Type())
				}
			}
		}
	}
	if v, ok := out.Get(fAlwaysOn); ok {
		if _, isBool := v.AsBool(); !isBool {
			return nil, vm.Throwf("%s: always_on must be a bool, got %s", who, v.Type())
		}
	}
	return out, nil
}

// fromValue checks that v is a skill dict (as skill_define, a `skill`
// declaration or load_skill made it, or any dict with a valid name) and
// returns it normalized.
func fromValue(who string, v vm.Value) (*vm.Dict, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("%s: expected a skill dict, got %s", who, v.Type())
	}
	name, ok := d.Get(fName)
	if !ok {
		return nil, vm.Throwf("%s: a skill needs a name", who)
	}
	return build(who, name, d)
}

// field is a string field of a skill ("" when absent).
func field(s *vm.Dict, k string) string {
	v, _ := s.Get(k)
	t, _ := str(v)
	return t
}

func strings_(s *vm.Dict, k string) []string {
	v, _ := s.Get(k)
	l, ok := v.AsList()
	if !ok {
		return nil
	}
	out := make([]string, 0, l.Len())
	for _, it := range l.Items() {
		if t, ok := str(it); ok {
			out = append(out, t)
		}
	}
	return out
}

func alwaysOn(s *vm.Dict) bool {
	v, _ := s.Get(fAlwaysOn)
	b, ok := v.AsBool()
	return ok && bool(b)
}
