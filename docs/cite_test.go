package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citedDoc is a Markdown file named in a comment (docs/spec/registry.md,
// docs/run.md, README.md).
var citedDoc = regexp.MustCompile(`[\w./-]*[\w-]+\.md\b`)

// pendingCiteDirs are trees the check skips while their citations are
// being rewritten; empty: the test covers the whole repository.
var pendingCiteDirs []string

// TestCommentsCiteRepoDocuments: every document a code comment cites is a
// file of the repository, named from the root or from the commenting
// file's directory, so a maintainer can follow it from a clone.
// Specification citations name the copies in docs/spec/ (docs/spec/language.md §3.1).
func TestCommentsCiteRepoDocuments(t *testing.T) {
	root, _ := filepath.Abs("..")
	out, err := exec.Command("git", "-C", root, "ls-files", "*.go", "*.harn", "*.ts", "*.js", "*.mjs").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	files := 0
	for _, rel := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(rel, "node_modules/") || pending(rel) {
			continue
		}
		files++
		for _, c := range commentCitations(t, filepath.Join(root, rel)) {
			if !exists(filepath.Join(root, c.doc)) && !exists(filepath.Join(root, filepath.Dir(rel), c.doc)) {
				t.Errorf("%s:%d: the comment cites %s, which is not in the repository (cite docs/spec/NAME.md or docs/NAME.md)", rel, c.line, c.doc)
			}
		}
	}
	if files < 100 {
		t.Fatalf("checked only %d files", files)
	}
}

func pending(rel string) bool {
	for _, d := range pendingCiteDirs {
		if strings.HasPrefix(rel, d) {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

type citation struct {
	line int
	doc  string
}

// lineComment finds a // that starts a line or follows white space (so
// not the one of a URL).
var lineComment = regexp.MustCompile(`(^|\s)//`)

// commentCitations lists the documents cited in the comments of a file:
// after a line comment's //, and on the lines of a /* */ block that
// starts its line (as cite-map.sh reads them).
func commentCitations(t *testing.T, path string) []citation {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []citation
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	inBlock := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		comment := ""
		switch {
		case inBlock:
			comment, inBlock = line, !strings.Contains(line, "*/")
		case strings.HasPrefix(strings.TrimSpace(line), "/*"):
			comment, inBlock = line, !strings.Contains(line, "*/")
		default:
			if loc := lineComment.FindStringIndex(line); loc != nil && !strings.HasPrefix(line[loc[1]:], " =>") {
				comment = line[loc[1]:] // "// =>" lines are printed output (builtindoc/examples)
			}
		}
		for _, doc := range citedDoc.FindAllString(comment, -1) {
			out = append(out, citation{n, doc})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
