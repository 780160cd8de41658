package secrets

// secret_scan (docs/spec/builtins.md §5, Safety/policy): the findings of the
// harn.secret_scan tool (docs/spec/orchestrator.md §5.2) as Harn values. The
// detectors, positions, redaction and fingerprints are internal/secretscan's,
// shared with the orchestrator, so a script and the MCP tool report the
// same findings for the same text. A finding never holds the matched text.

import (
	"github.com/harnlang/harn/internal/secretscan"
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
