package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/tool"
)

// The completion scripts are checked in the real shells: each script is
// loaded into bash, zsh and fish, and the candidates each shell offers
// at a cursor position are compared with what the program accepts
// there. The shells are installed by `make test-deps`; a test skips
// only when its shell is genuinely unavailable.

// kitchenScript is the registry shared with the golden tests of
// `harn tool run` (cmd/harn/testdata/tool_run).
const kitchenScript = "../../cmd/harn/testdata/tool_run/fixtures/kitchen.harn"

// completionCase is the command line before the cursor and what the
// shells must offer there. Candidates are compared after dropping a
// trailing "/" of directories and an "--option=" prefix.
type completionCase struct {
	line string
	// exact is the complete set of candidates (nil: not checked);
	// ordered also checks their order.
	exact   []string
	ordered bool
	// some must be offered; none must not be.
	some, none []string
	// attached is the option part of a word whose value is attached
	// (-t of -tgr): bash and fish offer the candidates after it, zsh
	// without it; it is dropped before comparing.
	attached string
}

var kitchenCases = []completionCase{
	{line: "kitchen ", exact: []string{"things", "t", "th", "configure", "files", "format", "raw", "renamed", "shift", "help"}, none: []string{"internal", "hidden-cmd"}},
	{line: "kitchen th", exact: []string{"things", "th"}},
	{line: "kitchen things ", exact: []string{"badout", "closure", "explode", "greet", "lookup", "quit", "help"}},
	{line: "kitchen t lo", exact: []string{"lookup"}},
	{line: "kitchen help ", exact: []string{"things", "configure", "files", "format", "raw", "renamed", "shift"}},
	{line: "kitchen help things ", exact: []string{"badout", "closure", "explode", "greet", "lookup", "quit"}},
	// help takes a command's aliases as the parser does, and offers names
	{line: "kitchen help t ", exact: []string{"badout", "closure", "explode", "greet", "lookup", "quit"}},
	{line: "kitchen help th lo", exact: []string{"lookup"}},
	{line: "kitchen help t", exact: []string{"things"}},
	{line: "kitchen configure --", exact: []string{
		"--name", "--offset", "--anything", "--no-cache", "--cmd", "--count", "--dir", "--either", "--enable", "--filter",
		"--flavor", "--free", "--host", "--items", "--level", "--max-items", "--path", "--site", "--speed", "--tag", "--label", "--user",
		"--verbose", "--harn-input", "--harn-output", "--json", "--help", "--mode", "--ratio",
	}, none: []string{"--secret"}},
	{line: "kitchen configure --mode ", exact: []string{"safe", "fast"}, ordered: true},
	{line: "kitchen configure --speed ", exact: []string{"safe", "fast"}, ordered: true},
	{line: "kitchen configure --tag ", exact: []string{"blue", "green"}, ordered: true},
	{line: "kitchen configure -t gr", exact: []string{"green"}},
	{line: "kitchen configure --label ", exact: []string{"blue", "green"}, ordered: true},
	{line: "kitchen configure --harn-output ", exact: []string{"json", "pretty", "text"}, ordered: true},
	{line: "kitchen configure --flavor ", exact: []string{"sweet", "sour"}, ordered: true},
	{line: "kitchen configure --verbose ", exact: []string{"true", "false"}, ordered: true},
	{line: "kitchen files --strict ", exact: []string{"true", "false", "null"}, ordered: true},
	{line: "kitchen configure -n foo --mode s", exact: []string{"safe"}},
	{line: "kitchen t lookup --what x --harn-output=p", exact: []string{"pretty"}},
	{line: "kitchen configure --path ", some: []string{"alpha.txt", "beta"}},
	{line: "kitchen configure --dir ", exact: []string{"beta"}},
	{line: "kitchen configure --free ", exact: []string{}},
	{line: "kitchen configure --site ", none: []string{"alpha.txt", "beta"}},
	{line: "kitchen configure --user ro", some: []string{"root"}},
	{line: "kitchen configure --cmd bas", some: []string{"bash"}},
	{line: "kitchen configure --enable ", none: []string{"alpha.txt", "beta"}},
	{line: "kitchen files ", exact: []string{"beta"}},
	{line: "kitchen files /srv ", some: []string{"alpha.txt", "beta"}},
	{line: "kitchen files /srv a.txt ", some: []string{"alpha.txt", "beta"}},
	{line: "kitchen shift ", some: []string{"alpha.txt"}},
	// after "--" only positional values: a parent has none, and a leaf
	// offers no options (docs/spec/cli-projection.md §4)
	{line: "kitchen -- ", exact: []string{}},
	{line: "kitchen things -- ", exact: []string{}},
	{line: "kitchen -- things ", exact: []string{}},
	{line: "kitchen configure -- ", exact: []string{}},
	{line: "kitchen configure -- --", exact: []string{}},
	{line: "kitchen files -- ", exact: []string{"beta"}},
	// a hidden option is never offered nor named in the script, but its
	// value is still skipped (the word after an option the script does
	// not know is its value unless it starts with '-'): the next word is
	// the first positional (a directory), as after a visible option
	{line: "kitchen files --depth 2 ", exact: []string{"beta"}},
	{line: "kitchen files --token x ", exact: []string{"beta"}},
	{line: "kitchen files --key x ", exact: []string{"beta"}},
	{line: "kitchen files -k x ", exact: []string{"beta"}},
	{line: "kitchen files --token=x ", exact: []string{"beta"}},
	{line: "kitchen files --token x /srv ", some: []string{"alpha.txt", "beta"}},
	{line: "kitchen files --mark a --mark b ", exact: []string{"beta"}},
	{line: "kitchen files -m a -m b ", exact: []string{"beta"}},
	{line: "kitchen files -", none: []string{"-m", "--mark"}},
	{line: "kitchen files --", none: []string{"--token", "--key"}},
	{line: "kitchen files -", none: []string{"-k", "--token", "--key"}},
	{line: "kitchen files --token ", none: []string{"tok1", "--help"}},
	// a cluster of short options whose last letter takes a value: its
	// value is the next word, completed as after the option alone
	{line: "kitchen configure -ev ", exact: []string{"true", "false"}, ordered: true},
	{line: "kitchen configure -en ", some: []string{"alpha.txt"}, none: []string{"--help"}},
	{line: "kitchen configure -et ", exact: []string{"blue", "green"}, ordered: true},
	{line: "kitchen files -rd 2 ", exact: []string{"beta"}},
	{line: "kitchen files -rk x ", exact: []string{"beta"}},
	{line: "kitchen files -rd2 /srv ", some: []string{"alpha.txt", "beta"}},
	{line: "kitchen files -rd2 ", exact: []string{"beta"}},
	// --harn-input completes file names after an "@" only
	// a value written after "=" (--tag=value, -t=value) completes as the
	// word after the option does
	{line: "kitchen configure --tag=gr", exact: []string{"green"}},
	{line: "kitchen configure --label=", exact: []string{"blue", "green"}, ordered: true},
	{line: "kitchen configure -t=gr", exact: []string{"green"}},
	{line: "kitchen configure -t=", exact: []string{"blue", "green"}, ordered: true},
	{line: "kitchen configure -v=f", exact: []string{"false"}},
	{line: "kitchen configure --mode=s", exact: []string{"safe"}},
	{line: "kitchen configure -et=b", exact: []string{"blue"}},
	{line: "kitchen configure -n=", some: []string{"alpha.txt", "beta"}},
	{line: "kitchen configure -tgr", exact: []string{"green"}, attached: "-t"},
	{line: "kitchen configure -etgr", exact: []string{"green"}, attached: "-et"},
	{line: "kitchen configure -vf", exact: []string{"false"}, attached: "-v"},
	{line: "kitchen configure -nal", exact: []string{"alpha.txt"}, attached: "-n"},
	{line: "kitchen files -rdb", exact: []string{"beta"}, attached: "-rd"},
	{line: "kitchen files -d=2 -r ", exact: []string{"beta"}},
	// an option already given is not offered again unless it repeats;
	// --json and --harn-output exclude each other
	{line: "kitchen configure --name x --", none: []string{"--name"}, some: []string{"--tag", "--label", "--offset"}},
	{line: "kitchen configure -n x -", none: []string{"-n", "--name"}, some: []string{"-t", "--tag", "-o"}},
	{line: "kitchen configure --name=x --", none: []string{"--name"}, some: []string{"--offset"}},
	{line: "kitchen configure -n=x --", none: []string{"--name"}, some: []string{"--offset"}},
	{line: "kitchen configure -nx --", none: []string{"--name"}, some: []string{"--offset"}},
	{line: "kitchen configure --tag a --label b --", some: []string{"--tag", "--label", "--name"}},
	{line: "kitchen configure -t a -", some: []string{"-t", "--tag", "--label"}},
	{line: "kitchen configure --enable --", none: []string{"--enable"}, some: []string{"--no-cache"}},
	{line: "kitchen configure -e -", none: []string{"-e", "--enable"}, some: []string{"-v"}},
	{line: "kitchen configure -ev true --", none: []string{"--enable", "--verbose"}, some: []string{"--name"}},
	{line: "kitchen configure --json --", none: []string{"--json", "--harn-output"}, some: []string{"--harn-input"}},
	{line: "kitchen configure --harn-output json --", none: []string{"--json", "--harn-output"}, some: []string{"--harn-input"}},
	{line: "kitchen configure --harn-input {} --", none: []string{"--harn-input"}, some: []string{"--harn-output"}},
	{line: "kitchen files --depth 2 -", none: []string{"-d", "--depth"}, some: []string{"-r"}},
	// a tool's own --json conflicts with nothing
	{line: "kitchen raw --json x --", exact: []string{"--harn-input", "--harn-output", "--help"}},
	{line: "kitchen raw --harn-output text --", exact: []string{"--json", "--harn-input", "--help"}},
	{line: "kitchen configure --harn-input @", exact: []string{"alpha.txt", "beta"}},
	{line: "kitchen configure --harn-input @al", exact: []string{"alpha.txt"}},
	{line: "kitchen configure --harn-input=@b", exact: []string{"beta"}},
	{line: "kitchen configure --harn-input ", exact: []string{}},
	{line: "kitchen configure --harn-input al", exact: []string{}},
	// a value holding ':' or '=' is one word (bash's COMP_WORDS splits it)
	{line: "kitchen files -d 2:3 ", exact: []string{"beta"}},
	{line: "kitchen files -d a=b ", exact: []string{"beta"}},
	{line: "kitchen files -d=a:b ", exact: []string{"beta"}},
	// help and version end nothing: what follows them completes as
	// without them (the parser ignores it), as clap's scripts do
	{line: "kitchen -h ", exact: []string{"things", "t", "th", "configure", "files", "format", "raw", "renamed", "shift", "help"}},
	{line: "kitchen --help -", exact: []string{"-h", "--help"}},
	{line: "kitchen configure -h --", some: []string{"--name", "--tag", "--help", "--json", "--harn-output"}},
	{line: "kitchen configure --help -", some: []string{"-n", "--name", "-h", "--help"}},
	{line: "kitchen configure -n x --help --", none: []string{"--name"}, some: []string{"--help", "--offset"}},
	{line: "kitchen configure --help --mode ", exact: []string{"safe", "fast"}, ordered: true},
	{line: "kitchen configure -eh -", none: []string{"-e", "--enable"}, some: []string{"-h", "--help", "-n", "--name"}},
	{line: "kitchen configure -he -", none: []string{"-e", "--enable"}, some: []string{"-h", "--help", "-v", "--verbose"}},
	{line: "kitchen -h things ", exact: []string{"badout", "closure", "explode", "greet", "lookup", "quit", "help"}},
	{line: "kitchen things --help ", exact: []string{"badout", "closure", "explode", "greet", "lookup", "quit", "help"}},
	{line: "kitchen things -h lookup --", exact: []string{"--what", "--harn-input", "--harn-output", "--json", "--help"}},
}

// hiddenScript is a registry whose hidden commands and arguments all
// have "zz" in their names (acceptance 136).
const hiddenScript = "testdata/hidden.harn"

// hiddenCases type hidden options, which the scripts do not know: the
// word after an option a script does not know is its value unless it
// starts with '-' (docs/tool-completions.md). "run" takes a directory,
// then files; --zz-hidden-secret (-q, --zz-hidden-alias) takes a value,
// --zz-hidden-flag (-Q) does not.
var hiddenCases = []completionCase{
	{line: "hid ", exact: []string{"other", "run", "help"}},
	{line: "hid help ", exact: []string{"other", "run"}},
	{line: "hid run --", exact: []string{"--depth", "--recursive", "--harn-input", "--harn-output", "--json", "--help"}},
	{line: "hid run -", none: []string{"-q", "-Q"}},
	{line: "hid run ", exact: []string{"beta"}},
	{line: "hid run --zz-hidden-secret x ", exact: []string{"beta"}},
	{line: "hid run --zz-hidden-alias x ", exact: []string{"beta"}},
	{line: "hid run -q x ", exact: []string{"beta"}},
	{line: "hid run -rq x ", exact: []string{"beta"}},
	{line: "hid run -qx ", exact: []string{"beta"}},
	{line: "hid run -rqx ", exact: []string{"beta"}},
	{line: "hid run --zz-hidden-secret=x ", exact: []string{"beta"}},
	{line: "hid run --zz-hidden-secret x /srv ", some: []string{"alpha.txt", "beta"}},
	{line: "hid run --zz-hidden-secret x --depth 2 /srv ", some: []string{"alpha.txt", "beta"}},
	// at the value of a hidden option: the shell's default completion
	{line: "hid run --zz-hidden-secret ", some: []string{"alpha.txt", "beta"}, none: []string{"zz_hidden_candidate", "--depth"}},
	{line: "hid run -q ", some: []string{"alpha.txt", "beta"}, none: []string{"zz_hidden_candidate", "--depth"}},
	{line: "hid run --zz-hidden-alias=", some: []string{"alpha.txt", "beta"}, none: []string{"zz_hidden_candidate", "--depth"}},
	{line: "hid run --zz-hidden-flag x ", exact: []string{"beta"}},
	// an unknown letter takes the rest of its cluster as its value, as -q
	// does when the parser reads it: x is the first positional
	{line: "hid run -qQ x ", some: []string{"alpha.txt", "beta"}},
	// a word starting with '-' is not a hidden option's value
	{line: "hid run --zz-hidden-secret --", some: []string{"--depth", "--recursive"}},
	{line: "hid run --zz-hidden-flag --depth 2 ", exact: []string{"beta"}},
	{line: "hid run -Q -d 2 ", exact: []string{"beta"}},
	{line: "hid run --zz-hidden-flag -- ", exact: []string{"beta"}},
	// the rule's cost: a hidden presence flag takes the next word too
	{line: "hid run --zz-hidden-flag /srv ", exact: []string{"beta"}},
	// an option given is not offered again, past hidden ones too
	{line: "hid run -d 2 --zz-hidden-secret x -", none: []string{"-d", "--depth"}, some: []string{"-r", "--recursive"}},
	{line: "hid run -rq x --", none: []string{"--recursive"}, some: []string{"--depth"}},
	// at a parent too
	{line: "hid --zz-unknown x ", exact: []string{"other", "run", "help"}},
	{line: "hid other x ", exact: []string{"one", "two"}, ordered: true},
}

// completionSuite is a registry and the cases checked on its script.
type completionSuite struct {
	file, prog string
	cases      []completionCase
}

var completionSuites = []completionSuite{
	{kitchenScript, "kitchen", kitchenCases},
	{hiddenScript, "hid", hiddenCases},
}

// completionFixture writes the script of the registry for shell into a
// fresh directory that also holds a file and a directory for path
// completion.
func completionFixture(t *testing.T, file string, shell Shell) (dir, script string) {
	t.Helper()
	prog, _, status := LoadFile(file, Stdio{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if prog == nil {
		t.Fatalf("loading %s: status %d", file, status)
	}
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "alpha.txt"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "beta"), 0o755)
	script = filepath.Join(t.TempDir(), prog.Name+"."+string(shell))
	if err := os.WriteFile(script, []byte(prog.Completions(shell)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, script
}

func needShell(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (`make test-deps` installs zsh and fish): shell completion test skipped", name)
	}
	return path
}

// runShell runs a shell program with a time limit and returns stdout.
func runShell(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "XDG_CACHE_HOME="+home, "TERM=xterm")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, err, out.String(), errb.String())
	}
	return out.String()
}

var markerRE = regexp.MustCompile(`^@@(BEGIN|END) (\d+)$`)

// splitResults reads "@@BEGIN n" ... "@@END n" blocks of candidates.
func splitResults(t *testing.T, out string, n int) [][]string {
	t.Helper()
	res := make([][]string, n)
	cur := -1
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := markerRE.FindStringSubmatch(line); m != nil {
			if m[1] == "BEGIN" {
				fmt.Sscan(m[2], &cur)
				cur--
			} else {
				cur = -1
			}
			continue
		}
		if cur >= 0 && cur < n && line != "" {
			res[cur] = append(res[cur], line)
		}
	}
	return res
}

// optionPrefixRE is the option part of an --opt=value or -o=value
// candidate (fish reports those whole).
var optionPrefixRE = regexp.MustCompile(`^(--[^=]+|-[A-Za-z0-9]+)=`)

// normalize drops option prefixes of --opt=value and -o=value candidates, the "@"
// of --harn-input @FILE (zsh reports file names without it), fish
// descriptions and directory slashes, and removes duplicates.
func normalize(cands []string) []string {
	var out []string
	for _, c := range cands {
		c, _, _ = strings.Cut(c, "\t")
		if m := optionPrefixRE.FindString(c); m != "" {
			c = c[len(m):]
		}
		c = strings.TrimPrefix(c, "@")
		c = strings.TrimSuffix(c, "/")
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func checkCandidates(t *testing.T, shell string, c completionCase, raw []string) {
	t.Helper()
	if c.attached != "" {
		raw = slices.Clone(raw)
		for i, r := range raw {
			raw[i] = strings.TrimPrefix(r, c.attached)
		}
	}
	got := normalize(raw)
	if c.exact != nil {
		want := slices.Clone(c.exact)
		g := slices.Clone(got)
		if !c.ordered {
			slices.Sort(want)
			slices.Sort(g)
		}
		if !slices.Equal(g, want) && !(len(g) == 0 && len(want) == 0) {
			t.Errorf("%s %q:\n got %q\nwant %q", shell, c.line, got, c.exact)
		}
	}
	for _, s := range c.some {
		if !slices.Contains(got, s) {
			t.Errorf("%s %q: %q not offered (got %q)", shell, c.line, s, got)
		}
	}
	for _, s := range c.none {
		if slices.Contains(got, s) {
			t.Errorf("%s %q: %q offered (got %q)", shell, c.line, s, got)
		}
	}
}

// bashWords splits a command line into COMP_WORDS the way bash does
// with the default COMP_WORDBREAKS for these lines: at blanks, and
// around each "=" and ":", outside quotes and not after a backslash.
// (The scripts read the words from COMP_LINE; COMP_WORDS is set as bash
// sets it all the same.)
func bashWords(line string) []string {
	var words []string
	var w strings.Builder
	quote := rune(0)
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			escaped = false
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\\':
			escaped = true
		case r == '"' || r == '\'':
			quote = r
		case r == ' ':
			words = append(words, w.String())
			w.Reset()
			continue
		case r == '=' || r == ':':
			if w.Len() > 0 {
				words = append(words, w.String())
			}
			words = append(words, string(r))
			w.Reset()
			continue
		}
		w.WriteRune(r)
	}
	return append(words, w.String())
}

func TestBashCompletion(t *testing.T) {
	bash := needShell(t, "bash")
	for _, suite := range completionSuites {
		t.Run(suite.prog, func(t *testing.T) { bashSuite(t, bash, suite) })
	}
}

func bashSuite(t *testing.T, bash string, suite completionSuite) {
	dir, script := completionFixture(t, suite.file, Bash)
	var prog strings.Builder
	fmt.Fprintf(&prog, "source %s || exit 9\n", shQuote(script))
	fmt.Fprintf(&prog, "complete -p %s >/dev/null || exit 8\n", suite.prog)
	for i, c := range suite.cases {
		words := bashWords(c.line)
		q := make([]string, len(words))
		for j, w := range words {
			q[j] = shQuote(w)
			if w == "" {
				q[j] = "''"
			}
		}
		fmt.Fprintf(&prog, "COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; COMPREPLY=()\n",
			strings.Join(q, " "), len(words)-1, shQuote(c.line))
		fmt.Fprintf(&prog, "_%s; echo '@@BEGIN %d'; printf '%%s\\n' \"${COMPREPLY[@]}\"; echo '@@END %d'\n", suite.prog, i+1, i+1)
	}
	out := runShell(t, dir, bash, "--norc", "--noprofile", "-c", prog.String())
	res := splitResults(t, out, len(suite.cases))
	for i, c := range suite.cases {
		checkCandidates(t, "bash", c, res[i])
	}
}

func TestFishCompletion(t *testing.T) {
	fish := needShell(t, "fish")
	for _, suite := range completionSuites {
		t.Run(suite.prog, func(t *testing.T) { fishSuite(t, fish, suite) })
	}
}

func fishSuite(t *testing.T, fish string, suite completionSuite) {
	dir, script := completionFixture(t, suite.file, Fish)
	var prog strings.Builder
	fmt.Fprintf(&prog, "source %s; or exit 9\n", fishQuote(script))
	for i, c := range suite.cases {
		fmt.Fprintf(&prog, "echo '@@BEGIN %d'; complete -C %s; echo '@@END %d'\n", i+1, fishQuote(c.line), i+1)
	}
	out := runShell(t, dir, fish, "--no-config", "-c", prog.String())
	res := splitResults(t, out, len(suite.cases))
	for i, c := range suite.cases {
		checkCandidates(t, "fish", c, res[i])
	}
}

// zshDriver types each line into an interactive zsh on a pseudo-terminal
// (zsh's own zpty module) and runs completion at its end through a
// widget. compadd is wrapped to record every match the completion
// functions add; "@@BEGIN n"/"@@END n" lines delimit each attempt.
const zshDriver = `
zmodload zsh/zpty || exit 3
script=$1 out=$2
shift 2
: >| $out
zpty z zsh -f -i || exit 3
zpty -w z "PS1='' PROMPT='' RPROMPT=''"
zpty -w z "autoload -Uz compinit && compinit -u -D"
zpty -w z "source ${(q)script}"
zpty -w z "__out=${(q)out}; integer __n=0"
zpty -w z 'compadd() { if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; local -a __m; builtin compadd -O __m "$@"; (( $#__m )) && print -rl -- $__m >> $__out; builtin compadd "$@"; }'
zpty -w z '__capture() { (( __n++ )); print -r -- "@@BEGIN $__n" >> $__out; zle complete-word; print -r -- "@@END $__n" >> $__out; BUFFER=; CURSOR=0; }'
zpty -w z 'zle -N __capture; bindkey "^T" __capture'
integer n=0 tries
for line in "$@"; do
  (( n++ ))
  zpty -w -n z "$line"$'\C-t'
  tries=0
  while ! grep -q "^@@END $n\$" $out; do
    (( tries++ > 1500 )) && { print -u2 "timeout waiting for completion $n: $line"; zpty -d z; exit 4; }
    # drain what zsh writes to the terminal, or it blocks once the
    # pseudo-terminal's buffer is full
    while zpty -r -t z junk; do :; done
    sleep 0.02
  done
done
zpty -d z
`

func TestZshCompletion(t *testing.T) {
	zsh := needShell(t, "zsh")
	for _, suite := range completionSuites {
		t.Run(suite.prog, func(t *testing.T) { zshSuite(t, zsh, suite) })
	}
}

func zshSuite(t *testing.T, zsh string, suite completionSuite) {
	dir, script := completionFixture(t, suite.file, Zsh)
	driver := filepath.Join(t.TempDir(), "driver.zsh")
	os.WriteFile(driver, []byte(zshDriver), 0o644)
	outFile := filepath.Join(t.TempDir(), "matches")
	args := []string{"-f", driver, script, outFile}
	for _, c := range suite.cases {
		args = append(args, c.line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, zsh, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm")
	if out, err := cmd.CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
			t.Skipf("zsh has no zpty module: %s", out)
		}
		t.Fatalf("zsh driver: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	res := splitResults(t, string(data), len(suite.cases))
	for i, c := range suite.cases {
		checkCandidates(t, "zsh", c, res[i])
	}
}

// TestScriptsContent checks what every script must contain
// (docs/spec/cli-projection.md §8): markers, commands, options, value candidates
// in order for bash, zsh and fish and none for PowerShell, and nothing
// hidden.
func TestScriptsContent(t *testing.T) {
	prog, _, _ := LoadFile(kitchenScript, Stdio{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if prog == nil {
		t.Fatal("kitchen fixture does not load")
	}
	markers := map[Shell][]string{
		Bash:       {"_kitchen() {", "complete -F _kitchen -o nosort kitchen"},
		Zsh:        {"#compdef kitchen\n", "_kitchen() {", "_arguments"},
		Fish:       {"complete -c kitchen "},
		PowerShell: {"Register-ArgumentCompleter -Native -CommandName 'kitchen'"},
	}
	for _, sh := range Shells {
		s := prog.Completions(sh)
		for _, m := range markers[sh] {
			if !strings.Contains(s, m) {
				t.Errorf("%s script lacks %q", sh, m)
			}
		}
		if sh == Zsh && !strings.HasPrefix(s, "#compdef kitchen\n") {
			t.Errorf("zsh script does not start with #compdef")
		}
		for _, w := range []string{"things", "lookup", "configure", "--harn-input", "--harn-output", "--json", "--tag", "--label", "--help", "help"} {
			if !strings.Contains(s, spelled(sh, w)) {
				t.Errorf("%s script lacks %q", sh, w)
			}
		}
		for _, w := range []string{"hidden-cmd", "internal"} {
			if strings.Contains(s, w) {
				t.Errorf("%s script mentions hidden or non-CLI %q", sh, w)
			}
		}
		// nothing of a hidden option either (acceptance 136)
		for _, w := range []string{"secret", "SECRET", "token", "--key", "--mark", "tok1"} {
			if strings.Contains(s, w) {
				t.Errorf("%s script mentions hidden %q", sh, w)
			}
		}
		ordered := []string{"safe", "fast"}
		if sh == PowerShell {
			for _, v := range []string{"safe", "fast", "blue", "green", "pretty", "sweet"} {
				if strings.Contains(s, v) {
					t.Errorf("powershell script offers value %q", v)
				}
			}
			continue
		}
		for _, pair := range [][]string{ordered, {"blue", "green"}, {"json", "pretty", "text"}} {
			re := regexp.MustCompile(strings.Join(pair, `\W+`))
			if !re.MatchString(s) {
				t.Errorf("%s script lacks candidates %q in order", sh, pair)
			}
		}
	}
	if !strings.Contains(prog.Completions(Bash), "compgen -f") || !strings.Contains(prog.Completions(Zsh), ":_files") || !strings.Contains(prog.Completions(Fish), " -F") {
		t.Error("file value hint not mapped to the shells' file completion")
	}
}

// TestHiddenLeavesNoTrace checks that hidden commands and arguments
// leave nothing in any script (acceptance 136): no name, alias, short
// letter, value name, candidate or description — every one of them
// contains "zz" in the fixture — and each script is the same once they
// are taken out of the command tree.
func TestHiddenLeavesNoTrace(t *testing.T) {
	prog, _, _ := LoadFile(hiddenScript, Stdio{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if prog == nil {
		t.Fatal("hidden fixture does not load")
	}
	scripts := map[Shell]string{}
	for _, sh := range Shells {
		s := prog.Completions(sh)
		scripts[sh] = s
		for i, line := range strings.Split(s, "\n") {
			if strings.Contains(strings.ToLower(line), "zz") {
				t.Errorf("%s script line %d names something hidden: %s", sh, i+1, line)
			}
		}
		for _, w := range []string{"run", "other", "--depth", "--recursive"} {
			if !strings.Contains(s, spelled(sh, w)) {
				t.Errorf("%s script lacks visible %q", sh, w)
			}
		}
	}
	if n := stripHidden(prog.Root); n != 5 {
		t.Fatalf("fixture has %d hidden commands and arguments, want 5", n)
	}
	for _, sh := range Shells {
		if s := prog.Completions(sh); s != scripts[sh] {
			t.Errorf("%s script changes when the hidden commands and arguments are taken out", sh)
		}
	}
}

// stripHidden takes the hidden children and arguments out of the tree
// under c and returns how many it took out.
func stripHidden(c *tool.CLICommand) int {
	n := 0
	c.Children = slices.DeleteFunc(c.Children, func(ch *tool.CLICommand) bool {
		if ch.Hidden {
			n++
		}
		return ch.Hidden
	})
	c.Args = slices.DeleteFunc(c.Args, func(a *tool.CLIArg) bool {
		if a.Hidden {
			n++
		}
		return a.Hidden
	})
	for _, ch := range c.Children {
		n += stripHidden(ch)
	}
	return n
}

// spelled is how a script spells an option: fish declares --x as -l x.
func spelled(sh Shell, w string) string {
	if sh == Fish && strings.HasPrefix(w, "--") {
		return "-l " + w[2:]
	}
	return w
}

// TestWidgetScripts covers the seed example's program name and tree.
func TestWidgetScripts(t *testing.T) {
	prog, _, _ := LoadFile("../../cmd/harn/testdata/tool_run/fixtures/widget.harn", Stdio{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if prog == nil {
		t.Fatal("widget fixture does not load")
	}
	for _, sh := range Shells {
		s := prog.Completions(sh)
		for _, w := range []string{"widgets", "get", "show", "--verbose", "-v", "--harn-input", "--harn-output", "--json", "--version"} {
			if !strings.Contains(s, spelled(sh, w)) {
				t.Errorf("%s script lacks %q", sh, w)
			}
		}
		// every script names the leaf's framework options as typed,
		// fish in a comment (acceptance 131)
		for _, w := range []string{"--harn-input", "--harn-output", "--json"} {
			if !strings.Contains(s, w) {
				t.Errorf("%s script never spells %q", sh, w)
			}
		}
	}
	if !strings.Contains(prog.Completions(Bash), "complete -F _widgets") || !strings.HasPrefix(prog.Completions(Zsh), "#compdef widgets") || !strings.Contains(prog.Completions(Fish), "complete -c widgets ") {
		t.Error("widget script markers")
	}
}

// quotingScript's candidates hold shell metacharacters.
const quotingScript = "testdata/quoting.harn"

var quotingValues = []string{"a b", "$HOME", "semi;colon", "it's", "plain"}

// quotingSuite is checked in zsh and fish, which quote a candidate when
// they insert it: the candidates they offer are the values themselves,
// also when the word at the cursor opens a quote.
var quotingSuite = completionSuite{quotingScript, "quo", []completionCase{
	{line: "quo pick --mode ", exact: quotingValues, ordered: true},
	{line: "quo pick --mode a", exact: []string{"a b"}},
	{line: "quo pick -m=a", exact: []string{"a b"}},
	{line: "quo pick -m=se", exact: []string{"semi;colon"}},
	{line: "quo pick --mode se", exact: []string{"semi;colon"}},
	{line: `quo pick --mode "a`, exact: []string{"a b"}},
	{line: `quo pick --mode 'it`, exact: []string{"it's"}},
	{line: `quo pick --mode '$`, exact: []string{"$HOME"}},
	{line: "quo pick --image nginx:l", exact: []string{"nginx:latest"}},
	{line: "quo pick --image k=", exact: []string{"k=v"}},
	// a value starting with '-' is offered where a word starting with
	// '-' could be an option
	{line: "quo pick --level -", some: []string{"-1", "-2"}, none: []string{"auto"}},
	{line: "quo pick --level ", exact: []string{"-1", "-2", "auto"}, ordered: true},
	{line: "quo pick -", some: []string{"-x", "--wide", "--mode"}},
}}

// hyphenPositionalCases: the values of a positional that start with '-'
// are offered with the options, and once typed they count as that
// positional, not as an option the script does not know (whose value
// would be the next word). Checked in bash; zsh and fish offer them by
// themselves (quotingSuite).
var hyphenPositionalCases = []completionCase{
	{line: "quo pick -", some: []string{"-x", "--wide", "--mode"}},
	{line: "quo pick --", some: []string{"--wide", "--mode"}, none: []string{"-x"}},
	{line: "quo pick -x -", some: []string{"--mode"}, none: []string{"-x", "--wide"}},
	{line: "quo pick -x ", some: []string{"--mode"}, none: []string{"alpha.txt"}},
	{line: "quo pick --wide --mode p", exact: []string{"plain"}},
	{line: "quo pick --level -1 -", some: []string{"-x", "--mode"}},
}

func TestBashCompletionHyphenPositional(t *testing.T) {
	bashSuite(t, needShell(t, "bash"), completionSuite{quotingScript, "quo", hyphenPositionalCases})
}

func TestZshCompletionQuoting(t *testing.T) {
	zshSuite(t, needShell(t, "zsh"), quotingSuite)
}

func TestFishCompletionQuoting(t *testing.T) {
	fishSuite(t, needShell(t, "fish"), quotingSuite)
}

// TestBashCompletionQuotesCandidates: bash inserts COMPREPLY as typed, so
// each candidate must be quoted to one shell word equal to the value. The
// test completes in real bash and evaluates every COMPREPLY entry as the
// shell would read the inserted text. The word at the cursor may be the
// value's prefix as typed or already quoted (a\ , \$H), or open a quote
// ("a, 'it): readline then keeps the word up to its open quote, replaces
// the rest with the entry and closes the quote.
func TestBashCompletionQuotesCandidates(t *testing.T) {
	bash := needShell(t, "bash")
	dir, script := completionFixture(t, quotingScript, Bash)
	cases := []struct {
		cur string
		// keep is what readline leaves of cur: up to its open quote, or
		// to its last = or : outside quotes
		keep string
		want []string
		// opt is the option of the value (default --mode)
		opt string
	}{
		{"", "", quotingValues, ""},
		{"a", "", []string{"a b"}, ""},
		{`a\ `, "", []string{"a b"}, ""},
		{"$H", "", []string{"$HOME"}, ""},
		{`\$H`, "", []string{"$HOME"}, ""},
		{"semi", "", []string{"semi;colon"}, ""},
		{"it", "", []string{"it's"}, ""},
		{"x", "", nil, ""},
		{`"`, `"`, quotingValues, ""},
		{`"a`, `"`, []string{"a b"}, ""},
		{`"a `, `"`, []string{"a b"}, ""},
		{`"$`, `"`, []string{"$HOME"}, ""},
		{`"\$`, `"`, []string{"$HOME"}, ""},
		{`"it`, `"`, []string{"it's"}, ""},
		{`'`, `'`, quotingValues, ""},
		{`'a`, `'`, []string{"a b"}, ""},
		{`'$H`, `'`, []string{"$HOME"}, ""},
		{`'it`, `'`, []string{"it's"}, ""},
		{`'it'\''`, `'it'\''`, []string{"it's"}, ""},
		{`p"l`, `p"`, []string{"plain"}, ""},
		{`"a b"`, "", []string{"a b"}, ""},
		{`"x`, `"`, nil, ""},
		{"nginx:l", "nginx:", []string{"nginx:latest"}, "--image"},
		{"nginx:", "nginx:", []string{"nginx:1.25", "nginx:latest"}, "--image"},
		{`"nginx:l`, `"`, []string{"nginx:latest"}, "--image"},
		{`nginx\:l`, "", []string{"nginx:latest"}, "--image"},
		{"k=", "k=", []string{"k=v"}, "--image"},
		{"-", "", []string{"-1", "-2"}, "--level"},
	}
	var prog strings.Builder
	fmt.Fprintf(&prog, "source %s || exit 9\n", shQuote(script))
	for i, c := range cases {
		closing := ""
		if strings.HasSuffix(c.keep, `"`) || strings.HasSuffix(c.keep, "'") {
			closing = c.keep[len(c.keep)-1:]
		}
		opt := c.opt
		if opt == "" {
			opt = "--mode"
		}
		line := "quo pick " + opt + " " + c.cur
		words := bashWords(line)
		q := make([]string, len(words))
		for j, w := range words {
			q[j] = shQuote(w)
		}
		fmt.Fprintf(&prog, "COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; COMPREPLY=()\n", strings.Join(q, " "), len(words)-1, shQuote(line))
		// each entry, between what readline keeps and the closing quote,
		// must read back as exactly one word: print the count, then the word
		fmt.Fprintf(&prog, "_quo; echo '@@BEGIN %d'; for r in \"${COMPREPLY[@]}\"; do eval \"set -- %s$r%s\"; printf '%%s:%%s\\n' \"$#\" \"$1\"; done; echo '@@END %d'\n",
			i+1, strings.ReplaceAll(c.keep, `"`, `\"`), strings.ReplaceAll(closing, `"`, `\"`), i+1)
	}
	out := runShell(t, dir, bash, "--norc", "--noprofile", "-c", prog.String())
	res := splitResults(t, out, len(cases))
	for i, c := range cases {
		var want []string
		for _, v := range c.want {
			want = append(want, "1:"+v)
		}
		if !slices.Equal(res[i], want) {
			t.Errorf("cur %q: COMPREPLY reads back as %q, want %q", c.cur, res[i], want)
		}
	}
}

// psResults returns the lines of the PowerShell script's case for node
// id, from its label line to its break.
func psCase(t *testing.T, script, id string) string {
	t.Helper()
	start := strings.Index(script, "        '"+id+"' { #")
	if start < 0 {
		t.Fatalf("no case for %s in:\n%s", id, script)
	}
	end := strings.Index(script[start:], "            break\n")
	return script[start : start+end]
}

// PowerShell cannot be installed here (no Debian package), so its
// script is checked by its content: the walk keeps a record of the
// options given, keyed as in the bash and fish scripts, and an option
// already given (unless repeatable), or conflicting with one given, is
// not offered; help is always offered.
func TestPowerShellOffersOptionsOnce(t *testing.T) {
	p := program(t, opsDefs, `{"info":{"name":"prog"}}`)
	s := p.Completions(PowerShell)
	for _, want := range []string{
		"$keys['n1 -c'] = '--count'", "$keys['n1 --count'] = '--count'",
		"$keys['n1 --title'] = '--name'", "$keys['n1 -t'] = '--tag'",
		"$keys['n1 --json'] = '--json'", "$keys['n1 --harn-output'] = '--harn-output'",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("powershell script lacks %q", want)
		}
	}
	ops := psCase(t, s, "n1")
	guarded := map[string]string{
		"--count":       "if (-not ($given.ContainsKey('--count'))) {\n                [CompletionResult]::new('-c', ",
		"--title":       "if (-not ($given.ContainsKey('--name'))) {\n                [CompletionResult]::new('-n', 'n', [CompletionResultType]::ParameterName, '-n')\n                [CompletionResult]::new('--name', 'name', [CompletionResultType]::ParameterName, '--name')\n                [CompletionResult]::new('--title', ",
		"--json":        "if (-not ($given.ContainsKey('--json') -or $given.ContainsKey('--harn-output'))) {\n                [CompletionResult]::new('--json', ",
		"--harn-output": "if (-not ($given.ContainsKey('--harn-output') -or $given.ContainsKey('--json'))) {\n                [CompletionResult]::new('--harn-output', ",
	}
	for opt, want := range guarded {
		if !strings.Contains(ops, want) {
			t.Errorf("%s is not left out once given:\n%s", opt, ops)
		}
	}
	for _, free := range []string{"-t", "--tag", "-h", "--help"} {
		if !strings.Contains(ops, "\n            [CompletionResult]::new('"+free+"', ") {
			t.Errorf("%s is not always offered:\n%s", free, ops)
		}
	}
	// the walk reads --name=VALUE, clusters and -t=VALUE, and offers
	// nothing at an option's value
	for _, want := range []string{
		"$eq = $word.IndexOf('=')",
		"$short = '-' + $word.Substring($i, 1)",
		"if ($skip -ceq 'value' -or ($skip -ceq 'unknown' -and -not $wordToComplete.StartsWith('-'))) { return }",
		"$node = 'n1'; $given.Clear(); continue",
		// matched as a prefix: the word may hold wildcard characters
		"$completions.Where{ $_.CompletionText.StartsWith($wordToComplete, [StringComparison]::Ordinal) }",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("powershell walk lacks %q", want)
		}
	}
}
