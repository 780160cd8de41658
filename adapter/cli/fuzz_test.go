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
		"deploy\x00--env\x00prod", "--help", "deploy\x00--harn-input\x00{\"env\":1e400}", "--\x00-x",
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
