// Package manifest reads the orchestrator's part of a project manifest
// (harn.toml, docs/spec/orchestrator.md §2): the [package] identity, the
// [exports] module aliases and the [[triggers]] bindings with their
// handler references, retry policy, flow control, budgets and secrets.
//
// Load decodes the file with go-toml, then validates every trigger
// field by field, so that a bad manifest is refused before anything is
// served. Every problem is reported, each naming the file, the line of
// its [[triggers]] table, the trigger's index and id, and the field:
//
//	harn.toml:14: [[triggers]][1] (id "nightly"): retry.max: must be between 0 and 100, got 250
//
// The package is static: it never runs Harn code. Whether a local
// handler names a function of its module is checked when the
// orchestrator loads the handlers (package orchestrator), with the same
// error shape (Manifest.Problem).
package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/lang/diag"
	"github.com/pelletier/go-toml/v2"
	"github.com/robfig/cron/v3"
)

// Manifest is a validated manifest.
type Manifest struct {
	// Path is the file as named by the caller; Root is its directory
	// (absolute), the project root.
	Path string
	Root string
	// Source is the file's bytes, served as harn://manifest.
	Source  []byte
	Package Package
	// Exports maps a module alias to a file relative to Root.
	Exports map[string]string
	// Dependencies lists the aliases of [dependencies], sorted; their
	// prompt libraries live under .harn/packages/<alias>/.
	Dependencies []string
	// Triggers are the bindings in manifest order, `sources` expanded.
	Triggers []*Trigger
}

// Package is the [package] table.
type Package struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Trigger returns the binding with id, or nil.
func (m *Manifest) Trigger(id string) *Trigger {
	for _, t := range m.Triggers {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// Problem is one thing wrong with a manifest.
type Problem struct {
	File  string
	Line  int // line of the [[triggers]] table (0 when unknown)
	Index int // the [[triggers]] index, -1 outside a trigger
	ID    string
	Field string
	Msg   string
}

func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Index >= 0 {
		fmt.Fprintf(&b, "[[triggers]][%d]", p.Index)
		if p.ID != "" {
			fmt.Fprintf(&b, " (id %q)", p.ID)
		}
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problem is a problem with trigger t found after Load (for example
// by the loader of its handlers), located like Load's own.
func (m *Manifest) Problem(t *Trigger, field, msg string) Problem {
	return Problem{File: m.Path, Line: t.Line, Index: t.Index, ID: t.ID, Field: field, Msg: msg}
}

// Error is a refused manifest: every problem found, in file order.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Options relax what Load requires of the environment, for a process
// that does not do everything a server does.
type Options struct {
	// NoWebhookSecrets accepts a webhook.secret_env whose variable is
	// unset: the process receives no webhook deliveries.
	NoWebhookSecrets bool
	// NoHandlerSecrets accepts a `secrets` entry whose variable is
	// unset: the process runs no handler.
	NoHandlerSecrets bool
}

// Load reads and validates the manifest at path.
func Load(path string) (*Manifest, error) { return LoadWith(path, Options{}) }

// LoadWith is Load with opts.
func LoadWith(path string, opts Options) (*Manifest, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWith(path, src, opts)
}

// Parse validates manifest source; path names it in errors and fixes
// the project root.
func Parse(path string, src []byte) (*Manifest, error) { return ParseWith(path, src, Options{}) }

// ParseWith is Parse with opts.
func ParseWith(path string, src []byte, opts Options) (*Manifest, error) {
	root, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		root = filepath.Dir(path)
	}
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, &Error{[]Problem{{File: fmt.Sprintf("%s:%d:%d", path, row, col), Index: -1, Msg: "invalid TOML: " + de.Error()}}}
		}
		return nil, &Error{[]Problem{{File: path, Index: -1, Msg: "invalid TOML: " + err.Error()}}}
	}
	m := &Manifest{Path: path, Root: root, Source: src, Exports: map[string]string{}}
	v := &validator{file: path, lines: triggerLines(src), tables: tableLines(src), opts: opts}
	v.top(m, doc)
	if len(v.problems) > 0 {
		return nil, &Error{v.problems}
	}
	return m, nil
}

// triggerLines finds the line of each [[triggers]] header, in order.
func triggerLines(src []byte) []int {
	var out []int
	for i, line := range bytes.Split(src, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if strings.HasPrefix(s, "[[") && strings.TrimSpace(strings.Trim(s, "[] \t")) == "triggers" && strings.HasSuffix(strings.SplitN(s, "#", 2)[0], "]]") {
			out = append(out, i+1)
		}
	}
	return out
}

// tableLines finds where each top-level key is first defined: its
// table header ([package], [package.x], [[triggers]]) or, before the
// first header, its assignment (package = …, package.name = …).
func tableLines(src []byte) map[string]int {
	out := map[string]int{}
	headers := false
	for i, raw := range bytes.Split(src, []byte("\n")) {
		s := strings.TrimSpace(string(raw))
		var key string
		switch {
		case strings.HasPrefix(s, "["):
			headers = true
			key = strings.TrimLeft(s, "[ \t")
		case !headers && s != "" && !strings.HasPrefix(s, "#"):
			key = s
		default:
			continue
		}
		if end := strings.IndexAny(key, ".=] \t"); end >= 0 {
			key = key[:end]
		}
		key = strings.Trim(key, `"'`)
		if _, seen := out[key]; !seen && key != "" {
			out[key] = i + 1
		}
	}
	return out
}

type validator struct {
	file  string
	opts  Options
	lines []int
	// tables maps a top-level key to the line that defines it.
	tables   map[string]int
	problems []Problem
	// the trigger being validated
	index int
	id    string
}

func (v *validator) fail(field, format string, args ...any) {
	line := v.line()
	if v.index < 0 {
		line = v.topLine(field)
	}
	p := Problem{File: v.file, Line: line, Index: v.index, ID: v.id, Field: field, Msg: fmt.Sprintf(format, args...)}
	if slices.Contains(v.problems, p) {
		return // a field the sources of one trigger share, reported once
	}
	v.problems = append(v.problems, p)
}

// line is the line of the [[triggers]] table being validated (of
// `triggers = [...]` for an inline array), 0 outside the triggers.
func (v *validator) line() int {
	switch {
	case v.index < 0:
		return 0
	case v.index < len(v.lines):
		return v.lines[v.index]
	}
	return v.tables["triggers"]
}

// topLine is the line that defines the top-level key of a field outside
// the triggers ("package" of package.name), 0 when unknown.
func (v *validator) topLine(field string) int {
	key, _, _ := strings.Cut(field, ".")
	return v.tables[key]
}

// orchestratorTables are the top-level tables the orchestrator reads.
// Other tables belong to other readers of harn.toml (connectors, MCP
// servers, capabilities …) and are left alone, except one whose name is a
// near miss of these: `[[trigger]]` would otherwise load no trigger at all.
var orchestratorTables = []string{"package", "exports", "dependencies", "triggers"}

func (v *validator) top(m *Manifest, doc map[string]any) {
	v.index = -1
	for _, key := range sortedKeys(doc) {
		if slices.Contains(orchestratorTables, key) {
			continue
		}
		if near := diag.Suggest(key, orchestratorTables); near != "" {
			v.fail(key, "unknown table (did you mean %s?)", near)
		}
	}
	if pkg, ok := doc["package"]; ok {
		t, ok := pkg.(map[string]any)
		if !ok {
			v.fail("package", "must be a table")
		} else {
			m.Package.Name, _ = v.str(t, "name", "package.name")
			m.Package.Version, _ = v.str(t, "version", "package.version")
		}
	}
	if ex, ok := doc["exports"]; ok {
		t, ok := ex.(map[string]any)
		if !ok {
			v.fail("exports", "must be a table of module alias = \"file\"")
		}
		for _, alias := range sortedKeys(t) {
			f := t[alias]
			s, ok := f.(string)
			switch {
			case !ok || s == "":
				v.fail("exports."+alias, "must be a file name (string)")
			case !identRe().MatchString(alias):
				v.fail("exports."+alias, "module alias must be an identifier")
			default:
				m.Exports[alias] = s
			}
		}
	}
	if raw, ok := doc["dependencies"]; ok {
		deps, ok := raw.(map[string]any)
		if !ok {
			v.fail("dependencies", "must be a table of alias = source")
		}
		for alias := range deps {
			m.Dependencies = append(m.Dependencies, alias)
		}
		sort.Strings(m.Dependencies)
	}
	raw, ok := doc["triggers"]
	if !ok {
		return
	}
	list, ok := raw.([]any)
	if !ok {
		v.fail("triggers", "must be an array of tables ([[triggers]])")
		return
	}
	seen := map[string]int{}
	// paths maps a webhook path to the binding that receives it: two
	// bindings on one path would leave the second deaf.
	paths := map[string]string{}
	for i, item := range list {
		v.index, v.id = i, ""
		t, ok := item.(map[string]any)
		if !ok {
			v.fail("", "must be a table")
			continue
		}
		for _, tr := range v.trigger(m, t) {
			if prev, dup := seen[tr.ID]; dup {
				v.fail("id", "duplicate trigger id %q (also [[triggers]][%d])", tr.ID, prev)
				continue
			}
			seen[tr.ID] = i
			if tr.Webhook != nil {
				if prev, dup := paths[tr.Webhook.Path]; dup {
					v.fail("webhook.path", "%s is already the path of trigger %q", tr.Webhook.Path, prev)
					continue
				}
				paths[tr.Webhook.Path] = tr.ID
			}
			m.Triggers = append(m.Triggers, tr)
		}
	}
	v.index, v.id = -1, ""
}

var identRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// Fingerprint is a stable hash of a trigger's definition; a changed
// fingerprint for the same id makes a new binding version.
func fingerprint(t map[string]any) string {
	b, _ := json.Marshal(t) // map keys are sorted: stable
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// ParseSchedule parses a cron expression (five fields, an optional
// leading seconds field, or a descriptor such as @hourly).
func ParseSchedule(expr string) (cron.Schedule, error) { return triggerspec.ParseSchedule(expr) }

// Recorded validates a trigger table recorded earlier (a Trigger's
// Definition, as a binding registration keeps it in the event log,
// decoded from JSON) exactly as Load validates one, and returns the
// binding it defines: the binding as it was then. Module aliases resolve
// through m's [exports], and secrets are read from the environment now:
// a replay runs the recorded binding with the project loaded now
// (docs/orchestrator.md, "Replay as of a past instant"). Webhook secrets
// are not required, since a replay receives no delivery.
func (m *Manifest) Recorded(def map[string]any) (*Trigger, error) {
	v := &validator{file: m.Path, opts: Options{NoWebhookSecrets: true}}
	v.id, _ = def["id"].(string)
	t := v.binding(m, def, "", nil)
	if len(v.problems) > 0 {
		msgs := make([]string, len(v.problems))
		for i, p := range v.problems {
			msgs[i] = p.Field + ": " + p.Msg
		}
		return nil, fmt.Errorf("the recorded definition no longer validates: %s", strings.Join(msgs, "; "))
	}
	return t, nil
}
