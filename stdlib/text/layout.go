package text

import (
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// String helpers of the newer upstream (docs/spec/newer.md §2.7, §2.10): free
// chars, repeat, indent, dedent, word_wrap and index_of, and the string
// methods .reversed, .slice and .includes.

func init() {
	lib.Def("chars", "chars(text) -> list<string>", "list of one-character strings", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, err := stringArg("chars", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return longText(th, len(s), func() vm.Value { return vm.Of(chars(s)) })
	})
	lib.Def("repeat", "repeat(text, count) -> string", "text repeated count times; count <= 0 gives \"\"", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, err := stringArg("repeat", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		n, err := repeatCount(args, 1)
		if err != nil {
			return vm.Value{}, err
		}
		return repeatOn(th, s, n)
	})
	lib.Def("indent", "indent(text, prefix = \"  \") -> string", "prefix every non-blank line; blank lines stay empty", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, err := stringArg("indent", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		prefix := lib.TextOr(args, 1, "  ")
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) != "" {
				lines[i] = prefix + l
			}
		}
		return vm.Str(strings.Join(lines, "\n")), nil
	})
	lib.Def("dedent", "dedent(text) -> string", "remove the longest common leading-whitespace prefix of the non-blank lines", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, err := stringArg("dedent", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(dedent(s)), nil
	})
	lib.Def("word_wrap", "word_wrap(text, width = 80) -> string", "greedy wrap at ASCII whitespace (space, tab, CR, form feed; a vertical tab is part of a word), keeping line breaks; long words sit alone", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, err := stringArg("word_wrap", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		width := int64(80)
		if args.Given(1) {
			w, ok := args.Int(1)
			if !ok {
				return vm.Value{}, vm.Typef("word_wrap: width must be an int, got %s", args.At(1).Type())
			}
			width = w
		}
		return vm.Str(wordWrap(s, int(max(width, 1)))), nil
	})
	lib.Def("index_of", "index_of(haystack, needle, from = 0) -> int", "char index of the first occurrence at or after from, -1 if none", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, err := stringArg("index_of", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		needle, err := stringArg("index_of", args, 1)
		if err != nil {
			return vm.Value{}, err
		}
		return charIndexFrom(s, needle, args.IntOr(2, 0)), nil
	})
	lib.Alias("string", "reversed", "reverse", "s.reversed()")
	// .slice is new in the newer upstream, not a rename of .substring, so it
	// reads its bounds like the list method of the same name and `s[a:b]`:
	// negative from the end, clamped (docs/spec/language.md §6.7), rather
	// than with .substring's "a negative end means to the end".
	lib.Method("string", "slice", "s.slice(start?, end?)", "chars from start to end (exclusive; negative from the end)", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return vm.Slice(recv, args.At(0), args.At(1))
	})
	lib.Alias("string", "includes", "contains", "s.includes(x)")
}

// charIndexFrom is the char index of the first occurrence of needle in s at
// or after char from (clamped to s), -1 if none: index_of's answer, as a
// free function and as a string method.
func charIndexFrom(s, needle string, from int64) vm.Value {
	rs := []rune(s)
	from = lib.ClampInt(from, 0, int64(len(rs)))
	rest := string(rs[from:])
	i := strings.Index(rest, needle)
	if i < 0 {
		return vm.IntOf(-1)
	}
	return lib.IntOf(int(from) + lib.RuneCount(rest[:i]))
}

// stringArg is argument i, which must be a string.
func stringArg(name string, args vm.Args, i int) (string, error) {
	s, ok := args.Str(i)
	if !ok {
		return "", vm.Typef("%s: expected a string, got %s", name, args.At(i).Type())
	}
	return s, nil
}

// dedent strips the longest common leading-whitespace prefix of the
// non-blank lines, comparing characters exactly (a tab is not spaces).
// Blank lines stay as they are, even when they hold more whitespace than
// the prefix (docs/spec/newer.md §2.7).
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	prefix, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(ws) && prefix[n] == ws[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if prefix == "" {
		return s
	}
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = strings.TrimPrefix(l, prefix)
		}
	}
	return strings.Join(lines, "\n")
}

// wordWrap fills each paragraph line greedily; width counts grapheme
// clusters.
func wordWrap(s string, width int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		// ASCII whitespace as Rust's split_ascii_whitespace reads it:
		// space, tab, CR and form feed (and LF, split above), not the
		// vertical tab
		words := strings.FieldsFunc(para, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\f' })
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line, n := words[0], len(graphemeClusters(words[0]))
		for _, w := range words[1:] {
			wn := len(graphemeClusters(w))
			if n+1+wn <= width {
				line += " " + w
				n += 1 + wn
				continue
			}
			out = append(out, line)
			line, n = w, wn
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// repeatCount is the count argument i of repeat and .repeat (one rule for
// both forms, docs/spec/newer.md §2.7's row).
func repeatCount(args vm.Args, i int) (int64, error) {
	n, ok := args.Int(i)
	if !ok {
		return 0, vm.Typef("repeat: count must be an int, got %s", args.At(i).Type())
	}
	return n, nil
}
