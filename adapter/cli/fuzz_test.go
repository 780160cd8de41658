package cli

import (
	"strings"
	"testing"
)

// FuzzParseArgs runs arbitrary argument vectors (NUL-separated) against a
// prepared catalog: parsing, help, completion and invocation must answer
// with a status, never panic (issue 17 fuzzing).
func FuzzParseArgs(f *testing.F) {
	prog := program(f, opsDefs, "")
	for _, seed := range []string{
		"ops\x00--name\x00x", "--help", "deploy\x00--harn-input\x00{\"env\":1e400}", "--\x00-x",
		"deploy\x00--count=9223372036854775808", "deploy\x00--json\x00--harn-output\x00json", "\x00\x00=",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, argv string) {
		r := prog.try("{}", strings.Split(argv, "\x00")...)
		if r.status < 0 || r.status > 255 {
			t.Fatalf("status %d", r.status)
		}
	})
}

// Control characters an error quotes from the command line are escaped
// (issue 17 item 11).
func TestErrorsEscapeControlCharacters(t *testing.T) {
	prog := program(t, opsDefs, "")
	for _, args := range [][]string{{"--\x1b[2Jevil"}, {"ops", "--bogus\x00\x07"}, {"ops\x1b]0;t\x07"}} {
		r := prog.try("{}", args...)
		if r.status == 0 || strings.ContainsAny(r.stderr, "\x1b\x00\x07") || !strings.Contains(r.stderr, `\x`) {
			t.Errorf("%q: status %d stderr %q", args, r.status, r.stderr)
		}
	}
}
