package formats

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

// toml_parse's errors read as the toml crate's: the place, the line with
// a caret, the reason (docs/builtins-areas.md).
func TestTOMLCrateError(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"a = \"abc", "TOML parse error at line 1, column 9\n  |\n1 | a = \"abc\n  |         ^\ninvalid basic string"},
		{"a b = 1", "TOML parse error at line 1, column 3\n  |\n1 | a b = 1\n  |   ^\nexpected `.`, `=`"},
		{"a = 1\r\nb = 2 x\r\n", "TOML parse error at line 2, column 7\n  |\n2 | b = 2 x\n  |       ^\nexpected newline, `#`"},
		{"a = 1\na = 2", "TOML parse error at line 2, column 1\n  |\n2 | a = 2\n  | ^\nduplicate key `a` in document root"},
		{"[t]\n[t]", "TOML parse error at line 2, column 1\n  |\n2 | [t]\n  | ^\ninvalid table header\nduplicate key `t` in document root"},
		{"a = [1,\n", "TOML parse error at line 1, column 9\n  |\n1 | a = [1,\n  |         ^\ninvalid array\nexpected `]`"},
		{"s = \"\\u12\"", "TOML parse error at line 1, column 8\n  |\n1 | s = \"\\u12\"\n  |        ^\ninvalid unicode 4-digit hex code"},
		{"x = {y = 1,}", "TOML parse error at line 1, column 11\n  |\n1 | x = {y = 1,}\n  |           ^\ninvalid inline table\nexpected `}`"},
	}
	for _, c := range cases {
		var m map[string]any
		err := toml.Unmarshal([]byte(c.doc), &m)
		if err == nil {
			// go-toml reads TOML 1.1 forms the crate refuses; only what
			// go-toml refuses is worded here
			continue
		}
		if got := tomlCrateError(c.doc, err); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.doc, got, c.want)
		}
	}
}

// Whatever the document, wording its error never panics and always
// gives the layout.
func TestTOMLCrateErrorNeverPanics(t *testing.T) {
	seeds := []string{"[a.b]\nx = \"y\"\nz = [1, {q = 'r'}]\n", "a = \"\"\"x\\\n y\"\"\"\nb = '''q'''\n", "d = 1979-05-27T07:32:00Z\n[[arr]]\nk = 1.5e3\n"}
	alphabet := "[]{}=\"'.,#\n \\ux1_-é"
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 20000; n++ {
		doc := []rune(seeds[n%len(seeds)])
		for k := rng.Intn(4); k >= 0; k-- {
			at := rng.Intn(len(doc) + 1)
			r := []rune(alphabet)[rng.Intn(len([]rune(alphabet)))]
			doc = append(doc[:at], append([]rune{r}, doc[at:]...)...)
		}
		var m map[string]any
		err := toml.Unmarshal([]byte(string(doc)), &m)
		if err == nil {
			continue
		}
		if got := tomlCrateError(string(doc), err); !strings.HasPrefix(got, "TOML parse error at line ") {
			t.Fatalf("%q: %q", string(doc), got)
		}
	}
}

// What go-toml reads as TOML 1.1 and the crate, reading TOML 1.0,
// refuses; TOML 1.0 documents pass.
func TestTOMLCrateRefuses(t *testing.T) {
	refused := []string{"p = { x = 1,\n y = 2 }", "p = { x = 1, }", "s = \"\\e\""}
	for _, doc := range refused {
		if tomlCrateRefuses(doc) == "" {
			t.Errorf("%q: accepted", doc)
		}
	}
	accepted := []string{
		"a = 1\r\nb = \"x\"\r\n[t]\r\nc = [\r\n 1, # one\r\n]\r\n",
		"d = 1979-05-27 07:32:00Z\nt = 07:32:00.5\nx = -inf\nh = 0xDEAD_BEEF\n",
		"\"q k\".'l' = 1\n\t[ x . y ]  # t\nz = { }\nw = [ [1], [\"a\", 'b'], ]\nm = '''\n''x'''''\nk = \"\"\"a\\\n  b\"\"\"\"\"\n[[arr]]\n",
	}
	for _, doc := range accepted {
		var m map[string]any
		if err := toml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%q: go-toml: %v", doc, err)
		}
		if msg := tomlCrateRefuses(doc); msg != "" {
			t.Errorf("%q: refused:\n%s", doc, msg)
		}
	}
}

// A long run of scalar characters that is no value is worded in linear
// time: scalar does not decode every start of the run.
func TestTOMLCrateErrorLongScalar(t *testing.T) {
	doc := "a = " + strings.Repeat("1", 200000)
	var m map[string]any
	err := toml.Unmarshal([]byte(doc), &m)
	if err == nil {
		t.Fatal("go-toml read a 200000-digit integer")
	}
	done := make(chan string, 1)
	go func() { done <- tomlCrateError(doc, err) }()
	select {
	case got := <-done:
		if !strings.Contains(got, "TOML parse error at line 1, column 24\n") {
			t.Errorf("got %.80q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wording the error of a long scalar took over 10s")
	}
}

// Skill front matter (ParseTOML) reads TOML as toml_parse does: the
// TOML 1.1 forms the crate refuses are refused there too, in the crate's
// words without the `TOML parse error: ` prefix.
func TestParseTOMLRefusesWhatTomlParseRefuses(t *testing.T) {
	for _, doc := range []string{"p = { x = 1, }", "s = \"\\e\""} {
		_, err := ParseTOML(doc)
		if err == nil {
			t.Errorf("%q: accepted", doc)
			continue
		}
		if want := tomlCrateRefuses(doc); err.Error() != want {
			t.Errorf("%q: error %q, want %q", doc, err, want)
		}
	}
	if v, err := ParseTOML("name = \"x\"\n"); err != nil || v.String() == "" {
		t.Errorf("valid front matter: %v, %v", v, err)
	}
}
