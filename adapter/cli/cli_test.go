package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// program prepares a registry given as JSON definitions (every handler
// returns its arguments) and options, and builds its program.
func program(t testing.TB, defs, options string) *Program {
	t.Helper()
	prog, err := build(t, defs, options)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// build is program returning the failure to normalize, prepare or build.
func build(t testing.TB, defs, options string) (*Program, error) {
	t.Helper()
	dv, err := jsonv.Parse([]byte(defs))
	if err != nil {
		t.Fatalf("bad definitions: %v", err)
	}
	list := tool.FromJSON(dv).Object().(*vm.List)
	items := make([]vm.Value, list.Len())
	for i, d := range list.Items() {
		items[i] = vm.Of(d.Object().(*vm.Dict).Set("handler", vm.Of(echoBuiltin)))
	}
	b := vm.NewDictBuilder(5)
	b.Set("_type", vm.Str(tool.RegistryType))
	b.Set("tools", vm.Of(vm.NewList(items)))
	if options != "" {
		ov, err := jsonv.Parse([]byte(options))
		if err != nil {
			t.Fatalf("bad options: %v", err)
		}
		tool.FromJSON(ov).Object().(*vm.Dict).Range(func(k string, v vm.Value) bool {
			b.Set(k, v)
			return true
		})
	}
	reg, err := tool.Normalize(vm.Of(b.Build()), nil)
	if err != nil {
		return nil, fmt.Errorf("normalize: %v", err)
	}
	p, err := tool.Prepare(reg)
	if err != nil {
		return nil, fmt.Errorf("prepare: %v", err)
	}
	prog, err := New(p, "/srv/tools/server.harn")
	if err != nil {
		return nil, fmt.Errorf("program: %v", err)
	}
	return prog, nil
}

var echoBuiltin = vm.NewBuiltin("echo", "echo(args)", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
	return a.At(0), nil
})

// result is one run of a program.
type result struct {
	stdout, stderr string
	status         int
	called         bool
}

func (p *Program) try(stdin string, args ...string) result {
	var out, errb bytes.Buffer
	var r result
	call := func(t *tool.PreparedTool, args *jsonv.Object) *tool.Outcome {
		o := t.Invoke(vm.New(vm.NewUniverse()).NewThread(), args)
		r.called = o.Kind != tool.InvalidInput
		return o
	}
	r.status = p.Run(args, call, Stdio{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	r.stdout, r.stderr = out.String(), errb.String()
	return r
}

const opsDefs = `[{
  "name": "ops",
  "inputSchema": {"type": "object", "properties": {
    "count": {"type": "integer"},
    "ratio": {"type": "number"},
    "on": {"type": "boolean"},
    "name": {"type": "string"},
    "obj": {"type": "object"},
    "tags": {"type": "array", "items": {"type": "integer"}},
    "enable": {"type": "boolean"},
    "keep": {"type": "boolean"},
    "first": {"type": "string"},
    "rest": {"type": "array", "items": {"type": "number"}}
  }},
  "cli": {"arguments": {
    "count": {"short": "c"},
    "name": {"short": "n", "aliases": ["title"]},
    "tags": {"repeatable": true, "long": "tag", "short": "t"},
    "enable": {"short": "e", "boolean_style": "set_true"},
    "keep": {"long": "no-keep", "short": "k", "boolean_style": "set_false"},
    "first": {"position": 0},
    "rest": {"position": 1, "repeatable": true}
  }}
}]`

func TestParseSyntaxes(t *testing.T) {
	p := program(t, opsDefs, "")
	cases := []struct {
		args []string
		want string
	}{
		{nil, `{}`},
		{[]string{"--count", "3"}, `{"count":3}`},
		{[]string{"--count=3"}, `{"count":3}`},
		{[]string{"-c", "3"}, `{"count":3}`},
		{[]string{"-c=3"}, `{"count":3}`},
		{[]string{"-c3"}, `{"count":3}`},
		{[]string{"--count", "-3"}, `{"count":-3}`},
		{[]string{"-c", "-3"}, `{"count":-3}`},
		{[]string{"--ratio", "-2.5"}, `{"ratio":-2.5}`},
		{[]string{"--ratio", "1e3"}, `{"ratio":1000}`},
		{[]string{"--on", "true"}, `{"on":true}`},
		{[]string{"--name", ""}, `{"name":""}`},
		{[]string{"--title", "x y"}, `{"name":"x y"}`},
		{[]string{"--name=-x"}, `{"name":"-x"}`},
		{[]string{"--name", "-"}, `{"name":"-"}`},
		{[]string{"--obj", `{"a":[1]}`}, `{"obj":{"a":[1]}}`},
		{[]string{"--tag", "1", "-t2", "--tag=3"}, `{"tags":[1,2,3]}`},
		{[]string{"--enable"}, `{"enable":true}`},
		{[]string{"--no-keep"}, `{"keep":false}`},
		{[]string{"-ek"}, `{"enable":true,"keep":false}`},
		{[]string{"-ekc", "4"}, `{"count":4,"enable":true,"keep":false}`},
		{[]string{"-ekc4"}, `{"count":4,"enable":true,"keep":false}`},
		{[]string{"a", "1", "2.5"}, `{"first":"a","rest":[1,2.5]}`},
		{[]string{"a", "-1", "-2"}, `{"first":"a","rest":[-1,-2]}`},
		{[]string{"--", "-a", "-1"}, `{"first":"-a","rest":[-1]}`},
		{[]string{"a", "--", "--count"}, ``}, // "--count" is not a number: a coercion error
		{[]string{"--harn-input", `{"count":1,"name":"b"}`, "--count", "2"}, `{"count":2,"name":"b"}`},
	}
	for _, c := range cases {
		r := p.try("", append([]string{"ops"}, c.args...)...)
		if c.want == "" {
			if r.status != 1 || r.called {
				t.Errorf("%q: want a failure, got %d %q", c.args, r.status, r.stdout)
			}
			continue
		}
		if r.status != 0 || r.stdout != c.want+"\n" {
			t.Errorf("%q:\n got %d %q %q\nwant %s", c.args, r.status, r.stdout, r.stderr, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	p := program(t, opsDefs, `{"info":{"name":"prog","version":"2.0"}}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"ops", "--count"}, "error: a value is required for '--count <COUNT>' but none was supplied\n\nUsage: prog ops [OPTIONS] [FIRST] [REST]...\n\nFor more information, try '--help'.\n"},
		{[]string{"ops", "--name", "--count"}, "a value is required for '--name <NAME>'"},
		{[]string{"ops", "--name", "-x"}, "a value is required for '--name <NAME>'"},
		{[]string{"ops", "--count", "-x"}, "a value is required for '--count <COUNT>'"},
		{[]string{"ops", "--count", "1", "--count", "2"}, "the argument '--count <COUNT>' cannot be used multiple times"},
		{[]string{"ops", "-e", "--enable"}, "the argument '--enable' cannot be used multiple times"},
		{[]string{"ops", "--enable=yes"}, "unexpected value 'yes' for '--enable' found; no more were expected"},
		{[]string{"ops", "--bogus"}, "unexpected argument '--bogus' found"},
		{[]string{"ops", "--bogus=1"}, "unexpected argument '--bogus' found"},
		{[]string{"ops", "-z"}, "unexpected argument '-z' found"},
		{[]string{"ops", "-ez"}, "unexpected argument '-z' found"},
		// the real token is named: no option name before "=", a value
		// after a flag's short spelling
		{[]string{"ops", "--=x"}, "unexpected argument '--=x' found"},
		{[]string{"ops", "--="}, "unexpected argument '--=' found"},
		{[]string{"--=x"}, "unexpected argument '--=x' found"},
		{[]string{"help", "--=x"}, "unrecognized subcommand '--=x'"},
		{[]string{"ops", "-e="}, "unexpected value '' for '--enable' found; no more were expected"},
		{[]string{"ops", "-ke=yes"}, "unexpected value 'yes' for '--enable' found; no more were expected"},
		{[]string{"ops", "--version"}, "unexpected argument '--version' found"},
		{[]string{"ops", "-V"}, "unexpected argument '-V' found"},
		{[]string{"ops", "--harn-input", "{}", "--harn-input", "{}"}, "the argument '--harn-input <JSON|@FILE|->' cannot be used multiple times"},
		{[]string{"ops", "--json", "--json"}, "the argument '--json' cannot be used multiple times"},
		{[]string{"ops", "--harn-output", "json", "--json"}, "the argument '--harn-output <FORMAT>' cannot be used with '--json'"},
		{[]string{"ops", "--json", "--harn-output", "json"}, "the argument '--json' cannot be used with '--harn-output <FORMAT>'"},
		{[]string{"ops", "--harn-output", "xml"}, "invalid value 'xml' for '--harn-output <FORMAT>'\n  [possible values: json, pretty, text]"},
		{[]string{"ops", "--json=1"}, "unexpected value '1' for '--json' found"},
		{[]string{"nope"}, "error: unrecognized subcommand 'nope'\n\n  tip: a similar subcommand exists: 'ops'\n\nUsage: prog <COMMAND>\n"},
		{[]string{"--frob"}, "unexpected argument '--frob' found"},
		{[]string{"help", "nope"}, "unrecognized subcommand 'nope'"},
		{[]string{"help", "ops", "extra"}, "unrecognized subcommand 'extra'"},
		// as clap's help subcommand, every word after help names a
		// subcommand: it has no options and no "--"; the usage is the one
		// of the command reached
		{[]string{"help", "--frob"}, "error: unrecognized subcommand '--frob'\n\nUsage: prog <COMMAND>\n"},
		{[]string{"help", "--", "ops"}, "error: unrecognized subcommand '--'\n\nUsage: prog <COMMAND>\n"},
		{[]string{"help", "--"}, "error: unrecognized subcommand '--'\n"},
		{[]string{"help", "-h"}, "error: unrecognized subcommand '-h'\n"},
		{[]string{"help", "--help"}, "error: unrecognized subcommand '--help'\n"},
		{[]string{"help", "ops", "--", "x"}, "error: unrecognized subcommand '--'\n\nUsage: prog ops [OPTIONS] [FIRST] [REST]...\n"},
		{[]string{"help", "ops", "extra"}, "Usage: prog ops [OPTIONS]"},
		// "--" at a parent ends options: what follows is positional, and a
		// parent takes no positional
		{[]string{"--", "ops"}, "error: unexpected argument 'ops' found\n\n  tip: subcommand 'ops' exists; to use it, remove the '--' before it\n\nUsage: prog <COMMAND>\n"},
		{[]string{"--", "help"}, "unexpected argument 'help' found\n\n  tip: subcommand 'help' exists; to use it, remove the '--' before it\n"},
		{[]string{"--", "opz"}, "error: unrecognized subcommand 'opz'\n\n  tip: a similar subcommand exists: 'ops'\n"},
		{[]string{"--", "zzz", "ops"}, "error: unrecognized subcommand 'zzz'\n\nUsage: prog <COMMAND>\n"},
		{[]string{"ops", "--count", "x"}, "error: --count expects an integer\n"},
		{[]string{"ops", "--count", "9223372036854775808"}, "--count expects an integer"},
		{[]string{"ops", "--ratio", "nan"}, "--ratio expects a number"},
		{[]string{"ops", "--ratio", "0x10"}, "--ratio expects a number"},
		{[]string{"ops", "--on", "True"}, "--on expects true or false"},
		{[]string{"ops", "--obj", "{"}, "error: --obj expects JSON: EOF while parsing an object at line 1 column 1\n"},
		// serde_json's wording, as upstream and json_parse give it
		{[]string{"ops", "--obj", "{a"}, "error: --obj expects JSON: key must be a string at line 1 column 2\n"},
		{[]string{"ops", "--obj", `{"a":1} x`}, "error: --obj expects JSON: trailing characters at line 1 column 9\n"},
		{[]string{"ops", "--obj", `{"a":1,}`}, "error: --obj expects JSON: trailing comma at line 1 column 8\n"},
		{[]string{"ops", "--tag", "1.5"}, "--tags expects an integer"},
		{[]string{"ops", "x", "nope"}, "--rest expects a number"},
		{[]string{"ops", "--harn-input", "{"}, "error: invalid --harn-input JSON: EOF while parsing an object at line 1 column 1\n"},
		{[]string{"ops", "--harn-input", `{"count":`}, "error: invalid --harn-input JSON: EOF while parsing a value at line 1 column 9\n"},
		{[]string{"ops", "--harn-input", "3"}, "error: --harn-input must resolve to a JSON object\n"},
		{[]string{"ops", "--harn-input", "@/nonexistent/args.json"}, `error: failed to read --harn-input file "/nonexistent/args.json": No such file or directory (os error 2)`},
		{[]string{"ops", "--obj", "[]"}, `error: tool "ops" input violates its declared schema: /* failed type`},
		// a value that is not UTF-8 is refused rather than mangled
		{[]string{"ops", "--name", "a\xffb"}, "error: --name expects valid UTF-8\n"},
		{[]string{"ops", "--obj", "{\"a\": \"\xff\"}"}, "error: --obj expects valid UTF-8\n"},
		{[]string{"ops", "x", "\xfe"}, "error: --rest expects valid UTF-8\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.stdout != "" || !strings.Contains(r.stderr, c.want) || !strings.HasPrefix(r.stderr, "error: ") {
			t.Errorf("%q:\n got %d stdout %q stderr %q\nwant %q", c.args, r.status, r.stdout, r.stderr, c.want)
		}
		if r.called {
			t.Errorf("%q: the handler ran", c.args)
		}
	}
}

// TestHyphenCandidates: a hyphen-leading word the argument offers (an
// enum value or an advisory completion) is taken as its value, as
// completion inserts it, unless it spells an option of the leaf.
func TestHyphenCandidates(t *testing.T) {
	defs := `[{"name": "pick", "inputSchema": {"type": "object", "properties": {
	  "level": {"type": "string", "enum": ["-1", "auto", "-h", "--json"]},
	  "speed": {"type": "string"},
	  "first": {"type": "string", "enum": ["-x", "y"]}}},
	 "cli": {"arguments": {"level": {"short": "l"}, "speed": {"completions": ["--max"]}, "first": {"position": 0}}}}]`
	p := program(t, defs, "")
	cases := []struct {
		args []string
		want string // stdout, or the stderr fragment of a failure
	}{
		{[]string{"pick", "--level", "-1"}, `{"level":"-1"}`},
		{[]string{"pick", "-l", "-1"}, `{"level":"-1"}`},
		{[]string{"pick", "--speed", "--max"}, `{"speed":"--max"}`},
		{[]string{"pick", "-x"}, `{"first":"-x"}`},
		{[]string{"pick", "--level", "-1", "-x"}, `{"first":"-x","level":"-1"}`},
		// not offered, or spelling an option: an option as before
		{[]string{"pick", "--level", "-2"}, "a value is required for '--level <LEVEL>'"},
		{[]string{"pick", "--level", "-h"}, "a value is required for '--level <LEVEL>'"},
		{[]string{"pick", "--level", "--json"}, "a value is required for '--level <LEVEL>'"},
		{[]string{"pick", "-z"}, "unexpected argument '-z' found"},
	}
	for _, c := range cases {
		r := p.try("", append([]string{"pick"}, c.args[1:]...)...)
		if strings.HasPrefix(c.want, "{") {
			if r.status != 0 || r.stdout != c.want+"\n" {
				t.Errorf("%q: %d %q %q, want %s", c.args, r.status, r.stdout, r.stderr, c.want)
			}
			continue
		}
		if r.status != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: %d %q, want %q", c.args, r.status, r.stderr, c.want)
		}
	}
}

// TestParseTips: a parse error adds a tip line, as conventional parsers
// do, naming the closest spelling of a subcommand, an option or a
// --harn-output value (lang/diag's rule), or saying how to pass an
// option-like token as a positional value. Hidden commands and options
// are never named.
func TestParseTips(t *testing.T) {
	defs := `[
	  {"name": "ops", "inputSchema": {"type": "object", "properties": {
	    "verbose": {"type": "boolean"}, "secret": {"type": "string"}, "first": {"type": "string"}}},
	   "cli": {"command": ["group", "ops"], "aliases": ["operate"], "arguments": {
	    "secret": {"hidden": true}, "first": {"position": 0}}}},
	  {"name": "quiet", "inputSchema": {"type": "object", "properties": {"secret": {"type": "string"}}},
	   "cli": {"command": ["group", "opz"], "hidden": true, "arguments": {"secret": {"position": 0, "hidden": true}}}}
	]`
	p := program(t, defs, `{"info":{"name":"prog","version":"2.0"}}`)
	usage := "\n\nUsage: prog group ops [OPTIONS] [FIRST]\n\nFor more information, try '--help'.\n"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"group", "ops", "--verbos", "true"}, "error: unexpected argument '--verbos' found\n\n  tip: a similar argument exists: '--verbose'" + usage},
		{[]string{"group", "ops", "--verbos=true"}, "error: unexpected argument '--verbos' found\n\n  tip: a similar argument exists: '--verbose'" + usage},
		{[]string{"group", "ops", "--harn-outpt", "json"}, "tip: a similar argument exists: '--harn-output'"},
		{[]string{"group", "ops", "--harn-output", "prety"}, "error: invalid value 'prety' for '--harn-output <FORMAT>'\n  [possible values: json, pretty, text]\n\n  tip: a similar value exists: 'pretty'" + usage},
		{[]string{"group", "ops", "-x"}, "error: unexpected argument '-x' found\n\n  tip: to pass '-x' as a value, use '-- -x'" + usage},
		{[]string{"group", "ops", "--frob"}, "tip: to pass '--frob' as a value, use '-- --frob'"},
		{[]string{"group", "ops", "--frob=1"}, "tip: to pass '--frob=1' as a value, use '-- --frob=1'"},
		{[]string{"group", "ops", "-xy"}, "error: unexpected argument '-x' found\n\n  tip: to pass '-xy' as a value, use '-- -xy'"},
		{[]string{"grop"}, "error: unrecognized subcommand 'grop'\n\n  tip: a similar subcommand exists: 'group'\n\nUsage: prog <COMMAND>\n"},
		{[]string{"group", "operat"}, "tip: a similar subcommand exists: 'operate'"},
		{[]string{"group", "hepl"}, "tip: a similar subcommand exists: 'help'"},
		{[]string{"help", "group", "opss"}, "tip: a similar subcommand exists: 'ops'"},
		{[]string{"--versoin"}, "tip: a similar argument exists: '--version'"},
		{[]string{"group", "--hlep"}, "tip: a similar argument exists: '--help'"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q:\n got %d %q\nwant %q", c.args, r.status, r.stderr, c.want)
		}
	}
	// no tip: nothing close and no positional left to take the token
	for _, args := range [][]string{
		{"group", "ops", "a", "--zzzzzz"},
		{"group", "ops", "a", "-x"},
		{"group", "opz", "-x"},
		{"nothing-like-it"},
	} {
		r := p.try("", args...)
		if r.status != 1 || strings.Contains(r.stderr, "tip:") {
			t.Errorf("%q: %d %q, want no tip", args, r.status, r.stderr)
		}
	}
	// a hidden spelling is never named, even when it is the closest
	for _, args := range [][]string{
		{"group", "ops", "a", "--secre", "x"},
		{"group", "opz1"},
		{"help", "group", "opz1"},
	} {
		r := p.try("", args...)
		if r.status != 1 || strings.Contains(r.stderr, "secret") || strings.Contains(r.stderr, "'opz'") {
			t.Errorf("%q: %d %q names a hidden spelling", args, r.status, r.stderr)
		}
	}
}

// TestEnumHintSuggests: an enum failure's hint names the enum value
// closest to the word given (for a repeatable option, to the first word
// outside the enum), and nothing when none is close; the word itself is
// never printed.
func TestEnumHintSuggests(t *testing.T) {
	defs := `[{"name": "paint", "inputSchema": {"type": "object", "properties": {
	  "color": {"type": "string", "enum": ["red", "green", "blue"]},
	  "tags": {"type": "array", "items": {"type": "string", "enum": ["warm", "cold"]}}}},
	 "cli": {"arguments": {"tags": {"long": "tag", "repeatable": true}}}}]`
	p := program(t, defs, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"paint", "--color", "gren"}, "hint: --color must be one of: red, green, blue (a similar value exists: 'green')\n"},
		{[]string{"paint", "--color", "purple"}, "hint: --color must be one of: red, green, blue\n"},
		{[]string{"paint", "--tag", "warm", "--tag", "cld"}, "hint: --tag must be one of: warm, cold (a similar value exists: 'cold')\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.called || !strings.HasSuffix(r.stderr, c.want) || strings.Contains(r.stderr, c.args[len(c.args)-1]) {
			t.Errorf("%q: %d %q, want the hint %q", c.args, r.status, r.stderr, c.want)
		}
	}
}

// TestEnumHintNamesEveryValue: the hint of an enum or const failure
// names every value the schema admits as it is typed — strings bare,
// other values as JSON — not only the string ones help offers.
func TestEnumHintNamesEveryValue(t *testing.T) {
	defs := `[{"name": "pick", "inputSchema": {"type": "object", "properties": {
	  "mixed": {"enum": ["auto", 1, null]},
	  "num": {"type": "integer", "enum": [1, 2]},
	  "ref": {"$ref": "#/components/schemas/Level"},
	  "nums": {"type": "array", "items": {"type": "number", "enum": [0.5, 1]}},
	  "one": {"type": "integer", "const": 3},
	  "word": {"type": "string", "const": "x"},
	  "both": {"type": "string", "enum": ["a", "b"], "const": "a"}}},
	 "cli": {"arguments": {"nums": {"long": "num-list", "repeatable": true}}}}]`
	p := program(t, defs, `{"components": {"schemas": {"Level": {"type": "integer", "enum": [7, 9]}}}}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"pick", "--mixed", "2"}, "hint: --mixed must be one of: auto, 1, null\n"},
		{[]string{"pick", "--num", "3"}, "hint: --num must be one of: 1, 2\n"},
		{[]string{"pick", "--ref", "8"}, "hint: --ref must be one of: 7, 9\n"},
		{[]string{"pick", "--num-list", "1", "--num-list", "2"}, "hint: --num-list must be one of: 0.5, 1\n"},
		{[]string{"pick", "--one", "4"}, "hint: --one must be 3\n"},
		{[]string{"pick", "--word", "y"}, "hint: --word must be x\n"},
		{[]string{"pick", "--both", "b"}, "hint: --both must be a\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.called || !strings.HasSuffix(r.stderr, c.want) {
			t.Errorf("%q: %d %q, want the hint %q", c.args, r.status, r.stderr, c.want)
		}
	}
}

// TestEnumHintNamesTheEmptyString: an admitted empty string is named as
// typed (two single quotes), not left out of the hint.
func TestEnumHintNamesTheEmptyString(t *testing.T) {
	defs := `[{"name": "pick", "inputSchema": {"type": "object", "properties": {
	  "blank": {"type": "string", "const": ""},
	  "opt": {"type": "string", "enum": ["", "auto"]}}}}]`
	p := program(t, defs, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"pick", "--blank", "y"}, "hint: --blank must be ''\n"},
		{[]string{"pick", "--opt", "y"}, "hint: --opt must be one of: '', auto\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.called || !strings.HasSuffix(r.stderr, c.want) {
			t.Errorf("%q: %d %q, want the hint %q", c.args, r.status, r.stderr, c.want)
		}
	}
}

// TestRuleHintsStateTheRule: the hint of a failed bound states it (help
// does not show it), a count of 1 with its noun in the singular.
func TestRuleHintsStateTheRule(t *testing.T) {
	defs := `[{"name": "k", "inputSchema": {"type": "object", "properties": {
	  "step": {"type": "integer", "multipleOf": 5},
	  "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1},
	  "obj": {"type": "object", "minProperties": 1, "maxProperties": 2},
	  "code": {"type": "string", "minLength": 1},
	  "few": {"type": "array", "maxItems": 1}}},
	 "cli": {"arguments": {"tags": {"long": "tag", "repeatable": true}}}}]`
	p := program(t, defs, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"k", "--step", "7"}, "hint: --step must be a multiple of 5\n"},
		{[]string{"k", "--tag", "a", "--tag", "a"}, "hint: --tag must not repeat a value\n"},
		{[]string{"k", "--harn-input", `{"tags": []}`}, "hint: --tag needs at least 1 value\n"},
		{[]string{"k", "--obj", "{}"}, "hint: --obj needs at least 1 property\n"},
		{[]string{"k", "--obj", `{"a":1,"b":2,"c":3}`}, "hint: --obj takes at most 2 properties\n"},
		{[]string{"k", "--code", ""}, "hint: --code must be at least 1 character long\n"},
		{[]string{"k", "--few", "[1,2]"}, "hint: --few takes at most 1 value\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.called || !strings.HasSuffix(r.stderr, c.want) {
			t.Errorf("%q: %d %q, want the hint %q", c.args, r.status, r.stderr, c.want)
		}
	}
}

// TestRuleHintsFollowRefs: a bound a property gets through its $ref is
// stated like one in its own schema.
func TestRuleHintsFollowRefs(t *testing.T) {
	defs := `[{"name": "size", "inputSchema": {"type": "object", "properties": {
	  "count": {"$ref": "#/components/schemas/Count"},
	  "small": {"$ref": "#/components/schemas/Count", "maximum": 5},
	  "code": {"$ref": "#/$defs/Code"}},
	  "$defs": {"Code": {"type": "string", "pattern": "^[a-z]+$"}}}}]`
	p := program(t, defs, `{"components": {"schemas": {"Count": {"type": "integer", "minimum": 0}}}}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"size", "--count", "-1"}, "hint: --count must be at least 0\n"},
		{[]string{"size", "--small", "9"}, "hint: --small must be at most 5\n"},
		{[]string{"size", "--small", "-1"}, "hint: --small must be at least 0\n"},
		{[]string{"size", "--code", "A1"}, "hint: --code must match the pattern ^[a-z]+$\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.called || !strings.HasSuffix(r.stderr, c.want) {
			t.Errorf("%q: %d %q, want the hint %q", c.args, r.status, r.stderr, c.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	p := program(t, opsDefs, `{"info":{"name":"prog","version":"2.0","description":"About prog"}}`)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := p.try("", args...)
		if r.status != 0 || !strings.HasPrefix(r.stdout, "About prog\n\nUsage: prog <COMMAND>\n") || r.stderr != "" {
			t.Errorf("%q: %d %q %q", args, r.status, r.stdout, r.stderr)
		}
	}
	leaf := p.try("", "ops", "--help").stdout
	for _, args := range [][]string{{"ops", "-h"}, {"help", "ops"}, {"ops", "--count", "x", "--help"}, {"ops", "-eh"}, {"ops", "a", "-h", "--bogus"}} {
		if r := p.try("", args...); r.status != 0 || r.stdout != leaf || r.called {
			t.Errorf("%q: %d %q", args, r.status, r.stdout)
		}
	}
	for _, want := range []string{"Usage: prog ops [OPTIONS] [FIRST] [REST]...", "  [FIRST]", "  [REST]...", "-n, --name <NAME>", "[aliases: --title]", "-e, --enable\n", "-k, --no-keep", "-t, --tag <TAGS>", "--harn-input <JSON|@FILE|->", "--json", "-h, --help"} {
		if !strings.Contains(leaf, want) {
			t.Errorf("leaf help lacks %q:\n%s", want, leaf)
		}
	}
	if strings.Contains(leaf, "--version") {
		t.Errorf("leaf help offers --version:\n%s", leaf)
	}
	for _, args := range [][]string{{"--version"}, {"-V"}} {
		if r := p.try("", args...); r.status != 0 || r.stdout != "prog 2.0\n" {
			t.Errorf("%q: %d %q", args, r.status, r.stdout)
		}
	}
	if r := p.try("", "help", "help"); r.status != 0 || !strings.Contains(r.stdout, "Usage: prog help [COMMAND]...") {
		t.Errorf("help help: %d %q", r.status, r.stdout)
	}
	// help at a nested parent is that parent's help subcommand
	g := program(t, `[{"name": "a.b", "inputSchema": {"type": "object"}}]`, `{"info":{"name":"prog"}}`)
	for _, args := range [][]string{{"help", "a", "help"}, {"a", "help", "help"}} {
		if r := g.try("", args...); r.status != 0 || !strings.Contains(r.stdout, "Usage: prog a help [COMMAND]...") {
			t.Errorf("%q: %d %q %q", args, r.status, r.stdout, r.stderr)
		}
	}
	if r := g.try("", "help", "a", "help", "b"); r.status != 1 || !strings.Contains(r.stderr, "unrecognized subcommand 'b'\n\nUsage: prog a <COMMAND>") {
		t.Errorf("help a help b: %d %q", r.status, r.stderr)
	}
	if r := p.try(""); r.status != 1 || r.stdout != "" || !strings.Contains(r.stderr, "Usage: prog <COMMAND>") {
		t.Errorf("no subcommand: %d %q %q", r.status, r.stdout, r.stderr)
	}
	// nothing after a "--" is no subcommand either
	if r, want := p.try("", "--"), p.try(""); r != want {
		t.Errorf("--: %+v, want %+v", r, want)
	}
}

func TestHelpOrderingAndVisibility(t *testing.T) {
	defs := `[
	  {"name": "b", "cli": {"command": ["grp", "b"]}, "title": "Bee", "description": "Bee does b.\nSecond line."},
	  {"name": "a", "cli": {"command": ["grp", "a"], "aliases": ["aa", "ab"]}, "description": "Ay"},
	  {"name": "z", "cli": {"command": ["z"]}},
	  {"name": "h", "cli": {"command": ["grp", "h"], "hidden": true}},
	  {"name": "y", "cli": {"command": ["y"]}},
	  {"name": "opts",
	   "inputSchema": {"type": "object", "properties": {
	     "zeta": {"type": "string", "description": "Last by name"},
	     "alpha": {"type": "string", "enum": ["x", "y"]},
	     "beta": {"type": "string", "enum": ["p", "q"]},
	     "gamma": {"type": "integer", "default": 5},
	     "hid": {"type": "string"},
	     "first": {"type": "string"},
	     "g1": {"type": "string"},
	     "g2": {"type": "string"}
	   }},
	   "cli": {"command": ["y2"], "arguments": {
	     "zeta": {"display_order": 0},
	     "beta": {"completions": ["q"]},
	     "hid": {"hidden": true},
	     "first": {"display_order": 1},
	     "g2": {"help_group": "Second"},
	     "g1": {"help_group": "First"}
	   }}}
	]`
	opts := `{"info": {"name": "p"}, "cli": {"commands": [{"command": ["grp"], "title": "Group", "display_order": 0, "aliases": ["g"]}, {"command": ["x"], "hidden": true}]}}`
	defs = strings.Replace(defs, `{"name": "y", "cli": {"command": ["y"]}},`, `{"name": "y", "cli": {"command": ["y"]}}, {"name": "xx", "cli": {"command": ["x", "xx"]}},`, 1)
	p := program(t, defs, opts)
	root := p.try("", "--help").stdout
	order := []string{"  grp ", "Group [alias: g]", "  y\n", "  y2\n", "  z\n", "  help "}
	last := -1
	for _, s := range order {
		i := strings.Index(root, s)
		if i < 0 || i < last {
			t.Fatalf("root help order (%q):\n%s", s, root)
		}
		last = i
	}
	if strings.Contains(root, "  x ") {
		t.Errorf("hidden parent listed:\n%s", root)
	}
	grp := p.try("", "g", "--help").stdout
	if !strings.Contains(grp, "a     Ay [aliases: aa, ab]") || !strings.Contains(grp, "b     Bee\n") || strings.Contains(grp, " h ") {
		t.Errorf("group help:\n%s", grp)
	}
	if r := p.try("", "grp", "b", "--help"); !strings.HasPrefix(r.stdout, "Bee\n\nBee does b.\nSecond line.\n\nUsage: p grp b [OPTIONS]\n") {
		t.Errorf("leaf about:\n%s", r.stdout)
	}
	leaf := p.try("", "y2", "--help").stdout
	order = []string{"--zeta", "Last by name", "--first", "--alpha <ALPHA>", "[possible values: x, y]", "--beta", "--gamma <GAMMA>", "[default: 5]", "--harn-input", "First:", "--g1", "Second:", "--g2"}
	last = -1
	for _, s := range order {
		i := strings.Index(leaf, s)
		if i < 0 || i < last {
			t.Fatalf("leaf help order (%q):\n%s", s, leaf)
		}
		last = i
	}
	if strings.Contains(leaf, "hid") || strings.Contains(leaf, "possible values: p") {
		t.Errorf("hidden argument or advisory candidates in help:\n%s", leaf)
	}
	if r := p.try("", "grp", "h"); r.status != 0 {
		t.Errorf("hidden command not invocable: %+v", r)
	}
	if r := p.try("", "y2", "--hid", "v"); r.status != 0 || r.stdout != `{"hid":"v"}`+"\n" {
		t.Errorf("hidden argument not accepted: %+v", r)
	}
}

func TestProgramName(t *testing.T) {
	for _, c := range []struct {
		info       *tool.Info
		path, want string
	}{
		{&tool.Info{Name: "n"}, "/a/b.harn", "n"},
		{nil, "/a/b.harn", "b"},
		{&tool.Info{}, "dir/tools", "tools"},
		{nil, "", "harn-tool"},
	} {
		if got := programName(c.info, c.path); got != c.want {
			t.Errorf("%+v %s: name %q, want %q", c.info, c.path, got, c.want)
		}
	}
	if p := program(t, `[{"name":"t"}]`, ""); p.Name != "server" {
		t.Errorf("file stem: %q", p.Name)
	}
}

func TestInputFromStdin(t *testing.T) {
	p := program(t, opsDefs, "")
	if r := p.try(`{"count": 1, "name": "s"}`, "ops", "--harn-input", "-", "-c", "7"); r.status != 0 || r.stdout != `{"count":7,"name":"s"}`+"\n" {
		t.Errorf("stdin: %+v", r)
	}
	if r := p.try("", "ops", "--harn-input", "-"); r.status != 1 || !strings.Contains(r.stderr, "invalid --harn-input JSON") {
		t.Errorf("empty stdin: %+v", r)
	}
}

func TestOutputModes(t *testing.T) {
	p := program(t, `[{"name":"s","inputSchema":{"type":"object","properties":{"v":{}}}}]`, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--v", `"x"`, "--harn-output", "json"}, "{\"v\":\"x\"}\n"},
		{[]string{"--v", `[1,{}]`, "--harn-output", "pretty"}, "{\n  \"v\": [\n    1,\n    {}\n  ]\n}\n"},
		{[]string{"--v", `[]`, "--harn-output", "text"}, "{\n  \"v\": []\n}\n"},
		{[]string{"--v", `1`, "--json"}, "{\"v\":1}\n"},
	}
	for _, c := range cases {
		if r := p.try("", append([]string{"s"}, c.args...)...); r.status != 0 || r.stdout != c.want {
			t.Errorf("%q: %d %q, want %q", c.args, r.status, r.stdout, c.want)
		}
	}
	// text output of a string result is raw
	enc := encode("plain", "text")
	if string(enc) != "plain\n" {
		t.Errorf("text string: %q", enc)
	}
}

func TestFailureRendering(t *testing.T) {
	p := program(t, `[{"name":"t"}]`, "")
	data := jsonv.NewObject(1)
	data.Set("secret", "hunter2")
	cases := []struct {
		o              *tool.Outcome
		mode           string
		stdout, stderr string
		status         int
	}{
		{&tool.Outcome{Kind: tool.ApplicationError, Tool: "t", Data: data, Summary: tool.SummaryApplicationError}, "json",
			`{"ok":false,"error":{"kind":"application","tool":"t","data":{"secret":"hunter2"}}}` + "\n",
			"error: tool \"t\" returned application error: declared application error\n", 1},
		{&tool.Outcome{Kind: tool.ApplicationError, Tool: "t", Data: data, Summary: tool.SummaryApplicationError}, "text",
			"", "error: tool \"t\" returned application error: declared application error\n", 1},
		{&tool.Outcome{Kind: tool.RuntimeFailure, Tool: "t", Summary: tool.SummaryUndeclaredThrow}, "pretty",
			"", "error: tool \"t\" failed: tool threw an undeclared value\n", 1},
		{&tool.Outcome{Kind: tool.RuntimeFailure, Tool: "t", Summary: "exit(4)", Err: vm.ExitError(260)}, "json", "", "", 4},
		{&tool.Outcome{Kind: tool.ContractViolation, Tool: "t", Summary: `tool "t" output violates its declared schema: / failed type`}, "json",
			"", "error: tool \"t\" failed: tool \"t\" output violates its declared schema: / failed type\n", 1},
	}
	_ = p
	for i, c := range cases {
		var out, errb bytes.Buffer
		status := render(c.o, c.mode, Stdio{Stdout: &out, Stderr: &errb})
		if status != c.status || out.String() != c.stdout || errb.String() != c.stderr {
			t.Errorf("case %d: %d %q %q", i, status, out.String(), errb.String())
		}
		if strings.Contains(errb.String(), "hunter2") {
			t.Errorf("case %d leaked error data on stderr", i)
		}
	}
}

func TestJSONFlagRules(t *testing.T) {
	p := program(t, `[
	  {"name":"plain"},
	  {"name":"prop","inputSchema":{"type":"object","properties":{"json":{"type":"string"}}}},
	  {"name":"renamed","inputSchema":{"type":"object","properties":{"json":{"type":"string"}}},"cli":{"arguments":{"json":{"long":"raw"}}}},
	  {"name":"owner","inputSchema":{"type":"object","properties":{"format":{"type":"string"}}},"cli":{"arguments":{"format":{"long":"json"}}}},
	  {"name":"alias","inputSchema":{"type":"object","properties":{"format":{"type":"string"}}},"cli":{"arguments":{"format":{"aliases":["json"]}}}}
	]`, "")
	cases := []struct {
		args   []string
		status int
		out    string
	}{
		{[]string{"plain", "--json"}, 0, "{}\n"},
		{[]string{"prop", "--json", "raw"}, 0, `{"json":"raw"}` + "\n"},
		{[]string{"prop", "--json", "raw", "--harn-output", "pretty"}, 0, "{\n  \"json\": \"raw\"\n}\n"},
		{[]string{"renamed", "--raw", "x"}, 0, `{"json":"x"}` + "\n"},
		{[]string{"renamed", "--json"}, 1, ""},
		{[]string{"owner", "--json", "yaml"}, 0, `{"format":"yaml"}` + "\n"},
		{[]string{"alias", "--json", "yaml"}, 0, `{"format":"yaml"}` + "\n"},
	}
	for _, c := range cases {
		if r := p.try("", c.args...); r.status != c.status || r.stdout != c.out {
			t.Errorf("%q: %d %q %q", c.args, r.status, r.stdout, r.stderr)
		}
	}
	for _, leaf := range []string{"prop", "renamed", "owner"} {
		if h := p.try("", leaf, "--help").stdout; strings.Contains(h, "alias for --harn-output json") {
			t.Errorf("%s help offers the framework --json:\n%s", leaf, h)
		}
	}
}

func TestIsNegativeNumber(t *testing.T) {
	for s, want := range map[string]bool{"-1": true, "-0.5": true, "-.5": true, "-1e3": true, "-": false, "--": false, "-x": false, "-1x": false, "-inf": false, "-0x1": false, "1": false} {
		if got := isNegativeNumber(s); got != want {
			t.Errorf("isNegativeNumber(%q) = %v", s, got)
		}
	}
}

func TestCompletionModel(t *testing.T) {
	p := program(t, `[{"name":"t",
	  "inputSchema":{"type":"object","properties":{
	    "secret":{"type":"string"},
	    "mode":{"type":"string","enum":["b","a"]},
	    "on":{"type":"boolean"},
	    "flag":{"type":"boolean"}
	  }},
	  "cli":{"arguments":{
	    "secret":{"position":0,"hidden":true},
	    "mode":{"position":1,"completions":["c","a"]},
	    "flag":{"boolean_style":"set_true"}
	  }}}]`, `{"info":{"name":"p","version":"1"}}`)
	m := p.completionModel()
	leaf := m.nodes[1]
	if len(leaf.pos) != 1 || leaf.pos[0].index != 1 || strings.Join(leaf.pos[0].candidates, " ") != "c a b" {
		t.Fatalf("positionals: %+v", leaf.pos)
	}
	var on, flag *compOpt
	for i := range leaf.opts {
		switch leaf.opts[i].longs[0] {
		case "on":
			on = &leaf.opts[i]
		case "flag":
			flag = &leaf.opts[i]
		}
	}
	if on == nil || strings.Join(on.candidates, " ") != "true false" || flag == nil || flag.value != "" {
		t.Fatalf("boolean options: %+v %+v", on, flag)
	}
	if !strings.Contains(p.Completions(Bash), "(( npos == 1 )); then _p_reply \"$pre\" \"$cur\" c a b") {
		t.Errorf("bash positional index:\n%s", p.Completions(Bash))
	}
	if !strings.Contains(p.Completions(Zsh), "'2:MODE:{_p_values c a b}'") {
		t.Errorf("zsh positional index:\n%s", p.Completions(Zsh))
	}
	root := m.nodes[0]
	if len(root.opts) != 2 || root.opts[1].longs[0] != "version" {
		t.Errorf("root options: %+v", root.opts)
	}
	for _, sh := range Shells {
		if s := p.Completions(sh); strings.Contains(s, "SECRET") || strings.Contains(s, "secret") {
			t.Errorf("%s script mentions the hidden positional", sh)
		}
	}
	if sh, ok := ParseShell("power-shell"); !ok || sh != PowerShell {
		t.Error("power-shell spelling")
	}
	if _, ok := ParseShell("tcsh"); ok {
		t.Error("tcsh accepted")
	}
}

const wordsDefs = `[{
  "name": "words",
  "inputSchema": {"type": "object", "properties": {
    "inn": {"type": ["integer", "null"]},
    "bn": {"type": ["boolean", "null"]},
    "nn": {"type": ["null", "number"]},
    "an": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "on": {"oneOf": [{"type": "null"}, {"type": "boolean"}]},
    "sn": {"type": ["string", "null"]},
    "asn": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "ns": {"type": "array", "items": {"type": ["integer", "null"]}},
    "mixed": {"enum": ["x", 1, "a b"]},
    "union": {"type": ["string", "integer"], "enum": ["up", 2]},
    "hinted": {},
    "picks": {"type": "array", "items": {"enum": ["red", 2]}}
  }},
  "cli": {"arguments": {
    "ns": {"long": "n", "repeatable": true},
    "hinted": {"completions": ["foo", "{}"]},
    "picks": {"long": "pick", "repeatable": true}
  }}
}]`

// TestNullAndEnumWords pins the two bare-word rules of docs/tool-run.md:
// null for a nullable integer, number or boolean (a nullable string
// keeps the word verbatim), and an offered candidate that is not JSON
// for a property parsed as JSON.
func TestNullAndEnumWords(t *testing.T) {
	p := program(t, wordsDefs, "")
	cases := []struct {
		args []string
		want string // "" for a failure with this stderr
		err  string
	}{
		{[]string{"--inn", "null"}, `{"inn":null}`, ""},
		{[]string{"--inn", "7"}, `{"inn":7}`, ""},
		{[]string{"--inn", "-7"}, `{"inn":-7}`, ""},
		{[]string{"--inn", "nil"}, "", "--inn expects an integer"},
		{[]string{"--inn", "Null"}, "", "--inn expects an integer"},
		{[]string{"--bn", "null"}, `{"bn":null}`, ""},
		{[]string{"--bn", "false"}, `{"bn":false}`, ""},
		{[]string{"--nn", "null"}, `{"nn":null}`, ""},
		{[]string{"--nn", "2.5"}, `{"nn":2.5}`, ""},
		{[]string{"--an", "null"}, `{"an":null}`, ""},
		{[]string{"--an", "3"}, `{"an":3}`, ""},
		{[]string{"--on", "null"}, `{"on":null}`, ""},
		{[]string{"--on", "true"}, `{"on":true}`, ""},
		{[]string{"--sn", "null"}, `{"sn":"null"}`, ""},
		{[]string{"--asn", "null"}, `{"asn":"null"}`, ""},
		{[]string{"--n", "1", "--n", "null"}, `{"ns":[1,null]}`, ""},
		{[]string{"--mixed", "x"}, `{"mixed":"x"}`, ""},
		{[]string{"--mixed", "a b"}, `{"mixed":"a b"}`, ""},
		{[]string{"--mixed", "1"}, `{"mixed":1}`, ""},
		{[]string{"--mixed", `"x"`}, `{"mixed":"x"}`, ""},
		{[]string{"--mixed", "y"}, "", "--mixed expects JSON: expected value at line 1 column 1"},
		{[]string{"--union", "up"}, `{"union":"up"}`, ""},
		{[]string{"--union", "2"}, `{"union":2}`, ""},
		{[]string{"--hinted", "foo"}, `{"hinted":"foo"}`, ""},
		{[]string{"--hinted", "{}"}, `{"hinted":{}}`, ""},
		{[]string{"--pick", "red", "--pick", "2"}, `{"picks":["red",2]}`, ""},
	}
	for _, c := range cases {
		r := p.try("", append([]string{"words"}, c.args...)...)
		if c.want == "" {
			if r.status != 1 || r.called || !strings.Contains(r.stderr, c.err) {
				t.Errorf("%q: want a failure %q, got %d %q %q", c.args, c.err, r.status, r.stdout, r.stderr)
			}
			continue
		}
		if r.status != 0 || r.stdout != c.want+"\n" {
			t.Errorf("%q:\n got %d %q %q\nwant %s", c.args, r.status, r.stdout, r.stderr, c.want)
		}
	}
	help := p.try("", "words", "--help").stdout
	for _, want := range []string{
		"--inn <INN>  [type: integer or null]", "--bn <BN>  [type: boolean or null]", "--nn <NN>  [type: number or null]",
		"--an <AN>  [type: integer or null]", "--on <ON>  [type: boolean or null]",
		"--sn <SN>  [type: string]", "--asn <ASN>  [type: string]", "--n <NS>  [type: integer or null, repeatable]",
		"--mixed <MIXED>  [type: JSON] [possible values: x, a b]",
	} {
		if !strings.Contains(squeeze(help), want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// squeeze collapses runs of spaces to two, so help lines compare
// without their column padding.
func squeeze(s string) string {
	for strings.Contains(s, "   ") {
		s = strings.ReplaceAll(s, "   ", "  ")
	}
	return s
}

// TestCompletionOffersNoOptionSpelling: completion and the parser share
// one rule for hyphen-leading words (spellsOption): a candidate spelled
// like an option of the leaf, a hidden one included, is read by the
// parser as that option, so completion offers it as a value nowhere.
func TestCompletionOffersNoOptionSpelling(t *testing.T) {
	p := program(t, `[{"name":"pick",
	  "inputSchema":{"type":"object","properties":{
	    "first":{"type":"string","enum":["-x","-y","--deep","--deep=1","z","ex"]},
	    "level":{"type":"string","enum":["-x","-w","b"]},
	    "extra":{"type":"string"},
	    "deep":{"type":"string"}
	  }},
	  "cli":{"arguments":{
	    "first":{"position":0},
	    "extra":{"short":"x","hidden":true},
	    "deep":{"hidden":true}
	  }}}]`, `{"info":{"name":"p","version":"1"}}`)
	leaf := p.completionModel().nodes[1]
	if len(leaf.pos) != 1 || strings.Join(leaf.pos[0].candidates, " ") != "-y z ex" {
		t.Errorf("positional candidates: %+v", leaf.pos)
	}
	for _, o := range leaf.opts {
		if o.longs[0] == "level" && strings.Join(o.candidates, " ") != "-w b" {
			t.Errorf("--level candidates: %q", o.candidates)
		}
	}
	if !strings.Contains(p.Completions(Bash), "_p_reply \"$pre\" \"$cur\" -y") {
		t.Errorf("bash offers no -y with the options:\n%s", p.Completions(Bash))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pick", "-y"}, `{"first":"-y"}`},
		{[]string{"pick", "-x", "v"}, `{"extra":"v"}`},
		{[]string{"pick", "--deep", "v"}, `{"deep":"v"}`},
		{[]string{"pick", "--level", "-w"}, `{"level":"-w"}`},
	} {
		if r := p.try("", c.args...); r.status != 0 || r.stdout != c.want+"\n" {
			t.Errorf("%q: %d %q %q, want %s", c.args, r.status, r.stdout, r.stderr, c.want)
		}
	}
	for _, w := range []string{"-x", "--deep", "--deep=1"} {
		if !spellsOption(p.Root.Children[0], w) {
			t.Errorf("spellsOption(%q) = false", w)
		}
	}
}

// TestBuiltinOptionsOneTable: the parser, the help and the completion
// model of a command all take its built-in options from builtinOptions,
// with the same spellings, value names and help texts.
func TestBuiltinOptionsOneTable(t *testing.T) {
	p := program(t, `[{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}]`, `{"info":{"name":"p","version":"1"}}`)
	m := p.completionModel()
	for _, c := range []struct {
		cmd  *tool.CLICommand
		node *compNode
		want []string
	}{
		{p.Root, m.nodes[0], []string{"help", "version"}},
		{p.Root.Children[0], m.nodes[1], []string{"harn-input", "harn-output", "json", "help"}},
	} {
		var longs []string
		for _, b := range p.builtins(c.cmd) {
			longs = append(longs, b.long)
			row := optionSpec(b.shortName(), b.long, b.value, b.value == "")
			if !strings.Contains(p.Help(c.cmd), row+"  ") || !strings.Contains(p.Help(c.cmd), b.help) {
				t.Errorf("help of %v lacks %q %q:\n%s", c.cmd.Path, row, b.help, p.Help(c.cmd))
			}
			if c.cmd.Leaf() {
				if o, ok := lookupLong(c.cmd, b.long); !ok || o.builtin != b || o.display() != b.display() {
					t.Errorf("parser does not read --%s as the built-in option", b.long)
				}
			}
			if !slices.ContainsFunc(c.node.opts, func(o compOpt) bool {
				return o.key() == "--"+b.long && o.short == b.shortName() && o.value == b.value && o.help == b.help
			}) {
				t.Errorf("completion of %v lacks --%s", c.cmd.Path, b.long)
			}
		}
		if !slices.Equal(longs, c.want) {
			t.Errorf("built-in options of %v: %q, want %q", c.cmd.Path, longs, c.want)
		}
	}
}

// TestBuiltinOptionsReserved: registry preparation (package tool)
// reserves the spellings of every built-in option but --json, which a
// tool argument may claim (docs/spec/cli-projection.md §3), so no tool
// argument can shadow one.
func TestBuiltinOptionsReserved(t *testing.T) {
	for _, b := range builtinOptions {
		spellings := map[string]string{"long": b.long}
		if b.short != 0 {
			spellings["short"] = b.shortName()
		}
		for key, sp := range spellings {
			defs := fmt.Sprintf(`[{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string"}}},"cli":{"arguments":{"p":{%q:%q}}}}]`, key, sp)
			_, err := build(t, defs, "")
			dashes := "--"
			if key == "short" {
				dashes = "-"
			}
			switch {
			case b.long == flagJSON:
				if err != nil {
					t.Errorf("--json claimed by a tool argument: %v", err)
				}
			case err == nil || !strings.Contains(err.Error(), "collides with reserved "+dashes+sp):
				t.Errorf("%s %q claimed by a tool argument: %v", key, sp, err)
			}
		}
	}
}

// A positional argument with a help group is listed under that group's
// heading (in first-use order, positionals first), not under Arguments;
// a group named Arguments or Options is that section.
func TestHelpGroupOfPositional(t *testing.T) {
	p := program(t, `[{"name": "g", "inputSchema": {"type": "object", "properties": {
	  "src": {"type": "string", "description": "Source"},
	  "dst": {"type": "string"},
	  "mode": {"type": "string"},
	  "keep": {"type": "string"}
	}}, "cli": {"arguments": {
	  "src": {"position": 0, "help_group": "Paths"},
	  "dst": {"position": 1, "help_group": "Arguments"},
	  "mode": {"help_group": "Paths"},
	  "keep": {"help_group": "Options"}
	}}}]`, `{"info":{"name":"prog"}}`)
	got := p.try("", "g", "--help").stdout
	want := "Usage: prog g [OPTIONS] [SRC] [DST]\n\n" +
		"Arguments:\n  [DST]  [type: string]\n\n" +
		"Options:\n      --keep <KEEP>                [type: string]\n"
	if !strings.Contains(got, want) {
		t.Errorf("help:\n%s\nwant it to hold:\n%s", got, want)
	}
	if want := "\n\nPaths:\n  [SRC]              Source [type: string]\n      --mode <MODE>  [type: string]\n"; !strings.HasSuffix(got, want) {
		t.Errorf("help:\n%s\nwant it to end with:\n%s", got, want)
	}
}

// TestEnumHintOfOptionalStringLeavesOutNull: an optional string takes
// every word verbatim (docs/tool-run.md), so its hint names only the
// string values; `null` there would be the string "null" and fail the
// same way. An optional integer still lists null, the word null giving
// JSON null (docs/spec/cli-projection.md §4).
func TestEnumHintOfOptionalStringLeavesOutNull(t *testing.T) {
	defs := `[{"name": "pick", "inputSchema": {"type": "object", "properties": {
	  "season": {"type": ["string", "null"], "enum": ["winter", "summer", null]},
	  "level": {"type": ["integer", "null"], "enum": [1, 2, null]}}}}]`
	p := program(t, defs, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"pick", "--season", "null"}, "hint: --season must be one of: winter, summer\n"},
		{[]string{"pick", "--level", "3"}, "hint: --level must be one of: 1, 2, null\n"},
	}
	for _, c := range cases {
		r := p.try("", c.args...)
		if r.status != 1 || r.called || !strings.HasSuffix(r.stderr, c.want) {
			t.Errorf("%q: %d %q, want the hint %q", c.args, r.status, r.stderr, c.want)
		}
	}
	if r := p.try("", "pick", "--season", "summer"); r.status != 0 || !r.called {
		t.Errorf("--season summer: %d %q", r.status, r.stderr)
	}
}
