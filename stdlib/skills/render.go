package skills

import (
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The prompt forms of skills (docs/skills.md, "Prompt text").

// render is a skill as a Markdown section: a heading with its name, then
// each part it has, separated by blank lines: the description, "When to
// use: …", "Applies to: …" (its paths) and the instructions.
func render(s *vm.Dict) string {
	parts := []string{"## Skill: " + skillName(s)}
	if d := strings.TrimSpace(field(s, fDescription)); d != "" {
		parts = append(parts, d)
	}
	if w := strings.TrimSpace(field(s, fWhenToUse)); w != "" {
		parts = append(parts, "When to use: "+w)
	}
	if ps := strings_(s, fPaths); len(ps) > 0 {
		parts = append(parts, "Applies to: "+strings.Join(ps, ", "))
	}
	if in := strings.TrimSpace(field(s, fInstructions)); in != "" {
		parts = append(parts, in)
	}
	return strings.Join(parts, "\n\n")
}

// alwaysOnHeading starts render_always_on_catalog's section.
const alwaysOnHeading = "# Skills"

func init() {
	lib.Def("skill_render", "skill_render(skill: dict) -> string", "a skill as prompt text (a Markdown section)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := fromValue("skill_render", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(render(s)), nil
	})
	lib.Def("skills_catalog_entries", "skills_catalog_entries(registry: dict) -> list<dict>", "[{name, description, when_to_use}] of every skill, in registry order", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		skills, err := registrySkills("skills_catalog_entries", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		out := make([]vm.Value, len(skills))
		for i, s := range skills {
			b := vm.NewDictBuilder(3)
			b.Set(fName, vm.Str(skillName(s)))
			b.Set(fDescription, vm.Str(field(s, fDescription)))
			b.Set(fWhenToUse, vm.Str(field(s, fWhenToUse)))
			out[i] = vm.Of(b.Build())
		}
		return vm.Of(lib.List(out)), nil
	})
	lib.Def("render_always_on_catalog", "render_always_on_catalog(registry: dict) -> string", `the always-on skills as one prompt section ("" when there are none)`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		skills, err := registrySkills("render_always_on_catalog", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		parts := []string{alwaysOnHeading}
		for _, s := range skills {
			if alwaysOn(s) {
				parts = append(parts, render(s))
			}
		}
		if len(parts) == 1 {
			return vm.Str(""), nil
		}
		return vm.Str(strings.Join(parts, "\n\n")), nil
	})
}
