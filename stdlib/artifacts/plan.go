package artifacts

// plan_entries and plan_artifact (docs/spec/builtins.md §5, Runs/evals/
// plans, which gives only the names; the shapes are this implementation's,
// docs/artifacts.md "Plans"): a plan is a list of steps, written as a
// markdown checklist or numbered list, or given as a list of strings and
// dicts; plan_entries normalises it and plan_artifact wraps it in a "plan"
// artifact with its progress.

import (
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// planStatuses are the statuses an entry can have, in display order.
var planStatuses = []string{"pending", "in_progress", "done", "skipped"}

// checkboxStatus maps the character between "[" and "]" to a status.
var checkboxStatus = map[byte]string{' ': "pending", 'x': "done", 'X': "done", '~': "in_progress", '>': "in_progress", '-': "skipped"}

type planEntry struct {
	id, title, status, parent string
	depth                     int
}

// parsePlanText reads the item lines of a markdown plan: bullets ("- ",
// "* ", "+ ") and numbered items ("1. ", "1) "), each optionally starting
// with a checkbox; other lines (headings, prose, blank lines) are not
// steps. Nesting follows indentation (a tab counts as four columns), and
// ids are dotted positions: "1", "1.1", "1.2", "2".
func parsePlanText(text string) []planEntry {
	type open struct {
		indent int
		id     string
		kids   int
	}
	var out []planEntry
	var stack []open
	top := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		indent := 0
		i := 0
		for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
			if line[i] == '\t' {
				indent += 4
			} else {
				indent++
			}
		}
		rest, ok := itemText(line[i:])
		if !ok {
			continue
		}
		status := "pending"
		if len(rest) >= 3 && rest[0] == '[' && rest[2] == ']' && (len(rest) == 3 || rest[3] == ' ') {
			if st, known := checkboxStatus[rest[1]]; known {
				status = st
				rest = strings.TrimSpace(rest[3:])
			}
		}
		if rest == "" {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		var id, parent string
		if len(stack) == 0 {
			top++
			id = strconv.Itoa(top)
		} else {
			p := &stack[len(stack)-1]
			p.kids++
			parent = p.id
			id = p.id + "." + strconv.Itoa(p.kids)
		}
		out = append(out, planEntry{id: id, title: rest, status: status, parent: parent, depth: len(stack)})
		stack = append(stack, open{indent: indent, id: id})
	}
	return out
}

// itemText is the text after a bullet or number marker, or false when
// the line is not a list item.
func itemText(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return strings.TrimSpace(s[2:]), true
	}
	if s == "-" || s == "*" || s == "+" {
		return "", true
	}
	j := 0
	for j < len(s) && j < 9 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > 0 && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && s[j+1] == ' ' {
		return strings.TrimSpace(s[j+2:]), true
	}
	return "", false
}

// planFromList normalises a list of steps: strings (parsed as one item
// line, so "[x] ship" is done) or dicts {title, status?, id?, depth?,
// parent?}.
func planFromList(name string, l *vm.List) ([]planEntry, error) {
	var out []planEntry
	for i, v := range l.Items() {
		n := i + 1
		if s, ok := v.AsString(); ok {
			es := parsePlanText("- " + strings.TrimSpace(s.Go()))
			if len(es) != 1 {
				return nil, vm.Throwf("%s: step %d is empty", name, n)
			}
			e := es[0]
			e.id = strconv.Itoa(n)
			out = append(out, e)
			continue
		}
		d, ok := v.AsDict()
		if !ok {
			return nil, vm.Typef("%s: step %d must be a string or a dict, got %s", name, n, v.Type())
		}
		for _, k := range d.Keys() {
			switch k {
			case "title", "status", "id", "depth", "parent":
			default:
				return nil, vm.Throwf("%s: step %d: unknown field `%s` (expected title, status, id, depth, parent)", name, n, k)
			}
		}
		title, ok := lib.Get(d, "title").AsString()
		if !ok || strings.TrimSpace(title.Go()) == "" {
			return nil, vm.Throwf("%s: step %d: `title` must be a non-empty string", name, n)
		}
		e := planEntry{id: strconv.Itoa(n), title: strings.TrimSpace(title.Go()), status: "pending"}
		if v := lib.Get(d, "status"); !v.IsNil() {
			s, ok := v.AsString()
			if !ok || !isPlanStatus(s.Go()) {
				return nil, vm.Throwf("%s: step %d: `status` must be one of %s, got %s", name, n, strings.Join(planStatuses, ", "), lib.Display(v))
			}
			e.status = s.Go()
		}
		if v := lib.Get(d, "id"); !v.IsNil() {
			e.id = vm.ToDisplay(v)
		}
		if v := lib.Get(d, "depth"); !v.IsNil() {
			k, ok := v.AsInt()
			if !ok || k < 0 {
				return nil, vm.Throwf("%s: step %d: `depth` must be an int >= 0, got %s", name, n, lib.Display(v))
			}
			e.depth = int(k)
		}
		if v := lib.Get(d, "parent"); !v.IsNil() {
			e.parent = vm.ToDisplay(v)
		}
		out = append(out, e)
	}
	return out, nil
}

func isPlanStatus(s string) bool {
	for _, st := range planStatuses {
		if s == st {
			return true
		}
	}
	return false
}

// planArg reads a plan given as text, a list of steps, or a plan
// artifact (its entries).
func planArg(name string, a vm.Args) ([]planEntry, error) {
	if !a.Has(0) {
		return nil, vm.Runtimef("%s: missing argument 1", name)
	}
	v := a.At(0)
	if s, ok := v.AsString(); ok {
		return parsePlanText(s.Go()), nil
	}
	if l, ok := v.AsList(); ok {
		return planFromList(name, l)
	}
	if d, ok := v.AsDict(); ok && str(d, "kind") == "plan" {
		if data, ok := lib.Get(d, "data").AsDict(); ok {
			if l, ok := lib.Get(data, "entries").AsList(); ok {
				return planFromList(name, l)
			}
		}
	}
	return nil, vm.Typef("%s: plan must be a string, a list of steps or a plan artifact, got %s", name, v.Type())
}

func planValues(es []planEntry) *vm.List {
	out := make([]vm.Value, len(es))
	for i, e := range es {
		parent := vm.Nil
		if e.parent != "" {
			parent = vm.Str(e.parent)
		}
		out[i] = vm.Of(lib.DictOf("id", vm.Str(e.id), "title", vm.Str(e.title), "status", vm.Str(e.status),
			"depth", lib.IntOf(e.depth), "parent", parent))
	}
	return lib.List(out)
}

func init() {
	lib.Def("plan_entries", "plan_entries(plan: string | list)",
		`the steps of a plan as [{id, title, status, depth, parent}]: from markdown (bullets or numbered items, "[ ]" pending, "[x]" done, "[~]" in_progress, "[-]" skipped; nesting by indentation, ids "1", "1.1") or a list of strings and {title, status?, id?, depth?, parent?} dicts`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			es, err := planArg("plan_entries", a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(planValues(es)), nil
		})
	ctor("plan_artifact", "plan", "plan_artifact(plan: string | list, options?: dict)",
		"a plan artifact: data {entries (as plan_entries), total, counts: {pending, in_progress, done, skipped}, progress (done / steps not skipped, 0.0 to 1.0)}", 1,
		func(th *vm.Thread, a vm.Args, _ *vm.Dict) (*vm.Dict, error) {
			es, err := planArg("plan_artifact", a)
			if err != nil {
				return nil, err
			}
			counts := map[string]int{}
			for _, e := range es {
				counts[e.status]++
			}
			cd := vm.NewDictBuilder(len(planStatuses))
			for _, st := range planStatuses {
				cd.Set(st, lib.IntOf(counts[st]))
			}
			progress := 0.0
			if active := len(es) - counts["skipped"]; active > 0 {
				progress = float64(counts["done"]) / float64(active)
			}
			return lib.DictOf("entries", planValues(es), "total", lib.IntOf(len(es)), "counts", cd.Build(),
				"progress", vm.FloatOf(progress)), nil
		})
}
