package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/syntax"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// semToken is one decoded semantic token.
type semToken struct {
	line, char, length int
	typ                string
	mods               int
}

// decodeTokens undoes the relative encoding of semantic tokens.
func decodeTokens(data []protocol.UInteger) []semToken {
	var out []semToken
	line, char := 0, 0
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			line += int(data[i])
			char = int(data[i+1])
		} else {
			char += int(data[i+1])
		}
		out = append(out, semToken{line, char, int(data[i+2]), tokenTypes[data[i+3]], int(data[i+4])})
	}
	return out
}

// TestSemanticTokensLinearInLineLength: the tokens of one long line are
// converted in one pass over the line (each token used to be converted by
// scanning its line from the start, quadratic in the line's length), and
// the positions are those toPosition gives, in UTF-16 units.
func TestSemanticTokensLinearInLineLength(t *testing.T) {
	var b strings.Builder
	b.WriteString(`let a = ["é😀", `)
	for i := range 20000 {
		fmt.Fprintf(&b, "%d, ", i)
	}
	b.WriteString("0]\nlet s = \"😀\" + \"x\"\nprintln(len(a), s)\n")
	src := b.String()
	a := Analyze("/tmp/long.harn", src)
	if a.file == nil {
		t.Fatal("does not parse")
	}
	at := newLineCursor(splitLines(src))
	toks := decodeTokens(a.semanticTokensWith(at))
	if n := runeLen(src); at.steps > n {
		t.Errorf("%d characters scanned for a text of %d", at.steps, n)
	}
	lines := splitLines(src)
	i := 0
	for _, tok := range a.toks {
		if tok.Kind == syntax.TokNewline || tok.Kind == syntax.TokEOF || tok.Kind == syntax.TokPunct && strings.Contains("()[]{},;:.", tok.Text) {
			continue
		}
		if i%500 != 0 && tok.Pos.Line == 1 && tok.Pos.Col > 100 {
			i++ // (converting every token of the long line here would be quadratic)
			continue
		}
		want := toPosition(lines, tok.Pos)
		if i >= len(toks) || toks[i].line != int(want.Line) || toks[i].char != int(want.Character) {
			t.Fatalf("token %q at %v: got %+v, want %+v", tok.Text, tok.Pos, toks[min(i, len(toks)-1)], want)
		}
		i++
	}
	if i != len(toks) {
		t.Errorf("%d tokens, want %d", len(toks), i)
	}
	if s := toks[3]; s.typ != "string" || s.length != 5 {
		t.Errorf("the first string: %+v, want 5 UTF-16 units", s)
	}
}

// TestSemanticTokenTypesOfDeclarations: builtin types in annotations are
// types, struct fields (declared and in literals) properties, enum
// variants where declared enum members, impl methods where declared
// methods (docs/lsp.md, Semantic tokens).
func TestSemanticTokenTypesOfDeclarations(t *testing.T) {
	src := lines(
		"struct Pt {",
		"  x: int",
		"  y: list<string>",
		"}",
		"enum Shape {",
		"  Dot",
		"}",
		"impl Pt {",
		"  fn norm(self) -> int {",
		"    return self.x",
		"  }",
		"}",
		"fn f(s: Shape, n: int) -> string {",
		"  let p = Pt { x: n, y: [] }",
		"  return \"${p.norm()}\"",
		"}",
		"println(f(Shape.Dot, 1))")
	a := Analyze("/tmp/sem.harn", src)
	if a.file == nil {
		t.Fatal("does not parse")
	}
	ls := splitLines(src)
	got := map[string]string{}
	for _, tok := range decodeTokens(a.semanticTokens()) {
		r := []rune(ls[tok.line])
		name := string(r[tok.char : tok.char+tok.length])
		got[fmt.Sprintf("%d:%s", tok.line+1, name)] = tok.typ
	}
	for at, want := range map[string]string{
		"2:x": "property", "2:int": "type", "3:y": "property", "3:list": "type", "3:string": "type",
		"6:Dot": "enumMember", "9:norm": "method", "9:int": "type", "13:Shape": "enum", "13:int": "type", "13:string": "type",
		"14:Pt": "struct", "14:x": "property", "14:n": "parameter", "14:y": "property", "17:Dot": "enumMember", "17:f": "function",
	} {
		if got[at] != want {
			t.Errorf("%s is %q, want %q", at, got[at], want)
		}
	}
}

// TestFoldingMultiLineStrings: a multi-line string folds from its first
// line to the line before its closing one, as a block does (docs/lsp.md,
// folding ranges: multi-line literals).
func TestFoldingMultiLineStrings(t *testing.T) {
	src := lines(
		`let s = """`,
		"  one",
		"  two",
		`"""`,
		"let name = 1",
		`let t = """`,
		"  ${name}",
		"  three",
		`"""`,
		`let u = "a"`,
		"println(s, t, u)")
	a := Analyze("/tmp/fold.harn", src)
	var got []string
	for _, f := range a.folds() {
		got = append(got, fmt.Sprintf("%d-%d", f.StartLine, f.EndLine))
	}
	if want := []string{"0-2", "5-7"}; !slices.Equal(got, want) {
		t.Errorf("folds %v, want %v", got, want)
	}
}

// TestSemanticTokensOfKeywordsAsNames: a keyword written as a member
// name, a dict key or a shape field (docs/spec/newer.md §1.1) is a
// property (a method when called), not a keyword; dict keys are
// properties whatever their spelling.
func TestSemanticTokensOfKeywordsAsNames(t *testing.T) {
	src := lines(
		"fn f(o: {retry: int, name: string}) -> int {",
		"  return o.retry",
		"}",
		"let opts = {finally: 1, select: 2, alpha: 3}",
		"println(opts.finally + opts?.select + f({retry: 1, name: \"n\"}))",
		"for k in opts.keys() {",
		"  println(k)",
		"}")
	a := Analyze("/tmp/kw.harn", src)
	if a.file == nil {
		t.Fatal("does not parse")
	}
	ls := splitLines(src)
	got := map[string]string{}
	for _, tok := range decodeTokens(a.semanticTokens()) {
		r := []rune(ls[tok.line])
		got[fmt.Sprintf("%d:%d:%s", tok.line+1, tok.char+1, string(r[tok.char:tok.char+tok.length]))] = tok.typ
	}
	for at, want := range map[string]string{
		"1:10:retry": "property", "1:22:name": "property", "2:3:return": "keyword", "2:12:retry": "property",
		"4:13:finally": "property", "4:25:select": "property", "4:36:alpha": "property",
		"5:14:finally": "property", "5:30:select": "property", "5:42:retry": "property", "5:52:name": "property",
		"6:1:for": "keyword", "6:7:in": "keyword", "6:15:keys": "method",
	} {
		if got[at] != want {
			t.Errorf("%s is %q, want %q (%v)", at, got[at], want, got)
		}
	}
}
