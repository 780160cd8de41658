//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/conformance"
	"github.com/harnlang/harn/harntest"
	"github.com/harnlang/harn/stdlib"
)

const testHelp = `Usage: harn test [PATH...] [--filter PAT] [--json] [--junit FILE] [--timeout DUR]
       harn test conformance [DIR] [--filter PAT]

Run the test functions of test files (docs/test.md): top-level functions
without required parameters and pipelines named test_* (or marked @test),
in *_test.harn files and in .harn files under tests/ directories. PATH is a file or a
directory to search (default: the current directory), or FILE::NAME, the
id the reports print, for one test of FILE. Each test runs in a
fresh session; assert, assert_eq and assert_ne fail it, and a failed
assert_eq shows expected and actual values side by side or as a line diff.

  --filter PAT    run only tests whose FILE::NAME contains PAT
  --json          print results as JSON on stdout instead of text
  --junit FILE    also write JUnit XML to FILE (for CI)
  --timeout DUR   fail a test that runs longer (default 60s)
  --              end of options: every argument after it is a PATH

harn test conformance runs the .harn conformance suite instead.
Exit status: 0 when every test passes, 1 when one fails, 2 on bad usage.
`

// cmdTest is `harn test`: users' tests, or the conformance suite.
func cmdTest(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "conformance" {
		return cmdTestConformance(args[1:], stdout, stderr)
	}
	var paths []string
	var opts harntest.Options
	asJSON, junit := false, ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // the rest are paths, even one such as -x.harn
			paths = append(paths, args[i+1:]...)
			break
		}
		value := func() (string, bool) {
			v, last, err := flagValue(args, i)
			if err != nil {
				fmt.Fprintf(stderr, "error: %v\n\n%s", err, testHelp)
				return "", false
			}
			i = last
			return v, true
		}
		name := a
		if k := strings.IndexByte(a, '='); k >= 0 && strings.HasPrefix(a, "--") {
			name = a[:k]
		}
		switch name {
		case "-h", "--help":
			fmt.Fprint(stdout, testHelp)
			return 0
		case "--json":
			asJSON = true
		case "--filter":
			v, ok := value()
			if !ok {
				return 2
			}
			opts.Filter = v
		case "--junit":
			v, ok := value()
			if !ok {
				return 2
			}
			junit = v
		case "--timeout":
			v, ok := value()
			if !ok {
				return 2
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				fmt.Fprintf(stderr, "error: --timeout: %q is not a duration such as 30s\n", v)
				return 2
			}
			opts.Timeout = d
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--filter", "--json", "--junit", "--timeout", "--help"), testHelp)
				return 2
			}
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	status := 0
	found := paths[:0:0]
	// FILE::NAME (a test's id, as reports show it) runs that test of FILE;
	// a FILE named whole as well runs all of its tests
	picked := map[string][]string{} // file -> the names picked
	whole := map[string]bool{}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			whole[p] = true
		}
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			file, name, ok := splitTestID(p)
			if !ok {
				fmt.Fprintf(stderr, "error: cannot read %s: %s\n", p, stdlib.OSErrorText(err))
				status = 1
				continue
			}
			if whole[file] {
				continue
			}
			if _, ok := picked[file]; !ok {
				found = append(found, file)
			}
			picked[file] = append(picked[file], name)
			continue
		}
		found = append(found, p)
	}
	if len(found) == 0 {
		return status
	}
	// The report file is created before the tests run, so that a path
	// it cannot be written to fails at once, not after the whole run.
	var junitFile *os.File
	if junit != "" {
		f, err := os.Create(junit)
		if err != nil {
			fmt.Fprintf(stderr, "error: cannot write %s: %s\n", junit, stdlib.OSErrorText(err))
			return 1
		}
		defer f.Close()
		junitFile = f
	}
	tests, errs := harntest.Discover(found, opts.Filter)
	if len(picked) > 0 {
		var kept []harntest.Test
		have := map[string]bool{}
		for _, t := range tests {
			if names, ok := picked[t.File]; !ok || slices.Contains(names, t.Name) {
				kept = append(kept, t)
				have[t.ID()] = true
			}
		}
		tests = kept
		for file, names := range picked {
			for _, name := range names {
				if _, broken := errs[file]; !broken && !have[file+"::"+name] && opts.Filter == "" {
					fmt.Fprintf(stderr, "error: %s has no test named %s\n", file, name)
					status = 1
				}
			}
		}
	}
	// A test file that cannot be read, parsed or checked is a failure of its own,
	// reported first (its caret error on stderr in text mode).
	var results []harntest.Result
	var broken []string
	for f := range errs {
		broken = append(broken, f)
	}
	sort.Strings(broken)
	for _, f := range broken {
		if !asJSON {
			io.WriteString(stderr, harntest.Render(errs[f]))
		}
		results = append(results, harntest.FileFailure(f, errs[f]))
	}
	start := time.Now()
	for _, t := range tests {
		results = append(results, harntest.Run(t, opts))
	}
	sum := harntest.Summarize(results, time.Since(start))
	if asJSON {
		harntest.WriteJSON(stdout, results, sum)
	} else if len(results) == 0 {
		fmt.Fprintln(stdout, "no tests found")
	} else {
		harntest.WriteText(stdout, results, sum)
	}
	if junitFile != nil {
		err := harntest.WriteJUnit(junitFile, results, sum)
		if cerr := junitFile.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "error: writing %s: %v\n", junit, err)
			return 1
		}
	}
	if sum.Failed > 0 {
		status = 1
	}
	return status
}

// splitTestID reads FILE::NAME, a test's id, where FILE is a file that
// exists and NAME a name (letters, digits, underscores).
func splitTestID(arg string) (file, name string, ok bool) {
	i := strings.LastIndex(arg, "::")
	if i <= 0 {
		return "", "", false
	}
	file, name = arg[:i], arg[i+2:]
	if name == "" || !harntest.FilterCouldMatch("", name) {
		return "", "", false
	}
	if info, err := os.Stat(file); err != nil || info.IsDir() {
		return "", "", false
	}
	return file, name, true
}

// cmdTestConformance is `harn test conformance [DIR] [--filter PAT]`.
func cmdTestConformance(rest []string, stdout, stderr io.Writer) int {
	dir, filter, dirSet := "conformance", "", false
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, commandHelp["test conformance"])
			return 0
		case a == "--filter" || strings.HasPrefix(a, "--filter="):
			v, last, err := flagValue(rest, i)
			if err != nil {
				fmt.Fprintf(stderr, "error: %v\n\n%s", err, commandHelp["test conformance"])
				return 2
			}
			filter, i = v, last
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "error: %s (harn test conformance takes only --filter)\n\n%s", unknownOption(a, "--filter", "--help"), commandHelp["test conformance"])
			return 2
		case dirSet:
			fmt.Fprintf(stderr, "error: unexpected argument %s (harn test conformance takes one DIR)\n\n%s", a, commandHelp["test conformance"])
			return 2
		default:
			dir, dirSet = a, true
		}
	}
	if _, err := os.Stat(dir); err != nil {
		fmt.Fprintf(stderr, "error: cannot read %s: %s\n", dir, stdlib.OSErrorText(err))
		return 1
	}
	_, failed, err := conformance.RunDir(dir, filter, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	if failed > 0 {
		return 1
	}
	return 0
}
