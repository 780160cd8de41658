package syntax

import (
	"errors"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/diag"
)

// FuzzParse checks that no input makes the parser panic or produce an
// error other than a positioned lexer or parse error.
func FuzzParse(f *testing.F) {
	for _, src := range docExamples("spec/language.md") {
		f.Add(src)
	}
	for _, src := range []string{
		"let x = \"${a[\"k\"]}\"", "\"\"\"\n  a ${x}\n  ${y} b\n  \"\"\"", "f<int>(x) ? a : b?", "{ x -> x }",
		"@a(b.c(1), -2, [3], {k: 4})\npub fn f<in T>(a, b = 1, ...c) -> T throws E where T: A + B {}",
		"match x { [a, ...b] | c if d -> { e } }", "parallel each xs with { max_concurrent: 2 } { x -> x } as stream",
		"select { v from ch {} timeout 5s {} default {} }", "import a::b::{x, y}", "x?.y?[0]?", "r#\"a\"# /* /* */ */",
		// the hand-written list hooks: import lists, variants, fields, impl pub, override names
		"import * as m from \"p\"\nimport { a, b, } from \"q\"", "enum E { A(x: int), B, }\nstruct S { type?: int, b }",
		"impl P { pub fn f(self) {} type T = int }", "pipeline p(t) extends q { override f(a, b) {} }",
		"eval_pack \"t\" { k: 1 }\nskill s { when \"x\" }", "match x { 1 | 2 if y -> {} }", "let n = 1_000 1e3 0x1 1.5s 5sec",
	} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("fuzz.harn", []byte(src))
		if err == nil {
			if file == nil {
				t.Fatal("nil file without error")
			}
			return
		}
		var de *diag.Error
		if !errors.As(err, &de) {
			t.Fatalf("error is %T: %v", err, err)
		}
		if strings.Contains(de.Msg, "internal parser error") {
			t.Fatalf("%v", de.Msg)
		}
		if de.GoldenText() == "" || (de.Line == 0 && !strings.HasPrefix(de.Golden, "Unexpected end of file")) {
			t.Fatalf("error without text or position: %#v", de)
		}
	})
}
