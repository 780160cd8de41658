package policy

// self_review (docs/spec/builtins.md §5, Safety/policy, which gives only
// the name; the shape is this implementation's, docs/policy.md "Self
// review"): a deterministic review of a text or a unified diff before it
// leaves the agent — credentials (internal/secretscan, the detectors of
// secret_scan and harn.secret_scan), merge-conflict markers, TODO-style
// markers and high-risk shell commands (the command_risk_scan table) —
// ending in a verdict. For a diff only the added lines are reviewed.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// reviewChecks are the checks self_review runs, in report order.
var reviewChecks = []string{"secrets", "conflict_markers", "todo_markers", "risky_commands"}

var todoMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(TODO|FIXME|XXX|HACK)\b`) })

type reviewFinding struct {
	check, severity, message, rule string
	line                           int
}

// reviewedLines is the text self_review looks at, with each line's number
// in the subject: every line, or for a unified diff the added ones.
func reviewedLines(text string) (lines []string, numbers []int, diff bool) {
	all := strings.Split(text, "\n")
	diff = isUnifiedDiff(all)
	for i, l := range all {
		l = strings.TrimSuffix(l, "\r")
		if diff {
			if !strings.HasPrefix(l, "+") || strings.HasPrefix(l, "+++") {
				continue
			}
			l = l[1:]
		}
		lines = append(lines, l)
		numbers = append(numbers, i+1)
	}
	return lines, numbers, diff
}

func isUnifiedDiff(lines []string) bool {
	for i, l := range lines {
		if strings.HasPrefix(l, "@@ ") && i > 0 {
			return slices.ContainsFunc(lines[:i], func(s string) bool { return strings.HasPrefix(s, "+++ ") })
		}
	}
	return false
}

// review runs the checks over text. th, when not nil, may interrupt it
// between lines and between the rules of a line (a long text takes a
// while); the error is then th's.
func review(th *vm.Thread, text string, checks []string) ([]reviewFinding, int, bool, error) {
	lines, numbers, diff := reviewedLines(text)
	var out []reviewFinding
	on := func(c string) bool { return slices.Contains(checks, c) }
	if on("secrets") {
		for _, f := range secretscan.Scan(strings.Join(lines, "\n")) {
			out = append(out, reviewFinding{check: "secrets", severity: "block", rule: f.Detector, line: numbers[f.Line-1],
				message: fmt.Sprintf("%s (%s)", f.Title, f.Redacted)})
		}
	}
	for i, l := range lines {
		if th != nil {
			if err := th.CheckInterrupt(); err != nil {
				return nil, 0, false, err
			}
		}
		n := numbers[i]
		if on("conflict_markers") {
			if m := conflictMarker(l); m != "" {
				out = append(out, reviewFinding{check: "conflict_markers", severity: "block", rule: m, line: n, message: "merge conflict marker"})
			}
		}
		if on("todo_markers") {
			if m := todoMarker().FindString(l); m != "" {
				out = append(out, reviewFinding{check: "todo_markers", severity: "warn", rule: m, line: n, message: m + " marker left in"})
			}
		}
		if on("risky_commands") {
			risky, err := scanInterruptible(th, l)
			if err != nil {
				return nil, 0, false, err
			}
			for _, r := range risky {
				if r.level != "high" && r.level != "critical" {
					continue
				}
				sev := "warn"
				if r.level == "critical" {
					sev = "block"
				}
				out = append(out, reviewFinding{check: "risky_commands", severity: sev, rule: r.id, line: n, message: r.reason})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b reviewFinding) int { return a.line - b.line })
	return out, len(lines), diff, nil
}

// conflictMarker is the merge conflict marker line l is (`<<<<<<<`,
// `=======` or `>>>>>>>`, the finding's rule; docs/policy.md), or "".
func conflictMarker(l string) string {
	switch {
	case l == "<<<<<<<" || strings.HasPrefix(l, "<<<<<<< "):
		return "<<<<<<<"
	case l == "=======":
		return "======="
	case l == ">>>>>>>" || strings.HasPrefix(l, ">>>>>>> "):
		return ">>>>>>>"
	}
	return ""
}

// reviewSubject is the text of self_review's subject: a string, or an
// artifact's body (the first non-empty content, text, diff, patch,
// output or stdout of its data, as artifact_context renders it).
func reviewSubject(name string, v vm.Value) (string, error) {
	if s, ok := v.AsString(); ok {
		return s.Go(), nil
	}
	if d, ok := v.AsDict(); ok {
		if data, ok := d.Get("data"); ok {
			if dd, ok := data.AsDict(); ok {
				for _, k := range []string{"content", "text", "diff", "patch", "output", "stdout"} {
					if s, ok := dd.Get(k); ok {
						if t, ok := s.AsString(); ok && t.Go() != "" {
							return t.Go(), nil
						}
					}
				}
			}
		}
		return "", vm.Throwf("%s: the artifact has no text to review (data.content, text, diff, patch, output or stdout)", name)
	}
	return "", vm.Typef("%s: subject must be a string or an artifact, got %s", name, v.Type())
}

func init() {
	lib.Def("self_review", "self_review(subject: string | dict, options?: dict)",
		`review a text, a unified diff (its added lines) or an artifact's body: {verdict: "pass"|"warn"|"block", findings: [{check, severity, line, rule, message}], counts: {block, warn}, lines, diff}; checks: secrets and conflict markers block, TODO/FIXME/XXX/HACK markers warn, high-risk commands warn (critical ones block); options.checks picks a subset`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "self_review"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
			}
			text, err := reviewSubject(name, a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			opts, err := lib.OptionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			checks := reviewChecks
			if opts != nil {
				if err := lib.CheckOptions(name, opts, []string{"checks"}); err != nil {
					return vm.Value{}, err
				}
				if v, ok := opts.Get("checks"); ok && !v.IsNil() {
					l, ok := v.AsList()
					if !ok {
						return vm.Value{}, vm.Typef("%s: checks must be a list, got %s", name, v.Type())
					}
					checks = nil
					for _, c := range l.Items() {
						s, ok := c.AsString()
						if !ok || !slices.Contains(reviewChecks, s.Go()) {
							return vm.Value{}, vm.Throwf("%s: unknown check %s (expected %s)", name, lib.Display(c), strings.Join(reviewChecks, ", "))
						}
						checks = append(checks, s.Go())
					}
				}
			}
			found, lines, diff, err := review(th, text, checks)
			if err != nil {
				return vm.Value{}, err
			}
			counts := map[string]int{}
			items := make([]vm.Value, len(found))
			for i, f := range found {
				counts[f.severity]++
				rule := vm.Nil
				if f.rule != "" {
					rule = vm.Str(f.rule)
				}
				items[i] = vm.Of(lib.DictOf("check", vm.Str(f.check), "severity", vm.Str(f.severity), "line", lib.IntOf(f.line),
					"rule", rule, "message", vm.Str(f.message)))
			}
			verdict := "pass"
			if counts["block"] > 0 {
				verdict = "block"
			} else if counts["warn"] > 0 {
				verdict = "warn"
			}
			return vm.Of(lib.DictOf("verdict", vm.Str(verdict), "findings", lib.List(items),
				"counts", lib.DictOf("block", lib.IntOf(counts["block"]), "warn", lib.IntOf(counts["warn"])),
				"lines", lib.IntOf(lines), "diff", vm.BoolOf(diff))), nil
		})
}
