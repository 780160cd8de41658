//go:build !harnlite

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/lint"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
)

const lintHelp = `Usage: harn lint [--fix] [--disable ID,...] [FILE|DIR|-]...
       harn lint --explain ID

Report code that runs but is probably not what was meant (docs/lint.md).
Directories are searched for .harn files; with no argument the current
directory is linted; "-" lints standard input (with --fix, the fixed
text is written to standard output). Each finding names its rule in
brackets.

  --fix           apply every safe fix, then format the file (harn fmt)
  --disable IDS   skip the rules with these comma-separated ids
  --explain ID    print what a rule checks and why, and its fix
  --              end of options: every argument after it is a path

A file with errors (harn check rejects it) is not linted; its errors are
printed.

Exit status: 0 when nothing is found, 1 when findings remain or a file has
errors, 2 on bad usage.
`

// cmdLint is `harn lint`.
func cmdLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fix := false
	var paths []string
	var opts lint.Options
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // the rest are paths, even one such as -x.harn
			paths = append(paths, args[i+1:]...)
			break
		}
		name, _, _ := strings.Cut(a, "=")
		switch {
		case a == "--fix":
			fix = true
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, lintHelp)
			return 0
		case name == "--explain" || name == "--disable":
			ids, last, err := flagValue(args, i)
			if err != nil {
				fmt.Fprintf(stderr, "error: %v\n\n%s", err, lintHelp)
				return 2
			}
			i = last
			if name == "--explain" {
				return explainRule(ids, stdout, stderr)
			}
			for _, id := range strings.Split(ids, ",") {
				r := lint.Lookup(id)
				if r == nil {
					fmt.Fprintf(stderr, "error: %s\n", unknownRule(id))
					return 2
				}
				opts.Disable = append(opts.Disable, r.ID)
			}
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--fix", "--disable", "--explain", "--help"), lintHelp)
			return 2
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	status, total, fixable := 0, 0, 0
	// A module several linted files import is analysed with each of
	// them; its errors are printed once, as harn check prints them.
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "-" { // the program on standard input, once
			if stdin == nil {
				continue
			}
			src, err := io.ReadAll(stdin)
			stdin = nil
			if err != nil {
				fmt.Fprintf(stderr, "error: reading standard input: %v\n", err)
				status = 1
				continue
			}
			n, nfix, ok := lintSource(stdinPath, src, fix, opts, seen, stdout, stderr)
			total += n
			fixable += nfix
			if !ok || n > 0 {
				status = 1
			}
			continue
		}
		files, ok := harnFilesOf(p, stderr)
		if !ok {
			status = 1
			continue
		}
		for _, path := range files {
			n, nfix, ok := lintFile(path, fix, opts, seen, stderr)
			total += n
			fixable += nfix
			if !ok || n > 0 {
				status = 1
			}
		}
	}
	if total > 0 {
		fmt.Fprintf(stderr, "%d %s", total, plural(total, "finding", "findings"))
		if fixable > 0 {
			fmt.Fprintf(stderr, " (%d fixable with harn lint --fix)", fixable)
		}
		fmt.Fprintln(stderr)
	}
	return status
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// unknownRule is the message for id, no rule's: the closest rule (`did
// you mean`), else the list of rules.
func unknownRule(id string) string {
	var ids []string
	for _, r := range lint.Rules {
		ids = append(ids, r.ID)
	}
	if hint := diag.DidYouMean(id, ids); hint != "" {
		return fmt.Sprintf("unknown rule %q%s", id, hint)
	}
	return fmt.Sprintf("unknown rule %q (rules: %s)", id, strings.Join(ids, ", "))
}

func explainRule(id string, stdout, stderr io.Writer) int {
	r := lint.Lookup(id)
	if r == nil {
		fmt.Fprintf(stderr, "error: %s\n", unknownRule(id))
		return 2
	}
	fmt.Fprintf(stdout, "%s: %s\n\n%s\n", r.ID, r.Summary, r.Explain)
	return 0
}

// lintAnalyzer analyses a version of path's source exactly as harn check
// does (imports loaded, Argv as harn run has it). A file with errors is
// not linted: the errors are returned, as a checkErrors. The diagnostics
// of the last analysis are left in *checked (lint turns the checker's
// lint warnings, HARN-LNT-063, into findings).
func lintAnalyzer(path string, checked *diag.List) lint.Analyzer {
	return func(src []byte) (*syntax.File, *resolve.Info, error) {
		s := interp.NewSession(interp.Options{Stderr: io.Discard, Argv: []string{}})
		m, diags := s.Analyze(path, src)
		*checked = diags
		for _, d := range diags {
			if d.Severity == diag.SevError {
				return nil, nil, checkErrors{s, diags}
			}
		}
		if m == nil {
			return nil, nil, diags
		}
		return m.Syntax, m.Info, nil
	}
}

// checkErrors are the diagnostics of a file harn check rejects; the
// session renders them (an error may be in an imported module).
type checkErrors struct {
	sess  *interp.Session
	diags diag.List
}

func (e checkErrors) Error() string { return e.diags.Error() }

// lintFile lints (and with fix, fixes) one file, printing findings. It
// returns the number of findings left and how many of them have a fix;
// ok is false when the file could not be read or parsed. A diagnostic
// already in seen is not printed again.
func lintFile(path string, fix bool, opts lint.Options, seen map[string]bool, stderr io.Writer) (n, fixable int, ok bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "error: cannot read %s: %s\n", path, stdlib.OSErrorText(err))
		return 0, 0, false
	}
	return lintSource(path, src, fix, opts, seen, nil, stderr)
}

// lintSource is lintFile for src, the text of path. With fix the fixed
// text is written to fixed, or over the file path when fixed is nil; on
// standard input (`harn lint --fix -`, fixed set) it is written whole, as
// `harn fmt -` writes, also when nothing changed, or when the source has
// errors, unchanged.
func lintSource(path string, src []byte, fix bool, opts lint.Options, seen map[string]bool, fixed, stderr io.Writer) (n, fixable int, ok bool) {
	var checked diag.List
	analyze := lintAnalyzer(path, &checked)
	if fix {
		out, nfixed, err := lint.Fix(path, src, analyze, opts)
		if err != nil {
			if fixed != nil {
				fixed.Write(src)
			}
			reportLintError(stderr, err, src, seen)
			return 0, 0, false
		}
		if fixed != nil {
			fixed.Write(out)
			if nfixed > 0 {
				fmt.Fprintf(stderr, "%s: fixed %d %s\n", path, nfixed, plural(nfixed, "finding", "findings"))
			}
		} else if !bytes.Equal(out, src) {
			if err := rewriteSource(path, out); err != nil {
				fmt.Fprintf(stderr, "error: cannot write %s: %v\n", path, err)
				return 0, 0, false
			}
			if nfixed > 0 {
				fmt.Fprintf(stderr, "%s: fixed %d %s\n", path, nfixed, plural(nfixed, "finding", "findings"))
			}
		}
		src = out
	}
	f, info, err := analyze(src)
	if err != nil {
		reportLintError(stderr, err, src, seen)
		return 0, 0, false
	}
	opts.Checked = checked
	for _, fd := range lint.File(f, info, opts) {
		d := &diag.Error{File: path, Line: fd.Pos.Line, Col: fd.Pos.Col, Severity: diag.SevWarning,
			Msg: fd.Msg + " [" + fd.Rule.ID + "]"}
		if fd.HasFix() {
			d.Help = "fix: " + fd.Fix + " (harn lint --fix)"
		}
		if text := diag.Render(d, src); !seen[text] { // a file named twice
			seen[text] = true
			io.WriteString(stderr, text)
			n++
			if fd.HasFix() {
				fixable++
			}
		}
	}
	return n, fixable, true
}

func reportLintError(stderr io.Writer, err error, src []byte, seen map[string]bool) {
	if e, ok := err.(checkErrors); ok {
		for _, d := range e.diags {
			if text := e.sess.RenderDiagnostic(d); d.Severity == diag.SevError && !seen[text] {
				seen[text] = true
				io.WriteString(stderr, text)
			}
		}
		return
	}
	if l, ok := err.(diag.List); ok {
		for _, d := range l {
			if text := diag.Render(d, src); d.Severity == diag.SevError && !seen[text] {
				seen[text] = true
				io.WriteString(stderr, text)
			}
		}
		return
	}
	reportFmtError(stderr, err, src)
}
