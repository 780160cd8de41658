package format

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harnlang/harn/conformance"
	"github.com/harnlang/harn/lang/syntax"
)

// corpus lists the .harn files of the repository's conformance suite and
// examples that parse.
func corpus(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"../../conformance", "../../examples", "../../stdlib/std"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".harn") {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 100 {
		t.Fatalf("found only %d .harn files", len(files))
	}
	return files
}

// TestCorpus formats every file of the corpus: the result parses to the
// same tree (Source checks that, and keeps every comment), and formatting
// it again changes nothing.
func TestCorpus(t *testing.T) {
	n := 0
	for _, path := range corpus(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := syntax.Parse(path, src); err != nil {
			continue // a parse-error test
		}
		out, err := Source(path, src)
		if _, refused := err.(*UnsupportedError); refused {
			// Syntax newer than the printer: the file is left alone, which
			// is correct; say so without failing.
			t.Logf("left alone: %v", err)
			continue
		}
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		again, err := Source(path, out)
		if err != nil {
			t.Errorf("%s: formatting the output: %v", path, err)
			continue
		}
		if !bytes.Equal(out, again) {
			t.Errorf("%s: not idempotent:\n--- first\n%s\n--- second\n%s", path, out, again)
		}
		n++
	}
	t.Logf("formatted %d files", n)
}

// positional matches expectations that quote source positions, which
// formatting legitimately moves.
var positional = regexp.MustCompile(`\d+:\d+|line \d+|lines? \d+|at L\d`)

// TestFormattedConformance formats a copy of the conformance suite and
// runs it: every test passes as before, except tests whose expected text
// quotes a line or column, which formatting moves.
func TestFormattedConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole conformance suite")
	}
	root := "../../conformance"
	tmp := t.TempDir()
	formatted := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dst := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".harn") {
			if out, err := Source(path, data); err == nil {
				if !bytes.Equal(out, data) {
					formatted++
				}
				data = out
			}
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	tests, err := conformance.Find(tmp, "")
	if err != nil {
		t.Fatal(err)
	}
	passed, moved := 0, 0
	for _, path := range tests {
		r := conformance.Run(path)
		if r.Pass {
			passed++
			continue
		}
		base := strings.TrimSuffix(path, ".harn")
		want, _ := os.ReadFile(base + ".expected")
		if want == nil {
			want, _ = os.ReadFile(base + ".error")
		}
		if positional.Match(want) {
			moved++
			continue
		}
		rel, _ := filepath.Rel(tmp, path)
		t.Errorf("formatted %s fails:\n%s", rel, r.Detail)
	}
	t.Logf("%d files changed by formatting; %d tests pass, %d expect positions that moved", formatted, passed, moved)
}
