package json

// jq's path expressions and what uses them (docs/builtins-areas.md, "jq
// beyond the listed subset"): the update-assignments `p |= f`, `p = v`,
// `p += v` (and -=, *=, /=, %=, //=), `del(p)`, `path(p)` and `paths`.
//
// A filter is a closure that only computes values, so the left side of
// an assignment (or del's and path's argument) is parsed a second time,
// from its source text, as a path expression: one that yields where its
// values live ([key or index, …] from the input) as well as the values.
// Path expressions are `.`, `..`, `.name`, `."name"`, `.[e]`, `.[]`, `?`,
// `|`, `,`, parentheses, `select(f)`, `first(p)`, `recurse`, `empty` and
// `getpath(p)`.

import (
	"slices"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// jqPV is a value with its path from the input.
type jqPV struct {
	v    vm.Value
	path []vm.Value
}

// jqPathFilter maps a located value to the located values it selects.
type jqPathFilter = func(cur jqPV) ([]jqPV, error)

// jqParens parses `( … )` with parse, at a `(`.
func jqParens[T any](p *jqParser, parse func() (T, error)) (T, error) {
	var zero T
	if err := p.expect("("); err != nil {
		return zero, err
	}
	v, err := parse()
	if err != nil {
		return zero, err
	}
	if err := p.expect(")"); err != nil {
		return zero, err
	}
	return v, nil
}

// pathOf parses src[start:end] (text this parser already read as a value
// filter) as a path expression, with the bindings in effect now.
func (p *jqParser) pathOf(start, end int) (jqPathFilter, error) {
	sub := &jqParser{src: p.src[:end], i: start, scope: p.scope, rt: p.rt}
	sub.next()
	f, err := sub.pathPipe()
	if err == nil && sub.tok.kind != jqEOF {
		err = sub.errorf("unexpected %s", sub.tok.describe())
	}
	if err != nil {
		return nil, jqErrf("Invalid path expression: %s", err.Error())
	}
	return f, nil
}

func (p *jqParser) pathPipe() (jqPathFilter, error) {
	return jqChain(p, "|", p.pathComma, jqCompose)
}

func (p *jqParser) pathComma() (jqPathFilter, error) {
	return jqChain(p, ",", p.pathPostfix, jqConcat)
}

func (p *jqParser) pathPostfix() (jqPathFilter, error) {
	f, err := p.pathTerm()
	if err != nil {
		return nil, err
	}
	for {
		if p.err != nil {
			return nil, p.err
		}
		switch {
		case p.tok.kind == jqField:
			name := p.tok.text
			p.next()
			f = jqCompose(f, jqPathKey(jqConst(vm.Str(name))))
		case p.is("["):
			b, err := p.pathBracket()
			if err != nil {
				return nil, err
			}
			f = jqCompose(f, b)
		case p.is("?"):
			p.next()
			f = jqTry(f)
		default:
			return f, nil
		}
	}
}

// pathBracket parses `[]` or `[e]` in a path.
func (p *jqParser) pathBracket() (jqPathFilter, error) {
	p.next() // [
	if p.is("]") {
		p.next()
		return jqPathIterate, nil
	}
	key, err := p.pipeUntil("]")
	if err != nil {
		return nil, err
	}
	return jqPathKey(key), nil
}

func (p *jqParser) pathTerm() (jqPathFilter, error) {
	if p.err != nil {
		return nil, p.err
	}
	t := p.tok
	switch {
	case t.kind == jqDot:
		p.next()
		if p.is("[") {
			return p.pathBracket()
		}
		return func(cur jqPV) ([]jqPV, error) { return []jqPV{cur}, nil }, nil
	case t.kind == jqDotDot || (t.kind == jqIdent && t.text == "recurse"):
		p.next()
		return jqPathRecurse, nil
	case t.kind == jqField:
		p.next()
		return jqPathKey(jqConst(vm.Str(t.text))), nil
	case p.is("("):
		return jqParens(p, p.pathPipe)
	case t.kind == jqIdent && t.text == "empty":
		p.next()
		return func(jqPV) ([]jqPV, error) { return nil, nil }, nil
	case t.kind == jqIdent && (t.text == "select" || jqKindSelector(t.text)):
		p.next()
		var cond jqFilter
		var err error
		if t.text == "select" {
			cond, err = jqParens(p, p.parsePipe)
		} else { // a kind selector keeps its kind, as select(type == …) does
			cond = func(in vm.Value) ([]vm.Value, error) { return []vm.Value{vm.BoolOf(jqOfKind(t.text, in))}, nil }
		}
		if err != nil {
			return nil, err
		}
		return func(cur jqPV) ([]jqPV, error) {
			cs, err := cond(cur.v)
			if err != nil {
				return nil, err
			}
			var out []jqPV
			for _, c := range cs {
				if jqTruthy(c) {
					out = append(out, cur)
				}
			}
			return out, nil
		}, nil
	case t.kind == jqIdent && t.text == "first":
		p.next()
		f, err := jqParens(p, p.pathPipe)
		if err != nil {
			return nil, err
		}
		return func(cur jqPV) ([]jqPV, error) {
			out, err := f(cur)
			if len(out) > 1 {
				out = out[:1]
			}
			return out, err
		}, nil
	case t.kind == jqIdent && t.text == "getpath":
		p.next()
		pf, err := jqParens(p, p.parsePipe)
		if err != nil {
			return nil, err
		}
		return func(cur jqPV) ([]jqPV, error) {
			ps, err := pf(cur.v)
			if err != nil {
				return nil, err
			}
			var out []jqPV
			for _, pv := range ps {
				keys, ok := jqListItems(pv)
				if !ok {
					return nil, jqErrf("Path must be specified as an array")
				}
				at := cur
				for _, k := range keys {
					if at, err = jqStep(at, k); err != nil {
						return nil, err
					}
				}
				out = append(out, at)
			}
			return out, nil
		}, nil
	}
	if t.kind == jqEOF {
		return nil, p.errorf("unexpected end of expression")
	}
	return nil, p.errorf("%s is not a path expression", t.describe())
}

// jqStep is cur's child at key (null past the end, as jq reads it).
func jqStep(cur jqPV, key vm.Value) (jqPV, error) {
	v, err := jqIndex(cur.v, key)
	if err != nil {
		return jqPV{}, err
	}
	return jqPV{v, append(slices.Clip(cur.path), key)}, nil
}

// jqPathKey steps to each output of key (evaluated on the current value).
func jqPathKey(key jqFilter) jqPathFilter {
	return func(cur jqPV) ([]jqPV, error) {
		keys, err := key(cur.v)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if _, ok := jqFloat(k); !ok && k.Kind() != vm.KString {
				return nil, jqErrf("Cannot index %s with %s", jqTypeName(cur.v), jqTypeName(k))
			}
		}
		return jqSteps(cur, keys)
	}
}

func jqPathIterate(cur jqPV) ([]jqPV, error) {
	keys, err := jqChildKeys(cur.v)
	if err != nil {
		return nil, err
	}
	return jqSteps(cur, keys)
}

// jqSteps is cur's child at each key.
func jqSteps(cur jqPV, keys []vm.Value) ([]jqPV, error) {
	out := make([]jqPV, 0, len(keys))
	for _, k := range keys {
		s, err := jqStep(cur, k)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// jqChildKeys are the keys `.[]` visits: indexes of an array, keys of an
// object.
func jqChildKeys(v vm.Value) ([]vm.Value, error) {
	if v.IsNil() {
		return nil, jqErrf("Cannot iterate over null")
	}
	switch v.Object().(type) {
	case *vm.List, *vm.Set, *vm.Dict, *vm.StructValue:
		k, err := jqKeys(v)
		if err != nil {
			return nil, err
		}
		items, _ := jqListItems(k)
		return items, nil
	}
	return nil, jqErrf("Cannot iterate over %s", jqDescribe(v))
}

func jqPathRecurse(cur jqPV) ([]jqPV, error) {
	children, err := jqPathIterate(cur)
	if err != nil {
		return []jqPV{cur}, nil // a scalar has no children
	}
	below, err := jqFlatMap(children, jqPathRecurse)
	if err != nil {
		return nil, err
	}
	return append([]jqPV{cur}, below...), nil
}

// jqPaths runs a path filter on in.
func jqPaths(f jqPathFilter, in vm.Value) ([][]vm.Value, error) {
	pvs, err := f(jqPV{v: in})
	if err != nil {
		return nil, err
	}
	out := make([][]vm.Value, len(pvs))
	for i, pv := range pvs {
		out[i] = pv.path
	}
	return out, nil
}

// jqSetPath is v with the value at path replaced by x (objects and
// arrays created, and arrays padded with null, as needed).
// jqMaxArrayIndex bounds the index an update may pad an array to, as
// range's length is bounded.
const jqMaxArrayIndex = 1e7

func jqSetPath(v vm.Value, path []vm.Value, x vm.Value) (vm.Value, error) {
	if len(path) == 0 {
		return x, nil
	}
	key, rest := path[0], path[1:]
	if s, ok := key.AsString(); ok {
		var d *vm.Dict
		switch o := v.Object().(type) {
		case *vm.Dict:
			d = o
		default:
			if !v.IsNil() {
				return vm.Value{}, jqErrf("Cannot index %s with \"%s\"", jqTypeName(v), s.Go())
			}
			d = vm.NewDict()
		}
		child, _ := d.Get(s.Go())
		if !child.IsValid() {
			child = vm.Nil
		}
		nv, err := jqSetPath(child, rest, x)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(d.Set(s.Go(), nv)), nil
	}
	f, ok := jqFloat(key)
	if !ok {
		return vm.Value{}, jqErrf("Cannot update field at object index of %s", jqTypeName(v))
	}
	var items []vm.Value
	if !v.IsNil() {
		l, ok := jqListItems(v)
		if !ok {
			return vm.Value{}, jqErrf("Cannot index %s with number", jqTypeName(v))
		}
		items = slices.Clone(l)
	}
	if f >= jqMaxArrayIndex {
		return vm.Value{}, jqErrf("Array index too large")
	}
	i := int(f)
	if i < 0 {
		i += len(items)
		if i < 0 {
			return vm.Value{}, jqErrf("Out of bounds negative array index")
		}
	}
	for len(items) <= i {
		items = append(items, vm.Nil)
	}
	nv, err := jqSetPath(items[i], rest, x)
	if err != nil {
		return vm.Value{}, err
	}
	items[i] = nv
	return vm.Of(vm.NewList(items)), nil
}

// jqDelPaths is v without the values at paths: the longest and highest
// indexes first, so deleting one never moves another.
func jqDelPaths(v vm.Value, paths [][]vm.Value) (vm.Value, error) {
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, func(a, b []vm.Value) int {
		c, _ := jqCompare(vm.Of(vm.NewList(b)), vm.Of(vm.NewList(a)))
		return c
	})
	for _, p := range sorted {
		var err error
		if v, err = jqDelPath(v, p); err != nil {
			return vm.Value{}, err
		}
	}
	return v, nil
}

func jqDelPath(v vm.Value, path []vm.Value) (vm.Value, error) {
	if len(path) == 0 {
		return vm.Nil, nil
	}
	if v.IsNil() {
		return v, nil
	}
	key, rest := path[0], path[1:]
	if s, ok := key.AsString(); ok {
		d, ok := v.Object().(*vm.Dict)
		if !ok {
			return vm.Value{}, jqErrf("Cannot delete field at object index of %s", jqTypeName(v))
		}
		if len(rest) == 0 {
			return vm.Of(d.Delete(s.Go())), nil
		}
		child, ok := d.Get(s.Go())
		if !ok {
			return v, nil
		}
		nv, err := jqDelPath(child, rest)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(d.Set(s.Go(), nv)), nil
	}
	items, ok := jqListItems(v)
	f, isNum := jqFloat(key)
	if !ok || !isNum {
		return vm.Value{}, jqErrf("Cannot delete field at index of %s", jqTypeName(v))
	}
	if f >= jqMaxArrayIndex {
		return vm.Value{}, jqErrf("Array index too large")
	}
	i := int(f)
	if i < 0 {
		i += len(items)
	}
	if i < 0 || i >= len(items) {
		return v, nil
	}
	out := slices.Clone(items)
	if len(rest) == 0 {
		out = slices.Delete(out, i, i+1)
	} else {
		nv, err := jqDelPath(out[i], rest)
		if err != nil {
			return vm.Value{}, err
		}
		out[i] = nv
	}
	return vm.Of(vm.NewList(out)), nil
}

// jqAssign is `lhs OP rhs` for the assignment operator op.
func jqAssign(op string, lhs jqPathFilter, rhs jqFilter) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		paths, err := jqPaths(lhs, in)
		if err != nil {
			return nil, err
		}
		if op == "|=" {
			// each value replaced by the first output of rhs on it; none
			// deletes it
			v := in
			var gone [][]vm.Value
			for _, p := range paths {
				old, err := jqGetPath(v, p)
				if err != nil {
					return nil, err
				}
				r, err := rhs(old)
				if err != nil {
					return nil, err
				}
				if len(r) == 0 {
					gone = append(gone, p)
					continue
				}
				if v, err = jqSetPath(v, p, r[0]); err != nil {
					return nil, err
				}
			}
			if len(gone) > 0 {
				if v, err = jqDelPaths(v, gone); err != nil {
					return nil, err
				}
			}
			return []vm.Value{v}, nil
		}
		// =, op=, //=: rhs runs on the input; one result per output of it
		rs, err := rhs(in)
		if err != nil {
			return nil, err
		}
		out := make([]vm.Value, 0, len(rs))
		for _, r := range rs {
			v := in
			for _, p := range paths {
				nv := r
				if op != "=" {
					old, err := jqGetPath(v, p)
					if err != nil {
						return nil, err
					}
					switch op {
					case "//=":
						if jqTruthy(old) {
							nv = old
						}
					default:
						if nv, err = jqArith(op[:len(op)-1], old, r); err != nil {
							return nil, err
						}
					}
				}
				if v, err = jqSetPath(v, p, nv); err != nil {
					return nil, err
				}
			}
			out = append(out, v)
		}
		return out, nil
	}
}

func jqGetPath(v vm.Value, path []vm.Value) (vm.Value, error) {
	for _, k := range path {
		if v.IsNil() {
			return vm.Nil, nil
		}
		var err error
		if v, err = jqIndex(v, k); err != nil {
			return vm.Value{}, err
		}
	}
	return v, nil
}

// jqPathValues are the paths as jq prints them: arrays of keys.
func jqPathValues(paths [][]vm.Value) []vm.Value {
	out := make([]vm.Value, len(paths))
	for i, p := range paths {
		out[i] = vm.Of(vm.NewList(lib.CopyItems(p)))
	}
	return out
}
