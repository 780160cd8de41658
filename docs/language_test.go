package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
)

// The examples of docs/language.md are tests. The convention, for whoever
// edits that page:
//
//   - A ```harn block is a complete program. It must be followed (blank
//     lines aside) by a ```text block holding exactly what the program
//     prints on stdout; the program must not fail.
//   - A ```harn block whose first line is `// file: NAME` is a module: it
//     is written to NAME (in a directory shared by the page's examples)
//     instead of being run, and needs no ```text block. Later examples
//     can import it.
//
// Trailing whitespace and a final newline are not compared.

var fence = regexp.MustCompile("(?m)^```([a-z]*)\n((?s:.*?))^```\n")

type example struct {
	line         int
	code, output string
	module       string
}

func languageExamples(t *testing.T, page string) []example {
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	matches := fence.FindAllStringSubmatchIndex(text, -1)
	var out []example
	for i, m := range matches {
		if text[m[2]:m[3]] != "harn" {
			continue
		}
		ex := example{line: strings.Count(text[:m[0]], "\n") + 1, code: text[m[4]:m[5]]}
		first, _, _ := strings.Cut(ex.code, "\n")
		if name, ok := strings.CutPrefix(first, "// file: "); ok {
			ex.module = strings.TrimSpace(name)
			out = append(out, ex)
			continue
		}
		if i+1 >= len(matches) || text[matches[i+1][2]:matches[i+1][3]] != "text" ||
			strings.TrimSpace(text[m[1]:matches[i+1][0]]) != "" {
			t.Errorf("%s:%d: a harn example must be followed by a text block with its output", page, ex.line)
			continue
		}
		ex.output = text[matches[i+1][4]:matches[i+1][5]]
		out = append(out, ex)
	}
	return out
}

func TestLanguageExamplesRun(t *testing.T) {
	examples := languageExamples(t, "language.md")
	if len(examples) == 0 {
		t.Fatalf("no examples in language.md")
	}
	dir := t.TempDir()
	for _, ex := range examples {
		if ex.module != "" {
			path := filepath.Join(dir, ex.module)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(ex.code), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var stderr bytes.Buffer
		res := interp.RunProgram(filepath.Join(dir, "main.harn"), []byte(ex.code), interp.Options{Stderr: &stderr})
		if res.Err != nil {
			t.Errorf("language.md:%d: the example fails: %v\n%s", ex.line, res.Err, stderr.String())
			continue
		}
		if got, want := trimLines(string(res.Stdout)), trimLines(ex.output); got != want {
			t.Errorf("language.md:%d: output differs\n--- shown\n%s\n--- printed\n%s", ex.line, want, got)
		}
	}
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
