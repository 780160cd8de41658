// Package conformance runs the .harn conformance suite: each NAME.harn is
// paired with NAME.expected (its trimmed stdout) or NAME.error (text that
// must appear in the error it fails with). `harn test conformance` and
// `go test ./conformance` both use this runner.
package conformance

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/vm"
)

// Timeout bounds one test's run.
var Timeout = 20 * time.Second

// Result is the outcome of one test.
type Result struct {
	Name   string // path of the .harn file
	Pass   bool
	Detail string // why it failed
}

// Find lists the tests under dir whose path contains filter (all when
// filter is empty), sorted.
func Find(dir, filter string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || filepath.Ext(p) != ".harn" {
			return nil
		}
		base := strings.TrimSuffix(p, ".harn")
		if !exists(base+".expected") && !exists(base+".error") {
			return nil
		}
		if filter != "" && !strings.Contains(p, filter) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out, err
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// RunDir runs every test under dir matching filter, writes failures and a
// final "N passed, N failed" line to w, and returns the counts.
func RunDir(dir, filter string, w io.Writer) (passed, failed int, err error) {
	tests, err := Find(dir, filter)
	if err != nil {
		return 0, 0, err
	}
	results := make([]Result, len(tests))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, t := range tests {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, t string) {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = Run(t)
		}(i, t)
	}
	wg.Wait()
	for _, r := range results {
		if r.Pass {
			passed++
			continue
		}
		failed++
		fmt.Fprintf(w, "FAIL %s\n%s\n", r.Name, indent(r.Detail))
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return passed, failed, nil
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// Run runs one test file.
func Run(path string) Result {
	base := strings.TrimSuffix(path, ".harn")
	res := Result{Name: path}
	var stderr bytes.Buffer
	done := make(chan interp.RunResult, 1)
	var machine *vm.VM
	var mu sync.Mutex
	go func() {
		done <- interp.RunProgram(path, nil, interp.Options{Stderr: &stderr, OnVM: func(v *vm.VM) {
			mu.Lock()
			machine = v
			mu.Unlock()
		}})
	}()
	var run interp.RunResult
	select {
	case run = <-done:
	case <-time.After(Timeout):
		mu.Lock()
		if machine != nil {
			machine.Interrupt()
		}
		mu.Unlock()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		res.Detail = fmt.Sprintf("timed out after %v", Timeout)
		return res
	}

	if want, err := os.ReadFile(base + ".error"); err == nil {
		msg := ""
		if run.Err != nil {
			msg = interp.GoldenText(run.Err)
		} else if run.ResultText != "" {
			msg = run.ResultText
		} else {
			res.Detail = "expected an error, but the program succeeded; stdout:\n" + string(run.Stdout)
			return res
		}
		if matchError(string(want), msg, stderr.String()) {
			res.Pass = true
			return res
		}
		res.Detail = fmt.Sprintf("error text mismatch\nwant: %s\ngot:  %s\nstderr:\n%s", strings.TrimSpace(string(want)), msg, stderr.String())
		return res
	}
	want, err := os.ReadFile(base + ".expected")
	if err != nil {
		res.Detail = err.Error()
		return res
	}
	if run.Err != nil {
		if e, ok := run.Err.(*vm.Error); !ok || e.Kind != vm.KindExit {
			res.Detail = "unexpected error:\n" + stderr.String()
			return res
		}
	}
	got := string(run.Stdout)
	if wantsWarnings(string(want)) {
		got = warningLines(stderr.String()) + got
	}
	if normalize(got) == normalize(string(want)) {
		res.Pass = true
		return res
	}
	res.Detail = fmt.Sprintf("stdout mismatch\n--- want\n%s\n--- got\n%s", normalize(string(want)), normalize(got))
	if stderr.Len() > 0 {
		res.Detail += "\n--- stderr\n" + stderr.String()
	}
	return res
}

var timerLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[timer\] (.*): \d+ms$`) })

// normalize applies the golden comparison rules (docs/spec/language.md §12.4):
// trailing whitespace removed, CR before LF ignored, timer values masked.
func normalize(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		lines[i] = timerLine().ReplaceAllString(l, "[timer] $1: <ms>")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \t\r\n")
}

// wantsWarnings reports whether an expected output lists checker warnings
// (upstream's golden files put them before stdout).
func wantsWarnings(want string) bool {
	for _, l := range strings.Split(want, "\n") {
		if strings.HasPrefix(l, "warning: ") {
			return true
		}
	}
	return false
}

// warningLines collects the warning lines of stderr in the golden form,
// "warning: msg": `harn` prints a coded warning as "warning[CODE]: msg"
// (docs/spec/newer.md §3.1), the golden files leave the code out.
func warningLines(stderr string) string {
	var sb strings.Builder
	for _, l := range strings.Split(stderr, "\n") {
		if msg := diag.TrimLabel(l); msg != l && strings.HasPrefix(l, "warning") {
			sb.WriteString("warning: " + msg)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// matchError checks an .error file: any non-empty line may match; a line
// starting with "re:" is a regular expression; others are substrings of
// the golden message or of the full diagnostic output.
func matchError(want, msg, stderr string) bool {
	for _, line := range strings.Split(want, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if pat, ok := strings.CutPrefix(line, "re:"); ok {
			re, err := regexp.Compile(strings.TrimSpace(pat))
			if err == nil && (re.MatchString(msg) || re.MatchString(stderr)) {
				return true
			}
			continue
		}
		line = strings.TrimSpace(line)
		if strings.Contains(msg, line) || strings.Contains(stderr, line) {
			return true
		}
	}
	return false
}
