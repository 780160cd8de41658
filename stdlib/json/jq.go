package json

// jq / jq_first (docs/spec/builtins.md §3.12): the jq subset evaluated over
// Harn values, with jq's common functions (jq_funcs.go), variables and
// control forms (jq_control.go) and path updates (jq_paths.go). A filter
// maps one input to zero or more outputs; `|` feeds every output of the
// left side to the right side, `,` concatenates. Truthiness is jq's: only
// false and null are false.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("jq", "jq(v, expr) -> list", "run a jq filter; every output as a list", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Value{}, lib.ArgCountError("jq", 2)
		}
		out, err := runJQ(a.At(0), a.Text(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("jq_first", "jq_first(v, expr) -> any", "run a jq filter; its first output or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Value{}, lib.ArgCountError("jq_first", 2)
		}
		out, err := runJQ(a.At(0), a.Text(1))
		if err != nil {
			return vm.Value{}, err
		}
		if len(out) == 0 {
			return vm.Nil, nil
		}
		return out[0], nil
	})
}

func runJQ(input vm.Value, expr string) ([]vm.Value, error) {
	p := &jqParser{src: expr, rt: &jqRuntime{}}
	p.next()
	f, err := p.parsePipe()
	if err == nil && p.tok.kind != jqEOF {
		err = p.errorf("unexpected %s", p.tok.describe())
	}
	if err != nil {
		return nil, vm.Throwf("%s", err.Error())
	}
	out, err := f(input)
	if err != nil {
		return nil, vm.Throwf("%s", err.Error())
	}
	return out, nil
}

// jqFilter maps one input to its outputs.
type jqFilter = func(in vm.Value) ([]vm.Value, error)

// A jqError is a failed filter; val is the value error(v) raised, which
// catch receives (nil for the evaluator's own errors: catch gets msg).
type jqError struct {
	msg string
	val *vm.Value
}

func (e *jqError) Error() string { return e.msg }

func jqErrf(format string, args ...any) error {
	return &jqError{msg: fmt.Sprintf(format, args...)}
}

// ---- lexer ----

type jqKind int

const (
	jqEOF    jqKind = iota
	jqDot           // .
	jqDotDot        // ..
	jqField         // .name or ."name"
	jqIdent         // name
	jqNum
	jqStr
	jqPunct // | , ( ) [ ] { } : ? and operators
	jqVar   // $name
	jqAt    // @name
)

type jqToken struct {
	kind  jqKind
	text  string
	num   float64
	pos   int
	parts []jqStrPart // a string that interpolates: its pieces
}

func (t jqToken) describe() string {
	switch t.kind {
	case jqEOF:
		return "end of expression"
	case jqStr:
		return strconv.Quote(t.text)
	case jqAt:
		return "'@" + t.text + "'"
	}
	return "'" + t.text + "'"
}

type jqParser struct {
	src   string
	i     int
	tok   jqToken
	err   error
	scope []jqBinding // the variables, parameters and defs in scope, innermost last
	rt    *jqRuntime  // shared by every parser of one expression
	// stopAtAs makes the next parsePostfix leave a following `as` to its
	// caller (reduce's source), not start a binding.
	stopAtAs bool
}

func (p *jqParser) errorf(format string, args ...any) error {
	return jqErrf("jq: parse error: "+format+" at position %d", append(args, p.tok.pos)...)
}

func jqIdentByte(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

func (p *jqParser) next() {
	for p.i < len(p.src) && strings.IndexByte(" \t\n\r", p.src[p.i]) >= 0 {
		p.i++
	}
	start := p.i
	if p.i >= len(p.src) {
		p.tok = jqToken{kind: jqEOF, pos: start}
		return
	}
	c := p.src[p.i]
	switch {
	case c == '.':
		p.i++
		if p.i < len(p.src) && p.src[p.i] == '.' {
			p.i++
			p.tok = jqToken{kind: jqDotDot, text: "..", pos: start}
			return
		}
		if p.i < len(p.src) && jqIdentByte(p.src[p.i], true) {
			j := p.i
			for j < len(p.src) && jqIdentByte(p.src[j], false) {
				j++
			}
			p.tok = jqToken{kind: jqField, text: p.src[p.i:j], pos: start}
			p.i = j
			return
		}
		if p.i < len(p.src) && p.src[p.i] == '"' {
			s, _, ok := p.lexString()
			if !ok {
				return
			}
			p.tok = jqToken{kind: jqField, text: s, pos: start}
			return
		}
		p.tok = jqToken{kind: jqDot, text: ".", pos: start}
	case c == '"':
		s, parts, ok := p.lexString()
		if ok {
			p.tok = jqToken{kind: jqStr, text: s, pos: start, parts: parts}
		}
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.src) && (lib.ASCIIDigit(p.src[j]) || p.src[j] == '.') {
			j++
		}
		f, err := strconv.ParseFloat(p.src[p.i:j], 64)
		if err != nil {
			p.tok = jqToken{kind: jqPunct, text: p.src[p.i:j], pos: start}
			p.err = jqErrf("jq: parse error: invalid number '%s' at position %d", p.src[p.i:j], start)
		} else {
			p.tok = jqToken{kind: jqNum, text: p.src[p.i:j], num: f, pos: start}
		}
		p.i = j
	case (c == '$' || c == '@') && p.i+1 < len(p.src) && jqIdentByte(p.src[p.i+1], true):
		// $variable, @format
		j := p.i + 1
		for j < len(p.src) && jqIdentByte(p.src[j], false) {
			j++
		}
		kind := jqVar
		if c == '@' {
			kind = jqAt
		}
		p.tok = jqToken{kind: kind, text: p.src[p.i+1 : j], pos: start}
		p.i = j
	case jqIdentByte(c, true):
		j := p.i
		for j < len(p.src) && jqIdentByte(p.src[j], false) {
			j++
		}
		p.tok = jqToken{kind: jqIdent, text: p.src[p.i:j], pos: start}
		p.i = j
	default:
		for _, op := range jqOperators {
			if strings.HasPrefix(p.src[p.i:], op) {
				p.i += len(op)
				p.tok = jqToken{kind: jqPunct, text: op, pos: start}
				return
			}
		}
		r, _ := utf8.DecodeRuneInString(p.src[p.i:])
		p.tok = jqToken{kind: jqPunct, text: string(r), pos: start}
		p.err = jqErrf("jq: parse error: unexpected character '%c' at position %d", r, start)
		p.i += utf8.RuneLen(r)
	}
}

// jqOperators are the punctuation tokens, longest first where one is a
// prefix of another.
var jqOperators = []string{"==", "!=", "<=", ">=", "//=", "//", "|=", "+=", "-=", "*=", "/=", "%=",
	"|", ",", ";", "(", ")", "[", "]", "{", "}", ":", "?", "<", ">", "+", "-", "*", "/", "%", "="}

func (p *jqParser) is(text string) bool {
	return (p.tok.kind == jqPunct || p.tok.kind == jqIdent) && p.tok.text == text
}

// pipeUntil parses a pipe and the closer that ends it (")", "]", "then",
// ";", "end").
func (p *jqParser) pipeUntil(closer string) (jqFilter, error) {
	f, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	if err := p.expect(closer); err != nil {
		return nil, err
	}
	return f, nil
}

func (p *jqParser) expect(text string) error {
	if p.err != nil {
		return p.err
	}
	if !p.is(text) {
		return p.errorf("expected '%s' but found %s", text, p.tok.describe())
	}
	p.next()
	return p.err
}

// ---- parser: pipe < comma < alternative < or < and < comparison < additive < multiplicative < postfix ----

func (p *jqParser) parsePipe() (jqFilter, error) {
	return jqChain(p, "|", p.pipeOperand, jqCompose)
}

// pipeOperand is a comma expression, or a def, whose scope is the rest of
// the pipe.
func (p *jqParser) pipeOperand() (jqFilter, error) {
	if p.is("def") {
		return p.parseDef()
	}
	return p.parseComma()
}

// jqChain parses `operand (op operand)*`, combining left to right: the
// pipes and commas of value and path filters alike.
func jqChain[F any](p *jqParser, op string, operand func() (F, error), combine func(a, b F) F) (F, error) {
	left, err := operand()
	if err != nil {
		return left, err
	}
	for p.is(op) {
		p.next()
		right, err := operand()
		if err != nil {
			return right, err
		}
		left = combine(left, right)
	}
	return left, nil
}

// jqCompose is `left | right`: right runs on every output of left. It
// serves value filters and path filters (jq_paths.go) alike.
func jqCompose[T any](left, right func(T) ([]T, error)) func(T) ([]T, error) {
	return func(in T) ([]T, error) {
		mid, err := left(in)
		if err != nil {
			return nil, err
		}
		return jqFlatMap(mid, right)
	}
}

// jqFlatMap is every output of f on each item, in order.
func jqFlatMap[T any](items []T, f func(T) ([]T, error)) ([]T, error) {
	var out []T
	for _, it := range items {
		r, err := f(it)
		if err != nil {
			return nil, err
		}
		out = append(out, r...)
	}
	return out, nil
}

// jqConcat is `left, right`: left's outputs, then right's, on one input.
func jqConcat[T any](left, right func(T) ([]T, error)) func(T) ([]T, error) {
	return func(in T) ([]T, error) {
		a, err := left(in)
		if err != nil {
			return nil, err
		}
		b, err := right(in)
		if err != nil {
			return nil, err
		}
		return append(append([]T(nil), a...), b...), nil
	}
}

func (p *jqParser) parseComma() (jqFilter, error) {
	return jqChain(p, ",", p.parseAlt, jqConcat)
}

func (p *jqParser) parseAlt() (jqFilter, error) {
	left, err := p.parseAssign()
	if err != nil {
		return nil, err
	}
	for p.is("//") {
		p.next()
		right, err := p.parseAssign()
		if err != nil {
			return nil, err
		}
		l := left
		left = func(in vm.Value) ([]vm.Value, error) {
			a, err := l(in)
			var keep []vm.Value
			if err == nil {
				for _, v := range a {
					if jqTruthy(v) {
						keep = append(keep, v)
					}
				}
			}
			if len(keep) > 0 {
				return keep, nil
			}
			return right(in)
		}
	}
	return left, nil
}

// parseAssign parses `path OP value` for the assignment operators (jq
// gives them no associativity, between // and or): the left side is
// read again as a path expression (jq_paths.go).
func (p *jqParser) parseAssign() (jqFilter, error) {
	start := p.tok.pos
	left, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != jqPunct {
		return left, nil
	}
	switch op := p.tok.text; op {
	case "=", "|=", "+=", "-=", "*=", "/=", "%=", "//=":
		path, err := p.pathOf(start, p.tok.pos)
		if err != nil {
			return nil, err
		}
		p.next()
		right, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		return jqAssign(op, path, right), nil
	}
	return left, nil
}

func (p *jqParser) parseOr() (jqFilter, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.is("or") {
		p.next()
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = jqLogic(left, right, true)
	}
	return left, nil
}

func (p *jqParser) parseAnd() (jqFilter, error) {
	left, err := p.parseCmp()
	if err != nil {
		return nil, err
	}
	for p.is("and") {
		p.next()
		right, err := p.parseCmp()
		if err != nil {
			return nil, err
		}
		left = jqLogic(left, right, false)
	}
	return left, nil
}

func jqLogic(left, right jqFilter, isOr bool) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		a, err := left(in)
		if err != nil {
			return nil, err
		}
		var out []vm.Value
		for _, x := range a {
			if jqTruthy(x) == isOr {
				out = append(out, vm.BoolOf(isOr))
				continue
			}
			b, err := right(in)
			if err != nil {
				return nil, err
			}
			for _, y := range b {
				out = append(out, vm.BoolOf(jqTruthy(y)))
			}
		}
		return out, nil
	}
}

func (p *jqParser) parseCmp() (jqFilter, error) {
	left, err := p.parseAdditive()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if p.is(op) {
			p.next()
			right, err := p.parseAdditive()
			if err != nil {
				return nil, err
			}
			return jqBinary(left, right, func(a, b vm.Value) (vm.Value, error) {
				c, err := jqCompare(a, b)
				if err != nil {
					return vm.Value{}, err
				}
				switch op {
				case "==":
					return vm.BoolOf(c == 0), nil
				case "!=":
					return vm.BoolOf(c != 0), nil
				case "<":
					return vm.BoolOf(c < 0), nil
				case ">":
					return vm.BoolOf(c > 0), nil
				case "<=":
					return vm.BoolOf(c <= 0), nil
				}
				return vm.BoolOf(c >= 0), nil
			}), nil
		}
	}
	return left, nil
}

func (p *jqParser) parseAdditive() (jqFilter, error) {
	left, err := p.parseMul()
	if err != nil {
		return nil, err
	}
	for p.is("+") || p.is("-") {
		op := p.tok.text
		p.next()
		right, err := p.parseMul()
		if err != nil {
			return nil, err
		}
		left = jqBinary(left, right, func(a, b vm.Value) (vm.Value, error) { return jqArith(op, a, b) })
	}
	return left, nil
}

func (p *jqParser) parseMul() (jqFilter, error) {
	left, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	for p.is("*") || p.is("/") || p.is("%") {
		op := p.tok.text
		p.next()
		right, err := p.parsePostfix()
		if err != nil {
			return nil, err
		}
		left = jqBinary(left, right, func(a, b vm.Value) (vm.Value, error) { return jqArith(op, a, b) })
	}
	return left, nil
}

// jqDeepMerge is `a * b` on objects: b's fields win, and fields that are
// objects on both sides merge in turn.
func jqDeepMerge(a, b *vm.Dict) *vm.Dict {
	out := a
	b.Range(func(k string, v vm.Value) bool {
		if old, ok := out.Get(k); ok {
			if x, ok := old.AsDict(); ok {
				if y, ok := v.AsDict(); ok {
					v = vm.Of(jqDeepMerge(x, y))
				}
			}
		}
		out = out.Set(k, v)
		return true
	})
	return out
}

// jqJoinSplit is `s / sep`, split(sep) on a string: the pieces between
// separators (none for the empty string).
func jqJoinSplit(s, sep string) vm.Value {
	var parts []vm.Value
	if s != "" {
		for _, piece := range strings.Split(s, sep) {
			parts = append(parts, vm.Str(piece))
		}
	}
	return vm.Of(vm.NewList(parts))
}

// jqBinary evaluates both sides against the same input and combines every
// pair of outputs (right side varying slowest, as jq does).
func jqBinary(left, right jqFilter, op func(a, b vm.Value) (vm.Value, error)) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		bs, err := right(in)
		if err != nil {
			return nil, err
		}
		as, err := left(in)
		if err != nil {
			return nil, err
		}
		var out []vm.Value
		for _, b := range bs {
			for _, a := range as {
				v, err := op(a, b)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
		}
		return out, nil
	}
}

func (p *jqParser) parsePostfix() (jqFilter, error) {
	stopAtAs := p.stopAtAs
	p.stopAtAs = false
	f, err := p.parseTerm()
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
			f = jqCompose(f, jqIndexKey(name))
		case p.is("["):
			idx, err := p.parseBracket()
			if err != nil {
				return nil, err
			}
			f = jqCompose(f, idx)
		case p.is("?"):
			p.next()
			f = jqTry(f)
		case p.is("as") && !stopAtAs:
			return p.parseAs(f)
		default:
			return f, nil
		}
	}
}

// jqTry is `f?`: f's outputs, or none when it fails.
func jqTry[T any](f func(T) ([]T, error)) func(T) ([]T, error) {
	return func(in T) ([]T, error) {
		out, err := f(in)
		if err != nil {
			return nil, nil
		}
		return out, nil
	}
}

// parseBracket parses `[]`, `[e]` or `[a:b]` after a term.
func (p *jqParser) parseBracket() (jqFilter, error) {
	p.next() // [
	if p.err != nil {
		return nil, p.err
	}
	if p.is("]") {
		p.next()
		return jqIterate, nil
	}
	var lo, hi jqFilter
	var err error
	if !p.is(":") {
		lo, err = p.parsePipe()
		if err != nil {
			return nil, err
		}
	}
	if p.is(":") {
		p.next()
		if !p.is("]") {
			hi, err = p.parsePipe()
			if err != nil {
				return nil, err
			}
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		return jqSlice(lo, hi), nil
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return func(in vm.Value) ([]vm.Value, error) {
		keys, err := lo(in)
		if err != nil {
			return nil, err
		}
		var out []vm.Value
		for _, k := range keys {
			v, err := jqIndex(in, k)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}, nil
}

func (p *jqParser) parseTerm() (jqFilter, error) {
	if p.err != nil {
		return nil, p.err
	}
	t := p.tok
	switch t.kind {
	case jqDot:
		p.next()
		if p.is("[") {
			return p.parseBracket()
		}
		return func(in vm.Value) ([]vm.Value, error) { return []vm.Value{in}, nil }, nil
	case jqDotDot:
		p.next()
		return func(in vm.Value) ([]vm.Value, error) {
			var out []vm.Value
			jqRecurse(in, &out)
			return out, nil
		}, nil
	case jqField:
		p.next()
		return jqIndexKey(t.text), nil
	case jqNum:
		p.next()
		v := jqNumber(t.num)
		return jqConst(v), nil
	case jqStr:
		p.next()
		if t.parts != nil {
			return p.interpolation(t.parts, nil)
		}
		return jqConst(vm.Str(t.text)), nil
	case jqAt:
		return p.parseFormat()
	case jqIdent:
		switch t.text {
		case "if":
			return p.parseIf()
		case "reduce":
			return p.parseReduce()
		case "foreach":
			return p.parseForeach()
		case "try":
			return p.parseTryCatch()
		}
		return p.parseCall()
	case jqVar:
		p.next()
		return p.variable(t.text)
	case jqEOF:
		return nil, p.errorf("unexpected end of expression")
	}
	switch t.text {
	case "(":
		p.next()
		return p.pipeUntil(")")
	case "[":
		p.next()
		if p.is("]") {
			p.next()
			return jqConst(vm.Of(vm.NewList(nil))), nil
		}
		f, err := p.pipeUntil("]")
		if err != nil {
			return nil, err
		}
		return func(in vm.Value) ([]vm.Value, error) {
			out, err := f(in)
			if err != nil {
				return nil, err
			}
			return []vm.Value{vm.Of(vm.NewList(out))}, nil
		}, nil
	case "{":
		return p.parseObject()
	case "-":
		p.next()
		f, err := p.parsePostfix()
		if err != nil {
			return nil, err
		}
		return jqCompose(f, func(in vm.Value) ([]vm.Value, error) {
			v, err := jqArith("-", vm.IntOf(0), in)
			return []vm.Value{v}, err
		}), nil
	}
	return nil, p.errorf("unexpected %s", t.describe())
}

func jqConst(v vm.Value) jqFilter {
	return func(vm.Value) ([]vm.Value, error) { return []vm.Value{v}, nil }
}

func jqNumber(f float64) vm.Value {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return vm.IntOf(int64(f))
	}
	return vm.FloatOf(f)
}

func (p *jqParser) parseObject() (jqFilter, error) {
	p.next() // {
	type entry struct {
		key jqFilter
		val jqFilter
	}
	var entries []entry
	for !p.is("}") {
		if p.err != nil {
			return nil, p.err
		}
		var key, varVal jqFilter
		var name string
		shorthand := false
		switch {
		case p.tok.kind == jqStr && p.tok.parts != nil: // {"k\(e)": v}
			parts := p.tok.parts
			p.next()
			k, err := p.interpolation(parts, nil)
			if err != nil {
				return nil, err
			}
			key = k
		case p.tok.kind == jqIdent || p.tok.kind == jqStr:
			name = p.tok.text
			key = jqConst(vm.Str(name))
			shorthand = true
			p.next()
		case p.tok.kind == jqVar:
			// {$x} is {x: $x}
			name = p.tok.text
			key = jqConst(vm.Str(name))
			p.next()
			v, err := p.variable(name)
			if err != nil {
				return nil, err
			}
			varVal = v
		case p.is("("):
			p.next()
			k, err := p.pipeUntil(")")
			if err != nil {
				return nil, err
			}
			key = k
		default:
			return nil, p.errorf("unexpected %s in object construction", p.tok.describe())
		}
		val := varVal // {$x}: the value is the variable's
		switch {
		case val != nil:
		case p.is(":"):
			p.next()
			v, err := p.parseObjectValue()
			if err != nil {
				return nil, err
			}
			val = v
		case shorthand:
			val = jqIndexKey(name)
		default:
			return nil, p.errorf("expected ':' but found %s", p.tok.describe())
		}
		entries = append(entries, entry{key, val})
		if p.is(",") {
			p.next()
			continue
		}
		if !p.is("}") {
			return nil, p.errorf("expected ',' or '}' but found %s", p.tok.describe())
		}
	}
	p.next()
	return func(in vm.Value) ([]vm.Value, error) {
		results := []*vm.Dict{vm.NewDict()}
		for _, e := range entries {
			keys, err := e.key(in)
			if err != nil {
				return nil, err
			}
			vals, err := e.val(in)
			if err != nil {
				return nil, err
			}
			var next []*vm.Dict
			for _, d := range results {
				for _, k := range keys {
					ks, ok := k.AsString()
					if !ok {
						return nil, jqErrf("Object keys must be strings")
					}
					for _, v := range vals {
						next = append(next, d.Set(ks.Go(), v))
					}
				}
			}
			results = next
		}
		out := make([]vm.Value, len(results))
		for i, d := range results {
			out[i] = vm.Of(d)
		}
		return out, nil
	}, nil
}

// parseObjectValue parses an object value: alternatives of `|` without `,`.
func (p *jqParser) parseObjectValue() (jqFilter, error) {
	left, err := p.parseAlt()
	if err != nil {
		return nil, err
	}
	for p.is("|") {
		p.next()
		right, err := p.parseAlt()
		if err != nil {
			return nil, err
		}
		left = jqCompose(left, right)
	}
	return left, nil
}

func (p *jqParser) parseCall() (jqFilter, error) {
	name := p.tok.text
	p.next()
	var args []jqFilter
	var spans [][2]int // each argument's source text, for path arguments
	if p.is("(") {
		p.next()
		for {
			start := p.tok.pos
			a, err := p.parsePipe()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			spans = append(spans, [2]int{start, p.tok.pos})
			if p.is(";") {
				p.next()
				continue
			}
			break
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if f, ok := p.userCall(name, args); ok {
		return f, nil
	}
	if f, ok, err := p.preludeCall(name, args); ok {
		return f, err
	}
	arity := func(n int) error {
		if len(args) != n {
			return jqErrf("jq: error: %s/%d is not defined", name, len(args))
		}
		return nil
	}
	simple := func(fn func(vm.Value) (vm.Value, error)) (jqFilter, error) {
		if err := arity(0); err != nil {
			return nil, err
		}
		return func(in vm.Value) ([]vm.Value, error) {
			v, err := fn(in)
			if err != nil {
				return nil, err
			}
			return []vm.Value{v}, nil
		}, nil
	}
	switch name {
	case "true":
		return simple(func(vm.Value) (vm.Value, error) { return vm.True, nil })
	case "false":
		return simple(func(vm.Value) (vm.Value, error) { return vm.False, nil })
	case "null":
		return simple(func(vm.Value) (vm.Value, error) { return vm.Nil, nil })
	case "not":
		return simple(func(in vm.Value) (vm.Value, error) { return vm.BoolOf(!jqTruthy(in)), nil })
	case "length":
		return simple(jqLength)
	case "keys":
		return simple(jqKeys)
	case "values":
		return simple(func(in vm.Value) (vm.Value, error) {
			switch x := in.Object().(type) {
			case *vm.Dict:
				var out []vm.Value
				x.Range(func(_ string, v vm.Value) bool { out = append(out, v); return true })
				return vm.Of(vm.NewList(out)), nil
			case *vm.List:
				return vm.Of(x), nil
			case *vm.Set:
				return vm.Of(vm.NewList(append([]vm.Value(nil), x.Items()...))), nil
			}
			return vm.Value{}, jqErrf("%s has no values", jqDescribe(in))
		})
	case "type":
		return simple(func(in vm.Value) (vm.Value, error) { return vm.Str(jqTypeName(in)), nil })
	case "tostring":
		return simple(func(in vm.Value) (vm.Value, error) {
			if s, ok := in.AsString(); ok {
				return vm.Str(s.Go()), nil
			}
			return vm.Str(Stringify(in)), nil
		})
	case "tonumber":
		return simple(func(in vm.Value) (vm.Value, error) {
			if x, ok := in.AsString(); ok {
				v, err := Parse(strings.TrimSpace(x.Go()))
				if err == nil {
					if _, ok := v.AsInt(); ok {
						return v, nil
					}
					if _, ok := v.AsFloat(); ok {
						return v, nil
					}
				}
				// jq's strtod also reads what JSON does not: "01", "+1", ".5", "1."
				if t := strings.TrimSpace(x.Go()); t != "" && strings.Trim(t, "0123456789+-.eE") == "" {
					if f, err := strconv.ParseFloat(t, 64); err == nil {
						return jqNumber(f), nil
					}
				}
			}
			if lib.IsNumber(in) {
				return in, nil
			}
			return vm.Value{}, jqErrf("%s cannot be parsed as a number", jqDescribe(in))
		})
	case "add":
		return simple(func(in vm.Value) (vm.Value, error) {
			items, ok := jqItems(in)
			if !ok {
				return vm.Value{}, jqErrf("Cannot iterate over %s", jqDescribe(in))
			}
			var acc vm.Value = vm.Nil
			for _, it := range items {
				v, err := jqArith("+", acc, it)
				if err != nil {
					return vm.Value{}, err
				}
				acc = v
			}
			return acc, nil
		})
	case "empty":
		if err := arity(0); err != nil {
			return nil, err
		}
		return func(vm.Value) ([]vm.Value, error) { return nil, nil }, nil
	case "map":
		if err := arity(1); err != nil {
			return nil, err
		}
		f := args[0]
		return func(in vm.Value) ([]vm.Value, error) {
			items, ok := jqItems(in)
			if !ok {
				return nil, jqErrf("Cannot iterate over %s", jqDescribe(in))
			}
			out, err := jqFlatMap(items, f)
			if err != nil {
				return nil, err
			}
			return []vm.Value{vm.Of(vm.NewList(out))}, nil
		}, nil
	case "select":
		if err := arity(1); err != nil {
			return nil, err
		}
		f := args[0]
		return func(in vm.Value) ([]vm.Value, error) {
			conds, err := f(in)
			if err != nil {
				return nil, err
			}
			var out []vm.Value
			for _, c := range conds {
				if jqTruthy(c) {
					out = append(out, in)
				}
			}
			return out, nil
		}, nil
	case "has":
		if err := arity(1); err != nil {
			return nil, err
		}
		f := args[0]
		return func(in vm.Value) ([]vm.Value, error) {
			keys, err := f(in)
			if err != nil {
				return nil, err
			}
			var out []vm.Value
			for _, k := range keys {
				switch x := in.Object().(type) {
				case *vm.Dict:
					out = append(out, vm.BoolOf(x.Has(vm.ToDisplay(k))))
				case *vm.List:
					n, ok := k.AsInt()
					if !ok {
						return nil, jqErrf("Cannot check whether array has a %s key", jqTypeName(k))
					}
					out = append(out, vm.BoolOf(n >= 0 && int(n) < x.Len()))
				default:
					return nil, jqErrf("Cannot check whether %s has a %s key", jqTypeName(in), jqTypeName(k))
				}
			}
			return out, nil
		}, nil
	}
	switch {
	case (name == "del" || name == "path") && len(args) == 1:
		path, err := p.pathOf(spans[0][0], spans[0][1])
		if err != nil {
			return nil, err
		}
		return func(in vm.Value) ([]vm.Value, error) {
			paths, err := jqPaths(path, in)
			if err != nil {
				return nil, err
			}
			if name == "path" {
				return jqPathValues(paths), nil
			}
			v, err := jqDelPaths(in, paths)
			return []vm.Value{v}, err
		}, nil
	case name == "paths" && len(args) == 0:
		return func(in vm.Value) ([]vm.Value, error) {
			paths, err := jqPaths(jqPathRecurse, in)
			if err != nil {
				return nil, err
			}
			return jqPathValues(paths[1:]), nil // the input's own path, [], is not listed
		}, nil
	}
	if f, ok := jqFunction(name, args); ok {
		return f, nil
	}
	if f, ok := jqTextFunction(name, args); ok {
		return f, nil
	}
	return nil, jqErrf("jq: error: %s/%d is not defined", name, len(args))
}

// ---- evaluation helpers ----

// The helpers below read scalars by kind: Value.Object would box them.

func jqTruthy(v vm.Value) bool {
	if b, ok := v.AsBool(); ok {
		return bool(b)
	}
	return !v.IsNil()
}

func jqTypeName(v vm.Value) string {
	switch v.Kind() {
	case vm.KBool:
		return "boolean"
	case vm.KInt, vm.KFloat:
		return "number"
	case vm.KString:
		return "string"
	}
	switch v.Object().(type) {
	case *vm.List, *vm.Set:
		return "array"
	case *vm.Dict, *vm.StructValue:
		return "object"
	}
	if v.IsNil() {
		return "null"
	}
	return v.Type()
}

// jqDescribe is jq's `type (value)` error operand, e.g. `number (5)`.
func jqDescribe(v vm.Value) string {
	text := Stringify(v)
	if len(text) > 11 {
		text = text[:10] + "..."
	}
	return jqTypeName(v) + " (" + text + ")"
}

func jqItems(v vm.Value) ([]vm.Value, bool) {
	switch x := v.Object().(type) {
	case *vm.List:
		return x.Items(), true
	case *vm.Set:
		return x.Items(), true
	case *vm.Dict:
		var out []vm.Value
		x.Range(func(_ string, val vm.Value) bool { out = append(out, val); return true })
		return out, true
	case *vm.StructValue:
		var out []vm.Value
		for _, f := range x.Fields {
			out = append(out, f.Value)
		}
		return out, true
	}
	return nil, false
}

func jqIterate(in vm.Value) ([]vm.Value, error) {
	items, ok := jqItems(in)
	if !ok {
		return nil, jqErrf("Cannot iterate over %s", jqDescribe(in))
	}
	return append([]vm.Value(nil), items...), nil
}

func jqIndexKey(name string) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		v, err := jqIndex(in, vm.Str(name))
		if err != nil {
			return nil, err
		}
		return []vm.Value{v}, nil
	}
}

func jqIndex(in, key vm.Value) (vm.Value, error) {
	if in.IsNil() {
		return vm.Nil, nil
	}
	if k, ok := key.AsString(); ok {
		switch x := in.Object().(type) {
		case *vm.Dict:
			if v, ok := x.Get(k.Go()); ok {
				return v, nil
			}
			return vm.Nil, nil
		case *vm.StructValue:
			if v, ok := x.Get(k.Go()); ok {
				return v, nil
			}
			return vm.Nil, nil
		}
		return vm.Value{}, jqErrf("Cannot index %s with \"%s\"", jqTypeName(in), k.Go())
	}
	if f, ok := lib.ToFloat(key); ok {
		items, ok := jqListItems(in)
		if !ok {
			return vm.Value{}, jqErrf("Cannot index %s with number", jqTypeName(in))
		}
		i := int(math.Floor(f))
		if i < 0 {
			i += len(items)
		}
		if i < 0 || i >= len(items) {
			return vm.Nil, nil
		}
		return items[i], nil
	}
	return vm.Value{}, jqErrf("Cannot index %s with %s", jqTypeName(in), jqTypeName(key))
}

func jqListItems(v vm.Value) ([]vm.Value, bool) {
	switch x := v.Object().(type) {
	case *vm.List:
		return x.Items(), true
	case *vm.Set:
		return x.Items(), true
	}
	return nil, false
}

func jqSlice(lo, hi jqFilter) jqFilter {
	bound := func(f jqFilter, in vm.Value, def int) ([]int, error) {
		if f == nil {
			return []int{def}, nil
		}
		vs, err := f(in)
		if err != nil {
			return nil, err
		}
		var out []int
		for _, v := range vs {
			if v.IsNil() {
				out = append(out, def)
				continue
			}
			n, ok := lib.ToFloat(v)
			if !ok {
				return nil, jqErrf("Start and end indices of an array slice must be numbers")
			}
			out = append(out, int(math.Floor(n)))
		}
		return out, nil
	}
	return func(in vm.Value) ([]vm.Value, error) {
		if in.IsNil() {
			return []vm.Value{vm.Nil}, nil
		}
		var n int
		var runes []rune
		items, isList := jqListItems(in)
		s, isStr := in.AsString()
		switch {
		case isList:
			n = len(items)
		case isStr:
			runes = []rune(s.Go())
			n = len(runes)
		default:
			return nil, jqErrf("Cannot index %s with object", jqTypeName(in))
		}
		los, err := bound(lo, in, 0)
		if err != nil {
			return nil, err
		}
		his, err := bound(hi, in, n)
		if err != nil {
			return nil, err
		}
		fix := func(i int) int {
			if i < 0 {
				i += n
			}
			return max(0, min(i, n))
		}
		var out []vm.Value
		for _, h := range his {
			for _, l := range los {
				a, b := fix(l), fix(h)
				if b < a {
					b = a
				}
				if isList {
					out = append(out, vm.Of(vm.NewList(append([]vm.Value(nil), items[a:b]...))))
				} else {
					out = append(out, vm.Str(string(runes[a:b])))
				}
			}
		}
		return out, nil
	}
}

func jqRecurse(v vm.Value, out *[]vm.Value) {
	*out = append(*out, v)
	items, _ := jqItems(v)
	for _, it := range items {
		jqRecurse(it, out)
	}
}

func jqLength(in vm.Value) (vm.Value, error) {
	if x, ok := in.AsString(); ok {
		return vm.IntOf(int64(x.Len())), nil
	}
	switch x := in.Object().(type) {
	case *vm.List:
		return vm.IntOf(int64(x.Len())), nil
	case *vm.Set:
		return vm.IntOf(int64(x.Len())), nil
	case *vm.Dict:
		return vm.IntOf(int64(x.Len())), nil
	case *vm.StructValue:
		return vm.IntOf(int64(len(x.Fields))), nil
	case vm.Int:
		if x < 0 {
			return vm.IntOf(int64(-x)), nil
		}
		return vm.IntOf(int64(x)), nil
	case vm.Float:
		return vm.FloatOf(math.Abs(float64(x))), nil
	}
	if in.IsNil() {
		return vm.IntOf(0), nil
	}
	return vm.Value{}, jqErrf("%s has no length", jqDescribe(in))
}

func jqKeys(in vm.Value) (vm.Value, error) {
	switch x := in.Object().(type) {
	case *vm.Dict:
		return vm.Of(lib.StrList(x.Keys())), nil
	case *vm.StructValue:
		names := make([]string, len(x.Fields))
		for i, f := range x.Fields {
			names[i] = f.Name
		}
		return vm.Of(lib.StrList(names)), nil
	case *vm.List, *vm.Set:
		items, _ := jqListItems(in)
		out := make([]vm.Value, len(items))
		for i := range items {
			out[i] = vm.IntOf(int64(i))
		}
		return vm.Of(vm.NewList(out)), nil
	}
	return vm.Value{}, jqErrf("%s has no keys", jqDescribe(in))
}

// jqRank orders kinds as jq does: null < false < true < numbers < strings
// < arrays < objects.
func jqRank(v vm.Value) int {
	switch v.Kind() {
	case vm.KString:
		return 4
	case vm.KBool:
		if v.Truth() {
			return 2
		}
		return 1
	case vm.KInt, vm.KFloat:
		return 3
	}
	switch v.Object().(type) {
	case *vm.List, *vm.Set:
		return 5
	case *vm.Dict, *vm.StructValue:
		return 6
	}
	return 0
}

// jqCompare orders two values as jq does; values nested past
// vm.MaxValueDepth are an error rather than a Go stack overflow.
func jqCompare(a, b vm.Value) (c int, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*vm.Error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return jqCompareAt(a, b, 0), nil
}

// jqCompareAt is jqCompare at nesting depth depth; it panics with
// vm.TooDeep past vm.MaxValueDepth.
func jqCompareAt(a, b vm.Value, depth int) int {
	if depth > vm.MaxValueDepth {
		panic(vm.TooDeep("compare"))
	}
	depth++
	ra, rb := jqRank(a), jqRank(b)
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case 3, 4:
		return vm.Compare(a, b)
	case 5:
		x, _ := jqListItems(a)
		y, _ := jqListItems(b)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := jqCompareAt(x[i], y[i], depth); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	case 6:
		if vm.Equal(Data(a), Data(b)) {
			return 0
		}
		ka, _ := jqKeys(a)
		kb, _ := jqKeys(b)
		if c := jqCompareAt(ka, kb, depth); c != 0 {
			return c
		}
		va, _ := jqItems(a)
		vb, _ := jqItems(b)
		return jqCompareAt(vm.Of(vm.NewList(va)), vm.Of(vm.NewList(vb)), depth)
	}
	return 0
}

func jqArith(op string, a, b vm.Value) (vm.Value, error) {
	if op == "+" {
		if a.IsNil() {
			return b, nil
		}
		if b.IsNil() {
			return a, nil
		}
	}
	_, an := lib.ToFloat(a)
	_, bn := lib.ToFloat(b)
	if an && bn {
		x, _ := lib.ToFloat(a)
		y, _ := lib.ToFloat(b)
		var r float64
		switch op {
		case "+":
			r = x + y
		case "-":
			r = x - y
		case "*":
			r = x * y
		case "/":
			if y == 0 {
				return vm.Value{}, jqErrf("%s and %s cannot be divided because the divisor is zero", jqDescribe(a), jqDescribe(b))
			}
			r = x / y
		case "%":
			if int64(y) == 0 {
				return vm.Value{}, jqErrf("%s and %s cannot be divided because the divisor is zero", jqDescribe(a), jqDescribe(b))
			}
			r = float64(int64(x) % int64(y))
		}
		_, ai := a.AsInt()
		_, bi := b.AsInt()
		if ai && bi && op != "/" {
			return jqNumber(r), nil
		}
		if ai && bi && r == math.Trunc(r) {
			return jqNumber(r), nil
		}
		return vm.FloatOf(r), nil
	}
	if op == "+" {
		if x, ok := a.AsString(); ok {
			if y, ok := b.AsString(); ok {
				return vm.Str(x.Go() + y.Go()), nil
			}
		}
		switch x := a.Object().(type) {
		case *vm.List:
			if y, ok := b.AsList(); ok {
				return vm.Of(vm.NewList(append(append([]vm.Value(nil), x.Items()...), y.Items()...))), nil
			}
		case *vm.Dict:
			if y, ok := b.AsDict(); ok {
				return vm.Of(x.Merge(y)), nil
			}
		}
	}
	if op == "-" {
		if x, ok := a.AsList(); ok {
			if y, ok := b.AsList(); ok {
				var out []vm.Value
				for _, it := range x.Items() {
					keep := true
					for _, r := range y.Items() {
						if vm.Equal(it, r) {
							keep = false
							break
						}
					}
					if keep {
						out = append(out, it)
					}
				}
				return vm.Of(vm.NewList(out)), nil
			}
		}
	}
	switch op {
	case "*": // a string repeated (at least once; null for a count <= 0), or objects merged deeply
		if _, ok := b.AsString(); ok {
			a, b = b, a
		}
		if s, ok := a.AsString(); ok {
			if n, ok := jqFloat(b); ok {
				if n <= 0 {
					return vm.Nil, nil
				}
				count := max(1, int(min(n, 1e9)))
				if len(s.Go())*count > 1<<27 {
					return vm.Value{}, jqErrf("Repeat string result too long")
				}
				return vm.Str(strings.Repeat(s.Go(), count)), nil
			}
		}
		if x, ok := a.AsDict(); ok {
			if y, ok := b.AsDict(); ok {
				return vm.Of(jqDeepMerge(x, y)), nil
			}
		}
	case "/": // a string split by a string
		if x, ok := a.AsString(); ok {
			if y, ok := b.AsString(); ok {
				return jqJoinSplit(x.Go(), y.Go()), nil
			}
		}
	}
	verb := map[string]string{"+": "added", "-": "subtracted", "*": "multiplied", "/": "divided", "%": "divided"}[op]
	return vm.Value{}, jqErrf("%s and %s cannot be %s", jqDescribe(a), jqDescribe(b), verb)
}
