package evals

// Context packs (docs/spec/builtins.md §5, Runs/evals/plans, which names
// context_pack_manifest, context_pack_manifest_parse and
// context_pack_suggestions and nothing more; the shapes are this
// implementation's, docs/evals.md "Context packs"): a named, versioned
// list of the context sources an agent run should start with — files,
// globs, artifacts, notes, URLs — with an optional token budget, and
// suggestions of what to add from the paths a run actually touched.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/vm"
	"github.com/pelletier/go-toml/v2"
)

// sourceKinds maps each source kind to the field that names it.
var sourceKinds = map[string]string{"file": "path", "glob": "pattern", "artifact": "id", "note": "text", "url": "url"}

var sourceKindNames = []string{"file", "glob", "artifact", "note", "url"}

// contextPackManifest checks a manifest dict and returns it normalised:
// {kind: "context_pack", name, version, description, budget_tokens,
// sources: [{kind, <field>, priority, required}]}.
func contextPackManifest(name string, d *vm.Dict) (*vm.Dict, error) {
	for _, k := range d.Keys() {
		switch k {
		case "name", "version", "description", "budget_tokens", "sources", "kind":
		default:
			return nil, vm.Throwf("%s: unknown field `%s` (expected name, version, description, budget_tokens, sources)", name, k)
		}
	}
	if k, ok := d.Get("kind"); ok {
		if s, _ := k.AsString(); s.Go() != "context_pack" {
			return nil, vm.Throwf("%s: `kind` must be \"context_pack\" when given, got %s", name, lib.Display(k))
		}
	}
	pname, ok := str(d, "name")
	if !ok || strings.TrimSpace(pname) == "" {
		return nil, vm.Throwf("%s: a context pack needs a non-empty string `name`", name)
	}
	version := vm.Str("1")
	if v, ok := d.Get("version"); ok && !v.IsNil() {
		if _, isInt := v.AsInt(); isInt {
			version = vm.Str(vm.ToDisplay(v))
		} else if s, ok := v.AsString(); ok && s.Go() != "" {
			version = v
		} else {
			return nil, vm.Throwf("%s: `version` must be a non-empty string, got %s", name, lib.Shown(v))
		}
	}
	description := vm.Str("")
	if v, ok := d.Get("description"); ok && !v.IsNil() {
		if _, ok := v.AsString(); !ok {
			return nil, vm.Throwf("%s: `description` must be a string, got %s", name, v.Type())
		}
		description = v
	}
	budget := vm.Nil
	if v, ok := d.Get("budget_tokens"); ok && !v.IsNil() {
		n, ok := v.AsInt()
		if !ok || n <= 0 {
			return nil, vm.Throwf("%s: `budget_tokens` must be a positive int, got %s", name, lib.Display(v))
		}
		budget = v
	}
	sv, ok := d.Get("sources")
	sl, isList := sv.AsList()
	if !ok || !isList {
		return nil, vm.Throwf("%s: context pack `%s` needs a list `sources`", name, pname)
	}
	sources := make([]vm.Value, 0, sl.Len())
	for i, s := range sl.Items() {
		src, err := contextSource(name, i+1, s)
		if err != nil {
			return nil, err
		}
		sources = append(sources, vm.Of(src))
	}
	return lib.DictOf("kind", vm.Str("context_pack"), "name", vm.Str(pname), "version", version,
		"description", description, "budget_tokens", budget, "sources", lib.List(sources)), nil
}

// contextSource normalises one source: a string is a file path, or a glob
// when it holds * ? or [.
func contextSource(name string, n int, v vm.Value) (*vm.Dict, error) {
	if s, ok := v.AsString(); ok {
		p := s.Go()
		if p == "" {
			return nil, vm.Throwf("%s: source %d is empty", name, n)
		}
		if strings.ContainsAny(p, "*?[") {
			return lib.DictOf("kind", vm.Str("glob"), "pattern", vm.Str(p), "priority", lib.IntOf(0), "required", vm.False), nil
		}
		return lib.DictOf("kind", vm.Str("file"), "path", vm.Str(p), "priority", lib.IntOf(0), "required", vm.False), nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("%s: source %d must be a string or a dict, got %s", name, n, v.Type())
	}
	kind, ok := str(d, "kind")
	field, known := sourceKinds[kind]
	if !ok || !known {
		return nil, vm.Throwf("%s: source %d: `kind` must be one of %s, got %s", name, n, strings.Join(sourceKindNames, ", "), lib.Display(lib.Get(d, "kind")))
	}
	for _, k := range d.Keys() {
		if k != "kind" && k != field && k != "priority" && k != "required" {
			return nil, vm.Throwf("%s: source %d: unknown field `%s` for a %s source (expected %s, priority, required)", name, n, k, kind, field)
		}
	}
	ref, ok := str(d, field)
	if !ok || ref == "" {
		return nil, vm.Throwf("%s: source %d: a %s source needs a non-empty string `%s`", name, n, kind, field)
	}
	if kind == "glob" {
		if _, err := path.Match(ref, ""); err != nil {
			return nil, vm.Throwf("%s: source %d: bad glob %q", name, n, ref)
		}
	}
	priority := lib.IntOf(0)
	if p, ok := d.Get("priority"); ok && !p.IsNil() {
		if _, ok := p.AsInt(); !ok {
			return nil, vm.Throwf("%s: source %d: `priority` must be an int, got %s", name, n, lib.Display(p))
		}
		priority = p
	}
	required := vm.False
	if r, ok := d.Get("required"); ok && !r.IsNil() {
		if _, ok := r.AsBool(); !ok {
			return nil, vm.Throwf("%s: source %d: `required` must be true or false, got %s", name, n, lib.Display(r))
		}
		required = r
	}
	return lib.DictOf("kind", vm.Str(kind), field, vm.Str(ref), "priority", priority, "required", required), nil
}

// mentionedPaths collects the paths an input item names: a string, or a
// dict's path/file (string) and paths/files (list of strings), also
// inside its context and data dicts (friction events, artifacts).
func mentionedPaths(v vm.Value, depth int, add func(string)) {
	if s, ok := v.AsString(); ok {
		if s.Go() != "" {
			add(s.Go())
		}
		return
	}
	d, ok := v.AsDict()
	if !ok || depth > 1 {
		return
	}
	for _, k := range []string{"path", "file"} {
		if s, ok := str(d, k); ok && s != "" {
			add(s)
		}
	}
	for _, k := range []string{"paths", "files"} {
		if l, ok := lib.Get(d, k).AsList(); ok {
			for _, it := range l.Items() {
				if s, ok := it.AsString(); ok && s.Go() != "" {
					add(s.Go())
				}
			}
		}
	}
	for _, k := range []string{"context", "data"} {
		if sub, ok := d.Get(k); ok {
			mentionedPaths(sub, depth+1, add)
		}
	}
}

// covered reports whether a manifest's file or glob sources hold p.
func covered(manifest *vm.Dict, p string) bool {
	if manifest == nil {
		return false
	}
	l, _ := lib.Get(manifest, "sources").AsList()
	if l == nil {
		return false
	}
	for _, s := range l.Items() {
		d, _ := s.AsDict()
		if d == nil {
			continue
		}
		if f, ok := str(d, "path"); ok && path.Clean(f) == p {
			return true
		}
		if g, ok := str(d, "pattern"); ok {
			if m, _ := path.Match(g, p); m {
				return true
			}
		}
	}
	return false
}

func init() {
	defManifest("context_pack_manifest",
		`a checked, normalised context pack {kind: "context_pack", name, version (default "1"), description, budget_tokens, sources: [{kind: "file"|"glob"|"artifact"|"note"|"url", path|pattern|id|text|url, priority (default 0), required (default false)}]}; a string source is a file path, or a glob when it holds * ? [`,
		contextPackManifest)
	lib.Def("context_pack_manifest_parse", "context_pack_manifest_parse(text: string, format?: string) -> dict",
		`parse a context pack manifest written in TOML (the default; [[sources]] tables) or JSON (format "json", or text starting with "{") and check it as context_pack_manifest does`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "context_pack_manifest_parse"
			if err := need(name, a, 0); err != nil {
				return vm.Value{}, err
			}
			s, ok := a.Str(0)
			if !ok {
				return vm.Value{}, vm.Runtimef("%s: expected string at argument 1, got %s", name, a.At(0).Type())
			}
			format := ""
			if a.Given(1) {
				f, ok := a.Str(1)
				if !ok || (f != "toml" && f != "json") {
					return vm.Value{}, vm.Throwf("%s: format must be \"toml\" or \"json\", got %s", name, lib.Display(a.At(1)))
				}
				format = f
			}
			if format == "" {
				format = "toml"
				if strings.HasPrefix(strings.TrimSpace(s), "{") {
					format = "json"
				}
			}
			var v vm.Value
			if format == "json" {
				pv, err := json.ParseOn(th, s)
				if e, stopped := err.(*vm.Error); stopped {
					return vm.Value{}, e
				}
				if err != nil {
					return vm.Value{}, vm.Throwf("%s: JSON parse error: %s", name, err.Error())
				}
				v = pv
			} else {
				var m map[string]any
				if err := toml.Unmarshal([]byte(s), &m); err != nil {
					return vm.Value{}, vm.Throwf("%s: TOML parse error: %s", name, err)
				}
				if m == nil {
					m = map[string]any{}
				}
				v = jsonschema.FromAny(m)
			}
			d, ok := v.AsDict()
			if !ok {
				return vm.Value{}, vm.Throwf("%s: the manifest must be an object, got %s", name, v.Type())
			}
			m, err := contextPackManifest(name, d)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(m), nil
		})
	lib.Def("context_pack_suggestions", "context_pack_suggestions(input: list, options?: dict) -> list",
		`files to add to a context pack, from what a run touched: input items are paths or dicts naming path/file/paths/files (also in their context or data: friction events, artifacts); each path not covered by options.manifest's file and glob sources is counted, and the result is [{kind: "file", path, count, score, reason}], most mentioned first (score = count / the top count), at most options.limit (default 10), only paths seen options.min_count times (default 1)`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "context_pack_suggestions"
			if err := need(name, a, 0); err != nil {
				return vm.Value{}, err
			}
			items, ok := a.List(0)
			if !ok {
				return vm.Value{}, vm.Typef("%s: input must be a list, got %s", name, a.At(0).Type())
			}
			var manifest *vm.Dict
			limit, minCount := 10, 1
			if a.Given(1) {
				opts, ok := a.Dict(1)
				if !ok {
					return vm.Value{}, lib.BadOptions(name, a.At(1))
				}
				if err := lib.CheckOptions(name, opts, []string{"manifest", "limit", "min_count"}); err != nil {
					return vm.Value{}, err
				}
				if v, ok := opts.Get("manifest"); ok && !v.IsNil() {
					md, ok := v.AsDict()
					if !ok {
						return vm.Value{}, vm.Typef("%s: manifest must be a dict, got %s", name, v.Type())
					}
					m, err := contextPackManifest(name, md)
					if err != nil {
						return vm.Value{}, err
					}
					manifest = m
				}
				for key, dst := range map[string]*int{"limit": &limit, "min_count": &minCount} {
					if v, ok := opts.Get(key); ok && !v.IsNil() {
						n, ok := v.AsInt()
						if !ok || n < 1 {
							return vm.Value{}, vm.Throwf("%s: %s must be a positive int, got %s", name, key, lib.Display(v))
						}
						*dst = int(n)
					}
				}
			}
			counts := map[string]int{}
			for _, it := range items.Items() {
				mentionedPaths(it, 0, func(p string) { counts[path.Clean(p)]++ })
			}
			type cand struct {
				path  string
				count int
			}
			var cs []cand
			top := 0
			for p, n := range counts {
				if n < minCount || covered(manifest, p) {
					continue
				}
				cs = append(cs, cand{p, n})
				top = max(top, n)
			}
			slices.SortFunc(cs, func(x, y cand) int {
				if x.count != y.count {
					return y.count - x.count
				}
				return strings.Compare(x.path, y.path)
			})
			if len(cs) > limit {
				cs = cs[:limit]
			}
			out := make([]vm.Value, len(cs))
			for i, c := range cs {
				reason := "mentioned once"
				if c.count > 1 {
					reason = fmt.Sprintf("mentioned %d times", c.count)
				}
				if manifest != nil {
					reason += ", not in the pack"
				}
				out[i] = vm.Of(lib.DictOf("kind", vm.Str("file"), "path", vm.Str(c.path), "count", lib.IntOf(c.count),
					"score", vm.FloatOf(float64(c.count)/float64(top)), "reason", vm.Str(reason)))
			}
			return vm.Of(lib.List(out)), nil
		})
}
