package resolve_test

import (
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// TestCallTargetSuggestions: unresolved call targets suggest a close
// spelling, the same words reordered or a renamed builtin, and repeat it
// as help (docs/spec/newer.md §3.4); host bridges are not reported.
func TestCallTargetSuggestions(t *testing.T) {
	lib := universe{"json_parse": true, "json_stringify": true, "uppercase": true, "to_string": true, "len": true, "Err": true}
	cases := []struct{ src, msg, help string }{
		{`parse_json("1")`, "call target `parse_json` is not defined or imported — did you mean `json_parse`?", "did you mean `json_parse`?"},
		{`uppercsae("a")`, "call target `uppercsae` is not defined or imported — did you mean `uppercase`?", "did you mean `uppercase`?"},
		{`json_encode(1)`, "call target `json_encode` is not defined or imported — did you mean `json_stringify`?", "did you mean `json_stringify`?"},
		{`str(1)`, "call target `str` is not defined or imported — did you mean `to_string`?", "did you mean `to_string`?"}, // not the close `Err`
		{`lenght("a")`, "call target `lenght` is not defined or imported — did you mean `len`?", "did you mean `len`?"},     // a slip for `length`
		{`frobnicate(1)`, "call target `frobnicate` is not defined or imported", ""},
		{`__host_thing(1)`, "", ""},
		{`hostlib_fs_read("x")`, "", ""},
	}
	for _, tc := range cases {
		f, err := syntax.Parse("t.harn", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		info := resolve.File(f, resolve.Options{Universe: lib})
		if tc.msg == "" {
			if len(info.Errors) != 0 {
				t.Errorf("%s: unexpected error %v", tc.src, info.Errors)
			}
			continue
		}
		if len(info.Errors) != 1 {
			t.Fatalf("%s: want one error, got %v", tc.src, info.Errors)
		}
		e := info.Errors[0]
		if e.Msg != tc.msg || e.Help != tc.help || e.Code != "HARN-NAM-002" {
			t.Errorf("%s: got %q (help %q, code %q)", tc.src, e.Msg, e.Help, e.Code)
		}
	}
}

// globalsUniverse is a universe with host value globals beside builtins.
type globalsUniverse struct {
	universe
	globals []string
}

func (u globalsUniverse) GlobalNames() []string { return u.globals }

// TestCallTargetSuggestionsSkipValueGlobals: a call site never suggests a
// host value global (`e`, `pi`), which cannot be called, while a read
// still may.
func TestCallTargetSuggestionsSkipValueGlobals(t *testing.T) {
	lib := globalsUniverse{universe{"g": true, "e": true, "pi": true}, []string{"e", "pi"}}
	for src, want := range map[string]string{
		`f(1)`:        "call target `f` is not defined or imported — did you mean `g`?",
		`pii(1)`:      "call target `pii` is not defined or imported",
		`let x = pii`: "",
	} {
		f, err := syntax.Parse("t.harn", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		info := resolve.File(f, resolve.Options{Universe: lib})
		got := ""
		if len(info.Errors) > 0 {
			got = info.Errors[0].Msg
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", src, got, want)
		}
	}
}

// TestMemberHeadSuggestsTypes: an undefined capitalised head of `X.Y`
// suggests a declared enum or struct before a builtin of the same
// distance, while a lower-case head still suggests values
// (docs/spec/newer.md §3.4).
func TestMemberHeadSuggestsTypes(t *testing.T) {
	lib := universe{"bold": true, "println": true}
	for src, want := range map[string]string{
		"enum Color { Red }\nlet c = Colr.Red":          "undefined variable `Colr` (did you mean `Color`?)",
		"enum Color { Red }\nlet c = Colr.Red.name()":   "undefined variable `Colr` (did you mean `Color`?)",
		"struct Point { x: int }\nlet p = Pont.from(1)": "undefined variable `Pont` (did you mean `Point`?)",
		"let total = 1\nlet c = totl.x":                 "undefined variable `totl` (did you mean `total`?)",
	} {
		f, err := syntax.Parse("t.harn", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		info := resolve.File(f, resolve.Options{Universe: lib})
		got := ""
		for _, w := range info.Warnings {
			got = w.Msg
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

// TestForeignLiteralReads: reading another language's nil or boolean
// (`None`, `null`, `True`) is an undefined variable (docs/spec/language.md
// §3.2); the warning explains Harn's spelling in its help instead of
// suggesting a look-alike name such as `clone`.
func TestForeignLiteralReads(t *testing.T) {
	lib := universe{"clone": true, "println": true, "nil_or": true}
	cases := []struct{ src, msg, help string }{
		{"println(None)", "undefined variable `None`", "Harn writes the missing value as `nil`"},
		{"println(null)", "undefined variable `null`", "Harn writes the missing value as `nil`"},
		{"println(undefined)", "undefined variable `undefined`", "Harn writes the missing value as `nil`"},
		{"println(True)", "undefined variable `True`", "Harn's booleans are `true` and `false`"},
		{"println(clon)", "undefined variable `clon` (did you mean `clone`?)", ""},
	}
	for _, tc := range cases {
		f, err := syntax.Parse("t.harn", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		info := resolve.File(f, resolve.Options{Universe: lib})
		if len(info.Warnings) != 1 {
			t.Fatalf("%s: want one warning, got %v", tc.src, info.Warnings)
		}
		w := info.Warnings[0]
		if w.Msg != tc.msg || w.Help != tc.help || w.Code != "HARN-NAM-001" {
			t.Errorf("%s: got %q (help %q, code %q)", tc.src, w.Msg, w.Help, w.Code)
		}
	}
}

// TestUndefinedHoleHelp: an undefined name alone in a string's `${…}`
// (docs/spec/language.md §1.7), as in a regex replacement `"${m}/${y}"`
// meant as text, gets a help saying how to keep the hole literal.
func TestUndefinedHoleHelp(t *testing.T) {
	lib := universe{"println": true}
	f, err := syntax.Parse("t.harn", []byte(`println("${m}/${1 + zz}")`))
	if err != nil {
		t.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: lib})
	if len(info.Warnings) != 2 {
		t.Fatalf("want two warnings, got %v", info.Warnings)
	}
	want := "a string's `${…}` reads a variable; to keep the text `${m}`, write `\\${m}` or use a raw string `r\"…\"`"
	if w := info.Warnings[0]; w.Msg != "undefined variable `m`" || w.Help != want {
		t.Errorf("got %q (help %q)", w.Msg, w.Help)
	}
	if w := info.Warnings[1]; w.Help != "" { // not a bare name: no help
		t.Errorf("got help %q for %q", w.Help, w.Msg)
	}
}
