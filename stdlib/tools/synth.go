package tools

import (
	"crypto/sha256"
	"encoding/hex"
	gojson "encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Tool synthesis (docs/spec/builtins.md §5 names tool_synthesize,
// tool_synth_invoke, tool_synthesis_cache and tool_synthesis_clear only;
// the design is this implementation's, docs/tools.md "Synthesized
// tools"). tool_synthesize(registry, spec) composes a new tool from the
// registry's tools without any model call: spec is
//
//	{name, description?, steps: [{tool, args?, id?}, ...], result?, <definition keys>}
//
// and the synthesized tool runs the steps in order, each one calling its
// registry tool as the registry runs it. A step's args, and result, are
// templates: a string "$input", "$prev" or "$ID" (a step's id), each
// optionally followed by .field or .index segments, stands for that
// value; "$$…" is a literal string starting with "$"; everything else is
// literal. Everything a template can get wrong — unknown tools, unknown
// or missing arguments, literal arguments that fail their schema,
// references to steps that do not run before — is an error of
// tool_synthesize, not of the call.
//
// Synthesized tools are cached per VM by a content hash of the spec and
// of the catalog entries (and components) of the tools it uses: the
// same spec over the same registry returns the same tool value.

// synthSpecKeys are the keys of a spec besides the definition keys.
var synthSpecKeys = []string{"name", "description", "steps", "result"}

// synthPassKeys are the definition keys a spec may give the synthesized
// tool (docs/spec/registry.md §2); handler and the executors are the
// steps' business.
var synthPassKeys = []string{
	"title", "parameters", "input_schema", "inputSchema", "returns", "output_schema",
	"error_schema", "annotations", "execution_policy", "policy", "governance", "cli",
	"source", "namespace", "defer_loading", "icons", "execution", "meta", "_meta",
}

var synthStepKeys = []string{"tool", "args", "id"}

var stepIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// maxSynthCache bounds the cache; the oldest entry goes first.
const maxSynthCache = 256

func init() {
	lib.Def("tool_synthesize", "tool_synthesize(registry, spec)", "a tool composed of the registry's tools: spec {name, description?, steps: [{tool, args?, id?}], result?} runs the steps in order; cached by content hash", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return synthesize(th, a.At(0), a.At(1))
	})
	lib.Def("tool_synthesis_cache", "tool_synthesis_cache() -> list<dict>", "the synthesized tools cached in this run, oldest first: [{hash, name, tools, steps, hits}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c := synthCacheFor(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		out := make([]vm.Value, 0, len(c.order))
		for _, h := range c.order {
			e := c.m[h]
			out = append(out, vm.Of(lib.DictOf("hash", vm.Str(e.hash), "name", vm.Str(e.name),
				"tools", vm.Of(lib.StrList(e.tools)), "steps", lib.IntOf(e.steps), "hits", lib.IntOf(e.hits))))
		}
		return vm.Of(lib.List(out)), nil
	})
	lib.Def("tool_synthesis_clear", "tool_synthesis_clear() -> int", "empty the synthesis cache; the number of entries removed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c := synthCacheFor(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		n := len(c.order)
		c.order, c.m = nil, map[string]*synthEntry{}
		return lib.IntOf(n), nil
	})
}

// ---- the cache ----

type synthEntry struct {
	hash, name string
	tools      []string // the tools the steps call, first use first
	steps      int
	hits       int
	// uses are the definitions of those tools and comps the registry's
	// components: the entry serves a later call only when they are the
	// same values (the handlers are part of a tool, not of its hash).
	uses  []*vm.Dict
	comps *vm.Dict
	value *vm.Dict
}

type synthCache struct {
	mu    sync.Mutex
	order []string
	m     map[string]*synthEntry
}

type synthCacheKey struct{}

func synthCacheFor(v *vm.VM) *synthCache {
	return v.Local(synthCacheKey{}, func() any { return &synthCache{m: map[string]*synthEntry{}} }).(*synthCache)
}

func (c *synthCache) lookup(hash string, uses []*vm.Dict, comps *vm.Dict) *vm.Dict {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[hash]
	if e == nil || e.comps != comps || len(e.uses) != len(uses) {
		return nil
	}
	for i, d := range uses {
		if e.uses[i] != d {
			return nil
		}
	}
	e.hits++
	return e.value
}

func (c *synthCache) store(e *synthEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[e.hash]; ok {
		for i, h := range c.order {
			if h == e.hash {
				c.order = append(c.order[:i:i], c.order[i+1:]...)
				break
			}
		}
	}
	for len(c.order) >= maxSynthCache {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, e.hash)
	c.m[e.hash] = e
}

// ---- references ----

// reference is a parsed "$head.seg.seg" template string.
type reference struct {
	text string
	head string // "input", "prev" or a step id
	path []string
}

// parseTemplateString reads a template string: a reference, or a literal
// (with "$$" unescaped).
func parseTemplateString(s string) (ref *reference, literal string, err error) {
	if !strings.HasPrefix(s, "$") {
		return nil, s, nil
	}
	if strings.HasPrefix(s, "$$") {
		return nil, s[1:], nil
	}
	parts := strings.Split(s[1:], ".")
	if !stepIDRE().MatchString(parts[0]) {
		return nil, "", fmt.Errorf("has %q, which is not a reference ($input, $prev or $ID, each with optional .field segments; write $$ for a literal $)", s)
	}
	for _, p := range parts[1:] {
		if p == "" {
			return nil, "", fmt.Errorf("has %q, a reference with an empty path segment", s)
		}
	}
	return &reference{text: s, head: parts[0], path: parts[1:]}, "", nil
}

// walkTemplate calls fn for each reference in a template value (strings
// in lists and dict values, at any depth).
func walkTemplate(v vm.Value, fn func(r *reference) error) error {
	switch v.Kind() {
	case vm.KString:
		s, _ := v.AsString()
		r, _, err := parseTemplateString(s.Go())
		if err != nil {
			return err
		}
		if r != nil {
			return fn(r)
		}
		return nil
	}
	if l, ok := v.AsList(); ok {
		for _, it := range l.Items() {
			if err := walkTemplate(it, fn); err != nil {
				return err
			}
		}
	}
	if d, ok := v.AsDict(); ok {
		var err error
		d.Range(func(_ string, x vm.Value) bool {
			err = walkTemplate(x, fn)
			return err == nil
		})
		return err
	}
	return nil
}

// literalTemplate reports whether a template holds no reference.
func literalTemplate(v vm.Value) bool {
	found := false
	_ = walkTemplate(v, func(*reference) error { found = true; return nil })
	return !found
}

// synthEnv is what references read while a synthesized tool runs.
type synthEnv struct {
	input   vm.Value
	results []vm.Value
	byID    map[string]vm.Value
}

func (env *synthEnv) lookup(r *reference) (vm.Value, bool) {
	var cur vm.Value
	switch r.head {
	case "input":
		cur = env.input
	case "prev":
		cur = env.results[len(env.results)-1]
	default:
		cur = env.byID[r.head]
	}
	for _, seg := range r.path {
		if d, ok := cur.AsDict(); ok {
			v, ok := d.Get(seg)
			if !ok {
				return vm.Value{}, false
			}
			cur = v
			continue
		}
		if l, ok := cur.AsList(); ok {
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= l.Len() {
				return vm.Value{}, false
			}
			cur = l.Items()[i]
			continue
		}
		return vm.Value{}, false
	}
	return cur, true
}

// resolve fills a template; a reference to a missing value is absent:
// left out of a dict, nil elsewhere.
func (env *synthEnv) resolve(v vm.Value) (vm.Value, bool) {
	if v.Kind() == vm.KString {
		s, _ := v.AsString()
		r, lit, _ := parseTemplateString(s.Go())
		if r == nil {
			return vm.Str(lit), true
		}
		return env.lookup(r)
	}
	if l, ok := v.AsList(); ok {
		items := make([]vm.Value, l.Len())
		for i, it := range l.Items() {
			x, ok := env.resolve(it)
			if !ok {
				x = vm.Nil
			}
			items[i] = x
		}
		return vm.Of(vm.NewList(items)), true
	}
	if d, ok := v.AsDict(); ok {
		b := vm.NewDictBuilder(d.Len())
		d.Range(func(k string, x vm.Value) bool {
			if y, ok := env.resolve(x); ok {
				b.Set(k, y)
			}
			return true
		})
		return vm.Of(b.Build()), true
	}
	return v, true
}

// ---- synthesis ----

type synthStep struct {
	tool string
	id   string
	args vm.Value // a dict template or a reference string
	pt   *tool.PreparedTool
}

type synthesized struct {
	name   string
	steps  []*synthStep
	result vm.Value // the result template; invalid: the last step's result
}

func synthErr(format string, args ...any) error {
	return vm.Runtimef("tool_synthesize: "+format, args...)
}

func synthesize(th *vm.Thread, regV, specV vm.Value) (vm.Value, error) {
	regDict, _, err := registryTools(regV)
	if err != nil {
		return vm.Value{}, vm.Throwf("tool_synthesize: %s", notRegistry)
	}
	spec, ok := specV.AsDict()
	if !ok {
		return vm.Value{}, vm.Typef("tool_synthesize: spec must be a dict {name, description?, steps, result?}, got %s", specV.Type())
	}
	reg, err := tool.Normalize(regV, toolCache(th))
	if err != nil {
		return vm.Value{}, toolErr(fmt.Errorf("%s", fnMessage("tool_synthesize", err)))
	}
	if err := checkSpecKeys(spec); err != nil {
		return vm.Value{}, err
	}
	nv, _ := spec.Get("name")
	name, ok := nv.AsString()
	if !ok || name.Go() == "" {
		return vm.Value{}, synthErr("spec field \"name\" must be a non-empty string")
	}
	sv, _ := spec.Get("steps")
	stepList, ok := sv.AsList()
	if !ok || stepList.Len() == 0 {
		return vm.Value{}, synthErr("spec field \"steps\" must be a non-empty list of steps {tool, args?, id?}")
	}
	comps := defComponents(regDict)
	compsDict, _ := comps.AsDict()

	// The cache is consulted once the step tools are known.
	var uses []*vm.Dict
	var useNames []string
	used := map[string]*tool.Tool{}
	for i, it := range stepList.Items() {
		sd, ok := it.AsDict()
		if !ok {
			return vm.Value{}, synthErr("steps[%d] must be a dict {tool, args?, id?}, got %s", i, it.Type())
		}
		tv, _ := sd.Get("tool")
		tn, ok := tv.AsString()
		if !ok {
			return vm.Value{}, synthErr("steps[%d] field \"tool\" must be the name of a registry tool", i)
		}
		if used[tn.Go()] != nil {
			continue
		}
		t := registered(reg, tn.Go())
		if t == nil {
			return vm.Value{}, synthErr("steps[%d] names tool %q, which the registry does not have%s", i, tn.Go(), unknownToolHint(tn.Go(), toolNames(reg)))
		}
		used[tn.Go()] = t
		uses = append(uses, t.Definition)
		useNames = append(useNames, t.Name())
	}
	hash := synthHash(spec, useNames, used, reg)
	cache := synthCacheFor(th.VM())
	if v := cache.lookup(hash, uses, compsDict); v != nil {
		return vm.Of(v), nil
	}

	s := &synthesized{name: name.Go()}
	ids := map[string]int{}
	for i, it := range stepList.Items() {
		st, err := synthStepOf(th, i, it, used, ids, comps)
		if err != nil {
			return vm.Value{}, err
		}
		s.steps = append(s.steps, st)
	}
	if rv, ok := spec.Get("result"); ok && !rv.IsNil() {
		if err := checkRefs("result", rv, len(s.steps), ids); err != nil {
			return vm.Value{}, err
		}
		s.result = rv
	}

	def := synthDefinition(s, spec, used, hash, comps)
	pt, err := prepareTool(th, "tool_synthesize", def, comps)
	if err != nil {
		return vm.Value{}, err
	}
	if explicitInput(spec) {
		if err := checkInputRefs(s, pt.Entry().InputSchema); err != nil {
			return vm.Value{}, err
		}
	}
	cache.store(&synthEntry{hash: hash, name: s.name, tools: useNames, steps: len(s.steps),
		uses: uses, comps: compsDict, value: def})
	noteDefSite(th, def)
	return vm.Of(def), nil
}

func checkSpecKeys(spec *vm.Dict) error {
	allowed := map[string]bool{}
	for _, k := range synthSpecKeys {
		allowed[k] = true
	}
	for _, k := range synthPassKeys {
		allowed[k] = true
	}
	for _, k := range spec.Keys() {
		if allowed[k] {
			continue
		}
		switch k {
		case "handler", "executor", "host_capability", "mcp_server":
			return synthErr("spec must not set %q: a synthesized tool runs its steps", k)
		}
		// Like a definition, a spec keeps a key of its own (`guidance`,
		// docs/tools.md synthesis table) unless it is likely a typo of a
		// known key or one the synthesized definition sets itself.
		hint := lib.DidYouMean(k, append(append([]string(nil), synthSpecKeys...), synthPassKeys...))
		if hint != "" || synthReservedKeys[k] {
			return synthErr("spec contains unknown key %q%s", k, hint)
		}
	}
	return nil
}

// synthReservedKeys are the keys of a synthesized definition that
// tool_synthesize sets and a spec cannot give.
var synthReservedKeys = map[string]bool{"_type": true, "hash": true, "components": true, "bound": true}

// synthExtraKeys are the keys of spec that are neither spec nor
// definition keys: kept verbatim, as a definition keeps them.
func synthExtraKeys(spec *vm.Dict) []string {
	var out []string
	for _, k := range spec.Keys() {
		if !slices.Contains(synthSpecKeys, k) && !slices.Contains(synthPassKeys, k) && !synthReservedKeys[k] {
			out = append(out, k)
		}
	}
	return out
}

// synthStepOf checks step i and prepares its tool.
func synthStepOf(th *vm.Thread, i int, it vm.Value, used map[string]*tool.Tool, ids map[string]int, comps vm.Value) (*synthStep, error) {
	sd, _ := it.AsDict()
	for _, k := range sd.Keys() {
		if k != "tool" && k != "args" && k != "id" {
			return nil, synthErr("steps[%d] contains unknown key %q%s", i, k, lib.DidYouMean(k, synthStepKeys))
		}
	}
	tv, _ := sd.Get("tool")
	tn, _ := tv.AsString()
	t := used[tn.Go()]
	st := &synthStep{tool: t.Name()}
	if idv, ok := sd.Get("id"); ok && !idv.IsNil() {
		id, ok := idv.AsString()
		if !ok || !stepIDRE().MatchString(id.Go()) || id.Go() == "input" || id.Go() == "prev" {
			return nil, synthErr("steps[%d] field \"id\" must be a name (letters, digits, _) other than input and prev", i)
		}
		if j, dup := ids[id.Go()]; dup {
			return nil, synthErr("steps[%d] reuses the id %q of steps[%d]", i, id.Go(), j)
		}
		st.id = id.Go()
	}
	if !localHandler(t) {
		return nil, synthErr("steps[%d] tool %q has no local handler (executor %q)", i, t.Name(), t.Executor)
	}
	pt, err := prepareTool(th, "tool_synthesize", t.Definition, comps)
	if err != nil {
		return nil, err
	}
	st.pt = pt
	where := fmt.Sprintf("steps[%d]", i)
	av, ok := sd.Get("args")
	if !ok || av.IsNil() {
		av = vm.Of(vm.NewDict())
	}
	st.args = av
	if err := checkRefs(where, av, i, ids); err != nil {
		return nil, err
	}
	switch {
	case av.Kind() == vm.KString:
		s, _ := av.AsString()
		if r, _, _ := parseTemplateString(s.Go()); r == nil {
			return nil, synthErr("%s field \"args\" must be a dict of arguments or a reference such as \"$input\"", where)
		}
	default:
		args, ok := av.AsDict()
		if !ok {
			return nil, synthErr("%s field \"args\" must be a dict of arguments or a reference such as \"$input\"", where)
		}
		if err := checkStepArgs(th, where, pt, args, comps); err != nil {
			return nil, err
		}
	}
	if st.id != "" {
		ids[st.id] = i
	}
	return st, nil
}

// checkRefs checks the references of a template at position where,
// with n steps before it and ids the ids of those steps: $prev needs a
// step before, $ID an earlier step with that id.
func checkRefs(where string, v vm.Value, n int, ids map[string]int) error {
	err := walkTemplate(v, func(r *reference) error {
		switch r.head {
		case "input":
			return nil
		case "prev":
			if n == 0 {
				return fmt.Errorf("refers to $prev, but no step runs before it")
			}
			return nil
		}
		if _, ok := ids[r.head]; !ok {
			known := make([]string, 0, len(ids))
			for id := range ids {
				known = append(known, id)
			}
			return fmt.Errorf("refers to %s, but no earlier step has the id %q%s", r.text, r.head, lib.DidYouMean(r.head, known))
		}
		return nil
	})
	if err != nil {
		return synthErr("%s %s", where, err.Error())
	}
	return nil
}

// checkStepArgs checks a step's argument dict against its tool's input
// schema: no undeclared argument (unless the schema admits other
// properties explicitly), every required one given, literal values
// valid.
func checkStepArgs(th *vm.Thread, where string, pt *tool.PreparedTool, args *vm.Dict, comps vm.Value) error {
	root, _ := pt.Entry().InputSchema.Object()
	props, hasProps := jsonv.Member[*jsonv.Object](root, "properties")
	open := root.Has("patternProperties")
	if ap, ok := root.Get("additionalProperties"); ok {
		if b, isBool := ap.(bool); !isBool || b {
			open = true
		}
	}
	for _, k := range args.Keys() {
		if hasProps && !props.Has(k) && !open {
			return synthErr("%s passes unknown argument %q to tool %q%s", where, k, pt.Name(), lib.DidYouMean(k, props.Keys()))
		}
		v, _ := args.Get(k)
		if !hasProps || !props.Has(k) || !literalTemplate(v) {
			continue
		}
		if err := checkArgument(th, root, comps, pt.Name(), k, v); err != nil {
			return synthErr("%s argument %q of tool %q %s", where, k, pt.Name(), err.Error())
		}
	}
	if req, ok := jsonv.Member[[]any](root, "required"); ok {
		for _, r := range req {
			if s, ok := r.(string); ok && !args.Has(s) {
				return synthErr("%s does not pass the required argument %q of tool %q", where, s, pt.Name())
			}
		}
	}
	return nil
}

// explicitInput reports whether the spec declares the input schema.
func explicitInput(spec *vm.Dict) bool {
	for _, k := range []string{"parameters", "input_schema", "inputSchema"} {
		if v, ok := spec.Get(k); ok && !v.IsNil() {
			return true
		}
	}
	return false
}

// checkInputRefs checks $input.p references against a declared input
// schema that lists its properties and admits no others.
func checkInputRefs(s *synthesized, schema tool.Schema) error {
	root, _ := schema.Object()
	props, ok := jsonv.Member[*jsonv.Object](root, "properties")
	if !ok || root.Has("patternProperties") {
		return nil
	}
	if ap, ok := root.Get("additionalProperties"); ok {
		if b, isBool := ap.(bool); !isBool || b {
			return nil
		}
	}
	check := func(where string, v vm.Value) error {
		return walkTemplate(v, func(r *reference) error {
			if r.head == "input" && len(r.path) > 0 && !props.Has(r.path[0]) {
				return synthErr("%s refers to %s, but the input schema has no property %q%s", where, r.text, r.path[0], lib.DidYouMean(r.path[0], props.Keys()))
			}
			return nil
		})
	}
	for i, st := range s.steps {
		if err := check(fmt.Sprintf("steps[%d]", i), st.args); err != nil {
			return err
		}
	}
	if s.result.IsValid() {
		return check("result", s.result)
	}
	return nil
}

// ---- the synthesized definition ----

// synthDefinition is the synthesized tool: the spec's definition keys,
// an input schema derived from the steps when the spec declares none,
// the output schema of the step whose whole result is the result when
// the spec declares none, and the handler that runs the steps.
func synthDefinition(s *synthesized, spec *vm.Dict, used map[string]*tool.Tool, hash string, comps vm.Value) *vm.Dict {
	b := vm.NewDictBuilder(16)
	b.Set("_type", vm.Str(kindSynth))
	b.Set("name", vm.Str(s.name))
	if d, ok := spec.Get("description"); ok && !d.IsNil() {
		b.Set("description", d)
	}
	for _, k := range synthPassKeys {
		if v, ok := spec.Get(k); ok && !v.IsNil() {
			b.Set(k, v)
		}
	}
	for _, k := range synthExtraKeys(spec) {
		b.Set(k, lib.Get(spec, k))
	}
	if !explicitInput(spec) {
		b.Set("inputSchema", tool.FromJSON(deriveInput(s)))
	}
	_, hasReturns := spec.Get("returns")
	_, hasOutput := spec.Get("output_schema")
	if !hasReturns && !hasOutput {
		if doc := inheritedOutput(s); doc != nil {
			b.Set("returns", tool.FromJSON(doc))
		}
	}
	steps := make([]vm.Value, len(s.steps))
	for i, st := range s.steps {
		sb := vm.NewDictBuilder(3)
		sb.Set("tool", vm.Str(st.tool))
		sb.Set("args", st.args)
		if st.id != "" {
			sb.Set("id", vm.Str(st.id))
		}
		steps[i] = vm.Of(sb.Build())
	}
	b.Set("steps", vm.Of(vm.NewList(steps)))
	if s.result.IsValid() {
		b.Set("result", s.result)
	}
	b.Set("hash", vm.Str(hash))
	if comps.IsValid() {
		b.Set("components", comps)
	}
	b.Set("handler", vm.Of(vm.NewBuiltin("tool_synth:"+s.name, s.name+"(args)", "synthesized tool "+s.name,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return s.run(th, a.At(0)) })))
	return b.Build()
}

// run runs the steps on the tool's input.
func (s *synthesized) run(th *vm.Thread, input vm.Value) (vm.Value, error) {
	if !input.IsValid() || input.IsNil() {
		input = vm.Of(vm.NewDict())
	}
	env := &synthEnv{input: input, byID: map[string]vm.Value{}}
	for i, st := range s.steps {
		args, ok := env.resolve(st.args)
		if !ok {
			args = vm.Nil
		}
		v, err := invokeTool(th, st.pt, args)
		if err != nil {
			return vm.Value{}, s.stepFailure(i, st, err)
		}
		env.results = append(env.results, v)
		if st.id != "" {
			env.byID[st.id] = v
		}
	}
	if !s.result.IsValid() {
		return env.results[len(env.results)-1], nil
	}
	v, ok := env.resolve(s.result)
	if !ok {
		return vm.Nil, nil
	}
	return v, nil
}

// stepFailure names the step a runtime or type failure comes from;
// thrown values, cancellation and exit pass unchanged.
func (s *synthesized) stepFailure(i int, st *synthStep, err error) error {
	e := vm.AsError(err)
	if e.Kind != vm.KindRuntime && e.Kind != vm.KindType && e.Kind != vm.KindPlain {
		return err
	}
	prefix := fmt.Sprintf("synthesized tool %q failed at steps[%d] (%q): ", s.name, i, st.tool)
	kind := ""
	if e.Kind == vm.KindType {
		kind = "Type error: "
	}
	out := *e
	out.Kind = vm.KindRuntime
	out.Msg = prefix + kind + e.Msg
	if e.Redacted != "" {
		out.Redacted = prefix + kind + e.Redacted
	}
	return &out
}

// deriveInput is the input schema of a spec that declares none: each
// $input.p used as a whole argument value takes that argument's schema
// (required when the argument is), a whole "$input" as a step's args
// takes that tool's properties, and any other use of $input.p admits
// any value. A property used with different schemas gets all of them
// (allOf).
func deriveInput(s *synthesized) *jsonv.Object {
	type use struct {
		schemas  []any
		required bool
	}
	order := []string{}
	uses := map[string]*use{}
	add := func(p string, schema any, required bool) {
		u := uses[p]
		if u == nil {
			u = &use{}
			uses[p] = u
			order = append(order, p)
		}
		if schema != nil {
			if hasLocalRef(schema) {
				schema = jsonv.NewObject(0)
			}
			dup := false
			for _, x := range u.schemas {
				if jsonv.Equal(x, schema) {
					dup = true
				}
			}
			if !dup {
				u.schemas = append(u.schemas, schema)
			}
		}
		u.required = u.required || required
	}
	addOthers := func(v vm.Value) {
		_ = walkTemplate(v, func(r *reference) error {
			if r.head == "input" && len(r.path) > 0 {
				add(r.path[0], nil, false)
			}
			return nil
		})
	}
	for _, st := range s.steps {
		root, _ := st.pt.Entry().InputSchema.Object()
		props, _ := jsonv.Member[*jsonv.Object](root, "properties")
		required := map[string]bool{}
		if req, ok := jsonv.Member[[]any](root, "required"); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
		if st.args.Kind() == vm.KString {
			sv, _ := st.args.AsString()
			if r, _, _ := parseTemplateString(sv.Go()); r != nil && r.head == "input" && len(r.path) == 0 {
				props.Range(func(k string, ps any) bool {
					add(k, ps, required[k])
					return true
				})
			}
			addOthers(st.args)
			continue
		}
		args, _ := st.args.AsDict()
		args.Range(func(k string, v vm.Value) bool {
			if v.Kind() == vm.KString {
				sv, _ := v.AsString()
				if r, _, _ := parseTemplateString(sv.Go()); r != nil && r.head == "input" && len(r.path) == 1 {
					ps, _ := props.Get(k)
					if ps == nil {
						ps = jsonv.NewObject(0)
					}
					add(r.path[0], ps, required[k])
					return true
				}
			}
			addOthers(v)
			return true
		})
	}
	if s.result.IsValid() {
		addOthers(s.result)
	}
	props := jsonv.NewObject(len(order))
	var req []any
	for _, p := range order {
		u := uses[p]
		switch len(u.schemas) {
		case 0:
			props.Set(p, jsonv.NewObject(0))
		case 1:
			props.Set(p, u.schemas[0])
		default:
			props.Set(p, jsonv.Obj("allOf", u.schemas))
		}
		if u.required {
			req = append(req, p)
		}
	}
	out := jsonv.Obj("type", "object", "properties", props)
	if len(req) > 0 {
		sortAny(req)
		out.Set("required", req)
	}
	return out
}

func sortAny(xs []any) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j].(string) < xs[j-1].(string); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// hasLocalRef reports whether a schema holds a $ref into its own
// document (other than #/components/…), which cannot move to another
// document.
func hasLocalRef(x any) bool {
	switch v := x.(type) {
	case *jsonv.Object:
		found := false
		v.Range(func(k string, e any) bool {
			if s, ok := e.(string); ok && (k == "$ref" || k == "$dynamicRef") && strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "#/components/") {
				found = true
			} else if hasLocalRef(e) {
				found = true
			}
			return !found
		})
		return found
	case []any:
		for _, e := range v {
			if hasLocalRef(e) {
				return true
			}
		}
	}
	return false
}

// inheritedOutput is the output schema of the step whose whole result is
// the tool's result (the last step without a result template), or nil.
func inheritedOutput(s *synthesized) any {
	st := s.steps[len(s.steps)-1]
	if s.result.IsValid() {
		sv, ok := s.result.AsString()
		if !ok {
			return nil
		}
		r, _, _ := parseTemplateString(sv.Go())
		if r == nil || len(r.path) > 0 || r.head == "input" {
			return nil
		}
		if r.head != "prev" {
			for _, x := range s.steps {
				if x.id == r.head {
					st = x
				}
			}
		}
	}
	if st.pt.Entry().OutputSchema.IsZero() {
		return nil
	}
	return st.pt.Entry().OutputSchema.Doc()
}

// synthHash is the content hash of a synthesis: the spec and the catalog
// entries of the tools it uses, with the registry's components.
func synthHash(spec *vm.Dict, names []string, used map[string]*tool.Tool, reg *tool.Registry) string {
	h := sha256.New()
	h.Write([]byte("harn-synth/1\n"))
	h.Write([]byte(json.Stringify(vm.Of(spec))))
	for _, n := range sortedNames(func() map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}()) {
		b, _ := gojson.Marshal(used[n].Entry)
		h.Write([]byte("\n" + n + "\n"))
		h.Write(b)
	}
	if reg.Catalog.Components != nil {
		b, _ := gojson.Marshal(reg.Catalog.Components)
		h.Write([]byte("\ncomponents\n"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// registered is the tool of reg named name, or nil.
func registered(reg *tool.Registry, name string) *tool.Tool {
	for _, t := range reg.Tools {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

func toolNames(reg *tool.Registry) []string {
	names := make([]string, len(reg.Tools))
	for i, t := range reg.Tools {
		names[i] = t.Name()
	}
	return names
}
