package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/llm"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

var optionKeys = []string{"id", "title", "tags", "provenance", "source", "parent"}

func str(d *vm.Dict, k string) string {
	s, _ := lib.Get(d, k).AsString()
	return s.Go()
}

type seqKey struct{}

// newID is "art_" and 16 hex digits of the SHA-256 of the kind, the
// data's JSON form and the run's artifact counter: stable for a program,
// distinct for two artifacts of equal content.
func newID(th *vm.Thread, kind string, data vm.Value) string {
	n := th.VM().Local(seqKey{}, func() any { return new(atomic.Int64) }).(*atomic.Int64).Add(1)
	h := sha256.Sum256([]byte(kind + "\x00" + json.Stringify(data) + "\x00" + time.Duration(n).String()))
	return "art_" + hex.EncodeToString(h[:8])
}

// build builds an artifact; opts are validated against optionKeys.
func build(th *vm.Thread, name, kind string, data vm.Value, opts *vm.Dict) (vm.Value, error) {
	if strings.TrimSpace(kind) == "" {
		return vm.Value{}, vm.Runtimef("%s: kind must not be empty", name)
	}
	if err := lib.CheckOptions(name, opts, optionKeys); err != nil {
		return vm.Value{}, err
	}
	if err := json.RefuseNonData(name, data); err != nil {
		return vm.Value{}, err
	}
	id := vm.Str(newID(th, kind, data))
	if v := lib.Get(opts, "id"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || s.Go() == "" {
			return vm.Value{}, vm.Runtimef("%s: option `id` must be a non-empty string, got %s", name, lib.Shown(v))
		}
		id = v
	}
	tags := vm.Of(lib.StrList(nil))
	if v := lib.Get(opts, "tags"); !v.IsNil() {
		l, ok := v.AsList()
		if !ok {
			return vm.Value{}, vm.Runtimef("%s: option `tags` must be a list of strings, got %s", name, v.Type())
		}
		for _, t := range l.Items() {
			if _, ok := t.AsString(); !ok {
				return vm.Value{}, vm.Runtimef("%s: option `tags` must be a list of strings, got an element of type %s", name, t.Type())
			}
		}
		tags = v
	}
	title := lib.Get(opts, "title")
	if !title.IsNil() {
		if _, ok := title.AsString(); !ok {
			return vm.Value{}, vm.Runtimef("%s: option `title` must be a string, got %s", name, title.Type())
		}
	}
	prov := lib.Get(opts, "provenance")
	switch {
	case prov.IsNil():
		prov = vm.Of(lib.DictOf("source", orStr(lib.Get(opts, "source"), "harn"), "builtin", vm.Str(name)))
	default:
		if s, ok := prov.AsString(); ok {
			prov = vm.Of(lib.DictOf("source", vm.Str(s.Go()), "builtin", vm.Str(name)))
		} else if _, ok := prov.AsDict(); !ok {
			return vm.Value{}, vm.Runtimef("%s: option `provenance` must be a dict or string, got %s", name, prov.Type())
		}
	}
	parent := lib.Get(opts, "parent")
	return vm.Of(lib.DictOf(
		"_type", vm.Str("artifact"),
		"id", id,
		"kind", vm.Str(kind),
		"title", title,
		"data", data,
		"tags", tags,
		"parent", parent,
		"created_at", vm.Str(htime.VMNow(th).UTC().Format(time.RFC3339Nano)),
		"provenance", prov,
	)), nil
}

func orStr(v vm.Value, def string) vm.Value {
	if _, ok := v.AsString(); ok {
		return v
	}
	return vm.Str(def)
}

// isArtifact reports whether v is an artifact dict.
func isArtifact(v vm.Value) (*vm.Dict, bool) {
	d, ok := v.AsDict()
	if !ok || str(d, "_type") != "artifact" {
		return nil, false
	}
	return d, true
}

func artifactArg(name string, a vm.Args, i int) (*vm.Dict, error) {
	if !a.Has(i) {
		return nil, vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	d, ok := isArtifact(a.At(i))
	if !ok {
		return nil, vm.Runtimef("%s: argument %d must be an artifact (from artifact(…)), got %s", name, i+1, a.At(i).Type())
	}
	return d, nil
}

func strArg(name string, a vm.Args, i int, what string) (string, error) {
	if !a.Has(i) {
		return "", vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	s, ok := a.Str(i)
	if !ok {
		return "", vm.Runtimef("%s: %s must be a string, got %s", name, what, a.At(i).Type())
	}
	return s, nil
}

// splitOpts separates the artifact options from kind-specific fields.
func splitOpts(opts *vm.Dict) (artOpts, fields *vm.Dict) {
	artOpts, fields = vm.NewDict(), vm.NewDict()
	opts.Range(func(k string, v vm.Value) bool {
		if slices.Contains(optionKeys, k) {
			artOpts = artOpts.Set(k, v)
		} else {
			fields = fields.Set(k, v)
		}
		return true
	})
	return
}

var languages = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".ts": "typescript", ".rs": "rust",
	".harn": "harn", ".md": "markdown", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
	".toml": "toml", ".sh": "shell", ".rb": "ruby", ".java": "java", ".c": "c", ".h": "c",
	".cpp": "cpp", ".html": "html", ".css": "css", ".sql": "sql", ".txt": "text",
}

func language(p string) vm.Value {
	if l, ok := languages[strings.ToLower(path.Ext(p))]; ok {
		return vm.Str(l)
	}
	return vm.Nil
}

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// diffStats counts the added and removed lines of a unified diff and the
// files it touches.
func diffStats(diff string) (files []string, add, del int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			f := strings.TrimSpace(strings.TrimPrefix(l, "+++ "))
			if f == "/dev/null" {
				continue
			}
			f = strings.TrimPrefix(f, "b/")
			if i := strings.IndexByte(f, '\t'); i >= 0 {
				f = f[:i]
			}
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		case strings.HasPrefix(l, "--- "):
			if f := strings.TrimSpace(strings.TrimPrefix(l, "--- ")); f != "/dev/null" {
				f = strings.TrimPrefix(f, "a/")
				if i := strings.IndexByte(f, '\t'); i >= 0 {
					f = f[:i]
				}
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return
}

// lineDiff is a unified-style diff of two texts (LCS over lines; one
// hunk with no context limit), with its counts.
func lineDiff(p, before, after string) (string, int, int) {
	a, b := splitLines(before), splitLines(after)
	n, m := len(a), len(b)
	if n*m > 4_000_000 {
		// Too large for the quadratic table: whole replacement.
		var sb strings.Builder
		sb.WriteString("--- a/" + p + "\n+++ b/" + p + "\n")
		for _, l := range a {
			sb.WriteString("-" + l + "\n")
		}
		for _, l := range b {
			sb.WriteString("+" + l + "\n")
		}
		return sb.String(), m, n
	}
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var sb strings.Builder
	if p == "" {
		p = "file"
	}
	sb.WriteString("--- a/" + p + "\n+++ b/" + p + "\n")
	add, del := 0, 0
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			sb.WriteString(" " + a[i] + "\n")
			i++
			j++
		case i < n && (j == m || t[i+1][j] >= t[i][j+1]):
			sb.WriteString("-" + a[i] + "\n")
			del++
			i++
		default:
			sb.WriteString("+" + b[j] + "\n")
			add++
			j++
		}
	}
	return sb.String(), add, del
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func tokens(s string) int64 { return llm.EstimateTokens(vm.Str(s)) }

func slicesSort(s []string) { slices.Sort(s) }
