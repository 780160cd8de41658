// Package skills owns Harn's skills (docs/skills.md, docs/spec/builtins.md §5
// "Skills"): the skill value a `skill` declaration or skill_define builds,
// the skill registry and its queries (skill_registry, skill_define,
// skill_list, skill_find, skill_select, skill_remove, skill_count,
// skill_describe), the prompt renderings (skill_render,
// skills_catalog_entries, render_always_on_catalog), skill files
// (load_skill) and the run's registry of declared skills (skills_declared).
//
// A skill is a plain dict: `name` plus its fields. A registry is a dict
// {_type: "skill_registry", skills: [...]} in the style of the tool
// registry (stdlib/tools), so it prints, compares and serializes like any
// other value, and every operation returns a new registry.
package skills
