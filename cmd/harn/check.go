package main

import (
	"fmt"
	"io"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
)

// cmdCheck is `harn check FILE...`: parse, resolve, type-check and compile
// each file and the modules it imports without running anything. Every
// diagnostic goes to stderr; the exit status is 1 when any file has an
// error (warnings alone exit 0).
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "error: harn check needs at least one FILE\n\n"+commandHelp["check"])
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, commandHelp["check"])
		return 0
	}
	status := 0
	for _, path := range args {
		s := interp.NewSession(interp.Options{Stderr: stderr})
		diags, err := s.CheckFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "error: cannot read %s: %v\n", path, err)
			status = 1
			continue
		}
		// Every error, and warnings up to interp.MaxWarnings.
		warnings := 0
		for _, d := range diags {
			if d.Severity == diag.SevError {
				status = 1
			} else if warnings++; warnings > interp.MaxWarnings {
				continue
			}
			io.WriteString(stderr, s.RenderDiagnostic(d))
		}
		if warnings > interp.MaxWarnings {
			interp.WriteMoreWarnings(stderr, warnings-interp.MaxWarnings)
		}
	}
	return status
}
