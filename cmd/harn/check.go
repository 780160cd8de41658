//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/stdlib"
)

// cmdCheck is `harn check FILE...`: parse, resolve, type-check and compile
// each file and the modules it imports without running anything. Every
// diagnostic goes to stderr; the exit status is 1 when any file has an
// error (warnings alone exit 0 unless HARN_WARNINGS=error makes them
// errors; HARN_WARNINGS=off drops them).
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, commandHelp["check"])
		return 0
	}
	for i, a := range args {
		if a == "--" { // the rest are paths, even one such as -x.harn
			args = append(args[:i:i], args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			// not a file that cannot be read: harn check has no options
			fmt.Fprintf(stderr, "error: unknown option %s\n\n%s", a, commandHelp["check"])
			return 2
		}
	}
	warnings, err := interp.ParseWarningMode(os.Getenv("HARN_WARNINGS"))
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	if len(args) == 0 {
		args = []string{"."} // the project in the working directory, as fmt and lint
	}
	var paths []string
	status, promoted := 0, 0
	for _, a := range args {
		files, ok := harnFilesOf(a, stderr)
		if !ok {
			status = 1
			continue
		}
		paths = append(paths, files...)
	}
	// A module several files import (or that is named itself) is
	// checked with each of them; its diagnostics are reported once.
	seen := map[string]bool{}
	for _, path := range paths {
		// Argv as `harn run` has it, so check and run agree on what is defined.
		s := interp.NewSession(interp.Options{Stderr: stderr, Argv: []string{}})
		diags, err := s.CheckFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "error: cannot read %s: %s\n", path, stdlib.OSErrorText(err))
			status = 1
			continue
		}
		var fresh diag.List
		for _, d := range diags {
			if key := s.RenderDiagnostic(d); !seen[key] {
				seen[key] = true
				fresh = append(fresh, d)
			}
		}
		shown, n := warnings.Apply(fresh)
		promoted += n
		if s.WriteDiagnostics(stderr, shown) {
			status = 1
		}
	}
	if promoted > 0 {
		io.WriteString(stderr, interp.PromotedText(promoted))
	}
	return status
}
