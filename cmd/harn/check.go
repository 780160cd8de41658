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
	for _, a := range args {
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
	for _, path := range paths {
		// Argv as `harn run` has it, so check and run agree on what is defined.
		s := interp.NewSession(interp.Options{Stderr: stderr, Argv: []string{}})
		diags, err := s.CheckFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "error: cannot read %s: %s\n", path, stdlib.OSErrorText(err))
			status = 1
			continue
		}
		shown, n := warnings.Apply(diags)
		promoted += n
		// Every error, and warnings up to interp.MaxWarnings.
		count := 0
		for _, d := range shown {
			if d.Severity == diag.SevError {
				status = 1
			} else if count++; count > interp.MaxWarnings {
				continue
			}
			io.WriteString(stderr, s.RenderDiagnostic(d))
		}
		if count > interp.MaxWarnings {
			interp.WriteMoreWarnings(stderr, count-interp.MaxWarnings)
		}
	}
	if promoted > 0 {
		io.WriteString(stderr, interp.PromotedText(promoted))
	}
	return status
}
