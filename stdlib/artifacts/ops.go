package artifacts

// artifact_derive, artifact_select and artifact_context (docs/artifacts.md).

import (
	"path"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

var deriveKeys = []string{"kind", "data", "title", "tags", "provenance", "id"}

func derive(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const name = "artifact_derive"
	parent, err := artifactArg(name, a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	if !a.Has(1) {
		return vm.Value{}, vm.Runtimef("%s: missing argument 2", name)
	}
	ch, ok := a.Dict(1)
	if !ok {
		return vm.Value{}, vm.Runtimef("%s: changes must be a dict, got %s", name, a.At(1).Type())
	}
	for _, k := range ch.Keys() {
		if !slices.Contains(deriveKeys, k) {
			return vm.Value{}, vm.Runtimef("%s: unknown change `%s` (expected one of %s)", name, k, strings.Join(deriveKeys, ", "))
		}
	}
	kind := str(parent, "kind")
	if v := lib.Get(ch, "kind"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok {
			return vm.Value{}, vm.Runtimef("%s: `kind` must be a string, got %s", name, v.Type())
		}
		kind = s.Go()
	}
	data := lib.Get(parent, "data")
	if v, ok := ch.Get("data"); ok {
		pd, pok := data.AsDict()
		cd, cok := v.AsDict()
		if pok && cok {
			data = vm.Of(pd.Merge(cd))
		} else {
			data = v
		}
	}
	opts := lib.DictOf("parent", lib.Get(parent, "id"))
	for _, k := range []string{"title", "tags"} {
		v := lib.Get(ch, k)
		if v.IsNil() {
			v = lib.Get(parent, k)
		}
		if !v.IsNil() {
			opts = opts.Set(k, v)
		}
	}
	if v := lib.Get(ch, "id"); !v.IsNil() {
		opts = opts.Set("id", v)
	}
	prov := lib.DictOf("source", vm.Str("derived"), "builtin", vm.Str(name))
	if pp, ok := lib.Get(parent, "provenance").AsDict(); ok {
		prov = pp
	}
	prov = prov.Set("derived_from", lib.Get(parent, "id"))
	if v := lib.Get(ch, "provenance"); !v.IsNil() {
		d, ok := v.AsDict()
		if !ok {
			return vm.Value{}, vm.Runtimef("%s: `provenance` must be a dict, got %s", name, v.Type())
		}
		prov = prov.Merge(d)
	}
	opts = opts.Set("provenance", vm.Of(prov))
	return build(th, name, kind, data, opts)
}

var queryKeys = []string{"kind", "tags", "any_tags", "ids", "path", "parent", "where", "limit"}

func strSet(name, key string, v vm.Value) ([]string, error) {
	if s, ok := v.AsString(); ok {
		return []string{s.Go()}, nil
	}
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Runtimef("%s: query `%s` must be a string or a list of strings, got %s", name, key, v.Type())
	}
	var out []string
	for _, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return nil, vm.Runtimef("%s: query `%s` must be a string or a list of strings, got an element of type %s", name, key, it.Type())
		}
		out = append(out, s.Go())
	}
	return out, nil
}

func tagsOf(d *vm.Dict) []string {
	l, _ := lib.Get(d, "tags").AsList()
	var out []string
	if l != nil {
		for _, t := range l.Items() {
			if s, ok := t.AsString(); ok {
				out = append(out, s.Go())
			}
		}
	}
	return out
}

func artifactList(name string, a vm.Args) ([]*vm.Dict, []vm.Value, error) {
	if !a.Has(0) {
		return nil, nil, vm.Runtimef("%s: missing argument 1", name)
	}
	l, ok := a.List(0)
	if !ok {
		return nil, nil, vm.Runtimef("%s: expected a list of artifacts at argument 1, got %s", name, a.At(0).Type())
	}
	ds := make([]*vm.Dict, l.Len())
	for i, it := range l.Items() {
		d, ok := isArtifact(it)
		if !ok {
			return nil, nil, vm.Runtimef("%s: element %d is not an artifact", name, i)
		}
		ds[i] = d
	}
	return ds, l.Items(), nil
}

func selectArtifacts(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const name = "artifact_select"
	ds, vals, err := artifactList(name, a)
	if err != nil {
		return vm.Value{}, err
	}
	if !a.Has(1) {
		return vm.Value{}, vm.Runtimef("%s: missing argument 2", name)
	}
	fn := vm.Nil
	q, ok := a.Dict(1)
	if !ok {
		f, ok := a.Callable(1)
		if !ok {
			return vm.Value{}, vm.Runtimef("%s: query must be a dict or a function, got %s", name, a.At(1).Type())
		}
		fn, q = f, vm.NewDict()
	}
	for _, k := range q.Keys() {
		if !slices.Contains(queryKeys, k) {
			return vm.Value{}, vm.Runtimef("%s: unknown query key `%s` (expected one of %s)", name, k, strings.Join(queryKeys, ", "))
		}
	}
	sets := map[string][]string{}
	for _, k := range []string{"kind", "tags", "any_tags", "ids", "path", "parent"} {
		if v := lib.Get(q, k); !v.IsNil() {
			s, err := strSet(name, k, v)
			if err != nil {
				return vm.Value{}, err
			}
			sets[k] = s
		}
	}
	if v := lib.Get(q, "where"); !v.IsNil() {
		if !fn.IsNil() {
			return vm.Value{}, vm.Runtimef("%s: query `where` must be a function", name)
		}
		f, ok := vm.Args{v}.Callable(0)
		if !ok {
			return vm.Value{}, vm.Runtimef("%s: query `where` must be a function, got %s", name, v.Type())
		}
		fn = f
	}
	limit := int64(-1)
	if v := lib.Get(q, "limit"); !v.IsNil() {
		n, ok := v.AsInt()
		if !ok || n < 0 {
			return vm.Value{}, vm.Runtimef("%s: query `limit` must be a non-negative int, got %s", name, lib.Display(v))
		}
		limit = int64(n)
	}
	var out []vm.Value
	for i, d := range ds {
		if limit >= 0 && int64(len(out)) >= limit {
			break
		}
		if s, ok := sets["kind"]; ok && !slices.Contains(s, str(d, "kind")) {
			continue
		}
		if s, ok := sets["ids"]; ok && !slices.Contains(s, str(d, "id")) {
			continue
		}
		if s, ok := sets["parent"]; ok && !slices.Contains(s, str(d, "parent")) {
			continue
		}
		tags := tagsOf(d)
		if s, ok := sets["tags"]; ok && !containsAll(tags, s) {
			continue
		}
		if s, ok := sets["any_tags"]; ok && !slices.ContainsFunc(s, func(t string) bool { return slices.Contains(tags, t) }) {
			continue
		}
		if s, ok := sets["path"]; ok {
			data, _ := lib.Get(d, "data").AsDict()
			p := ""
			if data != nil {
				p = str(data, "path")
			}
			if p == "" || !slices.ContainsFunc(s, func(g string) bool { m, _ := path.Match(g, p); return m }) {
				continue
			}
		}
		if !fn.IsNil() {
			ok, err := lib.Truth(th, fn, vals[i])
			if err != nil {
				return vm.Value{}, err
			}
			if !ok {
				continue
			}
		}
		out = append(out, vals[i])
	}
	return vm.Of(lib.List(out)), nil
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// render is an artifact as a prompt section: a header line and its body
// (the main text field of the kind, else the data's JSON).
func render(d *vm.Dict) string {
	var sb strings.Builder
	sb.WriteString("## " + str(d, "kind"))
	if t := str(d, "title"); t != "" {
		sb.WriteString(": " + t)
	}
	sb.WriteString(" [" + str(d, "id") + "]\n")
	data := lib.Get(d, "data")
	body := ""
	if dd, ok := data.AsDict(); ok {
		if p := str(dd, "path"); p != "" {
			sb.WriteString("path: " + p + "\n")
		}
		for _, k := range []string{"content", "text", "diff", "patch", "output", "stdout"} {
			if s := str(dd, k); s != "" {
				body = s
				break
			}
		}
		if body == "" {
			body = json.Stringify(data)
		}
	} else if s, ok := data.AsString(); ok {
		body = s.Go()
	} else {
		body = json.Stringify(data)
	}
	sb.WriteString(strings.TrimRight(body, "\n"))
	sb.WriteString("\n")
	return sb.String()
}

func context(a vm.Args) (vm.Value, error) {
	const name = "artifact_context"
	ds, _, err := artifactList(name, a)
	if err != nil {
		return vm.Value{}, err
	}
	if !a.Has(1) {
		return vm.Value{}, vm.Runtimef("%s: missing argument 2", name)
	}
	budget, ok := a.Int(1)
	if !ok || budget < 0 {
		return vm.Value{}, vm.Runtimef("%s: budget must be a non-negative int (tokens), got %s", name, lib.Display(a.At(1)))
	}
	var parts []string
	var included, omitted []vm.Value
	used := int64(0)
	for _, d := range ds {
		sec := render(d)
		if len(parts) > 0 {
			sec = "\n" + sec
		}
		t := tokens(sec)
		if used+t > budget {
			omitted = append(omitted, lib.Get(d, "id"))
			continue
		}
		used += t
		parts = append(parts, sec)
		included = append(included, lib.Get(d, "id"))
	}
	return vm.Of(lib.DictOf(
		"text", vm.Str(strings.Join(parts, "")),
		"tokens", vm.IntOf(used),
		"budget", vm.IntOf(budget),
		"included", vm.Of(lib.List(included)),
		"omitted", vm.Of(lib.List(omitted)),
	)), nil
}

func init() {
	lib.Def("artifact_derive", "artifact_derive(parent: artifact, changes: dict)",
		"a new artifact derived from parent: changes {kind, data (merged into a dict parent's data, else replacing it), title, tags, provenance, id}; parent and provenance.derived_from name the parent's id",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return derive(th, a) })
	lib.Def("artifact_select", "artifact_select(artifacts: list, query: dict | fn)",
		"the artifacts matching query, in order: {kind, ids, parent (string or list), tags (all of), any_tags, path (glob on data.path), where: fn, limit}, or a predicate",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return selectArtifacts(th, a) })
	lib.Def("artifact_context", "artifact_context(artifacts: list, budget: int)",
		"render artifacts, in order, as prompt sections (\"## kind: title [id]\" and the main text) while they fit a token budget (estimate_tokens): {text, tokens, budget, included, omitted}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return context(a) })
}
