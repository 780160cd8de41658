package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// String free functions (docs/spec/builtins.md §3.4). Every "text" parameter takes
// any value through its display form; positions and lengths count Unicode
// scalar values.

func init() {
	lib.Def("trim", "trim(s: string) -> string", "remove Unicode whitespace at both ends", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(strings.TrimFunc(args.Text(0), IsSpace)), nil
	})
	lib.Def("lowercase", "lowercase(s: string) -> string", "full Unicode lower-casing", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s := args.Text(0)
		return longText(th, len(s), func() vm.Value { return vm.Str(Lower(s)) })
	})
	lib.Def("uppercase", "uppercase(s: string) -> string", "full Unicode upper-casing", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s := args.Text(0)
		return longText(th, len(s), func() vm.Value { return vm.Str(Upper(s)) })
	})
	lib.Def("split", "split(s, sep?) -> list<string>", `split on each occurrence of sep (default " ")`, func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, sep := args.Text(0), lib.TextOr(args, 1, " ")
		return longText(th, len(s), func() vm.Value { return vm.Of(lib.StrList(splitText(s, sep))) })
	})
	lib.Def("starts_with", "starts_with(s, p) -> bool", "whether s starts with p", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(strings.HasPrefix(args.Text(0), args.Text(1))), nil
	})
	lib.Def("ends_with", "ends_with(s, p) -> bool", "whether s ends with p", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(strings.HasSuffix(args.Text(0), args.Text(1))), nil
	})
	lib.Def("contains", "contains(x, needle) -> bool", "substring test for strings, element test for lists", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if x, ok := args.At(0).AsString(); ok {
			return vm.BoolOf(strings.Contains(x.Go(), args.Text(1))), nil
		}
		switch x := args.At(0).Object().(type) {
		case *vm.List:
			return vm.BoolOf(lib.IndexOf(x.Items(), args.At(1)) >= 0), nil
		}
		return vm.False, nil
	})
	lib.Def("replace", "replace(s, old, new) -> string", "replace every occurrence of old", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, old, repl := args.Text(0), args.Text(1), args.Text(2)
		return longText(th, len(s), func() vm.Value { return vm.Str(strings.ReplaceAll(s, old, repl)) })
	})
	lib.Def("join", "join(list, sep?) -> string", "display each element and join with sep", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, ok := args.List(0)
		if !ok {
			return vm.EmptyString, nil
		}
		s, err := lib.JoinItems(th, l.Items(), lib.TextOr(args, 1, ""))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(s), nil
	})
	lib.Def("substring", "substring(s, start?, length?) -> string", "length chars from start (a length, not an end)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		rs := []rune(args.Text(0))
		n := int64(len(rs))
		start := lib.ClampInt(args.IntOr(1, 0), 0, n)
		end := n
		if l, ok := args.Int(2); ok {
			end = start + lib.ClampInt(l, 0, n-start)
		}
		return vm.Str(string(rs[start:end])), nil
	})
	lib.Def("format", "format(template, ...args) -> string", "fill `{}` (or `{name}` from a dict) placeholders", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		tmpl := args.Text(0)
		if d, ok := args.Dict(1); ok {
			return vm.Str(formatNamed(tmpl, d)), nil
		}
		var rest []vm.Value
		if args.Len() > 1 {
			rest = args[1:]
		}
		return vm.Str(formatPositional(tmpl, rest)), nil
	})
	lib.Def("str_pad", "str_pad(s, width, fill?, side?) -> string", "pad to width grapheme clusters", builtinStrPad)
	lib.Def("unicode_normalize", "unicode_normalize(s, form?) -> string", "NFC (default), NFD, NFKC or NFKD", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s := args.Text(0)
		form := "NFC"
		if args.Given(1) {
			form = strings.ToUpper(args.Text(1))
		}
		switch form {
		case "NFC":
			return vm.Str(norm.NFC.String(s)), nil
		case "NFD":
			return vm.Str(norm.NFD.String(s)), nil
		case "NFKC":
			return vm.Str(norm.NFKC.String(s)), nil
		case "NFKD":
			return vm.Str(norm.NFKD.String(s)), nil
		}
		return vm.Value{}, vm.Runtimef("unicode_normalize: form must be NFC, NFD, NFKC, or NFKD")
	})
	lib.Def("unicode_graphemes", "unicode_graphemes(s) -> list<string>", "extended grapheme clusters", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Of(lib.StrList(graphemeClusters(args.Text(0)))), nil
	})
	lib.Def("title_case", "title_case(s) -> string", "upper-case each char after whitespace, lower-case the rest", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		var sb strings.Builder
		atStart := true
		for _, r := range args.Text(0) {
			if atStart {
				sb.WriteString(UpperRune(r))
			} else {
				sb.WriteString(LowerRune(r))
			}
			atStart = IsSpace(r)
		}
		return vm.Str(sb.String()), nil
	})
	lib.Def("uppercase_first", "uppercase_first(s) -> string", "upper-case the first char only", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(mapFirst(args.Text(0), UpperRune)), nil
	})
	lib.Def("lowercase_first", "lowercase_first(s) -> string", "lower-case the first char only", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(mapFirst(args.Text(0), LowerRune)), nil
	})
	lib.Def("pascal_to_camel", "pascal_to_camel(s) -> string", "lower-case the first char", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(mapFirst(args.Text(0), LowerRune)), nil
	})
	lib.Def("camel_to_pascal", "camel_to_pascal(s) -> string", "upper-case the first char", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(mapFirst(args.Text(0), UpperRune)), nil
	})
	for _, c := range []struct {
		name string
		sep  string
		to   func([]string) string
	}{
		{"snake_to_camel", "_", camelWords},
		{"snake_to_pascal", "_", pascalWords},
		{"snake_to_kebab", "_", func(w []string) string { return strings.Join(w, "-") }},
		{"kebab_to_camel", "-", camelWords},
		{"kebab_to_snake", "-", func(w []string) string { return strings.Join(w, "_") }},
	} {
		c := c
		lib.Def(c.name, c.name+"(s) -> string", "convert between identifier case styles", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.Str(c.to(separatedWords(args.Text(0), c.sep))), nil
		})
	}
	for _, c := range []struct{ name, sep string }{
		{"camel_to_snake", "_"}, {"pascal_to_snake", "_"}, {"camel_to_kebab", "-"},
	} {
		c := c
		lib.Def(c.name, c.name+"(s) -> string", "convert between identifier case styles", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.Str(strings.Join(humpWords(args.Text(0)), c.sep)), nil
		})
	}
}

func IsSpace(r rune) bool { return unicode.IsSpace(r) }

// Lower and Upper apply the full Unicode case mappings (ß → SS, final
// sigma), which the unicode package's simple mappings lack.
func Lower(s string) string { return cases.Lower(language.Und).String(s) }
func Upper(s string) string { return cases.Upper(language.Und).String(s) }

// LowerRune and UpperRune map one char, possibly to several.
func LowerRune(r rune) string {
	if r < utf8.RuneSelf {
		return string(unicode.ToLower(r))
	}
	return Lower(string(r))
}

func UpperRune(r rune) string {
	if r < utf8.RuneSelf {
		return string(unicode.ToUpper(r))
	}
	return Upper(string(r))
}

func mapFirst(s string, f func(rune) string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return f(r) + s[n:]
}

// splitText splits on each occurrence of sep, keeping empty pieces; an
// empty sep yields "", each char, "".
func splitText(s, sep string) []string {
	if sep == "" {
		out := []string{""}
		for _, r := range s {
			out = append(out, string(r))
		}
		return append(out, "")
	}
	return strings.Split(s, sep)
}

// formatPositional replaces each `{}` with the next argument; surplus
// placeholders stay as written.
func formatPositional(tmpl string, args []vm.Value) string {
	var sb strings.Builder
	for {
		i := strings.Index(tmpl, "{}")
		if i < 0 || len(args) == 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		sb.WriteString(tmpl[:i])
		args[0].Display(&sb)
		args = args[1:]
		tmpl = tmpl[i+2:]
	}
}

// formatNamed replaces `{name}` when d has the key; other braces stay and
// substituted text is not scanned again.
func formatNamed(tmpl string, d *vm.Dict) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		sb.WriteString(tmpl[:i])
		tmpl = tmpl[i:]
		j := strings.IndexByte(tmpl, '}')
		if j < 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		name := tmpl[1:j]
		if strings.IndexByte(name, '{') >= 0 {
			sb.WriteByte('{')
			tmpl = tmpl[1:]
			continue
		}
		if v, ok := d.Get(name); ok {
			v.Display(&sb)
		} else {
			sb.WriteString(tmpl[:j+1])
		}
		tmpl = tmpl[j+1:]
	}
}

func graphemeClusters(s string) []string {
	var out []string
	g := graphemes.FromString(s)
	for g.Next() {
		out = append(out, g.Value())
	}
	return out
}

func builtinStrPad(th *vm.Thread, args vm.Args) (vm.Value, error) {
	s := args.Text(0)
	fill := " "
	if args.Given(2) {
		if gs := graphemeClusters(args.Text(2)); len(gs) > 0 {
			fill = gs[0]
		}
	}
	side := "right"
	if args.Given(3) {
		side = strings.ToLower(args.Text(3))
	}
	switch side {
	case "left", "right", "both":
	default:
		return vm.Value{}, vm.Runtimef("str_pad: side must be left, right, or both")
	}
	width, ok := args.Int(1)
	if !ok {
		return vm.Str(s), nil
	}
	n := width - int64(len(graphemeClusters(s)))
	if n <= 0 {
		return vm.Str(s), nil
	}
	if err := vm.CheckAlloc("str_pad", n, int64(len(fill))); err != nil {
		return vm.Value{}, err
	}
	switch side {
	case "left":
		return vm.Str(strings.Repeat(fill, int(n)) + s), nil
	case "both":
		return vm.Str(strings.Repeat(fill, int(n/2)) + s + strings.Repeat(fill, int(n-n/2))), nil
	}
	return vm.Str(s + strings.Repeat(fill, int(n))), nil
}

// separatedWords splits on sep, drops empty pieces and lower-cases.
func separatedWords(s, sep string) []string {
	var out []string
	for _, w := range strings.Split(s, sep) {
		if w != "" {
			out = append(out, Lower(w))
		}
	}
	return out
}

func camelWords(words []string) string {
	var sb strings.Builder
	for i, w := range words {
		if i == 0 {
			sb.WriteString(w)
		} else {
			sb.WriteString(mapFirst(w, UpperRune))
		}
	}
	return sb.String()
}

func pascalWords(words []string) string {
	var sb strings.Builder
	for _, w := range words {
		sb.WriteString(mapFirst(w, UpperRune))
	}
	return sb.String()
}

// humpWords splits camelCase / PascalCase into lower-cased words: a word
// starts at an upper-case char (not the first) after a lower-case char or
// an ASCII digit, or after an upper-case char when a lower-case one
// follows (getHTTPResponse → get, http, response).
func humpWords(s string) []string {
	rs := []rune(s)
	var words []string
	start := 0
	for i := 1; i < len(rs); i++ {
		if !isUpper(rs[i]) {
			continue
		}
		prev := rs[i-1]
		boundary := isLower(prev) || (prev >= '0' && prev <= '9') ||
			isUpper(prev) && i+1 < len(rs) && isLower(rs[i+1])
		if boundary {
			words = append(words, Lower(string(rs[start:i])))
			start = i
		}
	}
	if start < len(rs) {
		words = append(words, Lower(string(rs[start:])))
	}
	return words
}

// isUpper and isLower are Unicode's Uppercase and Lowercase properties, as
// Rust's char::is_uppercase / is_lowercase read them: the letter categories
// plus Other_Uppercase / Other_Lowercase (Roman numerals such as Ⅻ, circled
// letters such as Ⓐ, modifier letters such as ª and ʰ), which
// unicode.IsUpper / IsLower leave out.
func isUpper(r rune) bool { return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r) }
func isLower(r rune) bool { return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r) }
