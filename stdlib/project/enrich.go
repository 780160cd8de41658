package project

// project_enrich_native: package details read from a catalog's manifests.

import (
	"bufio"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"

	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("project_enrich_native", "project_enrich_native(catalog: dict, options?: dict) -> dict",
		"the catalog with packages: [{path, kind, name, version, dependencies, dev_dependencies}] read from its manifests (go.mod, package.json, Cargo.toml, pyproject.toml, harn.toml, composer.json) and project_name; options root (default catalog.root), dependencies (true)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "project_enrich_native"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1 (a catalog)", name)
			}
			cat, ok := a.Dict(0)
			if !ok {
				return vm.Value{}, vm.Typef("%s: expected a catalog (dict) at argument 1, got %s", name, a.At(0).Type())
			}
			root, withDeps := "", true
			if r, ok := cat.Get("root"); ok {
				if s, ok := r.AsString(); ok {
					root = s.Go()
				}
			}
			if a.Given(1) {
				opts, ok := a.Dict(1)
				if !ok {
					return vm.Value{}, lib.BadOptions(name, a.At(1))
				}
				if err := lib.CheckOptions(name, opts, []string{"root", "dependencies"}); err != nil {
					return vm.Value{}, err
				}
				var err error
				opts.Range(func(k string, v vm.Value) bool {
					switch k {
					case "root":
						s, ok := v.AsString()
						if !ok {
							err = vm.Typef("%s: option root must be a string, got %s", name, v.Type())
							return false
						}
						root = s.Go()
					case "dependencies":
						b, ok := v.AsBool()
						if !ok {
							err = vm.Typef("%s: option dependencies must be a bool, got %s", name, v.Type())
							return false
						}
						withDeps = bool(b)
					}
					return err == nil
				})
				if err != nil {
					return vm.Value{}, err
				}
			}
			if root == "" {
				return vm.Value{}, vm.Runtimef("%s: the catalog has no root; pass the result of project_catalog_native or project_scan_native, or options.root", name)
			}
			root = hfs.ResolvePath(th, root)
			var manifests []string
			for _, field := range []string{"manifests", "build_files"} {
				v, ok := cat.Get(field)
				if !ok {
					continue
				}
				l, ok := v.AsList()
				if !ok {
					return vm.Value{}, vm.Typef("%s: catalog.%s must be a list, got %s", name, field, v.Type())
				}
				for _, it := range l.Items() {
					if s, ok := it.AsString(); ok {
						manifests = append(manifests, s.Go())
					} else if d, ok := it.AsDict(); ok {
						if p, ok := d.Get("path"); ok {
							manifests = append(manifests, vm.ToDisplay(p))
						}
					}
				}
				break
			}
			var pkgs []vm.Value
			projectName := vm.Nil
			for _, m := range manifests {
				info := readManifest(filepath.Join(root, filepath.FromSlash(m)), path.Base(m))
				if info == nil {
					continue
				}
				d := info.dict(m, withDeps)
				pkgs = append(pkgs, vm.Of(d))
				if projectName.Kind() == vm.KNil && !strings.Contains(m, "/") && info.name != "" {
					projectName = vm.Str(info.name)
				}
			}
			if projectName.Kind() == vm.KNil {
				if n, ok := cat.Get("name"); ok {
					projectName = n
				} else {
					projectName = vm.Str(filepath.Base(root))
				}
			}
			out := cat.Set("packages", vm.Of(lib.List(pkgs))).Set("project_name", projectName)
			return vm.Of(out), nil
		})
}

// manifestInfo is what one manifest tells about its package.
type manifestInfo struct {
	kind, name, version, langVersion, err string
	deps, devDeps                         []string
}

func (m *manifestInfo) dict(p string, withDeps bool) *vm.Dict {
	opt := func(s string) vm.Value {
		if s == "" {
			return vm.Nil
		}
		return vm.Str(s)
	}
	d := lib.DictOf("path", vm.Str(p), "kind", vm.Str(m.kind), "name", opt(m.name), "version", opt(m.version))
	if m.langVersion != "" {
		d = d.Set("language_version", vm.Str(m.langVersion))
	}
	if withDeps {
		d = d.Set("dependencies", vm.Of(lib.StrList(sortedUnique(m.deps))))
		d = d.Set("dev_dependencies", vm.Of(lib.StrList(sortedUnique(m.devDeps))))
	}
	if m.err != "" {
		d = d.Set("error", vm.Str(m.err))
	}
	return d
}

func sortedUnique(ss []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// readManifest reads the manifests it knows; nil for other build files
// (a Makefile has no package name).
func readManifest(p, base string) *manifestInfo {
	kind, known := map[string]string{
		"go.mod": "go", "package.json": "node", "Cargo.toml": "rust", "pyproject.toml": "python",
		"harn.toml": "harn", "composer.json": "php", "deno.json": "deno",
	}[base]
	if !known {
		return nil
	}
	m := &manifestInfo{kind: kind}
	b, err := os.ReadFile(p)
	if err != nil {
		m.err = "cannot read: " + hfs.OSErrorText(err)
		return m
	}
	switch base {
	case "go.mod":
		readGoMod(string(b), m)
	case "package.json", "composer.json", "deno.json":
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			m.err = "invalid JSON: " + err.Error()
			return m
		}
		m.name, m.version = str(doc["name"]), str(doc["version"])
		m.deps = keysOf(doc[map[string]string{"composer.json": "require", "deno.json": "imports"}[base]])
		if base == "package.json" {
			m.deps = keysOf(doc["dependencies"])
			m.devDeps = keysOf(doc["devDependencies"])
		} else if base == "composer.json" {
			m.devDeps = keysOf(doc["require-dev"])
		}
	default:
		var doc map[string]any
		if err := toml.Unmarshal(b, &doc); err != nil {
			m.err = "invalid TOML: " + strings.TrimSpace(err.Error())
			return m
		}
		switch base {
		case "Cargo.toml":
			pkg, _ := doc["package"].(map[string]any)
			m.name, m.version = str(pkg["name"]), str(pkg["version"])
			m.langVersion = str(pkg["rust-version"])
			m.deps = keysOf(doc["dependencies"])
			m.devDeps = keysOf(doc["dev-dependencies"])
		case "pyproject.toml":
			proj, _ := doc["project"].(map[string]any)
			if proj != nil {
				m.name, m.version = str(proj["name"]), str(proj["version"])
				m.langVersion = str(proj["requires-python"])
				m.deps = pyReqNames(proj["dependencies"])
				if opt, ok := proj["optional-dependencies"].(map[string]any); ok {
					for _, v := range opt {
						m.devDeps = append(m.devDeps, pyReqNames(v)...)
					}
				}
			} else if tool, ok := doc["tool"].(map[string]any); ok {
				poetry, _ := tool["poetry"].(map[string]any)
				m.name, m.version = str(poetry["name"]), str(poetry["version"])
				for _, d := range keysOf(poetry["dependencies"]) {
					if d != "python" {
						m.deps = append(m.deps, d)
					}
				}
				m.devDeps = keysOf(poetry["dev-dependencies"])
			}
		case "harn.toml":
			pkg, _ := doc["package"].(map[string]any)
			m.name, m.version = str(pkg["name"]), str(pkg["version"])
			m.deps = keysOf(doc["dependencies"])
		}
	}
	return m
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func keysOf(v any) []string {
	mp, _ := v.(map[string]any)
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	return out
}

var pyReqName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`) })

// pyReqNames are the distribution names of PEP 508 requirement strings.
func pyReqNames(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, it := range l {
		if m := pyReqName().FindStringSubmatch(str(it)); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// readGoMod reads the module path, the go directive and the required
// modules (indirect ones too) of a go.mod.
func readGoMod(text string, m *manifestInfo) {
	sc := bufio.NewScanner(strings.NewReader(text))
	inRequire := false
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if inRequire {
			if f[0] == ")" {
				inRequire = false
			} else {
				m.deps = append(m.deps, f[0])
			}
			continue
		}
		switch f[0] {
		case "module":
			if len(f) > 1 {
				m.name = strings.Trim(f[1], `"`)
			}
		case "go":
			if len(f) > 1 {
				m.langVersion = f[1]
			}
		case "require":
			if len(f) > 1 && f[1] == "(" {
				inRequire = true
			} else if len(f) > 1 {
				m.deps = append(m.deps, f[1])
			}
		}
	}
}
