package secrets

// secret_scan (docs/spec/builtins.md §5, Safety/policy): the findings of the
// harn.secret_scan tool (docs/spec/orchestrator.md §5.2) as Harn values. The
// detectors, positions, redaction and fingerprints are internal/secretscan's,
// shared with the orchestrator, so a script and the MCP tool report the
// same findings for the same text. A finding never holds the matched text.

import (
	"os"
	"strings"

	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("secret_scan", "secret_scan(text: string)",
		"the credentials found in text, as harn.secret_scan reports them: a list of {detector, source, title, line, column_start, column_end, start_offset, end_offset, redacted, fingerprint}, sorted by position",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("secret_scan: missing argument 1")
			}
			s, ok := a.At(0).AsString()
			if !ok {
				return vm.Value{}, vm.Runtimef("secret_scan: expected string at argument 1, got %s", a.At(0).Type())
			}
			return vm.Of(Findings(secretscan.Scan(s.Go()))), nil
		})
	lib.Def("secret_get", "secret_get(name: string)",
		"the secret \"<provider>/<secret>\", read from the environment variable HARN_SECRET_<PROVIDER>_<SECRET> as the orchestrator reads trigger secrets; an unset one is an error naming the variable, never the value",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "secret_get"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
			}
			s, ok := a.At(0).AsString()
			if !ok {
				return vm.Value{}, vm.Runtimef("%s: expected string at argument 1, got %s", name, a.At(0).Type())
			}
			ref := s.Go()
			if provider, secret, ok := strings.Cut(ref, "/"); !ok || provider == "" || secret == "" {
				return vm.Value{}, vm.Throwf("%s: secret name must be \"<provider>/<secret>\", got %q", name, ref)
			}
			env := triggerspec.SecretEnv(ref)
			if v := os.Getenv(env); v != "" {
				return vm.Str(v), nil
			}
			return vm.Value{}, vm.Throwf("%s: secret %s is not set (environment variable %s)", name, ref, env)
		})
}

// Findings converts findings to the list secret_scan returns: one dict per
// finding with the JSON field names of the tool's output.
func Findings(fs []secretscan.Finding) *vm.List {
	out := make([]vm.Value, len(fs))
	for i, f := range fs {
		out[i] = vm.Of(lib.DictOf(
			"detector", vm.Str(f.Detector),
			"source", vm.Str(f.Source),
			"title", vm.Str(f.Title),
			"line", lib.IntOf(f.Line),
			"column_start", lib.IntOf(f.ColumnStart),
			"column_end", lib.IntOf(f.ColumnEnd),
			"start_offset", lib.IntOf(f.StartOffset),
			"end_offset", lib.IntOf(f.EndOffset),
			"redacted", vm.Str(f.Redacted),
			"fingerprint", vm.Str(f.Fingerprint),
		))
	}
	return lib.List(out)
}
