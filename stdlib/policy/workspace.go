package policy

// Writes outside the workspace (docs/policy.md, "Workspace"): the targets
// of output redirections (`>`, `>>`), `tee` and the last operand of
// `cp`/`mv`/`install`/`ln`/`touch`/`mkdir` are resolved against the
// workspace (options.workspace, else the run's execution root); a target
// that leaves it is reported as rule outside_workspace (filesystem, medium).

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// writePatterns are the expressions writeTargets reads targets with,
// compiled on first use.
var writePatterns = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`(?:^|[^<>&0-9])\d?>>?\s*([^\s;&|<>()]+)`),
		regexp.MustCompile(`\btee\s+(?:-\S+\s+)*([^\s;&|<>()]+)`),
		regexp.MustCompile(`(?:^|[;&|(]\s*|\s)(?:cp|mv|install|ln|touch|mkdir)\s+([^;&|<>()]*)`),
	}
})

// writeTargets are the paths command writes to, as written.
func writeTargets(command string) []string {
	var out []string
	re := writePatterns()
	redirectRe, teeRe, copyRe := re[0], re[1], re[2]
	for _, m := range redirectRe.FindAllStringSubmatch(command, -1) {
		out = append(out, m[1])
	}
	for _, m := range teeRe.FindAllStringSubmatch(command, -1) {
		out = append(out, m[1])
	}
	for _, m := range copyRe.FindAllStringSubmatch(command, -1) {
		fields := strings.Fields(m[1])
		var ops []string
		for _, f := range fields {
			if !strings.HasPrefix(f, "-") {
				ops = append(ops, f)
			}
		}
		if len(ops) > 0 {
			out = append(out, ops[len(ops)-1])
		}
	}
	return out
}

// outside reports the first write target of command that is outside
// workspace (an absolute, cleaned path), or "".
func outside(command, workspace string) string {
	ws := path.Clean(workspace)
	for _, t := range writeTargets(command) {
		t = strings.Trim(t, `"'`)
		if t == "" || t == "/dev/null" || t == "/dev/stdout" || t == "/dev/stderr" || strings.HasPrefix(t, "$") && !strings.HasPrefix(t, "$HOME") {
			continue
		}
		var abs string
		switch {
		case strings.HasPrefix(t, "~") || strings.HasPrefix(t, "$HOME"):
			return t
		case strings.HasPrefix(t, "/"):
			abs = path.Clean(t)
		default:
			abs = path.Join(ws, t)
		}
		if abs != ws && !strings.HasPrefix(abs, strings.TrimSuffix(ws, "/")+"/") {
			return t
		}
	}
	return ""
}
