package json

// jq's function definitions (docs/builtins-areas.md, "jq beyond the listed
// subset"): `def name: body; rest`, `def name(f; $v): body; rest`, and
// the functions of jqPrelude, which are written as defs.
//
// A def's filter parameters are closures over the caller's scope. Slots
// hold the variables and parameters of the innermost running binding
// (jq_control.go), so an argument that runs deeper down, after a recursive
// call rebound the slots it reads, would see the wrong values: each call
// takes a snapshot of the slots in scope at its call site, and an
// argument swaps that snapshot in while it runs.

import (
	"github.com/harnlang/harn/vm"
)

// A jqDef is a function: its parameters' slots and its body, set once
// the body is parsed (calls inside the body reach it through the def).
type jqDef struct {
	name   string
	params []*jqFilter // each parameter, called as a filter
	values []*vm.Value // for a `$name` parameter, its variable; else nil
	body   jqFilter
}

// jqRuntime is the state every parser of one expression shares.
type jqRuntime struct {
	depth   int               // def calls running
	calls   int               // def calls made
	prelude map[string]*jqDef // jqPrelude's defs parsed so far, by name/arity
}

// jqMaxCallDepth bounds def recursion, which would otherwise end in a
// Go stack overflow; jqMaxCalls bounds the calls of one run, so a
// recursion that branches ends in an error rather than running for ever.
const (
	jqMaxCallDepth = 2000
	jqMaxCalls     = 10_000_000
)

// parseDef parses `def name(params): body;` and the rest of the pipe,
// with the def in scope in both.
func (p *jqParser) parseDef() (jqFilter, error) {
	d, err := p.defHead()
	if err != nil {
		return nil, err
	}
	n := len(p.scope)
	p.scope = append(p.scope, jqBinding{name: d.name, def: d})
	rest, err := p.parsePipe()
	p.scope = p.scope[:n]
	return rest, err
}

// defHead parses `def name(params): body;`.
func (p *jqParser) defHead() (*jqDef, error) {
	p.next() // def
	if p.err != nil {
		return nil, p.err
	}
	if p.tok.kind != jqIdent {
		return nil, p.errorf("expected a name after 'def' but found %s", p.tok.describe())
	}
	d := &jqDef{name: p.tok.text}
	p.next()
	var binds []jqBinding
	if p.is("(") {
		p.next()
		for {
			if p.err != nil {
				return nil, p.err
			}
			param := new(jqFilter)
			switch p.tok.kind {
			case jqIdent:
				d.values = append(d.values, nil)
			case jqVar: // $name is also callable as name
				slot := new(vm.Value)
				d.values = append(d.values, slot)
				binds = append(binds, jqBinding{name: p.tok.text, slot: slot})
			default:
				return nil, p.errorf("expected a parameter name but found %s", p.tok.describe())
			}
			d.params = append(d.params, param)
			binds = append(binds, jqBinding{name: p.tok.text, param: param})
			p.next()
			if !p.is(";") {
				break
			}
			p.next()
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	n := len(p.scope)
	p.scope = append(p.scope, jqBinding{name: d.name, def: d})
	body, err := p.withBindings(binds, p.parsePipe)
	p.scope = p.scope[:n]
	if err != nil {
		return nil, err
	}
	d.body = body
	return d, p.expect(";")
}

// userCall is the call of a def or a parameter in scope named name
// taking args; ok is false when there is none.
func (p *jqParser) userCall(name string, args []jqFilter) (jqFilter, bool) {
	for i := len(p.scope) - 1; i >= 0; i-- {
		b := p.scope[i]
		switch {
		case b.param != nil && b.name == name && len(args) == 0:
			param := b.param
			return func(in vm.Value) ([]vm.Value, error) { return (*param)(in) }, true
		case b.def != nil && b.name == name && len(b.def.params) == len(args):
			return p.callDef(b.def, args), true
		}
	}
	return nil, false
}

// preludeCall is the call of a jqPrelude function, parsed on first use.
func (p *jqParser) preludeCall(name string, args []jqFilter) (jqFilter, bool, error) {
	key := name + "/" + string(rune('0'+len(args)))
	src, ok := jqPrelude[key]
	if !ok {
		return nil, false, nil
	}
	if p.rt.prelude == nil {
		p.rt.prelude = map[string]*jqDef{}
	}
	d := p.rt.prelude[key]
	if d == nil {
		sub := &jqParser{src: src, rt: p.rt}
		sub.next()
		var err error
		if d, err = sub.defHead(); err != nil {
			return nil, true, err
		}
		p.rt.prelude[key] = d
	}
	return p.callDef(d, args), true, nil
}

// callDef is a call of d with args, which run in the scope of the call
// site.
func (p *jqParser) callDef(d *jqDef, args []jqFilter) jqFilter {
	var values []*vm.Value
	var params []*jqFilter
	for _, b := range p.scope {
		switch {
		case b.slot != nil:
			values = append(values, b.slot)
		case b.param != nil:
			params = append(params, b.param)
		}
	}
	rt := p.rt
	return func(in vm.Value) ([]vm.Value, error) {
		if rt.depth >= jqMaxCallDepth {
			return nil, jqErrf("jq: error: %s/%d: calls nested too deeply", d.name, len(args))
		}
		if rt.calls++; rt.calls > jqMaxCalls {
			return nil, jqErrf("jq: error: %s/%d: more than %d calls", d.name, len(args), jqMaxCalls)
		}
		rt.depth++
		defer func() { rt.depth-- }()
		closures := make([]jqFilter, len(args))
		if len(args) > 0 {
			snapValues := make([]vm.Value, len(values))
			for i, s := range values {
				snapValues[i] = *s
			}
			snapParams := make([]jqFilter, len(params))
			for i, s := range params {
				snapParams[i] = *s
			}
			swap := func() {
				for i, s := range values {
					*s, snapValues[i] = snapValues[i], *s
				}
				for i, s := range params {
					*s, snapParams[i] = snapParams[i], *s
				}
			}
			for i, arg := range args {
				closures[i] = func(x vm.Value) ([]vm.Value, error) {
					swap()
					defer swap()
					return arg(x)
				}
			}
		}
		savedParams := make([]jqFilter, len(d.params))
		savedValues := make([]vm.Value, len(d.values))
		for i, s := range d.params {
			savedParams[i] = *s
			*s = closures[i]
		}
		for i, s := range d.values {
			if s != nil {
				savedValues[i] = *s
			}
		}
		defer func() {
			for i, s := range d.params {
				*s = savedParams[i]
			}
			for i, s := range d.values {
				if s != nil {
					*s = savedValues[i]
				}
			}
		}()
		return d.bindValues(0, in, closures)
	}
}

// bindValues binds the `$name` parameters from i on, once per output of
// each (the first varying slowest), and runs the body.
func (d *jqDef) bindValues(i int, in vm.Value, args []jqFilter) ([]vm.Value, error) {
	for i < len(d.values) && d.values[i] == nil {
		i++
	}
	if i == len(d.values) {
		return d.body(in)
	}
	vals, err := args[i](in)
	if err != nil {
		return nil, err
	}
	return jqFlatMap(vals, func(v vm.Value) ([]vm.Value, error) {
		*d.values[i] = v
		return d.bindValues(i+1, in, args)
	})
}

// jqPrelude holds the functions written in jq, by name/arity, each one
// def; they see only each other and the native functions, and a def is
// parsed only when an expression first calls it.
var jqPrelude = map[string]string{
	"walk/1":         `def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;`,
	"until/2":        `def until(cond; update): def _until: if cond then . else (update | _until) end; _until;`,
	"while/2":        `def while(cond; update): def _while: if cond then ., (update | _while) else empty end; _while;`,
	"repeat/1":       `def repeat(f): def _repeat: ., (f | _repeat); _repeat;`,
	"recurse/1":      `def recurse(f): def r: ., (f | r); r;`,
	"recurse/2":      `def recurse(f; cond): def r: ., (f | select(cond) | r); r;`,
	"in/1":           `def in(xs): . as $x | xs | has($x);`,
	"inside/1":       `def inside(xs): . as $x | xs | contains($x);`,
	"isvalid/1":      `def isvalid(f): try (f | true) catch false;`,
	"add/1":          `def add(f): reduce f as $x (null; . + $x);`,
	"any/2":          `def any(generator; condition): isempty(first(generator | condition or empty)) | not;`,
	"all/2":          `def all(generator; condition): isempty(first(generator | condition and empty));`,
	"isempty/1":      `def isempty(g): first((g | false), true);`,
	"paths/1":        `def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);`,
	"leaf_paths/0":   `def leaf_paths: paths(scalars);`,
	"abs/0":          `def abs: if type == "number" and . < 0 then - . else . end;`,
	"toarray/0":      `def toarray: if type == "array" then . else [.] end;`,
	"finites/0":      `def finites: select(isinfinite or isnan | not);`,
	"normals/0":      `def normals: select(isnormal);`,
	"nth/1":          `def nth($n): .[$n];`,
	"nth/2":          `def nth($n; f): if $n < 0 then error("Out of bounds negative array index") else last(limit($n + 1; f)) end;`,
	"combinations/0": `def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $w | [$x] + $w end;`,
	"combinations/1": `def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;`,
	"transpose/0":    `def transpose: if . == [] then [] else . as $in | (map(length) | max) as $max | [range(0; $max) as $j | [range(0; $in | length) as $i | $in[$i][$j]]] end;`,
	"ascii/0":        `def ascii: [.] | implode;`,
	"splits/1":       `def splits($re): split($re; null) | .[];`,
	"splits/2":       `def splits($re; flags): split($re; flags) | .[];`,
	"capture/1":      `def capture(re): capture(re; null);`,
	"scan/1":         `def scan($re): scan($re; null);`,
	"sub/2":          `def sub(re; str): sub(re; str; "");`,
	"gsub/2":         `def gsub(re; str): sub(re; str; "g");`,
	"index/1":        `def index($i): indices($i) | .[0];`,
	"rindex/1":       `def rindex($i): indices($i) | .[-1:][0];`,
	"INDEX/2":        `def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);`,
	"INDEX/1":        `def INDEX(idx_expr): INDEX(.[]; idx_expr);`,
	"IN/1":           `def IN(s): any(s == .; .);`,
	"IN/2":           `def IN(src; s): any(src == s; .);`,
}
