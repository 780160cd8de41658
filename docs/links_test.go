// Package docs holds the user documentation; its test checks that every
// Markdown link in README.md and docs/ stays inside the repository, so a
// maintainer can follow each one from a clone.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestLinksStayInRepo(t *testing.T) {
	files, _ := filepath.Glob("*.md")
	files = append(files, "../README.md")
	if len(files) < 10 {
		t.Fatalf("found only %d Markdown files", len(files))
	}
	root, _ := filepath.Abs("..")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.HasPrefix(target, "#") {
				continue
			}
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s: link %s points outside the repository", f, target)
				continue
			}
			path, _, _ := strings.Cut(target, "#")
			abs, _ := filepath.Abs(filepath.Join(filepath.Dir(f), path))
			if !strings.HasPrefix(abs, root+string(filepath.Separator)) {
				t.Errorf("%s: link %s leaves the repository", f, target)
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s: link %s names a missing file", f, target)
			}
		}
	}
}
