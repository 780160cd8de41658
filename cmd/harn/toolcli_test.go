package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestToolCLIGolden runs every case of testdata/tool_run: one `harn`
// command per NAME.txt, run as a real process (the test binary
// re-executed as harn) in a fresh directory that holds the shared
// scripts of testdata/tool_run/fixtures and the case's own files. The
// case file is
//
//	# what the case shows
//	$ harn tool run widget.harn widgets get 42
//	-- FILE --           (any number of files written before the run)
//	-- stdin --          (optional standard input)
//	-- stdout --
//	-- stderr --
//	-- status --
//
// and `go test ./cmd/harn -run ToolCLIGolden -update` rewrites the
// expected stdout, stderr and status.
func TestToolCLIGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/tool_run/*.txt")
	if len(cases) < 21 {
		t.Fatalf("expected at least 21 golden cases, found %d", len(cases))
	}
	fixtures, _ := filepath.Glob("testdata/tool_run/fixtures/*")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			c, err := readCase(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, f := range fixtures {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
			}
			for _, s := range c.sections {
				if !expectedSection[s.name] && s.name != "stdin" {
					os.WriteFile(filepath.Join(dir, s.name), []byte(s.text), 0o644)
				}
			}
			cmd := exec.Command(exe, c.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
			cmd.Stdin = strings.NewReader(c.section("stdin"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			status := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				status = ee.ExitCode()
			}
			got := map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "status": fmt.Sprintf("%d\n", status)}
			if *update {
				for _, k := range []string{"stdout", "stderr", "status"} {
					c.set(k, got[k])
				}
				if err := os.WriteFile(path, []byte(c.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"status", "stdout", "stderr"} {
				if want := c.section(k); got[k] != want {
					t.Errorf("%s differs\n--- got\n%s--- want\n%s", k, got[k], want)
				}
			}
		})
	}
}

var expectedSection = map[string]bool{"stdout": true, "stderr": true, "status": true}

// toolCase is a parsed golden case file.
type toolCase struct {
	header   []string // comment and command lines
	args     []string
	sections []caseSection
}

type caseSection struct{ name, text string }

func (c *toolCase) section(name string) string {
	for _, s := range c.sections {
		if s.name == name {
			return s.text
		}
	}
	return ""
}

func (c *toolCase) set(name, text string) {
	for i := range c.sections {
		if c.sections[i].name == name {
			c.sections[i].text = text
			return
		}
	}
	c.sections = append(c.sections, caseSection{name, text})
}

func (c *toolCase) format() string {
	var b strings.Builder
	for _, h := range c.header {
		b.WriteString(h + "\n")
	}
	for _, s := range c.sections {
		b.WriteString("-- " + s.name + " --\n")
		b.WriteString(s.text)
		if s.text != "" && !strings.HasSuffix(s.text, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func readCase(path string) (*toolCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &toolCase{}
	var cur *caseSection
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			c.sections = append(c.sections, caseSection{name: trimmed[3 : len(trimmed)-3]})
			cur = &c.sections[len(c.sections)-1]
			continue
		}
		if cur != nil {
			cur.text += line
			continue
		}
		c.header = append(c.header, trimmed)
		if cmd, ok := strings.CutPrefix(trimmed, "$ harn "); ok {
			if c.args, err = splitWords(cmd); err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
		}
	}
	if c.args == nil {
		return nil, fmt.Errorf("%s has no '$ harn ...' command line", path)
	}
	// a section's last newline belongs to its last line; "status" is a
	// number
	if s := c.section("status"); s != "" {
		if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
			return nil, fmt.Errorf("%s: bad status %q", path, s)
		}
	}
	return c, nil
}

// splitWords splits a command line the way a POSIX shell would for
// plain words, '...' and "..." quoting and backslash escapes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`, s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestToolCLIUsage covers Harn's own arguments of `harn tool run` and
// `harn tool completions` (status 2 for usage errors).
func TestToolCLIUsage(t *testing.T) {
	cases := []struct {
		args   []string
		status int
		out    string // fragment of stdout+stderr
	}{
		{[]string{"tool", "run"}, 2, "harn tool run needs a FILE"},
		{[]string{"tool", "run", "--help"}, 0, "Usage: harn tool run [--surface script|exports|auto] FILE"},
		{[]string{"tool", "run", "testdata/tool_run/fixtures/nope.harn"}, 1, "error:"},
		{[]string{"tool", "completions"}, 2, "harn tool completions needs a FILE"},
		{[]string{"tool", "completions", "testdata/tool_run/fixtures/widget.harn"}, 2, "needs --shell bash|zsh|fish|powershell"},
		{[]string{"tool", "completions", "testdata/tool_run/fixtures/widget.harn", "--shell", "tcsh"}, 2, `invalid value "tcsh" for --shell`},
		{[]string{"tool", "completions", "testdata/tool_run/fixtures/widget.harn", "--shell"}, 2, "--shell needs a value"},
		{[]string{"tool", "completions", "--help"}, 0, "Usage: harn tool completions FILE --shell"},
		{[]string{"tool", "completions", "testdata/tool_run/fixtures/widget.harn", "--shell=power-shell"}, 0, "Register-ArgumentCompleter -Native -CommandName 'widgets'"},
		{[]string{"tool", "completions", "--shell", "fish", "testdata/tool_run/fixtures/widget.harn"}, 0, "complete -c widgets"},
		{[]string{"help", "tool", "run"}, 0, "--harn-input"},
		{[]string{"help", "tool", "completions"}, 0, "powershell"},
	}
	for _, c := range cases {
		stdout, stderr, status := runHarn(c.args...)
		if status != c.status || !strings.Contains(stdout+stderr, c.out) {
			t.Errorf("harn %s: status %d (want %d)\nstdout: %s\nstderr: %s\nwant fragment %q", strings.Join(c.args, " "), status, c.status, stdout, stderr, c.out)
		}
	}
}

// TestToolCompletionsNotesAutoSkipsMain: completions for a module with pub
// fn and main under auto note the choice on stderr, script unchanged.
func TestToolCompletionsNotesAutoSkipsMain(t *testing.T) {
	p := writeModule(t, "mixed.harn", mixedModule)
	out, stderr, code := runHarn("tool", "completions", p, "--shell", "fish")
	if code != 0 || !strings.HasPrefix(stderr, "note: --surface auto chose exports because "+p+" has public functions") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if !strings.Contains(out, "helper") || strings.Contains(out, "scripted") || strings.Contains(out, "note:") {
		t.Errorf("stdout: %s", out)
	}
	_, stderr, _ = runHarn("tool", "completions", p, "--shell", "fish", "--surface", "script")
	if stderr != "" {
		t.Errorf("--surface script: stderr %q", stderr)
	}
}
