package text

import (
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// String methods (docs/spec/builtins.md §3.5). Any name not registered here returns
// nil (the VM's default), including `.title_case()` and `.to_string()`.

func init() {
	sm := func(name, sig, doc string, fn func(s string, args vm.Args) vm.Value) {
		lib.Method("string", name, sig, doc, func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			s := receiver(recv)
			if len(s) < lib.OffThreadMin {
				return fn(s, args), nil // no closures: short strings are the common case
			}
			// args lives on the thread's stack, which is reused once an
			// interrupt returns while fn still runs
			args = append(vm.Args(nil), args...)
			return longText(th, len(s), func() vm.Value { return fn(s, args) })
		})
	}
	count := func(s string, args vm.Args) vm.Value { return lib.IntOf(lib.RuneCount(s)) }
	sm("count", "s.count()", "number of chars", count)
	sm("len", "s.len()", "number of chars", count)
	sm("empty", "s.empty()", `whether s is ""`, func(s string, args vm.Args) vm.Value { return vm.BoolOf(s == "") })
	sm("contains", "s.contains(x)", "substring test", func(s string, args vm.Args) vm.Value {
		return vm.BoolOf(strings.Contains(s, lib.TextOr(args, 0, "")))
	})
	sm("starts_with", "s.starts_with(x)", "prefix test", func(s string, args vm.Args) vm.Value {
		return vm.BoolOf(strings.HasPrefix(s, lib.TextOr(args, 0, "")))
	})
	sm("ends_with", "s.ends_with(x)", "suffix test", func(s string, args vm.Args) vm.Value {
		return vm.BoolOf(strings.HasSuffix(s, lib.TextOr(args, 0, "")))
	})
	sm("replace", "s.replace(old, new)", "replace every occurrence (needs both arguments)", func(s string, args vm.Args) vm.Value {
		if args.Len() < 2 {
			return vm.Nil
		}
		return vm.Str(strings.ReplaceAll(s, args.Text(0), args.Text(1)))
	})
	sm("split", "s.split(sep?)", `split on sep (default ",")`, func(s string, args vm.Args) vm.Value {
		return vm.Of(lib.StrList(splitText(s, lib.TextOr(args, 0, ","))))
	})
	sm("trim", "s.trim()", "remove surrounding whitespace", func(s string, args vm.Args) vm.Value {
		return vm.Str(strings.TrimFunc(s, IsSpace))
	})
	sm("trim_start", "s.trim_start()", "remove leading whitespace", func(s string, args vm.Args) vm.Value {
		return vm.Str(strings.TrimLeftFunc(s, IsSpace))
	})
	sm("trim_end", "s.trim_end()", "remove trailing whitespace", func(s string, args vm.Args) vm.Value {
		return vm.Str(strings.TrimRightFunc(s, IsSpace))
	})
	for _, name := range []string{"lowercase", "lower", "to_lower"} {
		sm(name, "s."+name+"()", "full Unicode lower-casing", func(s string, args vm.Args) vm.Value { return vm.Str(Lower(s)) })
	}
	for _, name := range []string{"uppercase", "upper", "to_upper"} {
		sm(name, "s."+name+"()", "full Unicode upper-casing", func(s string, args vm.Args) vm.Value { return vm.Str(Upper(s)) })
	}
	sm("substring", "s.substring(start?, end?)", "chars from start to END (an index, not a length)", func(s string, args vm.Args) vm.Value {
		rs := []rune(s)
		n := int64(len(rs))
		start := lib.ClampInt(args.IntOr(0, 0), 0, n)
		end := n
		if e, ok := args.Int(1); ok && e >= 0 {
			end = min(e, n)
		}
		if end < start {
			return vm.EmptyString
		}
		return vm.Str(string(rs[start:end]))
	})
	sm("index_of", "s.index_of(sub, from = 0)", "char offset of the first occurrence at or after from, -1 if absent", func(s string, args vm.Args) vm.Value {
		return charIndexFrom(s, lib.TextOr(args, 0, ""), args.IntOr(1, 0))
	})
	sm("last_index_of", "s.last_index_of(sub)", "char offset of the last occurrence, -1 if absent", func(s string, args vm.Args) vm.Value {
		i := strings.LastIndex(s, lib.TextOr(args, 0, ""))
		if i < 0 {
			return vm.IntOf(-1)
		}
		return lib.IntOf(lib.RuneCount(s[:i]))
	})
	sm("char_at", "s.char_at(i?)", "the char at index i (default 0), nil when out of range", func(s string, args vm.Args) vm.Value {
		i := args.IntOr(0, 0)
		if i < 0 {
			return vm.Nil
		}
		for _, r := range s {
			if i == 0 {
				return vm.Str(string(r))
			}
			i--
		}
		return vm.Nil
	})
	sm("chars", "s.chars()", "one string per char", func(s string, args vm.Args) vm.Value {
		return vm.Of(chars(s))
	})
	sm("lines", "s.lines()", "lines without their endings", func(s string, args vm.Args) vm.Value {
		return vm.Of(lib.StrList(Lines(s)))
	})
	lib.Method("string", "repeat", "s.repeat(n?)", "n copies (default 1)", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		if args.Len() == 0 {
			return repeatOn(th, receiver(recv), 1)
		}
		n, err := repeatCount(args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return repeatOn(th, receiver(recv), n)
	})
	sm("reverse", "s.reverse()", "chars in reverse order", func(s string, args vm.Args) vm.Value {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return vm.Str(string(rs))
	})
	lib.Method("string", "pad_left", "s.pad_left(width, ch?)", "pad on the left to width chars with the first char of ch (a space when ch is left out, nil or empty)", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return padChars(receiver(recv), args, true)
	})
	lib.Method("string", "pad_right", "s.pad_right(width, ch?)", "pad on the right to width chars with the first char of ch (a space when ch is left out, nil or empty)", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return padChars(receiver(recv), args, false)
	})
}

// receiver is a string method's receiver, which is always a string; it
// is read with AsString because Object would box it.
func receiver(recv vm.Value) string {
	s, _ := recv.AsString()
	return s.Go()
}

func chars(s string) *vm.List {
	items := make([]vm.Value, 0, len(s))
	for _, r := range s {
		items = append(items, vm.Str(string(r)))
	}
	return lib.List(items)
}

// Lines splits on "\n", drops a "\r" before each "\n" and yields no
// trailing empty line for a final newline.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, "\n")
	last := len(parts) - 1
	if parts[last] == "" {
		parts = parts[:last]
	}
	for i := range parts {
		if i < last { // followed by "\n"
			parts[i] = strings.TrimSuffix(parts[i], "\r")
		}
	}
	return parts
}

// padChars pads s to width chars with the first char of display(ch); a
// ch left out, nil or empty pads with a space, as str_pad's fill does.
func padChars(s string, args vm.Args, left bool) (vm.Value, error) {
	recv := vm.Str(s)
	width, ok := args.Int(0)
	if !ok {
		return recv, nil
	}
	fill := " "
	if args.Given(1) {
		if r, n := utf8.DecodeRuneInString(args.Text(1)); n > 0 {
			fill = string(r)
		}
	}
	n := width - int64(lib.RuneCount(s))
	if n <= 0 {
		return recv, nil
	}
	if err := vm.CheckAlloc("padding a string", n, int64(len(fill))); err != nil {
		return vm.Value{}, err
	}
	if left {
		return vm.Str(strings.Repeat(fill, int(n)) + s), nil
	}
	return vm.Str(s + strings.Repeat(fill, int(n))), nil
}

// longText runs f, a string builtin over size bytes of text, so that th's
// deadline, cancellation and Ctrl-C stop it on a large text (lib.OffThread).
// After a stop f may still be running: its result is not read.
func longText(th *vm.Thread, size int, f func() vm.Value) (vm.Value, error) {
	var v vm.Value
	if err := lib.OffThread(th, size, func() { v = f() }); err != nil {
		return vm.Value{}, err
	}
	return v, nil
}

// repeatOn is vm.RepeatString, interruptible when the result is large.
func repeatOn(th *vm.Thread, s string, n int64) (vm.Value, error) {
	size := 0
	if n > 0 && int64(len(s)) <= vm.MaxMemory()/n {
		size = len(s) * int(n)
	}
	var v vm.Value
	var err error
	if stop := lib.OffThread(th, size, func() { v, err = vm.RepeatString(s, n) }); stop != nil {
		return vm.Value{}, stop
	}
	return v, err
}
