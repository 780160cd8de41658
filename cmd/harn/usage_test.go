package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownWordsSuggest: every command words an unknown command,
// subcommand or option the same way, with the closest known spelling when
// one is close (docs/cli.md), and exits 2 with nothing on stdout.
func TestUnknownWordsSuggest(t *testing.T) {
	cases := []struct {
		args []string
		want string // the first line of stderr
	}{
		{[]string{"rnu", "x.harn"}, `error: unknown command "rnu" (did you mean "run"?)`},
		{[]string{"chekc"}, `error: unknown command "chekc" (did you mean "check"?)`},
		{[]string{"lnt"}, `error: unknown command "lnt" (did you mean "lint"?)`},
		{[]string{"zzzz"}, `error: unknown command "zzzz"`},
		{[]string{"--vresion"}, `error: unknown option --vresion (did you mean "--version"?)`},
		{[]string{"-x"}, `error: unknown option -x`},
		{[]string{"help", "rnu"}, `error: no help for unknown command "rnu" (did you mean "run"?)`},
		{[]string{"help", "tool", "schem"}, `error: no help for unknown command "tool schem" (did you mean "tool schema"?)`},
		{[]string{"tool", "schem", "x.harn"}, `error: unknown tool subcommand "schem" (did you mean "schema"?)`},
		{[]string{"fmt", "--chek", "."}, `error: unknown option --chek (did you mean "--check"?)`},
		{[]string{"check", "--strict", "x.harn"}, `error: unknown option --strict (did you mean "--strict-types"?)`},
		{[]string{"check", "--chek"}, `error: unknown option --chek`}, // not --help: the dashes do not count
		{[]string{"run", "--max-memroy", "1G", "x.harn"}, `error: unknown option --max-memroy (did you mean "--max-memory"?)`},
		{[]string{"run", "-E", "1"}, `error: unknown option -E (did you mean "-e"?)`},
		{[]string{"test", "--filtr", "x"}, `error: unknown option --filtr (did you mean "--filter"?)`},
		{[]string{"test", "--jun", "x.xml"}, `error: unknown option --jun (did you mean "--junit"?)`},
		{[]string{"lint", "--fxi"}, `error: unknown option --fxi (did you mean "--fix"?)`},
		{[]string{"init", "--nmae", "x"}, `error: unknown option --nmae (did you mean "--name"?)`},
		{[]string{"init", "a", "b"}, `error: unexpected argument b`},
		{[]string{"lsp", "--stdi"}, `error: unknown option --stdi (did you mean "--stdio"?)`},
		{[]string{"tool", "schema", "x.harn", "--prety"}, `error: unknown option --prety (did you mean "--pretty"?)`},
		{[]string{"tool", "schema", "x.harn", "--surfce=exports"}, `error: unknown option --surfce=exports (did you mean "--surface"?)`},
		{[]string{"tool", "completions", "x.harn", "--shel", "bash"}, `error: unknown option --shel (did you mean "--shell"?)`},
		{[]string{"tool", "run", "--surfac", "x.harn"}, `error: unknown option --surfac (did you mean "--surface"?)`},
		{[]string{"tool", "diff", "a.json", "b.json", "--jsn"}, `error: unknown option --jsn (did you mean "--json"?)`},
		{[]string{"version", "--hepl"}, `error: unknown option --hepl (did you mean "--help"?)`},
		{[]string{"doc", "--hlp"}, `error: unknown option --hlp (did you mean "--help"?)`},
		{[]string{"serve", "mpc", "x.harn"}, `error: unknown serve subcommand "mpc" (did you mean "mcp"?)`},
		{[]string{"serve", "--bogus"}, `error: unknown option --bogus`},
		{[]string{"serve", "mcp", "--surfce", "exports", "x.harn"}, `error: unknown option --surfce (did you mean "--surface"?)`},
		{[]string{"mcp", "serv"}, `error: unknown mcp subcommand "serv" (did you mean "serve"?)`},
		{[]string{"mcp", "serve", "--confg", "harn.toml"}, `error: unknown option --confg (did you mean "--config"?)`},
		{[]string{"orchestrator", "fire", "--stat-dir", "d"}, `error: unknown option --stat-dir (did you mean "--state-dir"?)`},
		{[]string{"lint", "--explain", "unused-varible"}, `error: unknown rule "unused-varible" (did you mean "unused-variable"?)`},
		{[]string{"lint", "--disable", "prefer-lett", "."}, `error: unknown rule "prefer-lett" (did you mean "prefer-let"?)`},
	}
	for _, c := range cases {
		out, errOut, code := runHarn(c.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || out != "" || first != c.want {
			t.Errorf("harn %s: exit %d, stdout %q\nfirst stderr line: %s\nwant:              %s",
				strings.Join(c.args, " "), code, out, first, c.want)
		}
	}
	// An unknown command points at the list instead of printing it.
	if _, errOut, _ := runHarn("rnu"); errOut != "error: unknown command \"rnu\" (did you mean \"run\"?)\n\nRun 'harn help' for the list of commands.\n" {
		t.Errorf("unknown command: %q", errOut)
	}
}

// TestDocNotFoundSuggests: harn doc (and the REPL's :help) name the
// closest documented name for one that does not exist, exit 1.
func TestDocNotFoundSuggests(t *testing.T) {
	for name, want := range map[string]string{
		"splt":        `error: no builtin named "splt" (did you mean "split"?)`,
		"json_pars":   `error: no builtin named "json_pars" (did you mean "json_parse"?)`,
		"string.splt": `error: no builtin named "string.splt" (did you mean "string.split"?)`,
		"std/mth":     `error: no builtin named "std/mth" (did you mean "std/math"?)`,
		"qqqqqqqq":    `error: no builtin named "qqqqqqqq" (see docs/builtins.md)`,
	} {
		out, errOut, code := runHarn("doc", name)
		if code != 1 || out != "" || errOut != want+"\n" {
			t.Errorf("harn doc %s: exit %d: %q, want %q", name, code, errOut, want)
		}
	}
}

// TestLintStdin: `harn lint -` lints standard input as <stdin>; with
// --fix it writes the fixed text to stdout (docs/lint.md).
func TestLintStdin(t *testing.T) {
	lintIn := func(in string, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"lint"}, args...), strings.NewReader(in), &out, &errb)
		return out.String(), errb.String(), code
	}
	out, errOut, code := lintIn("var x = 1\nprintln(2)\n", "-")
	if code != 1 || out != "" || !strings.Contains(errOut, "--> <stdin>:1:5") || !strings.HasSuffix(errOut, "2 findings (2 fixable with harn lint --fix)\n") {
		t.Errorf("lint -: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	out, errOut, code = lintIn("var x = 1\nprintln(x)\n", "--fix", "-")
	if code != 0 || out != "let x = 1\nprintln(x)\n" || errOut != "<stdin>: fixed 1 finding\n" {
		t.Errorf("lint --fix -: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	out, errOut, code = lintIn("let y = 1\nprintln(y)\n", "-")
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("clean lint -: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	// A source with errors is not linted; --fix writes it back unchanged.
	out, errOut, code = lintIn("let = 1\n", "--fix", "-")
	if code != 1 || out != "let = 1\n" || !strings.Contains(errOut, "<stdin>:1:5") {
		t.Errorf("lint --fix - with errors: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	// Relative imports resolve from the working directory.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.harn"), []byte("pub fn two() { return 2 }\n"), 0o644)
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	out, errOut, code = lintIn("import { two } from \"./m\"\nprintln(two())\n", "-")
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("lint - with an import: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
}
