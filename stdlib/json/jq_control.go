package json

// jq's variables and control forms beyond the subset (docs/builtins-areas.md,
// "jq beyond the listed subset"): `E as $x | body` and the destructuring
// patterns `E as [$a, {b: $c}] | body`, `$x`,
// `if c then a elif c2 then b else d end`, `try E catch H`, `error`,
// `reduce E as $x (init; update)` and
// `foreach E as $x (init; update; extract)`.
//
// A binding is a slot the binding filter fills before it runs its body.
// Filters run eagerly, so a binding's extent is exactly its body's run:
// it saves the slot's value and restores it afterwards, which keeps a slot
// right when a recursive def (jq_defs.go) enters the same binding again.

import "github.com/harnlang/harn/vm"

// A jqBinding is one name in scope: a $variable (slot), a def's filter
// parameter (param, called as name) or a def (called as name/arity).
type jqBinding struct {
	name  string
	slot  *vm.Value
	param *jqFilter
	def   *jqDef
}

// variable is the filter reading $name.
func (p *jqParser) variable(name string) (jqFilter, error) {
	for i := len(p.scope) - 1; i >= 0; i-- {
		if b := p.scope[i]; b.slot != nil && b.name == name {
			slot := b.slot
			return func(vm.Value) ([]vm.Value, error) { return []vm.Value{*slot}, nil }, nil
		}
	}
	return nil, jqErrf("jq: error: $%s is not defined", name)
}

// A jqPattern is what follows `as`: a $variable, `[p, …]` (element i of
// an array) or `{key: p, $name, …}` (a field of an object).
type jqPattern struct {
	slot  *vm.Value
	elems []*jqPattern
	keys  []jqPatternKey
	array bool
	slots []*vm.Value // every slot of the pattern, for save and restore
}

type jqPatternKey struct {
	key string
	pat *jqPattern
}

// pattern parses a pattern and returns it with the bindings it makes.
func (p *jqParser) pattern() (*jqPattern, []jqBinding, error) {
	var binds []jqBinding
	pat, err := p.subPattern(&binds)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range binds {
		pat.slots = append(pat.slots, b.slot)
	}
	return pat, binds, nil
}

func (p *jqParser) subPattern(binds *[]jqBinding) (*jqPattern, error) {
	if p.err != nil {
		return nil, p.err
	}
	newVar := func(name string) *vm.Value {
		slot := new(vm.Value)
		*binds = append(*binds, jqBinding{name: name, slot: slot})
		return slot
	}
	switch {
	case p.tok.kind == jqVar:
		pat := &jqPattern{slot: newVar(p.tok.text)}
		p.next()
		return pat, p.err
	case p.is("["):
		p.next()
		pat := &jqPattern{array: true}
		for {
			e, err := p.subPattern(binds)
			if err != nil {
				return nil, err
			}
			pat.elems = append(pat.elems, e)
			if !p.is(",") {
				break
			}
			p.next()
		}
		return pat, p.expect("]")
	case p.is("{"):
		p.next()
		pat := &jqPattern{}
		for {
			var key string
			var sub *jqPattern
			var err error
			switch p.tok.kind {
			case jqVar: // $name, or $name: pattern (binds both)
				key = p.tok.text
				sub = &jqPattern{slot: newVar(key)}
				p.next()
			case jqIdent, jqStr:
				key = p.tok.text
				p.next()
			default:
				return nil, p.errorf("expected a key in an object pattern but found %s", p.tok.describe())
			}
			if sub != nil { // $name binds the field; `$name: pattern` also destructures it
				pat.keys = append(pat.keys, jqPatternKey{key, sub})
				sub = nil
				if !p.is(":") {
					goto nextKey
				}
			}
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			if sub, err = p.subPattern(binds); err != nil {
				return nil, err
			}
			pat.keys = append(pat.keys, jqPatternKey{key, sub})
		nextKey:
			if !p.is(",") {
				break
			}
			p.next()
		}
		return pat, p.expect("}")
	}
	return nil, p.errorf("expected a $variable or a pattern after 'as' but found %s", p.tok.describe())
}

// bind fills the pattern's slots from v.
func (pat *jqPattern) bind(v vm.Value) error {
	if pat.slot != nil {
		*pat.slot = v
	}
	if pat.array {
		if !v.IsNil() {
			if _, ok := jqListItems(v); !ok {
				return jqErrf("Cannot index %s with number", jqTypeName(v))
			}
		}
		for i, e := range pat.elems {
			item, err := jqIndex(v, vm.IntOf(int64(i)))
			if err != nil {
				return err
			}
			if err := e.bind(item); err != nil {
				return err
			}
		}
	}
	for _, k := range pat.keys {
		item, err := jqIndex(v, vm.Str(k.key))
		if err != nil {
			return err
		}
		if err := k.pat.bind(item); err != nil {
			return err
		}
	}
	return nil
}

// save returns the values the pattern's slots hold now; restore puts
// them back.
func (pat *jqPattern) save() []vm.Value {
	saved := make([]vm.Value, len(pat.slots))
	for i, s := range pat.slots {
		saved[i] = *s
	}
	return saved
}

func (pat *jqPattern) restore(saved []vm.Value) {
	for i, s := range pat.slots {
		*s = saved[i]
	}
}

// withBindings parses with binds in scope.
func (p *jqParser) withBindings(binds []jqBinding, parse func() (jqFilter, error)) (jqFilter, error) {
	n := len(p.scope)
	p.scope = append(p.scope, binds...)
	f, err := parse()
	p.scope = p.scope[:n]
	return f, err
}

// parseAs parses `as PATTERN | body` after the term source: the body
// runs once per output of source, on the same input, with the pattern
// bound to it.
func (p *jqParser) parseAs(source jqFilter) (jqFilter, error) {
	p.next() // as
	pat, binds, err := p.pattern()
	if err != nil {
		return nil, err
	}
	if err := p.expect("|"); err != nil {
		return nil, err
	}
	body, err := p.withBindings(binds, p.parsePipe)
	if err != nil {
		return nil, err
	}
	return func(in vm.Value) ([]vm.Value, error) {
		vals, err := source(in)
		if err != nil {
			return nil, err
		}
		saved := pat.save()
		defer pat.restore(saved)
		return jqFlatMap(vals, func(v vm.Value) ([]vm.Value, error) {
			if err := pat.bind(v); err != nil {
				return nil, err
			}
			return body(in)
		})
	}, nil
}

// parseIf parses `if c then a (elif c then a)* (else b)? end`; without
// else the input passes through, as in jq 1.7.
func (p *jqParser) parseIf() (jqFilter, error) {
	p.next() // if
	cond, err := p.pipeUntil("then")
	if err != nil {
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
		if otherwise, err = p.pipeUntil("end"); err != nil {
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

// parseTryCatch parses `try BODY (catch HANDLER)?`, both postfix terms:
// the body's outputs up to its first error; then, with a handler, the
// handler's outputs on the error's value (error(v)'s v, or the message).
func (p *jqParser) parseTryCatch() (jqFilter, error) {
	p.next() // try
	body, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	var handler jqFilter
	if p.is("catch") {
		p.next()
		if handler, err = p.parsePostfix(); err != nil {
			return nil, err
		}
	}
	if handler == nil {
		return jqTry(body), nil // `try E` is `E?`
	}
	return func(in vm.Value) ([]vm.Value, error) {
		out, err := body(in)
		if err == nil {
			return out, nil
		}
		return handler(jqErrorValue(err))
	}, nil
}

// jqErrorValue is what catch receives for err.
func jqErrorValue(err error) vm.Value {
	if e, ok := err.(*jqError); ok && e.val != nil {
		return *e.val
	}
	return vm.Str(err.Error())
}

// jqRaise is `error(v)` (`error` raises its input): a string is the
// message; any other value is carried to catch as it is.
func jqRaise(v vm.Value) error {
	msg := "jq: error (not a string): " + Stringify(v)
	if s, ok := v.AsString(); ok {
		msg = "jq: error: " + s.Go()
	} else if v.IsNil() {
		msg = "jq: error: null (null) not a string"
	}
	return &jqError{msg: msg, val: &v}
}

// A jqFold is the common head of reduce and foreach:
// `SOURCE as PATTERN (INIT; UPDATE`.
type jqFold struct {
	source, init, update jqFilter
	pat                  *jqPattern
	binds                []jqBinding
}

// foldHead parses a jqFold after `reduce` or `foreach`.
func (p *jqParser) foldHead() (*jqFold, error) {
	p.next() // reduce / foreach
	p.stopAtAs = true
	f := &jqFold{}
	var err error
	if f.source, err = p.parsePostfix(); err != nil {
		return nil, err
	}
	if !p.is("as") {
		return nil, p.errorf("expected 'as' but found %s", p.tok.describe())
	}
	p.next()
	if f.pat, f.binds, err = p.pattern(); err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	if f.init, err = p.pipeUntil(";"); err != nil {
		return nil, err
	}
	f.update, err = p.withBindings(f.binds, p.parsePipe)
	return f, err
}

// parseReduce parses `reduce SOURCE as PATTERN (INIT; UPDATE)`: the
// accumulator starts as INIT's last output on the input, and UPDATE runs
// on it once per output of SOURCE with the pattern bound (its last output
// is the new accumulator; none makes it null).
func (p *jqParser) parseReduce() (jqFilter, error) {
	f, err := p.foldHead()
	if err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	source, init, update, pat := f.source, f.init, f.update, f.pat
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
		saved := pat.save()
		defer pat.restore(saved)
		for _, v := range vals {
			if err := pat.bind(v); err != nil {
				return nil, err
			}
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

// parseForeach parses `foreach SOURCE as PATTERN (INIT; UPDATE; EXTRACT)`
// (EXTRACT defaults to `.`): for each output of INIT as the starting
// state, and each output of SOURCE with the pattern bound, every output
// of UPDATE on the state is extracted and becomes the state in turn.
func (p *jqParser) parseForeach() (jqFilter, error) {
	f, err := p.foldHead()
	if err != nil {
		return nil, err
	}
	var extract jqFilter
	if p.is(";") {
		p.next()
		if extract, err = p.withBindings(f.binds, p.parsePipe); err != nil {
			return nil, err
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	source, init, update, pat := f.source, f.init, f.update, f.pat
	return func(in vm.Value) ([]vm.Value, error) {
		starts, err := init(in)
		if err != nil {
			return nil, err
		}
		saved := pat.save()
		defer pat.restore(saved)
		var out []vm.Value
		for _, state := range starts {
			vals, err := source(in)
			if err != nil {
				return nil, err
			}
			for _, v := range vals {
				if err := pat.bind(v); err != nil {
					return nil, err
				}
				states, err := update(state)
				if err != nil {
					return nil, err
				}
				for _, s := range states {
					state = s
					if extract == nil {
						out = append(out, s)
						continue
					}
					r, err := extract(s)
					if err != nil {
						return nil, err
					}
					out = append(out, r...)
				}
			}
		}
		return out, nil
	}, nil
}
