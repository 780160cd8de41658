package format

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/conformance"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/syntax"
)

// source is one program of the corpus.
type source struct {
	name string
	data []byte
}

// harnFence is a ```harn code block of a Markdown page.
var harnFence = regexp.MustCompile("(?s)```harn\n(.*?)```")

// corpus lists the .harn files of the repository's conformance suite,
// examples, test data and embedded std/ modules, and the ```harn blocks
// of docs/.
func corpus(t *testing.T) []source {
	t.Helper()
	var out []source
	for _, dir := range []string{"../../conformance", "../../examples", "../../testdata", "../../stdlib/std", "../../docs"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			switch filepath.Ext(path) {
			case ".harn":
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, source{path, data})
			case ".md":
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for i, m := range harnFence.FindAllSubmatch(data, -1) {
					out = append(out, source{fmt.Sprintf("%s#%d", path, i+1), m[1]})
				}
			}
			return nil
		})
	}
	if len(out) < 5000 {
		t.Fatalf("found only %d programs", len(out))
	}
	return out
}

// narrowWidth is a second line width the corpus is formatted at: it
// breaks most lines, reaching with short programs the layouts long lines
// get at the real width.
const narrowWidth = 40

// TestCorpus round-trips every program of the corpus that parses: the
// formatted text parses to the same tree (Source checks that and the
// comments), every comment of the original is in it in order, formatting
// it again changes nothing, the layout does not depend on the original's
// indentation, and at a narrow width the same holds. No program the
// parser accepts may be refused. Every commentedEvery-th program is also
// round-tripped with a comment ending each line, and with a /* */
// comment after each token.
func TestCorpus(t *testing.T) {
	formatted, changed, commented := 0, 0, 0
	for i, s := range corpus(t) {
		if _, err := syntax.Parse(s.name, s.data); err != nil {
			continue // a parse-error test
		}
		if i%commentedEvery == 0 {
			for _, v := range [][]byte{lineComments(s.data), blockComments(s.data)} {
				if _, err := syntax.Parse(s.name, v); err == nil {
					roundTrip(t, s.name+" (commented)", v, 100)
					commented++
				}
			}
		}
		for _, w := range []int{100, narrowWidth} {
			out, ok := roundTrip(t, s.name, s.data, w)
			if !ok || w != 100 {
				continue
			}
			if !bytes.Equal(out, s.data) {
				changed++
			}
			if again, err := Source(s.name, deindent(s.data)); err != nil || !bytes.Equal(again, out) {
				t.Errorf("%s: the layout depends on the original's indentation (%v):\n%s", s.name, err, firstDifference(out, again))
			}
		}
		formatted++
	}
	t.Logf("formatted %d programs (also at width %d), %d changed at width 100; %d commented variants", formatted, narrowWidth, changed, commented)
}

// roundTrip formats src and checks the result; it reports the output and
// whether the checks passed.
func roundTrip(t *testing.T, name string, src []byte, w int) ([]byte, bool) {
	t.Helper()
	opts := Options{Width: w}
	out, err := opts.Source(name, src)
	if err != nil {
		t.Errorf("width %d: %v", w, err)
		return nil, false
	}
	if lost := missingComments(src, out); lost != "" {
		t.Errorf("%s (width %d): comments lost: %s", name, w, lost)
		return nil, false
	}
	again, err := opts.Source(name, out)
	if err != nil {
		t.Errorf("%s (width %d): formatting the output: %v", name, w, err)
		return nil, false
	}
	if !bytes.Equal(out, again) {
		t.Errorf("%s (width %d): not idempotent:\n%s", name, w, firstDifference(out, again))
		return nil, false
	}
	return out, true
}

// missingComments lists the comment lines of src not found in out, in
// order (independently of Source's own check, by text).
func missingComments(src, out []byte) string {
	toks, err := syntax.Scan("", src)
	if err != nil {
		return ""
	}
	rest := string(out)
	var lost []string
	for _, tok := range toks {
		if tok.Kind != syntax.TokComment && tok.Kind != syntax.TokDoc {
			continue
		}
		for _, l := range strings.Split(tok.Text, "\n") {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			i := strings.Index(rest, l)
			if i < 0 {
				lost = append(lost, l)
				continue
			}
			rest = rest[i+len(l):]
		}
	}
	return strings.Join(lost, " | ")
}

// deindent removes the indentation of every line that does not start
// inside a token (a multi-line string or comment keeps its lines).
func deindent(src []byte) []byte {
	toks, err := syntax.Scan("", src)
	if err != nil {
		return src
	}
	inside := map[int]bool{}
	for _, tok := range toks {
		for l := tok.Pos.Line + 1; l <= tok.End().Line; l++ {
			inside[l] = true
		}
	}
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		if !inside[i+1] {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// commentedEvery picks the programs TestCorpus also formats with comments
// added (every one takes twice as long as the rest of the test).
const commentedEvery = 4

// lineComments adds a line comment to every line that ends outside a
// token and has none.
func lineComments(src []byte) []byte {
	toks, err := syntax.Scan("", src)
	if err != nil {
		return src
	}
	skip := map[int]bool{}
	for _, tok := range toks {
		for l := tok.Pos.Line; l < tok.End().Line; l++ {
			skip[l] = true // a line ending inside the token
		}
		if tok.Kind == syntax.TokComment || tok.Kind == syntax.TokDoc {
			skip[tok.End().Line] = true
		}
	}
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if !skip[i+1] && trimmed != "" && !strings.HasSuffix(trimmed, "\\") && !strings.HasPrefix(l, "#!") {
			lines[i] = fmt.Sprintf("%s // c%d", l, i+1)
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// blockComments puts a /* */ comment after every token but comments.
func blockComments(src []byte) []byte {
	toks, err := syntax.Scan("", src)
	if err != nil {
		return src
	}
	lines := strings.Split(string(src), "\n")
	for i := len(toks) - 1; i >= 0; i-- { // from the end: positions stay valid
		tok := toks[i]
		if tok.Kind == syntax.TokComment || tok.Kind == syntax.TokDoc || tok.Kind == syntax.TokNewline || tok.Kind == syntax.TokEOF {
			continue
		}
		end := tok.End()
		if end.Line > len(lines) {
			continue
		}
		r := []rune(lines[end.Line-1])
		if c := end.Col - 1; c >= 0 && c <= len(r) {
			lines[end.Line-1] = string(r[:c]) + " /* b */ " + string(r[c:])
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			lo := max(0, i-2)
			return fmt.Sprintf("--- first, from line %d\n%s\n--- second\n%s", lo+1,
				strings.Join(al[lo:min(len(al), i+3)], "\n"), strings.Join(bl[lo:min(len(bl), i+3)], "\n"))
		}
	}
	return fmt.Sprintf("%d vs %d lines", len(al), len(bl))
}

// positional matches text that quotes source positions, which formatting
// legitimately moves.
var positional = regexp.MustCompile(`\.harn:\d+(:\d+)?|\d+:\d+|\(line \d+\)|lines? \d+|at L\d+`)

// TestFormattedConformance formats a copy of the conformance suite and
// runs the tests formatting can have changed: those whose file changed,
// and every test of an area (a directory of the suite) where a changed
// file is not a test (a module they may import); the others run the very
// same files as the suite itself. Each passes as before; a test whose
// expected text quotes a line or column, which formatting moves, is
// instead run beside the original and both outputs compared with
// positions masked.
func TestFormattedConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite")
	}
	root := "../../conformance"
	origRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	changed := map[string]bool{}  // formatted test files, by path in tmp
	libAreas := map[string]bool{} // areas holding a changed non-test file
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
			if out, err := Source(path, data); err == nil && !bytes.Equal(out, data) {
				if isTest(path) {
					changed[dst] = true
				} else {
					libAreas[area(rel)] = true
				}
				data = out
			}
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	all, err := conformance.Find(tmp, "")
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, path := range all {
		if rel, _ := filepath.Rel(tmp, path); changed[path] || libAreas[area(rel)] {
			tests = append(tests, path)
		}
	}
	failures := make([]string, len(tests))
	movedOK := make([]bool, len(tests))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				failures[i], movedOK[i] = checkFormattedTest(tests[i], tmp, origRoot)
			}
		}()
	}
	for i := range tests {
		next <- i
	}
	close(next)
	wg.Wait()
	moved := 0
	for i, f := range failures {
		if f != "" {
			t.Error(f)
		}
		if movedOK[i] {
			moved++
		}
	}
	t.Logf("%d of %d tests affected by formatting; %d of them print positions that moved and otherwise match",
		len(tests), len(all), moved)
}

// checkFormattedTest runs one formatted test and describes how it fails
// ("" when it does not); moved reports a pass by the masked comparison.
func checkFormattedTest(path, tmp, origRoot string) (failure string, moved bool) {
	r := conformance.Run(path)
	if r.Pass {
		return "", false
	}
	rel, _ := filepath.Rel(tmp, path)
	if !quotesPositions(path) {
		return fmt.Sprintf("formatted %s fails:\n%s", rel, r.Detail), false
	}
	if a, b := maskedRun(origRoot, rel), maskedRun(tmp, rel); a != b {
		return fmt.Sprintf("formatted %s behaves differently:\n--- original\n%s\n--- formatted\n%s", rel, a, b), false
	}
	return "", true
}

// area is the first directory of a path relative to the suite.
func area(rel string) string {
	return strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
}

func isTest(path string) bool {
	base := strings.TrimSuffix(path, ".harn")
	for _, ext := range []string{".expected", ".error"} {
		if _, err := os.Stat(base + ext); err == nil {
			return true
		}
	}
	return false
}

func quotesPositions(test string) bool {
	base := strings.TrimSuffix(test, ".harn")
	want, _ := os.ReadFile(base + ".expected")
	if want == nil {
		want, _ = os.ReadFile(base + ".error")
	}
	return positional.Match(want)
}

// maskedRun runs the program rel of the suite copy at root and returns
// its stdout and error text with source positions and root masked.
func maskedRun(root, rel string) string {
	r := interp.RunProgram(filepath.Join(root, rel), nil, interp.Options{Stderr: new(bytes.Buffer)})
	out := string(r.Stdout)
	if r.Err != nil {
		out += "\nerror: " + interp.GoldenText(r.Err)
	}
	return positional.ReplaceAllString(strings.ReplaceAll(out, root, "<root>"), "<pos>")
}
