package skills

import (
	"sync"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// `skill name { field expr … }` (docs/skills.md, "Declaring skills")
// binds name to the skill dict built from its fields, exactly as
// skill_define(registry, "name", {field: expr, …}) would build it, and
// adds it to the run's declared skills, which skills_declared() returns.
// A `name` field renames the skill (for names that are not identifiers,
// such as "code-review"); the binding keeps the declared name.

type declaredKey struct{}

// declared is one VM's declared skills, in declaration order (a skill
// declared again under the same name replaces the earlier one and moves
// to the end, as skill_define does).
type declared struct {
	mu     sync.Mutex
	skills []*vm.Dict
}

func declaredFor(v *vm.VM) *declared {
	return v.Local(declaredKey{}, func() any { return &declared{} }).(*declared)
}

func init() {
	lib.Def("__skill_decl", "__skill_decl(decl, values...)", "runtime hook of a `skill` declaration", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		op, _ := a.At(0).Object().(*vm.Opaque)
		if op == nil {
			return vm.Value{}, vm.Runtimef("__skill_decl: not a skill declaration")
		}
		def, ok := op.X.(*compiler.SkillDef)
		if !ok || a.Len() != 1+len(def.Fields) {
			return vm.Value{}, vm.Runtimef("__skill_decl: not a skill declaration")
		}
		s, err := declare(def, a[1:])
		if err != nil {
			return vm.Value{}, err
		}
		register(th.VM(), s)
		return vm.Of(s), nil
	})
	lib.Def("__acp_skill", "__acp_skill(fn, decl, values...)", "runtime hook of an `@acp_skill` fn declaration", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		op, _ := a.At(1).Object().(*vm.Opaque)
		if op == nil {
			return vm.Value{}, vm.Runtimef("__acp_skill: not a skill declaration")
		}
		def, ok := op.X.(*compiler.SkillDef)
		if !ok || !def.Attr || a.Len() != 2+len(def.Fields) {
			return vm.Value{}, vm.Runtimef("__acp_skill: not a skill declaration")
		}
		s, err := declare(def, a[2:])
		if err != nil {
			return vm.Value{}, err
		}
		s = s.Set(fHandler, a.At(0))
		register(th.VM(), s)
		return vm.Of(s), nil
	})
	lib.Def("skills_declared", "skills_declared() -> dict", "a skill registry of the skills the run's `skill` declarations made, in declaration order", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d := declaredFor(th.VM())
		d.mu.Lock()
		skills := append([]*vm.Dict(nil), d.skills...)
		d.mu.Unlock()
		return vm.Of(newRegistry(skills)), nil
	})
}

// register adds s to v's declared skills.
func register(v *vm.VM, s *vm.Dict) {
	d := declaredFor(v)
	d.mu.Lock()
	d.skills = define(d.skills, s)
	d.mu.Unlock()
}

// declare builds the skill of a declaration from its field values.
func declare(def *compiler.SkillDef, values []vm.Value) (*vm.Dict, error) {
	who := "skill " + def.Name
	if def.Attr {
		who = "@acp_skill on fn " + def.Name
	}
	b := vm.NewDictBuilder(len(def.Fields))
	seen := make(map[string]bool, len(def.Fields))
	for i, f := range def.Fields {
		if seen[f] {
			return nil, vm.Throwf("%s: field %s is given twice", who, f)
		}
		seen[f] = true
		if def.Attr && f == fHandler {
			return nil, vm.Throwf("%s: handler is the function itself and cannot be given", who)
		}
		b.Set(f, values[i])
	}
	fields := b.Build()
	name := vm.Str(def.Name)
	if n, ok := fields.Get(fName); ok {
		name = n
	}
	return build(who, name, fields)
}
