package json

// jq's strings beyond the subset (docs/builtins-areas.md, "jq beyond the
// listed subset"): interpolation `"a \(e) b"`, the formats `@text`,
// `@json`, `@html`, `@uri`, `@csv`, `@tsv`, `@sh`, `@base64`, `@base64d`,
// `@base32`, `@base32d` (alone, or before a string to format what it
// interpolates), regular expressions (`test`, `match`, `capture`, `scan`,
// `split/2`, `sub/3`; Go's RE2 syntax, flags g, i, s, n), and `explode`,
// `implode`, `trim`, `ltrim`, `rtrim`, `utf8bytelength`, `indices`.

import (
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// A jqStrPart is a piece of a string literal: literal text, or the
// source span [start, end) of an interpolated expression.
type jqStrPart struct {
	lit        string
	expr       bool
	start, end int
}

// jqScanString returns the index just past the string literal that
// starts at src[i] (a quote), or -1 when it does not end.
func jqScanString(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if j+1 < len(src) && src[j+1] == '(' {
				close := jqScanInterpolation(src, j+2)
				if close < 0 {
					return -1
				}
				j = close
				continue
			}
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// jqScanInterpolation returns the index of the `)` that closes the
// interpolation whose expression starts at src[i], or -1.
func jqScanInterpolation(src string, i int) int {
	depth := 1
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '"':
			end := jqScanString(src, j)
			if end < 0 {
				return -1
			}
			j = end - 1
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// lexString reads the "…" literal at p.i: its text, and its parts when it
// interpolates.
func (p *jqParser) lexString() (string, []jqStrPart, bool) {
	start := p.i
	end := jqScanString(p.src, start)
	if end < 0 {
		p.err = jqErrf("jq: parse error: unterminated string at position %d", start)
		p.tok = jqToken{kind: jqEOF, pos: start}
		p.i = len(p.src)
		return "", nil, false
	}
	p.i = end
	var parts []jqStrPart
	var text strings.Builder
	lit := start + 1
	literal := func(to int) bool {
		v, err := Parse(`"` + p.src[lit:to] + `"`)
		if err != nil {
			p.err = jqErrf("jq: parse error: invalid string literal at position %d", start)
			return false
		}
		s := vm.ToDisplay(v)
		text.WriteString(s)
		if s != "" {
			parts = append(parts, jqStrPart{lit: s})
		}
		return true
	}
	interpolates := false
	for j := start + 1; j < end-1; j++ {
		if p.src[j] != '\\' {
			continue
		}
		if p.src[j+1] != '(' {
			j++
			continue
		}
		if !literal(j) {
			return "", nil, false
		}
		close := jqScanInterpolation(p.src, j+2)
		parts = append(parts, jqStrPart{expr: true, start: j + 2, end: close})
		interpolates = true
		j = close
		lit = close + 1
	}
	if !literal(end - 1) {
		return "", nil, false
	}
	if !interpolates {
		parts = nil
	}
	return text.String(), parts, true
}

// interpolation is the filter of a string literal with `\(e)` parts:
// every combination of their outputs (the last varying slowest), each
// written by format (or as tostring does).
func (p *jqParser) interpolation(parts []jqStrPart, format jqFormat) (jqFilter, error) {
	if format == nil {
		format = jqToString
	}
	var whole jqFilter = jqConst(vm.Str(""))
	for _, part := range parts {
		piece := jqConst(vm.Str(part.lit))
		if part.expr {
			sub := &jqParser{src: p.src[:part.end], i: part.start, scope: p.scope, rt: p.rt}
			sub.next()
			f, err := sub.parsePipe()
			if err == nil && sub.tok.kind != jqEOF {
				err = sub.errorf("unexpected %s", sub.tok.describe())
			}
			if err != nil {
				return nil, err
			}
			piece = jqCompose(f, format.filter)
		}
		whole = jqBinary(whole, piece, func(a, b vm.Value) (vm.Value, error) {
			as, _ := a.AsString()
			bs, _ := b.AsString()
			return vm.Str(as.Go() + bs.Go()), nil
		})
	}
	return whole, nil
}

// A jqFormat writes a value as a string (`@name`).
type jqFormat func(vm.Value) (string, error)

func (f jqFormat) filter(in vm.Value) ([]vm.Value, error) {
	s, err := f(in)
	if err != nil {
		return nil, err
	}
	return []vm.Value{vm.Str(s)}, nil
}

func jqToString(v vm.Value) (string, error) {
	if s, ok := v.AsString(); ok {
		return s.Go(), nil
	}
	return Stringify(v), nil
}

var jqFormats = map[string]jqFormat{
	"text": jqToString,
	"json": func(v vm.Value) (string, error) { return Stringify(v), nil },
	"html": func(v vm.Value) (string, error) {
		s, _ := jqToString(v)
		return strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", "'", "&#39;", `"`, "&quot;").Replace(s), nil
	},
	"uri": func(v vm.Value) (string, error) {
		s, _ := jqToString(v)
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
		return b.String(), nil
	},
	"csv": func(v vm.Value) (string, error) {
		return jqRow(v, "csv", ",", func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` })
	},
	"tsv": func(v vm.Value) (string, error) {
		return jqRow(v, "tsv", "\t", strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace)
	},
	"sh": func(v vm.Value) (string, error) {
		quote := func(x vm.Value) (string, error) {
			switch jqTypeName(x) {
			case "string":
				s, _ := x.AsString()
				return "'" + strings.ReplaceAll(s.Go(), "'", `'\''`) + "'", nil
			case "array", "object":
				return "", jqErrf("%s can not be escaped for shell", jqDescribe(x))
			}
			return Stringify(x), nil
		}
		items, ok := jqListItems(v)
		if !ok {
			return quote(v)
		}
		words := make([]string, len(items))
		for i, it := range items {
			w, err := quote(it)
			if err != nil {
				return "", err
			}
			words[i] = w
		}
		return strings.Join(words, " "), nil
	},
	"base64": func(v vm.Value) (string, error) {
		s, _ := jqToString(v)
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	},
	"base64d": func(v vm.Value) (string, error) {
		s, _ := jqToString(v)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
				return "", jqErrf("%s is not valid base64 data", jqDescribe(v))
			}
		}
		return lib.LossyUTF8(b), nil
	},
	"base32": func(v vm.Value) (string, error) {
		s, _ := jqToString(v)
		return base32.StdEncoding.EncodeToString([]byte(s)), nil
	},
	"base32d": func(v vm.Value) (string, error) {
		s, _ := jqToString(v)
		b, err := base32.StdEncoding.DecodeString(s)
		if err != nil {
			return "", jqErrf("%s is not valid base32 data", jqDescribe(v))
		}
		return lib.LossyUTF8(b), nil
	},
}

// jqRow is @csv or @tsv: an array's scalars joined by sep, strings
// written by quote.
func jqRow(v vm.Value, name, sep string, quote func(string) string) (string, error) {
	items, ok := jqListItems(v)
	if !ok {
		return "", jqErrf("%s cannot be %s-formatted, only an array can be", jqDescribe(v), name)
	}
	cells := make([]string, len(items))
	for i, it := range items {
		switch jqTypeName(it) {
		case "string":
			s, _ := it.AsString()
			cells[i] = quote(s.Go())
		case "null":
		case "array", "object":
			return "", jqErrf("%s is not valid in a %s row", jqDescribe(it), name)
		default:
			cells[i] = Stringify(it)
		}
	}
	return strings.Join(cells, sep), nil
}

// parseFormat parses `@name`, alone or before a string literal.
func (p *jqParser) parseFormat() (jqFilter, error) {
	name := p.tok.text
	format, ok := jqFormats[name]
	if !ok {
		return nil, jqErrf("jq: error: %s is not a valid format", "@"+name)
	}
	p.next()
	if p.err == nil && p.tok.kind == jqStr {
		t := p.tok
		p.next()
		if t.parts == nil {
			return jqConst(vm.Str(t.text)), p.err
		}
		return p.interpolation(t.parts, format)
	}
	return format.filter, p.err
}

// jqTextFunction is the string and regular-expression functions of this
// file, by name and arity; ok is false for any other name.
func jqTextFunction(name string, args []jqFilter) (jqFilter, bool) {
	str := func(in vm.Value, what string) (string, error) {
		s, ok := in.AsString()
		if !ok {
			return "", jqErrf("%s cannot be %s", jqDescribe(in), what)
		}
		return s.Go(), nil
	}
	one := jqOne
	// regex runs fn with the compiled pattern and flags of every pair of
	// outputs of the first two arguments.
	regex := func(fn func(in vm.Value, s string, re *regexp.Regexp, global bool) ([]vm.Value, error)) jqFilter {
		return func(in vm.Value) ([]vm.Value, error) {
			s, err := str(in, "matched, as it is not a string")
			if err != nil {
				return nil, err
			}
			res, err := args[0](in)
			if err != nil {
				return nil, err
			}
			flagVals := []vm.Value{vm.Nil}
			if len(args) > 1 {
				if flagVals, err = args[1](in); err != nil {
					return nil, err
				}
			}
			var out []vm.Value
			for _, f := range flagVals {
				for _, r := range res {
					re, global, err := jqRegex(r, f)
					if err != nil {
						return nil, err
					}
					vals, err := fn(in, s, re, global)
					if err != nil {
						return nil, err
					}
					out = append(out, vals...)
				}
			}
			return out, nil
		}
	}
	switch {
	case len(args) == 0:
		switch name {
		case "explode":
			return one(func(in vm.Value) (vm.Value, error) {
				s, err := str(in, "exploded")
				if err != nil {
					return vm.Value{}, err
				}
				var out []vm.Value
				for _, r := range s {
					out = append(out, vm.IntOf(int64(r)))
				}
				return vm.Of(vm.NewList(out)), nil
			}), true
		case "implode":
			return one(func(in vm.Value) (vm.Value, error) {
				items, ok := jqListItems(in)
				if !ok {
					return vm.Value{}, jqErrf("%s cannot be imploded, must be an array of codepoints", jqDescribe(in))
				}
				var b strings.Builder
				for _, it := range items {
					f, ok := jqFloat(it)
					n := int64(f)
					if !ok {
						return vm.Value{}, jqErrf("Unicode codepoint must be numeric")
					}
					if n < 0 || n > utf8.MaxRune || n >= 0xD800 && n <= 0xDFFF {
						n = utf8.RuneError
					}
					b.WriteRune(rune(n))
				}
				return vm.Str(b.String()), nil
			}), true
		case "trim", "ltrim", "rtrim":
			return one(func(in vm.Value) (vm.Value, error) {
				s, err := str(in, "trimmed")
				if err != nil {
					return vm.Value{}, jqErrf("%s cannot be trimmed", jqDescribe(in))
				}
				switch name {
				case "ltrim":
					s = strings.TrimLeft(s, " \t\n\r\f\v")
				case "rtrim":
					s = strings.TrimRight(s, " \t\n\r\f\v")
				default:
					s = strings.Trim(s, " \t\n\r\f\v")
				}
				return vm.Str(s), nil
			}), true
		case "utf8bytelength":
			return one(func(in vm.Value) (vm.Value, error) {
				s, ok := in.AsString()
				if !ok {
					return vm.Value{}, jqErrf("%s only strings have UTF-8 byte length", jqDescribe(in))
				}
				return vm.IntOf(int64(len(s.Go()))), nil
			}), true
		}
	case len(args) == 1 && name == "indices":
		return jqWithArg(args[0], jqIndices), true
	case (len(args) == 1 || len(args) == 2) && name == "match":
		return regex(func(_ vm.Value, s string, re *regexp.Regexp, global bool) ([]vm.Value, error) {
			return jqMatches(s, re, global, jqMatchObject), nil
		}), true
	case len(args) == 2 && name == "test":
		return regex(func(_ vm.Value, s string, re *regexp.Regexp, _ bool) ([]vm.Value, error) {
			return []vm.Value{vm.BoolOf(re.MatchString(s))}, nil
		}), true
	case len(args) == 2 && name == "capture":
		return regex(func(_ vm.Value, s string, re *regexp.Regexp, global bool) ([]vm.Value, error) {
			return jqMatches(s, re, global, jqCaptureObject), nil
		}), true
	case len(args) == 2 && name == "scan":
		return regex(func(_ vm.Value, s string, re *regexp.Regexp, _ bool) ([]vm.Value, error) {
			return jqMatches(s, re, true, func(s string, re *regexp.Regexp, m []int) vm.Value {
				if re.NumSubexp() == 0 {
					return vm.Str(s[m[0]:m[1]])
				}
				groups := make([]vm.Value, re.NumSubexp())
				for g := range groups {
					groups[g] = jqGroupText(s, m, g+1)
				}
				return vm.Of(vm.NewList(groups))
			}), nil
		}), true
	case len(args) == 2 && name == "split":
		return regex(func(_ vm.Value, s string, re *regexp.Regexp, _ bool) ([]vm.Value, error) {
			var parts []vm.Value
			last := 0
			for _, m := range re.FindAllStringIndex(s, -1) {
				parts = append(parts, vm.Str(s[last:m[0]]))
				last = m[1]
			}
			parts = append(parts, vm.Str(s[last:]))
			return []vm.Value{vm.Of(vm.NewList(parts))}, nil
		}), true
	case len(args) == 3 && name == "sub":
		repl := args[1]
		args = []jqFilter{args[0], args[2]}
		return regex(func(_ vm.Value, s string, re *regexp.Regexp, global bool) ([]vm.Value, error) {
			n := 1
			if global {
				n = -1
			}
			results := []string{""}
			last := 0
			for _, m := range re.FindAllStringSubmatchIndex(s, n) {
				outs, err := repl(jqCaptureObject(s, re, m))
				if err != nil {
					return nil, err
				}
				var next []string
				for _, o := range outs {
					os, ok := o.AsString()
					if !ok {
						return nil, jqErrf("%s cannot be added to a string", jqDescribe(o))
					}
					for _, r := range results {
						next = append(next, r+s[last:m[0]]+os.Go())
					}
				}
				results = next
				last = m[1]
			}
			out := make([]vm.Value, len(results))
			for i, r := range results {
				out[i] = vm.Str(r + s[last:])
			}
			return out, nil
		}), true
	}
	return nil, false
}

// jqRegex compiles a jq regular expression with its flags (nil or a
// string of g, i, s, n, x): global reports g.
func jqRegex(re, flags vm.Value) (*regexp.Regexp, bool, error) {
	src, ok := re.AsString()
	if !ok {
		return nil, false, jqErrf("%s cannot be matched, as it is not a string", jqDescribe(re))
	}
	prefix, global := "", false
	if !flags.IsNil() {
		f, ok := flags.AsString()
		if !ok {
			return nil, false, jqErrf("%s is not a string", jqDescribe(flags))
		}
		for _, c := range f.Go() {
			switch c {
			case 'g':
				global = true
			case 'i':
				prefix += "i"
			case 's':
				prefix += "s"
			case 'n', 'x', 'l', 'p':
			default:
				return nil, false, jqErrf("%s is not a valid modifier string", f.Go())
			}
		}
	}
	if prefix != "" {
		prefix = "(?" + prefix + ")"
	}
	compiled, err := regexp.Compile(prefix + src.Go())
	if err != nil {
		return nil, false, jqErrf("%s (at offset 0) is not a valid regex: %s", src.Go(), err.Error())
	}
	return compiled, global, nil
}

// jqMatches is each match of re in s (the first only unless global),
// written by object.
func jqMatches(s string, re *regexp.Regexp, global bool, object func(string, *regexp.Regexp, []int) vm.Value) []vm.Value {
	n := 1
	if global {
		n = -1
	}
	var out []vm.Value
	for _, m := range re.FindAllStringSubmatchIndex(s, n) {
		out = append(out, object(s, re, m))
	}
	return out
}

// jqMatchObject is match's object: offsets and lengths in codepoints.
func jqMatchObject(s string, re *regexp.Regexp, m []int) vm.Value {
	span := func(lo, hi int) (vm.Value, vm.Value) {
		return vm.IntOf(int64(utf8.RuneCountInString(s[:lo]))), vm.IntOf(int64(utf8.RuneCountInString(s[lo:hi])))
	}
	off, n := span(m[0], m[1])
	var caps []vm.Value
	for g, name := range re.SubexpNames()[1:] {
		c := vm.NewDict()
		if m[2*g+2] < 0 {
			c = c.Set("offset", vm.IntOf(-1))
			c = c.Set("length", vm.IntOf(0))
			c = c.Set("string", vm.Nil)
		} else {
			o, l := span(m[2*g+2], m[2*g+3])
			c = c.Set("offset", o)
			c = c.Set("length", l)
			c = c.Set("string", vm.Str(s[m[2*g+2]:m[2*g+3]]))
		}
		c = c.Set("name", vm.Nil)
		if name != "" {
			c = c.Set("name", vm.Str(name))
		}
		caps = append(caps, vm.Of(c))
	}
	d := vm.NewDict()
	d = d.Set("offset", off)
	d = d.Set("length", n)
	d = d.Set("string", vm.Str(s[m[0]:m[1]]))
	d = d.Set("captures", vm.Of(vm.NewList(caps)))
	return vm.Of(d)
}

// jqCaptureObject is capture's object: each named group's text.
func jqCaptureObject(s string, re *regexp.Regexp, m []int) vm.Value {
	d := vm.NewDict()
	for g, name := range re.SubexpNames() {
		if g > 0 && name != "" {
			d = d.Set(name, jqGroupText(s, m, g))
		}
	}
	return vm.Of(d)
}

func jqGroupText(s string, m []int, g int) vm.Value {
	if m[2*g] < 0 {
		return vm.Nil
	}
	return vm.Str(s[m[2*g]:m[2*g+1]])
}

// jqIndices is `indices(sub)`: where sub occurs in a string (byte
// offsets, as jq 1.7 gives them), or where an array occurs in an array
// (an element is an array of one).
func jqIndices(in, sub vm.Value) (vm.Value, error) {
	var out []vm.Value
	switch {
	case in.IsNil():
		return vm.Nil, nil
	case jqTypeName(in) == "string":
		s, _ := in.AsString()
		t, ok := sub.AsString()
		if !ok {
			return vm.Value{}, jqErrf("Cannot determine the indices of %s in a string", jqDescribe(sub))
		}
		hay, needle := s.Go(), t.Go()
		if needle == "" {
			return vm.Nil, nil
		}
		for i := 0; i+len(needle) <= len(hay); i++ {
			if hay[i:i+len(needle)] == needle {
				out = append(out, vm.IntOf(int64(i)))
			}
		}
	default:
		items, ok := jqListItems(in)
		if !ok {
			return vm.Value{}, jqErrf("Cannot determine the indices in %s", jqDescribe(in))
		}
		needle, ok := jqListItems(sub)
		if !ok {
			needle = []vm.Value{sub}
		}
		if len(needle) == 0 {
			return vm.Nil, nil
		}
		for i := 0; i+len(needle) <= len(items); i++ {
			match := true
			for j, n := range needle {
				if c, err := jqCompare(items[i+j], n); err != nil || c != 0 {
					match = false
					break
				}
			}
			if match {
				out = append(out, vm.IntOf(int64(i)))
			}
		}
	}
	return vm.Of(vm.NewList(out)), nil
}
