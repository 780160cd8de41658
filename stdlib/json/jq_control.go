package json

// jq's variables and control forms beyond the subset (docs/builtins-areas.md,
// "jq beyond the listed subset"): `E as $x | body`, `$x`,
// `if c then a elif c2 then b else d end` and
// `reduce E as $x (init; update)`.
//
// A binding is a slot the binding filter fills before it runs its body:
// the filters run eagerly and one at a time, and a body cannot reach its
// own binding again (there is no `def`), so one slot per binding is safe.

import "github.com/harnlang/harn/vm"

type jqBinding struct {
	name string
	slot *vm.Value
}

// bind parses the body that follows `as $name` (or reduce's update) with
// name bound to a new slot, which it returns.
func (p *jqParser) bind(name string, parse func() (jqFilter, error)) (jqFilter, *vm.Value, error) {
	slot := new(vm.Value)
	p.scope = append(p.scope, jqBinding{name, slot})
	f, err := parse()
	p.scope = p.scope[:len(p.scope)-1]
	return f, slot, err
}

// variable is the filter reading $name.
func (p *jqParser) variable(name string) (jqFilter, error) {
	for i := len(p.scope) - 1; i >= 0; i-- {
		if p.scope[i].name == name {
			slot := p.scope[i].slot
			return func(vm.Value) ([]vm.Value, error) { return []vm.Value{*slot}, nil }, nil
		}
	}
	return nil, jqErrf("jq: error: $%s is not defined", name)
}

// varName reads the `$name` after `as`.
func (p *jqParser) varName() (string, error) {
	if p.err != nil {
		return "", p.err
	}
	if p.tok.kind != jqVar {
		return "", p.errorf("expected a $variable after 'as' but found %s", p.tok.describe())
	}
	name := p.tok.text
	p.next()
	return name, p.err
}

// parseAs parses `as $name | body` after the term source: the body runs
// once per output of source, on the same input, with $name bound to it.
func (p *jqParser) parseAs(source jqFilter) (jqFilter, error) {
	p.next() // as
	name, err := p.varName()
	if err != nil {
		return nil, err
	}
	if err := p.expect("|"); err != nil {
		return nil, err
	}
	body, slot, err := p.bind(name, p.parsePipe)
	if err != nil {
		return nil, err
	}
	return func(in vm.Value) ([]vm.Value, error) {
		vals, err := source(in)
		if err != nil {
			return nil, err
		}
		return jqFlatMap(vals, func(v vm.Value) ([]vm.Value, error) {
			*slot = v
			return body(in)
		})
	}, nil
}

// parseIf parses `if c then a (elif c then a)* (else b)? end`; without
// else the input passes through, as in jq 1.7.
func (p *jqParser) parseIf() (jqFilter, error) {
	p.next() // if
	cond, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	if err := p.expect("then"); err != nil {
		return nil, err
	}
	then, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	var otherwise jqFilter
	switch {
	case p.is("elif"):
		if otherwise, err = p.parseIf(); err != nil { // elif … end reads as a nested if
			return nil, err
		}
	case p.is("else"):
		p.next()
		if otherwise, err = p.parsePipe(); err != nil {
			return nil, err
		}
		if err := p.expect("end"); err != nil {
			return nil, err
		}
	default:
		if err := p.expect("end"); err != nil {
			return nil, err
		}
		otherwise = func(in vm.Value) ([]vm.Value, error) { return []vm.Value{in}, nil }
	}
	return func(in vm.Value) ([]vm.Value, error) {
		conds, err := cond(in)
		if err != nil {
			return nil, err
		}
		return jqFlatMap(conds, func(c vm.Value) ([]vm.Value, error) {
			if jqTruthy(c) {
				return then(in)
			}
			return otherwise(in)
		})
	}, nil
}

// parseReduce parses `reduce SOURCE as $x (INIT; UPDATE)`: the
// accumulator starts as INIT's last output on the input, and UPDATE runs
// on it once per output of SOURCE with $x bound (its last output is the
// new accumulator; none makes it null).
func (p *jqParser) parseReduce() (jqFilter, error) {
	p.next() // reduce
	p.stopAtAs = true
	source, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	if !p.is("as") {
		return nil, p.errorf("expected 'as' but found %s", p.tok.describe())
	}
	p.next()
	name, err := p.varName()
	if err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	init, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	if err := p.expect(";"); err != nil {
		return nil, err
	}
	update, slot, err := p.bind(name, p.parsePipe)
	if err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return func(in vm.Value) ([]vm.Value, error) {
		starts, err := init(in)
		if err != nil {
			return nil, err
		}
		acc := vm.Nil
		if len(starts) > 0 {
			acc = starts[len(starts)-1]
		}
		vals, err := source(in)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			*slot = v
			r, err := update(acc)
			if err != nil {
				return nil, err
			}
			acc = vm.Nil
			if len(r) > 0 {
				acc = r[len(r)-1]
			}
		}
		return []vm.Value{acc}, nil
	}, nil
}
