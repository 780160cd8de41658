package skills

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The skill registry (docs/skills.md): a dict {_type: "skill_registry",
// skills: [...]} holding skill dicts in definition order. Every builtin
// returns a new registry; none changes its argument (docs/spec/builtins.md §0).

const registryType = "skill_registry"

func newRegistry(skills []*vm.Dict) *vm.Dict {
	b := vm.NewDictBuilder(2)
	b.Set("_type", vm.Str(registryType))
	b.Set("skills", vm.Of(lib.DictList(skills)))
	return b.Build()
}

// registrySkills checks that v is a skill registry and returns its skills.
func registrySkills(who string, v vm.Value) ([]*vm.Dict, error) {
	if d, ok := v.AsDict(); ok {
		if t, has := d.Get("_type"); has && vm.ToDisplay(t) == registryType {
			var out []*vm.Dict
			if sv, ok := d.Get("skills"); ok {
				if l, ok := sv.AsList(); ok {
					for _, it := range l.Items() {
						if s, ok := it.AsDict(); ok {
							out = append(out, s)
						}
					}
				}
			}
			return out, nil
		}
	}
	return nil, vm.Throwf("%s: expected a skill registry created with skill_registry(), got %s", who, v.Type())
}

func skillName(s *vm.Dict) string { return field(s, fName) }

// define returns skills with s added at the end, replacing (and so
// moving to the end) a skill of the same name, as tool_define does.
func define(skills []*vm.Dict, s *vm.Dict) []*vm.Dict {
	name := skillName(s)
	out := make([]*vm.Dict, 0, len(skills)+1)
	for _, old := range skills {
		if skillName(old) != name {
			out = append(out, old)
		}
	}
	return append(out, s)
}

func find(skills []*vm.Dict, name string) *vm.Dict {
	for _, s := range skills {
		if skillName(s) == name {
			return s
		}
	}
	return nil
}

// registryAndName reads the arguments (registry: dict, name: string) of
// who.
func registryAndName(who string, a vm.Args) ([]*vm.Dict, string, error) {
	skills, err := registrySkills(who, a.At(0))
	if err != nil {
		return nil, "", err
	}
	name, err := nameArg(who, a, 1)
	return skills, name, err
}

func nameArg(who string, a vm.Args, i int) (string, error) {
	name, ok := a.Str(i)
	if !ok {
		return "", vm.Typef("%s: name must be a string, got %s", who, a.At(i).Type())
	}
	return name, nil
}

func init() {
	lib.Def("skill_registry", "skill_registry(skills?: list) -> dict", "a skill registry, empty or holding the given skills in order", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const who = "skill_registry"
		if !a.Given(0) {
			return vm.Of(newRegistry(nil)), nil
		}
		l, ok := a.List(0)
		if !ok {
			return vm.Value{}, vm.Typef("%s: skills must be a list of skills, got %s", who, a.At(0).Type())
		}
		var skills []*vm.Dict
		for _, it := range l.Items() {
			s, err := fromValue(who, it)
			if err != nil {
				return vm.Value{}, err
			}
			skills = define(skills, s)
		}
		return vm.Of(newRegistry(skills)), nil
	})
	lib.Def("skill_define", "skill_define(registry: dict, name: string, config?: dict) -> dict / skill_define(registry: dict, skill: dict) -> dict", "the registry with one skill added or replaced", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const who = "skill_define"
		if a.Len() < 2 {
			return vm.Value{}, vm.Throwf("%s: requires a registry and a skill, or a registry, a name and a config dict", who)
		}
		skills, err := registrySkills(who, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		var s *vm.Dict
		if _, isDict := a.Dict(1); isDict {
			if a.Has(2) {
				return vm.Value{}, vm.Throwf("%s: a skill dict takes no config; pass a name and a config, or the skill alone", who)
			}
			s, err = fromValue(who, a.At(1))
		} else {
			var config *vm.Dict
			if a.Given(2) {
				d, ok := a.Dict(2)
				if !ok {
					return vm.Value{}, vm.Typef("%s: config must be a dict, got %s", who, a.At(2).Type())
				}
				config = d
			}
			s, err = build(who, a.At(1), config)
		}
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(newRegistry(define(skills, s))), nil
	})
	lib.Def("skill_count", "skill_count(registry: dict) -> int", "the number of skills in the registry", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		skills, err := registrySkills("skill_count", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return lib.IntOf(len(skills)), nil
	})
	lib.Def("skill_list", "skill_list(registry: dict) -> list<string>", "the skill names in registry order", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		skills, err := registrySkills("skill_list", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		names := make([]string, len(skills))
		for i, s := range skills {
			names[i] = skillName(s)
		}
		return vm.Of(lib.StrList(names)), nil
	})
	lib.Def("skill_find", "skill_find(registry: dict, name: string) -> dict?", "the skill named name, or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const who = "skill_find"
		skills, name, err := registryAndName(who, a)
		if err != nil {
			return vm.Value{}, err
		}
		if s := find(skills, name); s != nil {
			return vm.Of(s), nil
		}
		return vm.Nil, nil
	})
	lib.Def("skill_describe", "skill_describe(registry: dict, name: string) -> string?", `"name: description" of the named skill, or nil`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const who = "skill_describe"
		skills, name, err := registryAndName(who, a)
		if err != nil {
			return vm.Value{}, err
		}
		s := find(skills, name)
		if s == nil {
			return vm.Nil, nil
		}
		return vm.Str(describe(s)), nil
	})
	lib.Def("skill_remove", "skill_remove(registry: dict, name: string) -> dict", "the registry without the skill named name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const who = "skill_remove"
		skills, name, err := registryAndName(who, a)
		if err != nil {
			return vm.Value{}, err
		}
		var out []*vm.Dict
		for _, s := range skills {
			if skillName(s) != name {
				out = append(out, s)
			}
		}
		return vm.Of(newRegistry(out)), nil
	})
	lib.Def("skill_select", "skill_select(registry: dict, selection) -> dict", "the registry with only the matching skills", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const who = "skill_select"
		skills, err := registrySkills(who, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		out, err := selectSkills(who, skills, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(newRegistry(out)), nil
	})
}

// describe is "name: description", or the name alone without one.
func describe(s *vm.Dict) string {
	if d := field(s, fDescription); d != "" {
		return skillName(s) + ": " + d
	}
	return skillName(s)
}
