package check

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Library describes the standard library to the checker through the one
// builtin descriptor table: each entry's documented signature, such as
// `split(s, sep?)`, `round(n: int | float)` or `xs.sort()`.
type Library interface {
	// BuiltinSig returns the signature of the builtin function name.
	BuiltinSig(name string) (sig string, ok bool)
}

// signature is a parsed descriptor signature. Its grammar is small:
// parameters separated by commas, each `name`, `name?` or `name = default`
// (optional), `...name` or `...` (a rest), optionally typed `name: T` with
// T in Harn type syntax; a `{…}` parameter is one option dict, and
// `f(a) / f(a, b)` lists alternative forms.
type signature struct {
	params   []sigParam // nil when the forms differ
	min, max int        // max < 0: no upper bound
}

type sigParam struct {
	name     string
	t        types.Type // nil when the signature does not say
	optional bool
	rest     bool
}

// parseSig reads a descriptor signature; ok is false for a text outside
// the grammar, which the checker then leaves alone.
func parseSig(sig string) (s signature, ok bool) {
	forms := strings.Split(sig, " / ")
	for i, form := range forms {
		ps, ok := parseForm(form)
		if !ok {
			return signature{}, false
		}
		min, max := 0, len(ps)
		for _, p := range ps {
			if p.rest {
				max = -1
			} else if !p.optional {
				min++
			}
		}
		if i == 0 {
			s = signature{params: ps, min: min, max: max}
			continue
		}
		s.params = nil
		s.min = minInt(s.min, min)
		if s.max >= 0 && (max < 0 || max > s.max) {
			s.max = max
		}
	}
	return s, true
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func parseForm(form string) ([]sigParam, bool) {
	form = strings.TrimSpace(form)
	open := strings.Index(form, "(")
	if open < 0 || !strings.HasSuffix(form, ")") {
		return nil, false
	}
	var out []sigParam
	for _, part := range splitTop(form[open+1 : len(form)-1]) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, ok := parseParam(part)
		if !ok {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// splitTop splits at the commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			if i > 0 && s[i-1] == '-' { // the arrow of fn(T) -> U
				continue
			}
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func parseParam(part string) (sigParam, bool) {
	var p sigParam
	if strings.HasPrefix(part, "{") {
		return sigParam{name: "options"}, strings.HasSuffix(part, "}")
	}
	if rest, ok := strings.CutPrefix(part, "..."); ok {
		p.rest = true
		part = rest
		if part == "" {
			return p, true
		}
	}
	if name, _, ok := strings.Cut(part, "="); ok {
		p.optional = true
		part = strings.TrimSpace(name)
	}
	name, typ, typed := strings.Cut(part, ":")
	name = strings.TrimSpace(name)
	if n, ok := strings.CutSuffix(name, "?"); ok {
		p.optional = true
		name = n
	}
	if !isIdent(name) {
		return p, false
	}
	p.name = name
	if typed {
		t, ok := parseType(strings.TrimSpace(typ))
		if !ok {
			return p, false
		}
		p.t = t
	}
	return p, true
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// parseType reads a type in Harn syntax, through the parser.
func parseType(text string) (types.Type, bool) {
	f, err := syntax.Parse("", []byte("fn f(p: "+text+") {}"))
	if err != nil || len(f.Items) != 1 {
		return nil, false
	}
	fn, ok := f.Items[0].(*syntax.FnDecl)
	if !ok || len(fn.Params) != 1 || fn.Params[0].Type == nil {
		return nil, false
	}
	return types.NewEnv().FromSyntax(fn.Params[0].Type, nil), true
}

// librarySig is the parsed signature of a builtin, cached per checker.
func (c *checker) librarySig(name string) (signature, bool) {
	if c.lib == nil {
		return signature{}, false
	}
	if s, ok := c.libSigs[name]; ok {
		return s, s.min >= 0
	}
	text, ok := c.lib.BuiltinSig(name)
	s, parsed := parseSig(text)
	if !ok || !parsed {
		s = signature{min: -1}
	}
	c.libSigs[name] = s
	return s, s.min >= 0
}

// builtinCall warns about a builtin called with the wrong number of
// arguments or with an argument of a kind its signature excludes
// (newer.md §3.4). Builtins are lenient at run time (a missing argument
// reads as nil, an extra one is ignored), which is why these are warnings
// and why they matter: the call runs, but not as written.
func (c *checker) builtinCall(e *syntax.CallExpr, args []types.Type) {
	if hasSpread(e.Args) {
		return
	}
	sig, ok := c.librarySig(e.Fn.Name)
	if !ok {
		return
	}
	if n := len(e.Args); n < sig.min || sig.max >= 0 && n > sig.max {
		c.warnf(e.At, "Builtin function '%s' expects %s, got %d", e.Fn.Name, builtinArity(sig.min, sig.max), n)
		return
	}
	for i, p := range sig.params {
		if p.rest || i >= len(args) {
			break
		}
		if p.t != nil && known(args[i]) && !compatible(args[i], p.t) {
			c.report(sevWarning, e.Args[i].Position(), "", conversionHelp(e.Args[i], p.t, args[i]),
				fmt.Sprintf("argument %d `%s`: expected %s, found %s", i+1, p.name, p.t, show(args[i], p.t)))
		}
	}
}

// builtinArity words a builtin's arity as upstream does: "1 argument",
// "0 arguments", "1-2 arguments", "at least 1 argument".
func builtinArity(min, max int) string {
	plural := func(k int) string {
		if k == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", k)
	}
	switch {
	case max < 0:
		return "at least " + plural(min)
	case min == max:
		return plural(min)
	}
	return fmt.Sprintf("%d-%d arguments", min, max)
}
