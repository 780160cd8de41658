package syntax

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// specDir is where the shared language documents live, relative to this
// package; tests that need them skip when they are absent.
const specDir = "../../../shared"

var harnBlock = regexp.MustCompile("(?s)```harn\n(.*?)```")

// docExamples returns the ```harn blocks of a document under specDir,
// or nil when the document is not available.
func docExamples(rel string) []string {
	b, err := os.ReadFile(filepath.Join(specDir, rel))
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range harnBlock.FindAllSubmatch(b, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestLanguageExamples parses every example program of docs/spec/language.md. None
// of them is a lexer or parse error (the error examples there fail later,
// statically or at run time).
func TestLanguageExamples(t *testing.T) {
	examples := docExamples("spec/language.md")
	if examples == nil {
		t.Skip("language.md not available")
	}
	if len(examples) < 25 {
		t.Fatalf("found only %d examples", len(examples))
	}
	for i, src := range examples {
		if _, err := Parse("example.harn", []byte(src)); err != nil {
			t.Errorf("example %d: %v\n%s", i, err, src)
		}
	}
}

// TestOtherExamples parses the Harn programs of the other specification
// documents and of the seed documents.
func TestOtherExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(specDir, "seeds", "*.txt"))
	more, _ := filepath.Glob(filepath.Join(specDir, "spec", "*.md"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("documents not available")
	}
	for _, f := range files {
		rel, _ := filepath.Rel(specDir, f)
		for i, src := range docExamples(rel) {
			if _, err := Parse("seed.harn", []byte(src)); err != nil {
				t.Errorf("%s example %d: %v\n%s", filepath.Base(f), i, err, src)
			}
		}
	}
}
