package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
)

var typeNames = map[lexer.TokenType]string{
	tIdent: "id", tKeyword: "kw", tInt: "int", tFloat: "float", tDuration: "dur", tString: "str",
	tRaw: "raw", tInterp: "istr", tPunct: "p", tNewline: "nl", tDoc: "doc",
}

// scanAll renders the tokens of src as "type:value@line:col".
func scanAll(t *testing.T, src string) string {
	t.Helper()
	toks, err := newScanner("s.harn", src, 1, 1, true).all()
	if err != nil {
		return "error: " + err.Golden
	}
	var out []string
	for _, tk := range toks {
		if tk.Type == tEOF {
			break
		}
		v := tk.Value
		if tk.Type == tNewline {
			v = ""
		}
		out = append(out, fmt.Sprintf("%s:%s@%d:%d", typeNames[tk.Type], v, tk.Pos.Line, tk.Pos.Column))
	}
	return strings.Join(out, " ")
}

func TestScanner(t *testing.T) {
	tests := []struct{ src, want string }{
		{"let x = 1", "kw:let@1:1 id:x@1:5 p:=@1:7 int:1@1:9"},
		{"#!/usr/bin/env harn\nx", "id:x@2:1"},
		{"a\n\n\nb", "id:a@1:1 nl:@1:2 id:b@4:1"},
		{"\n\na", "id:a@3:1"},
		{"a\r\nb", "id:a@1:1 nl:@1:3 id:b@2:1"},
		{"a // note\nb", "id:a@1:1 nl:@1:10 id:b@2:1"},
		{"a /* x\n y */ b", "id:a@1:1 id:b@2:7"},
		{"a /* 1 /* 2 */ 3 */ b", "id:a@1:1 id:b@1:21"},
		{"/**/ a", "id:a@1:6"},
		{"/// one\n  /// two\nfn", "doc:/// one\n  /// two@1:1 nl:@2:10 kw:fn@3:1"},
		{"x //// not doc\nfn", "id:x@1:1 nl:@1:15 kw:fn@2:1"},
		{"/** doc */ fn", "doc:/** doc */@1:1 kw:fn@1:12"},
		{"/*** not doc */ fn", "kw:fn@1:17"},
		{"a \\\n b", "id:a@1:1 id:b@2:2"},
		{"a \\\r\n b", "id:a@1:1 id:b@2:2"},
		{"1 1.5 1.2.3 42.x 7.", "int:1@1:1 float:1.5@1:3 float:1.2@1:7 p:.@1:10 int:3@1:11 int:42@1:13 p:.@1:15 id:x@1:16 int:7@1:18 p:.@1:19"},
		{"5ms 5s 5m 5h 5d 5w 5sec 5mss 5s2 5s_", "dur:5ms@1:1 dur:5s@1:5 dur:5m@1:8 dur:5h@1:11 dur:5d@1:14 dur:5w@1:17 int:5@1:20 id:sec@1:21 int:5@1:25 id:mss@1:26 int:5@1:30 id:s2@1:31 int:5@1:34 id:s_@1:35"},
		{"1e3 1_000", "int:1@1:1 id:e3@1:2 int:1@1:5 id:_000@1:6"},
		{"== != && || |> ?? ** ?. -> <= >= += -= *= /= %=", "p:==@1:1 p:!=@1:4 p:&&@1:7 p:||@1:10 p:|>@1:13 p:??@1:16 p:**@1:19 p:?.@1:22 p:->@1:25 p:<=@1:28 p:>=@1:31 p:+=@1:34 p:-=@1:37 p:*=@1:40 p:/=@1:43 p:%=@1:46"},
		{"=!.+-*/%<>?|@{}()[],:;&", "p:=@1:1 p:!@1:2 p:.@1:3 p:+@1:4 p:-@1:5 p:*@1:6 p:/@1:7 p:%@1:8 p:<@1:9 p:>@1:10 p:?@1:11 p:|@1:12 p:@@1:13 p:{@1:14 p:}@1:15 p:(@1:16 p:)@1:17 p:[@1:18 p:]@1:19 p:,@1:20 p::@1:21 p:;@1:22 p:&@1:23"},
		{"...x ?[", "p:.@1:1 p:.@1:2 p:.@1:3 id:x@1:4 p:?@1:6 p:[@1:7"},
		{"not in x", "id:not@1:1 kw:in@1:5 id:x@1:8"},
		{"each settle with as stream timeout default where out gen description summarize",
			"id:each@1:1 id:settle@1:6 id:with@1:13 id:as@1:18 id:stream@1:21 id:timeout@1:28 id:default@1:36 id:where@1:44 id:out@1:50 id:gen@1:54 id:description@1:58 id:summarize@1:70"},
		{"request_approval const throws", "id:request_approval@1:1 kw:const@1:18 kw:throws@1:24"},
		{"é ñandú _x x1 日本", "id:é@1:1 id:ñandú@1:3 id:_x@1:9 id:x1@1:12 id:日本@1:15"},
		{`"a" "a\"b" "${x}" "\${x}" "$x"`, `str:"a"@1:1 str:"a\"b"@1:5 istr:"${x}"@1:12 str:"\${x}"@1:19 str:"$x"@1:27`},
		{`"${ {a: "}"} }" x`, `istr:"${ {a: "}"} }"@1:1 id:x@1:17`},
		{"\"${\n x\n}\" y", "istr:\"${\n x\n}\"@1:1 id:y@3:4"},
		{`r"a\" r#"b"c"# r##"d"#e"## r x`, `raw:r"a\"@1:1 raw:r#"b"c"#@1:7 raw:r##"d"#e"##@1:16 id:r@1:28 id:x@1:30`},
		{"\"\"\"a\n\"b\"\"\"\" x", "error: Unterminated string at 2:6"},
		{`"${x ?? "a}b"}" y`, `istr:"${x ?? "a}b"}"@1:1 id:y@1:17`},
		{`"${x ?? \"y\"}"`, `error: Unexpected character '\' at 1:9`},
		{`"""${ }"""`, `error: Unexpected character '}' at 1:7`},
		{"\"\"\"a\n\"\"\" b", "str:\"\"\"a\n\"\"\"@1:1 id:b@2:5"},
	}
	for _, tt := range tests {
		if got := scanAll(t, tt.src); got != tt.want {
			t.Errorf("scan %q\n got  %s\n want %s", tt.src, got, tt.want)
		}
	}
}

// TestWhereAt: the cursor is marked with `|`.
func TestWhereAt(t *testing.T) {
	cases := []struct {
		src   string
		where Where
		start int // of the comment or string
	}{
		{`println("|`, InString, 8},
		{`println("ab|cd")`, InString, 8},
		{`println("abc")|`, InCode, 0},
		{`let x = 1 // see http://|`, InComment, 10},
		{"// xs.|\nlet y = 2", InComment, 0},
		{"// done\nxs.|", InCode, 0},
		{`10 /|`, InCode, 0},
		{`/* a | b */`, InComment, 0},
		{`/* a */ x|`, InCode, 0},
		{"/* outer /* inner */ still |", InComment, 0},
		{`"${na|`, InCode, 0},
		{`"${name}, ${us|er}"`, InCode, 0},
		{`"${f(1)} and |`, InString, 0},
		{`"a \" b|`, InString, 0},
		{`r"raw ${x|`, InString, 0},
		{`x = """multi` + "\nline ${a} |", InString, 4},
		{"/// doc|\nfn f() {}", InComment, 0},
		{`import "std/|`, InString, 7},
		{"#!/usr/bin/env harn|", InComment, 0},
	}
	for _, c := range cases {
		off := strings.IndexByte(c.src, '|')
		src := c.src[:off] + c.src[off+1:]
		w, start := WhereAt(src, off)
		if w != c.where || start != c.start {
			t.Errorf("%q: got %d at %d, want %d at %d", c.src, w, start, c.where, c.start)
		}
	}
}
