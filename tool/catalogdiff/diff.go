// Package catalogdiff classifies the changes between two harn-tools/2.0
// catalogs (`harn tool diff`, docs/tool-diff.md) from the point of view
// of a client generated from the old one: a change is breaking when
// such a client, or a caller relying on the old contract, can fail
// against the new catalog, and compatible otherwise.
//
// Schemas are compared by position. In an input schema the question is
// whether every argument the old schema accepted is still accepted
// (narrowing breaks, widening is compatible); in an output schema
// whether every result the new schema allows was allowed before (a new
// kind of value breaks a client that decodes the old type, a new object
// field does not); in an error schema whether a new declared variant can
// reach the client. References into components.schemas are followed on
// both sides, so a change inside a shared type is reported once per
// position, at its path under /components/schemas. Every change carries
// a rule name, a JSON-pointer-like location and a one-line reason; the
// rule table is in docs/tool-diff.md.
package catalogdiff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/internal/schema"
)

// Class is the compatibility class of a change.
type Class string

// The two classes.
const (
	Breaking   Class = "breaking"
	Compatible Class = "compatible"
)

// The rules, one name per kind of change (docs/tool-diff.md).
const (
	ToolRemoved          = "tool-removed"
	ToolRenamed          = "tool-renamed"
	ToolAdded            = "tool-added"
	InputRequiredAdded   = "input-required-added"
	InputOptionalAdded   = "input-optional-added"
	InputRemoved         = "input-removed"
	InputNarrowed        = "input-narrowed"
	InputWidened         = "input-widened"
	InputEnumRemoved     = "input-enum-value-removed"
	InputEnumAdded       = "input-enum-value-added"
	OutputChanged        = "output-type-changed"
	OutputWidened        = "output-widened"
	OutputNarrowed       = "output-narrowed"
	OutputFieldRemoved   = "output-field-removed"
	OutputFieldAdded     = "output-field-added"
	OutputFieldOptional  = "output-field-optional"
	OutputRemoved        = "output-removed"
	OutputDeclared       = "output-declared"
	ErrorVariantAdded    = "error-variant-added"
	ErrorVariantRemoved  = "error-variant-removed"
	ErrorChanged         = "error-type-changed"
	ErrorFieldAdded      = "error-field-added"
	AudienceRemoved      = "audience-removed"
	AudienceAdded        = "audience-added"
	CLIPathChanged       = "cli-path-changed"
	CLIAliasRemoved      = "cli-alias-removed"
	CLIAliasAdded        = "cli-alias-added"
	CLIPositionChanged   = "cli-argument-position-changed"
	CLISpellingRemoved   = "cli-option-spelling-removed"
	CLISpellingAdded     = "cli-option-spelling-added"
	CLIRepeatableChanged = "cli-argument-repeatable-changed"
	CLIBooleanStyle      = "cli-boolean-style-changed"
	CLIHiddenChanged     = "cli-hidden-changed"
	CLICompletions       = "cli-completions-changed"
	AnnotationsChanged   = "annotations-changed"
	DefaultChanged       = "default-changed"
	DocsChanged          = "docs-changed"
	ExecutionChanged     = "execution-changed"
	TaskSupportNarrowed  = "task-support-narrowed"
	TaskSupportRequired  = "task-support-required"
	ConstraintNarrowed   = "constraint-narrowed"
	ConstraintWidened    = "constraint-widened"
	ClosedObjectNarrowed = "additional-properties-narrowed"
)

// Change is one classified difference.
type Change struct {
	Class  Class  `json:"class"`
	Rule   string `json:"rule"`
	Tool   string `json:"tool,omitempty"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Report is the outcome of a comparison.
type Report struct {
	Changes []Change `json:"changes"`
	// Bump is the suggested semantic-version bump: "major" when a change
	// breaks, "minor" when the contract grew compatibly, "patch" when
	// only documentation changed, "none" when nothing did.
	Bump string `json:"bump"`
	// OldVersion and Suggested are the old catalog's info.version and
	// that version with Bump applied (empty without a valid version).
	OldVersion string `json:"oldVersion,omitempty"`
	NewVersion string `json:"newVersion,omitempty"`
	Suggested  string `json:"suggestedVersion,omitempty"`
}

// Count returns how many changes have the class.
func (r *Report) Count(c Class) int {
	n := 0
	for _, ch := range r.Changes {
		if ch.Class == c {
			n++
		}
	}
	return n
}

// Diff compares an old and a new catalog.
func Diff(old, new *tool.Catalog) *Report {
	d := &differ{old: comps(old), new: comps(new), seen: map[string]bool{}}
	newByName := map[string]*tool.Entry{}
	for _, e := range new.Tools {
		newByName[e.Name] = e
	}
	oldByName := map[string]bool{}
	for _, e := range old.Tools {
		oldByName[e.Name] = true
	}
	var added []*tool.Entry
	for _, e := range new.Tools {
		if !oldByName[e.Name] {
			added = append(added, e)
		}
	}
	renamedTo := map[string]bool{}
	for _, e := range old.Tools {
		n, ok := newByName[e.Name]
		if !ok {
			at := "/tools/" + jsonv.EscapePointer(e.Name)
			if r := renameOf(e, added, renamedTo); r != nil {
				renamedTo[r.Name] = true
				d.add(Breaking, ToolRenamed, e.Name, at, fmt.Sprintf("tool %q is now called %q; clients calling the old name fail", e.Name, r.Name))
			} else {
				d.add(Breaking, ToolRemoved, e.Name, at, fmt.Sprintf("tool %q no longer exists", e.Name))
			}
			continue
		}
		d.tool(e, n)
	}
	for _, e := range added {
		if !renamedTo[e.Name] {
			d.add(Compatible, ToolAdded, e.Name, "/tools/"+jsonv.EscapePointer(e.Name), fmt.Sprintf("new tool %q", e.Name))
		}
	}
	d.parents(old.CLI, new.CLI)
	r := &Report{Changes: d.changes}
	if r.Changes == nil {
		r.Changes = []Change{}
	}
	r.Bump = "none"
	switch {
	case r.Count(Breaking) > 0:
		r.Bump = "major"
	case len(r.Changes) > 0:
		r.Bump = "patch"
		for _, c := range r.Changes {
			if c.Rule != DocsChanged {
				r.Bump = "minor"
			}
		}
	}
	if old.Info != nil {
		r.OldVersion = old.Info.Version
		r.Suggested = bump(old.Info.Version, r.Bump)
	}
	if new.Info != nil {
		r.NewVersion = new.Info.Version
	}
	return r
}

// renameOf finds the added tool that replaces a removed one: the same
// source coordinates, or the same explicit CLI path.
func renameOf(e *tool.Entry, added []*tool.Entry, taken map[string]bool) *tool.Entry {
	for _, a := range added {
		if taken[a.Name] {
			continue
		}
		if e.Source != nil && a.Source != nil && e.Source.ID != "" && e.Source.Kind == a.Source.Kind && e.Source.ID == a.Source.ID {
			return a
		}
		if len(e.CLI.Command) > 1 && strings.Join(e.CLI.Command, " ") == strings.Join(a.CLI.Command, " ") {
			return a
		}
	}
	return nil
}

// bump applies a semantic-version bump to "MAJOR.MINOR.PATCH" (a
// pre-release or build suffix is dropped). Below 1.0.0 a breaking change
// bumps the minor version, as semantic versioning lets 0.x releases do.
func bump(v, kind string) string {
	core := v
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return ""
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return ""
		}
		n[i] = x
	}
	switch kind {
	case "major":
		if n[0] == 0 {
			n[1], n[2] = n[1]+1, 0
		} else {
			n[0], n[1], n[2] = n[0]+1, 0, 0
		}
	case "minor":
		n[1], n[2] = n[1]+1, 0
	case "patch":
		n[2]++
	default:
		return core
	}
	return fmt.Sprintf("%d.%d.%d", n[0], n[1], n[2])
}

func comps(c *tool.Catalog) *tool.SchemaMap {
	if c.Components == nil {
		return nil
	}
	return c.Components.Schemas
}

type differ struct {
	old, new *tool.SchemaMap
	changes  []Change
	seen     map[string]bool
	cur      string // the tool being compared
}

func (d *differ) add(class Class, rule, tool, path, reason string) {
	key := string(class) + "\x00" + rule + "\x00" + path + "\x00" + reason
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	d.changes = append(d.changes, Change{Class: class, Rule: rule, Tool: tool, Path: path, Reason: reason})
}

func (d *differ) tool(o, n *tool.Entry) {
	d.cur = o.Name
	at := "/tools/" + jsonv.EscapePointer(o.Name)
	if o.Title != n.Title {
		d.add(Compatible, DocsChanged, o.Name, at+"/title", "the title changed")
	}
	if o.Description != n.Description {
		d.add(Compatible, DocsChanged, o.Name, at+"/description", "the description changed")
	}
	d.schema(input, at+"/inputSchema", o.InputSchema.Doc(), n.InputSchema.Doc(), nil)
	switch {
	case !o.OutputSchema.IsZero() && n.OutputSchema.IsZero():
		d.add(Breaking, OutputRemoved, o.Name, at+"/outputSchema", "the output schema was removed: clients no longer get a typed result")
	case o.OutputSchema.IsZero() && !n.OutputSchema.IsZero():
		d.add(Compatible, OutputDeclared, o.Name, at+"/outputSchema", "an output schema was declared")
	case !o.OutputSchema.IsZero():
		d.schema(output, at+"/outputSchema", o.OutputSchema.Doc(), n.OutputSchema.Doc(), nil)
	}
	switch {
	case o.ErrorSchema.IsZero() && !n.ErrorSchema.IsZero():
		d.add(Breaking, ErrorVariantAdded, o.Name, at+"/errorSchema", "the tool now declares an application error; clients built without it do not expect it")
	case !o.ErrorSchema.IsZero() && n.ErrorSchema.IsZero():
		d.add(Compatible, ErrorVariantRemoved, o.Name, at+"/errorSchema", "the tool no longer declares an application error")
	case !o.ErrorSchema.IsZero():
		d.schema(errorPos, at+"/errorSchema", o.ErrorSchema.Doc(), n.ErrorSchema.Doc(), nil)
	}
	d.audiences(o, n, at)
	d.cli(o, n, at)
	d.annotations(o, n, at)
	ot, nt := taskSupport(o), taskSupport(n)
	switch {
	case ot == nt:
	case nt == "required":
		d.add(Breaking, TaskSupportRequired, o.Name, at+"/execution/taskSupport", "the tool now requires the MCP tasks extension")
	case nt == "forbidden":
		d.add(Breaking, TaskSupportNarrowed, o.Name, at+"/execution/taskSupport", "the tool no longer runs as an MCP task")
	default:
		d.add(Compatible, ExecutionChanged, o.Name, at+"/execution/taskSupport", fmt.Sprintf("task support changed from %s to %s", ot, nt))
	}
}

func taskSupport(e *tool.Entry) string {
	if e.Execution == nil {
		return "forbidden"
	}
	return string(e.Execution.TaskSupport)
}

func (d *differ) audiences(o, n *tool.Entry, at string) {
	for _, a := range o.Governance.Audiences {
		if !n.Governance.Allows(a) {
			d.add(Breaking, AudienceRemoved, o.Name, at+"/governance/audiences", fmt.Sprintf("the tool is no longer exposed to the %s audience", a))
		}
	}
	for _, a := range n.Governance.Audiences {
		if !o.Governance.Allows(a) {
			d.add(Compatible, AudienceAdded, o.Name, at+"/governance/audiences", fmt.Sprintf("the tool is now exposed to the %s audience", a))
		}
	}
}

func (d *differ) annotations(o, n *tool.Entry, at string) {
	get := func(a *tool.Annotations) map[string]string {
		m := map[string]string{}
		if a == nil {
			return m
		}
		if a.Title != "" {
			m["title"] = a.Title
		}
		for k, v := range map[string]*bool{"readOnlyHint": a.ReadOnlyHint, "destructiveHint": a.DestructiveHint, "idempotentHint": a.IdempotentHint, "openWorldHint": a.OpenWorldHint} {
			if v != nil {
				m[k] = strconv.FormatBool(*v)
			}
		}
		return m
	}
	om, nm := get(o.Annotations), get(n.Annotations)
	for _, k := range []string{"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if om[k] == nm[k] {
			continue
		}
		if k == "title" {
			d.add(Compatible, DocsChanged, o.Name, at+"/annotations/title", "the annotation title changed")
			continue
		}
		show := func(s string) string {
			if s == "" {
				return "unset"
			}
			return s
		}
		d.add(Compatible, AnnotationsChanged, o.Name, at+"/annotations/"+k, fmt.Sprintf("%s changed from %s to %s", k, show(om[k]), show(nm[k])))
	}
}

// ---- schemas ----

type position int

const (
	input position = iota
	output
	errorPos
)

func (p position) String() string {
	return [...]string{"input", "output", "error"}[p]
}

// resolved follows component references; comp is the component's name
// when s was a reference to one.
func resolved(s any, m *tool.SchemaMap) (doc any, comp string) {
	for range 32 {
		o, ok := s.(*jsonv.Object)
		if !ok {
			return s, comp
		}
		ref, _ := jsonv.Member[string](o, "$ref")
		name, rest, isComp := schema.ComponentRef(ref)
		if !isComp || rest != "" {
			return s, comp
		}
		c, ok := m.Get(name)
		if !ok {
			return s, comp
		}
		s, comp = c.Doc(), name
	}
	return s, comp
}

// schema compares one schema position of a tool.
func (d *differ) schema(pos position, at string, a, b any, visiting map[string]bool) {
	a, ca := resolved(a, d.old)
	b, cb := resolved(b, d.new)
	if ca != "" && ca == cb {
		// The same component on both sides: compare it once per
		// position, at its own path.
		key := pos.String() + "\x00" + ca
		if visiting[key] {
			return
		}
		nv := map[string]bool{key: true}
		for k := range visiting {
			nv[k] = true
		}
		visiting = nv
		at = "/components/schemas/" + jsonv.EscapePointer(ca)
	}
	if jsonv.Equal(a, b) {
		return
	}
	ao, aok := a.(*jsonv.Object)
	bo, bok := b.(*jsonv.Object)
	if !aok || !bok {
		d.boolSchemas(pos, at, a, b)
		return
	}
	d.docs(at, ao, bo)
	if va, vb := variants(ao), variants(bo); va != nil && vb != nil {
		d.variants(pos, at, va, vb, visiting)
		return
	}
	d.types(pos, at, ao, bo)
	d.enums(pos, at, ao, bo)
	d.constraints(pos, at, ao, bo)
	d.object(pos, at, ao, bo, visiting)
	d.array(pos, at, ao, bo, visiting)
	d.branches(pos, at, ao, bo, visiting)
	if pos == input {
		da, okA := ao.Get("default")
		db, okB := bo.Get("default")
		if okA != okB || (okA && !jsonv.Equal(da, db)) {
			d.add(Compatible, DefaultChanged, d.cur, at+"/default", "the value used when the argument is omitted changed")
		}
	}
}

func (d *differ) docs(at string, a, b *jsonv.Object) {
	for _, k := range []string{"title", "description"} {
		x, _ := a.Get(k)
		y, _ := b.Get(k)
		if !jsonv.Equal(x, y) {
			d.add(Compatible, DocsChanged, d.cur, at+"/"+k, "the schema "+k+" changed")
		}
	}
}

// widen/narrow report a change in the set of values a position accepts.
func (d *differ) widened(pos position, at, what string) {
	switch pos {
	case input:
		d.add(Compatible, InputWidened, d.cur, at, "the input now also accepts "+what)
	case output:
		d.add(Breaking, OutputWidened, d.cur, at, "the output may now be "+what+", which clients built for the old type do not expect")
	case errorPos:
		d.add(Breaking, ErrorVariantAdded, d.cur, at, "the declared error may now be "+what)
	}
}

func (d *differ) narrowed(pos position, at, what string) {
	switch pos {
	case input:
		d.add(Breaking, InputNarrowed, d.cur, at, "the input no longer accepts "+what)
	case output:
		d.add(Compatible, OutputNarrowed, d.cur, at, "the output is no longer "+what)
	case errorPos:
		d.add(Compatible, ErrorVariantRemoved, d.cur, at, "the declared error is no longer "+what)
	}
}

func (d *differ) boolSchemas(pos position, at string, a, b any) {
	switch {
	case b == true || isEmpty(b):
		d.widened(pos, at, "any value")
	case a == true || isEmpty(a):
		d.narrowed(pos, at, "any value")
	case a == false:
		d.widened(pos, at, "some value (it was the false schema)")
	case b == false:
		d.narrowed(pos, at, "any value (it is the false schema)")
	}
}

func isEmpty(s any) bool {
	o, ok := s.(*jsonv.Object)
	return ok && o.Len() == 0
}

// typeSet is the set of JSON types a schema names at its root, or nil
// when it does not constrain the type.
func typeSet(o *jsonv.Object) map[string]bool {
	t, ok := o.Get("type")
	if !ok {
		return branchTypes(o)
	}
	set := map[string]bool{}
	switch x := t.(type) {
	case string:
		set[x] = true
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				set[s] = true
			}
		}
	}
	return set
}

// branchTypes is the union of the type sets of anyOf/oneOf branches
// (nil when a branch does not constrain its type).
func branchTypes(o *jsonv.Object) map[string]bool {
	for _, kw := range []string{"anyOf", "oneOf"} {
		x, _ := o.Get(kw)
		list, _ := x.([]any)
		if len(list) == 0 {
			continue
		}
		set := map[string]bool{}
		for _, br := range list {
			bo, ok := br.(*jsonv.Object)
			if !ok || bo.Has("$ref") {
				return nil
			}
			bt := typeSet(bo)
			if bt == nil {
				return nil
			}
			for t := range bt {
				set[t] = true
			}
		}
		return set
	}
	return nil
}

func (d *differ) types(pos position, at string, a, b *jsonv.Object) {
	ta, tb := typeSet(a), typeSet(b)
	if ta == nil && tb == nil {
		return
	}
	var lost, gained []string
	for _, t := range []string{"null", "boolean", "integer", "number", "string", "array", "object"} {
		inA, inB := ta != nil && (ta[t] || (t == "integer" && ta["number"])), tb != nil && (tb[t] || (t == "integer" && tb["number"]))
		if ta == nil {
			inA = true
		}
		if tb == nil {
			inB = true
		}
		switch {
		case inA && !inB:
			lost = append(lost, t)
		case inB && !inA:
			gained = append(gained, t)
		}
	}
	switch {
	case len(lost) > 0 && len(gained) > 0:
		switch pos {
		case input:
			d.add(Breaking, InputNarrowed, d.cur, at+"/type", fmt.Sprintf("the input type changed from %s to %s", typeText(ta), typeText(tb)))
		case output:
			d.add(Breaking, OutputChanged, d.cur, at+"/type", fmt.Sprintf("the output type changed from %s to %s", typeText(ta), typeText(tb)))
		default:
			d.add(Breaking, ErrorChanged, d.cur, at+"/type", fmt.Sprintf("the error type changed from %s to %s", typeText(ta), typeText(tb)))
		}
	case len(lost) > 0:
		d.narrowed(pos, at+"/type", "of type "+strings.Join(lost, ", "))
	case len(gained) > 0:
		d.widened(pos, at+"/type", "of type "+strings.Join(gained, ", "))
	}
}

func typeText(set map[string]bool) string {
	if set == nil {
		return "any type"
	}
	var ts []string
	for t := range set {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return strings.Join(ts, "|")
}

// values is the enum (or const) of a schema, nil when it has none.
func values(o *jsonv.Object) []any {
	if c, ok := o.Get("const"); ok {
		return []any{c}
	}
	if e, ok := o.Get("enum"); ok {
		if arr, ok := e.([]any); ok {
			return arr
		}
	}
	return nil
}

func containsValue(xs []any, v any) bool {
	for _, x := range xs {
		if jsonv.Equal(x, v) {
			return true
		}
	}
	return false
}

func (d *differ) enums(pos position, at string, a, b *jsonv.Object) {
	va, vb := values(a), values(b)
	switch {
	case va == nil && vb == nil:
		return
	case va == nil:
		d.narrowed(pos, at+"/enum", "every value: it is now limited to "+string(jsonv.Marshal(vb)))
		return
	case vb == nil:
		d.widened(pos, at+"/enum", "values outside "+string(jsonv.Marshal(va)))
		return
	}
	for _, v := range va {
		if !containsValue(vb, v) {
			lit := string(jsonv.Marshal(v))
			switch pos {
			case input:
				d.add(Breaking, InputEnumRemoved, d.cur, at+"/enum", "the input no longer accepts "+lit)
			default:
				d.narrowed(pos, at+"/enum", lit)
			}
		}
	}
	for _, v := range vb {
		if !containsValue(va, v) {
			lit := string(jsonv.Marshal(v))
			switch pos {
			case input:
				d.add(Compatible, InputEnumAdded, d.cur, at+"/enum", "the input now also accepts "+lit)
			default:
				d.widened(pos, at+"/enum", lit)
			}
		}
	}
}

// constraints compares the numeric bounds of a schema: a lower bound
// that rises or an upper bound that falls narrows it.
func (d *differ) constraints(pos position, at string, a, b *jsonv.Object) {
	for _, c := range []struct {
		key   string
		lower bool
	}{
		{"minimum", true}, {"exclusiveMinimum", true}, {"minLength", true}, {"minItems", true}, {"minProperties", true},
		{"maximum", false}, {"exclusiveMaximum", false}, {"maxLength", false}, {"maxItems", false}, {"maxProperties", false},
	} {
		x, okA := a.Get(c.key)
		y, okB := b.Get(c.key)
		na, _ := x.(json.Number)
		nb, _ := y.(json.Number)
		narrower := false
		switch {
		case okA == okB && (!okA || jsonv.CompareNumbers(na, nb) == 0):
			continue
		case !okA:
			narrower = true
		case !okB:
			narrower = false
		case c.lower:
			narrower = jsonv.CompareNumbers(nb, na) > 0
		default:
			narrower = jsonv.CompareNumbers(nb, na) < 0
		}
		d.bound(pos, at+"/"+c.key, narrower, fmt.Sprintf("%s %s → %s", c.key, bound(okA, x), bound(okB, y)))
	}
	for _, k := range []string{"pattern", "format"} {
		x, okA := a.Get(k)
		y, okB := b.Get(k)
		if okA == okB && (!okA || jsonv.Equal(x, y)) {
			continue
		}
		// A new or different pattern may reject old values; only its
		// removal surely widens.
		d.bound(pos, at+"/"+k, okB, fmt.Sprintf("%s %s → %s", k, bound(okA, x), bound(okB, y)))
	}
}

func bound(ok bool, v any) string {
	if !ok {
		return "none"
	}
	return string(jsonv.Marshal(v))
}

func (d *differ) bound(pos position, at string, narrower bool, what string) {
	switch {
	case narrower && pos == input:
		d.add(Breaking, ConstraintNarrowed, d.cur, at, "the input is constrained more tightly: "+what)
	case narrower:
		d.add(Compatible, ConstraintNarrowed, d.cur, at, "the "+pos.String()+" is constrained more tightly: "+what)
	case pos == input:
		d.add(Compatible, ConstraintWidened, d.cur, at, "the input is constrained less tightly: "+what)
	default:
		d.add(Breaking, ConstraintWidened, d.cur, at, "the "+pos.String()+" is constrained less tightly, clients may see values the old contract excluded: "+what)
	}
}

func requiredSet(o *jsonv.Object) map[string]bool {
	out := map[string]bool{}
	if r, ok := o.Get("required"); ok {
		if arr, ok := r.([]any); ok {
			for _, x := range arr {
				if s, ok := x.(string); ok {
					out[s] = true
				}
			}
		}
	}
	return out
}

func (d *differ) object(pos position, at string, a, b *jsonv.Object, visiting map[string]bool) {
	oa, _ := jsonv.Member[*jsonv.Object](a, "properties")
	ob, _ := jsonv.Member[*jsonv.Object](b, "properties")
	ra, rb := requiredSet(a), requiredSet(b)
	oa.Range(func(k string, sa any) bool {
		path := at + "/properties/" + jsonv.EscapePointer(k)
		sb, ok := ob.Get(k)
		if !ok {
			switch pos {
			case input:
				d.add(Breaking, InputRemoved, d.cur, path, fmt.Sprintf("the input property %q was removed; clients that send it are refused or ignored", k))
			case output:
				d.add(Breaking, OutputFieldRemoved, d.cur, path, fmt.Sprintf("the output field %q was removed", k))
			default:
				d.add(Breaking, ErrorChanged, d.cur, path, fmt.Sprintf("the error field %q was removed", k))
			}
			return true
		}
		switch {
		case !ra[k] && rb[k]:
			if pos == input {
				d.add(Breaking, InputRequiredAdded, d.cur, at+"/required", fmt.Sprintf("the input property %q is now required", k))
			} else {
				d.narrowed(pos, at+"/required", fmt.Sprintf("missing %q", k))
			}
		case ra[k] && !rb[k]:
			switch pos {
			case input:
				d.add(Compatible, InputWidened, d.cur, at+"/required", fmt.Sprintf("the input property %q is now optional", k))
			case output:
				d.add(Breaking, OutputFieldOptional, d.cur, at+"/required", fmt.Sprintf("the output field %q may now be missing", k))
			default:
				d.widened(pos, at+"/required", fmt.Sprintf("missing %q", k))
			}
		}
		d.schema(pos, path, sa, sb, visiting)
		return true
	})
	ob.Range(func(k string, _ any) bool {
		if oa.Has(k) {
			return true
		}
		path := at + "/properties/" + jsonv.EscapePointer(k)
		switch {
		case pos == input && rb[k]:
			d.add(Breaking, InputRequiredAdded, d.cur, path, fmt.Sprintf("new required input property %q", k))
		case pos == input:
			d.add(Compatible, InputOptionalAdded, d.cur, path, fmt.Sprintf("new optional input property %q", k))
		case pos == output:
			d.add(Compatible, OutputFieldAdded, d.cur, path, fmt.Sprintf("new output field %q", k))
		default:
			d.add(Compatible, ErrorFieldAdded, d.cur, path, fmt.Sprintf("new error field %q", k))
		}
		return true
	})
	xa, okA := a.Get("additionalProperties")
	xb, okB := b.Get("additionalProperties")
	switch {
	case okA == okB && (!okA || jsonv.Equal(xa, xb)):
	case xb == false:
		if pos == input {
			d.add(Breaking, ClosedObjectNarrowed, d.cur, at+"/additionalProperties", "the input object no longer accepts undeclared properties")
		} else {
			d.narrowed(pos, at+"/additionalProperties", "an object with undeclared properties")
		}
	case xa == false && (!okB || xb == true):
		d.widened(pos, at+"/additionalProperties", "an object with undeclared properties")
	default:
		if !okA {
			xa = true
		}
		if !okB {
			xb = true
		}
		d.schema(pos, at+"/additionalProperties", xa, xb, visiting)
	}
}

func (d *differ) array(pos position, at string, a, b *jsonv.Object, visiting map[string]bool) {
	ia, okA := a.Get("items")
	ib, okB := b.Get("items")
	if okA || okB {
		if !okA {
			ia = true
		}
		if !okB {
			ib = true
		}
		d.schema(pos, at+"/items", ia, ib, visiting)
	}
	la, _ := jsonv.Member[[]any](a, "prefixItems")
	lb, _ := jsonv.Member[[]any](b, "prefixItems")
	for i := 0; i < len(la) && i < len(lb); i++ {
		d.schema(pos, at+"/prefixItems/"+strconv.Itoa(i), la[i], lb[i], visiting)
	}
}

// branches compares anyOf/oneOf alternatives: a branch that no longer
// has an equal counterpart narrows, a new one widens.
func (d *differ) branches(pos position, at string, a, b *jsonv.Object, visiting map[string]bool) {
	for _, kw := range []string{"anyOf", "oneOf"} {
		xa, _ := a.Get(kw)
		xb, _ := b.Get(kw)
		la, _ := xa.([]any)
		lb, _ := xb.([]any)
		if la == nil || lb == nil {
			// Only one side has alternatives: the type comparison
			// already classified the change.
			continue
		}
		if len(la) == len(lb) {
			same := true
			for i := range la {
				if !d.sameBranch(la[i], lb[i]) {
					same = false
				}
			}
			if same {
				for i := range la {
					d.schema(pos, at+"/"+kw+"/"+strconv.Itoa(i), la[i], lb[i], visiting)
				}
				continue
			}
		}
		for i, br := range la {
			if !d.hasBranch(lb, br) {
				d.narrowed(pos, at+"/"+kw+"/"+strconv.Itoa(i), "a value matching "+branchText(br))
			}
		}
		for i, br := range lb {
			if !d.hasBranch(la, br) {
				d.widened(pos, at+"/"+kw+"/"+strconv.Itoa(i), "a value matching "+branchText(br))
			}
		}
	}
}

// sameBranch reports whether two alternatives are the same kind of
// value (same reference, or same type set), so their differences are
// compared inside them rather than as a removed and an added branch.
func (d *differ) sameBranch(a, b any) bool {
	if jsonv.Equal(a, b) {
		return true
	}
	ao, ok1 := a.(*jsonv.Object)
	bo, ok2 := b.(*jsonv.Object)
	if !ok1 || !ok2 {
		return false
	}
	ra, _ := ao.Get("$ref")
	rb, _ := bo.Get("$ref")
	if ra != nil || rb != nil {
		return jsonv.Equal(ra, rb)
	}
	return typeText(typeSet(ao)) == typeText(typeSet(bo))
}

func (d *differ) hasBranch(list []any, br any) bool {
	for _, x := range list {
		if d.sameBranch(x, br) {
			return true
		}
	}
	return false
}

func branchText(br any) string {
	if o, ok := br.(*jsonv.Object); ok {
		if r, ok := o.Get("$ref"); ok {
			return fmt.Sprint(r)
		}
		if t := typeSet(o); t != nil {
			return typeText(t)
		}
	}
	return string(jsonv.Marshal(br))
}

// variant is one case of a Harn enum schema.
type variant struct {
	name   string
	fields []any
}

// variants reads a Harn enum schema ({enum, variant, fields} oneOf
// branches, docs/spec/registry.md §8.4); nil when o is not one.
func variants(o *jsonv.Object) []variant {
	branches, _ := jsonv.Member[[]any](o, "oneOf")
	if len(branches) == 0 {
		return nil
	}
	var out []variant
	for _, br := range branches {
		bo, _ := br.(*jsonv.Object)
		props, _ := jsonv.Member[*jsonv.Object](bo, "properties")
		vo, _ := jsonv.Member[*jsonv.Object](props, "variant")
		name, ok := jsonv.Member[string](vo, "const")
		if !ok || !props.Has("enum") {
			return nil
		}
		fo, _ := jsonv.Member[*jsonv.Object](props, "fields")
		fields, _ := jsonv.Member[[]any](fo, "prefixItems")
		out = append(out, variant{name, fields})
	}
	return out
}

func (d *differ) variants(pos position, at string, va, vb []variant, visiting map[string]bool) {
	find := func(vs []variant, name string) (variant, bool) {
		for _, v := range vs {
			if v.name == name {
				return v, true
			}
		}
		return variant{}, false
	}
	for i, v := range va {
		path := at + "/oneOf/" + strconv.Itoa(i)
		w, ok := find(vb, v.name)
		if !ok {
			switch pos {
			case input:
				d.add(Breaking, InputEnumRemoved, d.cur, path, fmt.Sprintf("the input no longer accepts the variant %s", v.name))
			case output:
				d.add(Compatible, OutputNarrowed, d.cur, path, fmt.Sprintf("the output is no longer the variant %s", v.name))
			default:
				d.add(Compatible, ErrorVariantRemoved, d.cur, path, fmt.Sprintf("the error variant %s was removed", v.name))
			}
			continue
		}
		if len(v.fields) != len(w.fields) {
			msg := fmt.Sprintf("the variant %s now has %d fields instead of %d", v.name, len(w.fields), len(v.fields))
			switch pos {
			case input:
				d.add(Breaking, InputNarrowed, d.cur, path+"/properties/fields", msg)
			case output:
				d.add(Breaking, OutputChanged, d.cur, path+"/properties/fields", msg)
			default:
				d.add(Breaking, ErrorChanged, d.cur, path+"/properties/fields", msg)
			}
			continue
		}
		for j := range v.fields {
			d.schema(pos, path+"/properties/fields/prefixItems/"+strconv.Itoa(j), v.fields[j], w.fields[j], visiting)
		}
	}
	for i, w := range vb {
		if _, ok := find(va, w.name); ok {
			continue
		}
		path := at + "/oneOf/" + strconv.Itoa(i)
		switch pos {
		case input:
			d.add(Compatible, InputEnumAdded, d.cur, path, fmt.Sprintf("the input now also accepts the variant %s", w.name))
		case output:
			d.add(Breaking, OutputWidened, d.cur, path, fmt.Sprintf("the output may now be the variant %s, which clients built for the old type do not expect", w.name))
		default:
			d.add(Breaking, ErrorVariantAdded, d.cur, path, fmt.Sprintf("new error variant %s", w.name))
		}
	}
}
