package builtindoc

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/stdlib/std"
)

// notFunctions are identifiers the references write where a builtin's name
// could stand (`name(` or a bare name in a §4 list or the §5 inventory)
// that are not builtin functions, each with what they are. Everything else
// those places name must be a builtin or a std/* module function.
var notFunctions = map[string]string{
	// words of prose and placeholders
	"a": "prose", "b": "prose", "f": "placeholder callback", "cb": "placeholder callback",
	"are": "prose", "beginning": "prose", "via": "prose", "with": "prose", "forms": "prose",
	"compiler": "prose", "internals": "prose", "foo": "example filter name", "foobar": "example input",
	"directory": "prose", "string": "prose", "name": "prose", "number": "schema type name",
	"root": "schema error path", "_decode": "the matching decoders, spelled out in §4.5",
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad": "sha256 example output",
	"quantile": "normal_quantile, abbreviated in §4.10",
	"state":    "std/agent_state, a module", "agent_state": "std/agent_state, a module",
	"memory": "std/memory, a module", "patch": "http_patch, abbreviated in §4.3",
	// option and schema keys
	"max_depth": "walk_dir option", "follow_symlinks": "walk_dir option", "delimiter": "csv_parse option",
	"headers": "HTTP option", "auth": "HTTP option", "body": "HTTP option", "query": "HTTP option",
	"timeout_ms": "HTTP option", "follow_redirects": "HTTP option", "multipart": "HTTP option",
	"proxy": "HTTP option", "tls": "HTTP option", "decompress": "HTTP option", "response": "http_mock argument",
	"ok": "HTTP result key", "properties": "schema key", "required": "schema key", "items": "schema key",
	"additional_properties": "schema key", "nullable": "schema key", "min_length": "schema key",
	"max_length": "schema key", "pattern": "schema key", "min_items": "schema key", "max_items": "schema key",
	"union": "schema key", "all_of": "schema key", "default": "schema key",
	// template filters and operators (§4.8)
	"upper": "template filter", "lower": "template filter", "capitalize": "template filter",
	"title": "template filter", "length": "template filter", "first": "template filter",
	"last": "template filter", "reverse": "template filter", "json": "template filter",
	"lines": "template filter", "escape_md": "template filter", "and": "template operator",
	"or": "template operator", "not": "template operator",
	// keywords and syntax
	"const": "schema key", "enum": "schema key", "type": "schema key", "nil": "a literal",
	"spawn": "§5: a VM call form (syntax)", "call": "prose (§5: VM call forms)",
	"display": "§1.1's display form, written as a function", "map": "the jq map(…) of §3.12",
	// names that are deliberately not builtins
	"str": "§3.2: there is no str()", "int": "§3.2: there is no int()", "float": "§3.2: there is no float()",
	"bool": "§3.2: there is no bool()", "pi": "§3.11: a global variable, not a function",
	"harn_builtin": "upstream's Rust attribute",
	"mkdtemp":      "a harness.fs method", "workspace_temp_dir": "a harness.fs method",
	"mkdtemp_in_workspace": "a harness.fs method",
	// parameters and fields in docs/spec/newer.md §2
	"year": "a calendar parameter", "max_age_s": "a store_stale parameter",
	"business_day": "a business_window result key", "local_date": "a business_window result key",
	"starts_at": "a business_window result key", "ends_at": "a business_window result key",
	"clamp": "§3.1 describes progress's clamp(current, 0, total); std/math has clamp",
}

// TestEveryFunctionTheReferencesNameExists is the signature sweep's first
// step, kept: every function name written in docs/spec/builtins.md §3–§5
// and docs/spec/newer.md §2 (a call form `name(`, a bare name in the §4
// lists, each name of the §5 inventory with its `a_{x,y}` groups expanded)
// is a registered builtin or a function of a std/* module, or is listed in
// notFunctions with what it is.
func TestEveryFunctionTheReferencesNameExists(t *testing.T) {
	known := map[string]bool{}
	for _, b := range stdlib.Builtins() {
		known[b.Name()] = true
	}
	pubFn := regexp.MustCompile(`(?m)^pub fn ([a-z_][a-z0-9_]*)`)
	moduleFns := map[string]bool{}
	for _, m := range std.Names() {
		src, _ := std.Module(m)
		for _, match := range pubFn.FindAllStringSubmatch(string(src), -1) {
			known[match[1]] = true
			moduleFns[match[1]] = true
		}
	}
	names := specFunctionNames(t, moduleFns)
	if len(names) < 700 {
		t.Fatalf("only %d names found in the references; the extraction is broken", len(names))
	}
	var unknown []string
	for name, where := range names {
		if !known[name] && notFunctions[name] == "" {
			unknown = append(unknown, name+" ("+where+")")
		}
	}
	sort.Strings(unknown)
	for _, u := range unknown {
		t.Errorf("the references name %s, which is neither a builtin nor a std module function (or add it to notFunctions with what it is)", u)
	}
	t.Logf("%d names checked", len(names))
	for _, n := range []string{"duration_seconds", "http_put", "normal_cdf", "chebyshev_distance", "start_of_week", "schema_string", "log_warn", "path_parent", "sync_rwlock_acquire", "project_enrich_native", "llm_call_structured_result", "__io_println", "kmeans"} {
		if names[n] == "" {
			t.Errorf("the extraction missed %s", n)
		}
	}
}

// specFunctionNames maps each name to the section that first names it.
func specFunctionNames(t *testing.T, moduleFns map[string]bool) map[string]string {
	names := map[string]string{}
	add := func(n, where string) {
		if n != "" && !strings.HasPrefix(n, "__") || strings.HasPrefix(n, "__io_") || strings.HasPrefix(n, "__dict_") {
			if _, seen := names[n]; !seen {
				names[n] = where
			}
		}
	}
	call := regexp.MustCompile(`(?:^|[^.\w])([a-z_][a-z0-9_]*)\(`)
	bare := regexp.MustCompile("`([a-z_][a-z0-9_]*)`")
	prose := regexp.MustCompile(`(?:^|[^.\w])([a-z_][a-z0-9_]*)(?:[^\w:]|$)`)
	for _, doc := range []struct {
		file     string
		sections []string // section number prefixes read
		bare     bool     // also bare backticked names (the §4 lists)
	}{
		{"../docs/spec/builtins.md", []string{"3.", "4."}, true},
		{"../docs/spec/newer.md", []string{"2."}, false},
	} {
		data, err := os.ReadFile(doc.file)
		if err != nil {
			t.Fatal(err)
		}
		section := ""
		for _, line := range strings.Split(string(data), "\n") {
			if h, ok := strings.CutPrefix(line, "### "); ok {
				section, _, _ = strings.Cut(h, " ")
			} else if strings.HasPrefix(line, "## ") {
				section = ""
			}
			if !hasAnyPrefix(section, doc.sections) || strings.HasPrefix(line, "(upstream") {
				continue
			}
			where := doc.file[len("../docs/spec/"):] + " §" + section
			line = expandSlashes(line)
			for _, m := range call.FindAllStringSubmatch(line, -1) {
				add(m[1], where)
			}
			if section == "4.10" || section == "2.17" {
				// std modules listed in prose: keep the words that are
				// module functions, or that look like one (a_b)
				for _, m := range prose.FindAllStringSubmatch(line, -1) {
					if strings.Contains(m[1], "_") || moduleFns[m[1]] {
						add(m[1], where)
					}
				}
			}
			if doc.bare && strings.HasPrefix(section, "4.") {
				for _, m := range bare.FindAllStringSubmatch(line, -1) {
					add(m[1], where)
				}
			}
		}
		if doc.file == "../docs/spec/builtins.md" {
			for _, n := range inventoryNames(string(data)) {
				add(n, "builtins.md §5")
			}
		}
	}
	return names
}

// inventoryNames lists the names of docs/spec/builtins.md §5, one bullet at a time
// (a bullet's names may wrap), with `a_{x, y}` and `a{,_b}` expanded.
func inventoryNames(doc string) []string {
	_, rest, _ := strings.Cut(doc, "\n## 5.")
	section, _, _ := strings.Cut(rest, "\n## 6.")
	group := regexp.MustCompile(`([a-z_][a-z0-9_.]*)\{([^}]*)\}([a-z0-9_]*)`)
	word := regexp.MustCompile(`(?:^|[\s,;(])([a-z_][a-z0-9_]*)(?:[,;.]|\s|$)`)
	var out []string
	for _, bullet := range strings.Split(section, "\n* ")[1:] {
		_, body, _ := strings.Cut(strings.Join(strings.Fields(bullet), " "), ": ")
		body = group.ReplaceAllStringFunc(body, func(g string) string {
			m := group.FindStringSubmatch(g)
			var parts []string
			for _, alt := range strings.Split(m[2], ",") {
				if n := m[1] + strings.TrimSpace(alt) + m[3]; !strings.Contains(n, ".") {
					parts = append(parts, n)
				}
			}
			return strings.Join(parts, ", ")
		})
		for _, m := range word.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// expandSlashes spells out the references' slash groups:
// `duration_ms/seconds/days(n)` → `duration_ms(n), duration_seconds(n),
// duration_days(n)` (the first name's prefix up to its last _),
// `log_debug/log_info(` (full names kept), and
// `euclidean/manhattan/chebyshev_distance` (the last name's suffix).
func expandSlashes(line string) string {
	return slashGroup.ReplaceAllStringFunc(line, func(g string) string {
		paren := strings.HasSuffix(g, "(")
		parts := strings.Split(strings.TrimSuffix(g, "("), "/")
		first, last := parts[0], parts[len(parts)-1]
		prefix, suffix := "", ""
		if i := strings.LastIndex(first, "_"); i > 0 {
			prefix = first[:i+1]
		} else if i := strings.LastIndex(last, "_"); i > 0 {
			suffix = last[i:]
		}
		for i, p := range parts {
			switch {
			case prefix != "" && i > 0 && !strings.HasPrefix(p, prefix):
				parts[i] = prefix + p
			case suffix != "" && i < len(parts)-1:
				parts[i] = p + suffix
			}
			if paren {
				parts[i] += "("
			}
		}
		return strings.Join(parts, ", ")
	})
}

var slashGroup = regexp.MustCompile(`[a-z_][a-z0-9_]*(?:/[a-z_][a-z0-9_]*)+\(?`)

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
