package harntest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/vm"
)

// ---- readable diffs ----

// Diff shows expected and actual values of a failed equality: both in
// their display form when short, otherwise laid out one element per line
// and compared line by line ("-" expected, "+" actual).
func Diff(expected, actual vm.Value) string {
	if e, a := short(expected), short(actual); !strings.Contains(e+a, "\n") && len(e)+len(a) < 80 {
		return fmt.Sprintf("expected: %s\n  actual: %s", e, a)
	}
	e, a := pretty(expected, ""), pretty(actual, "")
	return "--- expected\n+++ actual\n" + lineDiff(strings.Split(e, "\n"), strings.Split(a, "\n"))
}

// short is a value's display form, strings quoted.
func short(v vm.Value) string {
	if s, ok := v.AsString(); ok {
		return quote(s.Go())
	}
	if !v.IsValid() {
		return "nil"
	}
	return vm.ToDisplay(v)
}

// quote is s in double quotes, with JSON's escapes for quotes, backslashes
// and control characters but not its HTML escapes: `"a < b & c"` reads
// as written, not as `"a \u003c b \u0026 c"`.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// pretty renders a value for a diff: lists and dicts one element per
// line (keys sorted, as Harn displays them), strings quoted, multi-line
// strings one line per line.
func pretty(v vm.Value, ind string) string {
	switch x := v.Object().(type) {
	case *vm.List:
		if x.Len() == 0 {
			return "[]"
		}
		var b strings.Builder
		b.WriteString("[\n")
		for _, it := range x.Items() {
			b.WriteString(ind + "  " + pretty(it, ind+"  ") + ",\n")
		}
		b.WriteString(ind + "]")
		return b.String()
	case *vm.Dict:
		if x.Len() == 0 {
			return "{}"
		}
		keys := x.Keys()
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range keys {
			val, _ := x.Get(k)
			b.WriteString(ind + "  " + k + ": " + pretty(val, ind+"  ") + ",\n")
		}
		b.WriteString(ind + "}")
		return b.String()
	}
	if !v.IsValid() {
		return "nil"
	}
	if s, ok := v.AsString(); ok {
		text := s.Go()
		if strings.Contains(text, "\n") {
			return `"""` + "\n" + ind + strings.ReplaceAll(text, "\n", "\n"+ind) + "\n" + ind + `"""`
		}
		return quote(text)
	}
	return vm.ToDisplay(v)
}

// lineDiff is a longest-common-subsequence diff of two line lists.
func lineDiff(a, b []string) string {
	const limit = 2000
	if len(a) > limit || len(b) > limit {
		return "- " + strings.Join(a, "\n- ") + "\n+ " + strings.Join(b, "\n+ ") + "\n"
	}
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + a[i] + "\n")
			i++
		default:
			out.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}

// ---- reports ----

// Summary counts a run's results.
type Summary struct {
	Passed, Failed int
	Duration       time.Duration
}

// Summarize counts results.
func Summarize(results []Result, total time.Duration) Summary {
	s := Summary{Duration: total}
	for _, r := range results {
		if r.Status == Pass {
			s.Passed++
		} else {
			s.Failed++
		}
	}
	return s
}

// WriteText prints one line per test, the details of each failure (its
// message, location, diff and output) and a summary line.
func WriteText(w io.Writer, results []Result, sum Summary) {
	for _, r := range results {
		status := "ok  "
		if r.Status == Fail {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%s %s (%s)\n", status, r.Test.ID(), ms(r.Duration))
		if r.Status == Pass {
			continue
		}
		// a message of several lines (a multi-line string in assert_eq)
		// stays inside the failure's indented block
		fmt.Fprintf(w, "%s\n", indentLines(r.Message, "    "))
		if r.Location != "" {
			fmt.Fprintf(w, "    at %s\n", r.Location)
		}
		if r.Diff != "" {
			fmt.Fprintf(w, "%s\n", indentLines(r.Diff, "    "))
		}
		if out := strings.TrimRight(r.Output, "\n"); out != "" {
			fmt.Fprintf(w, "    output:\n%s\n", indentLines(out, "      "))
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed (%s)\n", sum.Passed, sum.Failed, ms(sum.Duration))
}

func indentLines(s, ind string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = ind + l
	}
	return strings.Join(lines, "\n")
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}

// jsonResult is one test in the --json document.
type jsonResult struct {
	File       string  `json:"file"`
	Name       string  `json:"name"`
	Status     Status  `json:"status"`
	DurationMs float64 `json:"duration_ms"`
	Message    string  `json:"message,omitempty"`
	Location   string  `json:"location,omitempty"`
	Diff       string  `json:"diff,omitempty"`
	Output     string  `json:"output,omitempty"`
}

// WriteJSON writes {"tests": […], "passed": N, "failed": N, "duration_ms": D}.
func WriteJSON(w io.Writer, results []Result, sum Summary) error {
	doc := struct {
		Tests      []jsonResult `json:"tests"`
		Passed     int          `json:"passed"`
		Failed     int          `json:"failed"`
		DurationMs float64      `json:"duration_ms"`
	}{Tests: []jsonResult{}, Passed: sum.Passed, Failed: sum.Failed, DurationMs: msf(sum.Duration)}
	for _, r := range results {
		doc.Tests = append(doc.Tests, jsonResult{File: r.Test.File, Name: r.Test.Name, Status: r.Status,
			DurationMs: msf(r.Duration), Message: r.Message, Location: r.Location, Diff: r.Diff, Output: r.Output})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // a message's `<` stays `<`, as in the text report
	return enc.Encode(doc)
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// JUnit XML, the schema CI systems read: one testsuite per file.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes JUnit XML.
func WriteJUnit(w io.Writer, results []Result, sum Summary) error {
	doc := junitSuites{Tests: len(results), Failures: sum.Failed, Time: secs(sum.Duration)}
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.Test.File]
		if !ok {
			i = len(doc.Suites)
			index[r.Test.File] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: r.Test.File})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: r.Test.Name, Classname: r.Test.File, Time: secs(r.Duration), SystemOut: r.Output}
		if r.Status == Fail {
			text := r.Message
			if r.Location != "" {
				text += "\nat " + r.Location
			}
			if r.Diff != "" {
				text += "\n" + r.Diff
			}
			c.Failure = &junitFailure{Message: r.Message, Type: "failure", Text: text}
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for i := range doc.Suites {
		var d time.Duration
		for _, r := range results {
			if r.Test.File == doc.Suites[i].Name {
				d += r.Duration
			}
		}
		doc.Suites[i].Time = secs(d)
	}
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
