package lint_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/lint"
)

// The fix corpus (testdata/fixcorpus) holds small programs with side
// effects a wrong fix would lose or change: initialisers that print,
// defaults of patterns, module loads, function values that print their
// parameter names. Modules they import live in testdata/fixcorpus/lib.
const fixCorpus = "testdata/fixcorpus"

// runOutput runs a program and returns what it printed, with the run's
// error (if any) as a last line, so a fix that makes a program fail, or
// stop failing, shows up too.
func runOutput(path string) string {
	var out strings.Builder
	r := interp.RunProgram(path, nil, interp.Options{Stdout: &out, Stderr: &strings.Builder{}})
	if r.Err != nil {
		out.WriteString("error\n")
	}
	return out.String()
}

// fixableRules returns the ids of the rules with a fixable finding in src.
func fixableRules(t *testing.T, path, src string, into map[string]bool) {
	t.Helper()
	f, info, err := analyzer(path)([]byte(src))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, fd := range lint.File(f, info, lint.Options{}) {
		if fd.HasFix() {
			into[fd.Rule.ID] = true
		}
	}
}

// checkFixKeepsOutput runs the program at path, fixes it with every rule,
// runs the fixed version beside it (so relative imports still resolve)
// and fails when the two print different things. It returns the number
// of fixes applied.
func checkFixKeepsOutput(t *testing.T, path string) int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := runOutput(path)
	fixedPath := strings.TrimSuffix(path, ".harn") + "_fixed.harn"
	out, n, err := lint.Fix(fixedPath, src, analyzer(fixedPath), lint.Options{})
	if err != nil {
		t.Fatalf("%s: fix: %v", path, err)
	}
	if err := os.WriteFile(fixedPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if after := runOutput(fixedPath); after != before {
		t.Errorf("%s: %d fixes change the output\n--- before\n%s--- after\n%s--- fixed program\n%s", filepath.Base(path), n, before, after, out)
	}
	return n
}

// TestFixesKeepOutput: for every program of the corpus, and every
// program of the rule table, harn lint --fix must not change what the
// program prints. Every rule that offers a fix anywhere in the rule table
// must have its fix applied somewhere in the corpus, so a new fixable rule
// needs a corpus program.
func TestFixesKeepOutput(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixCorpus)); err != nil {
		t.Fatal(err)
	}
	programs, err := filepath.Glob(filepath.Join(dir, "*.harn"))
	if err != nil || len(programs) == 0 {
		t.Fatalf("no corpus programs: %v", err)
	}
	covered := map[string]bool{}
	for _, p := range programs {
		src, _ := os.ReadFile(p)
		fixableRules(t, p, string(src), covered)
		if n := checkFixKeepsOutput(t, p); n == 0 {
			t.Errorf("%s: nothing to fix; a corpus program should exercise a fix", filepath.Base(p))
		}
	}

	fixable := map[string]bool{}
	tableDir := t.TempDir()
	os.WriteFile(filepath.Join(tableDir, "lib.harn"), []byte("pub fn one() { return 1 }\npub fn two() { return 2 }\npub fn three() { return 3 }\n"), 0o644)
	for i, c := range ruleCases {
		p := filepath.Join(tableDir, c.rule+"_"+string(rune('a'+i))+".harn")
		os.WriteFile(p, []byte(c.fires), 0o644)
		fixableRules(t, p, c.fires, fixable)
		checkFixKeepsOutput(t, p)
	}
	var missing []string
	for id := range fixable {
		if !covered[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("fixable rules no corpus program exercises: %s", strings.Join(missing, ", "))
	}
	if len(fixable) == 0 {
		t.Error("the rule table has no fixable finding")
	}
}
