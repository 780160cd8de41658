//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pelletier/go-toml/v2"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/stdlib"
)

// cmdCheck is `harn check FILE...`: parse, resolve, type-check and compile
// each file and the modules it imports without running anything. Every
// diagnostic goes to stderr; the exit status is 1 when any file has an
// error (warnings alone exit 0 unless HARN_WARNINGS=error makes them
// errors; HARN_WARNINGS=off drops them).
func cmdCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, commandHelp["check"])
		return 0
	}
	strict := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // the rest are paths, even one such as -x.harn
			args = append(args[:i:i], args[i+1:]...)
			break
		}
		if a == "--strict-types" {
			strict = true
			args = append(args[:i:i], args[i+1:]...)
			i--
			continue
		}
		if len(a) > 1 && a[0] == '-' {
			// not a file that cannot be read: harn check has no options
			fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--strict-types", "--help"), commandHelp["check"])
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
		if a == "-" { // the program on standard input, once
			paths = append(paths, stdinPath)
			continue
		}
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
		fileStrict, err := manifestStrictTypes(path)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			status = 1
			continue
		}
		// Argv as `harn run` has it, so check and run agree on what is defined.
		s := interp.NewSession(interp.Options{Stderr: stderr, Argv: []string{}, StrictTypes: strict || fileStrict})
		var diags diag.List
		if path == stdinPath {
			if stdin == nil {
				continue // read already: a second `-` names the same program
			}
			var src []byte
			if src, err = io.ReadAll(stdin); err == nil {
				diags = s.CheckSource(path, src)
			}
			stdin = nil
		} else {
			diags, err = s.CheckFile(path)
		}
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

// manifestStrictTypes reads `strict_types` from the [check] table of the
// harn.toml nearest above path (docs/check.md, Strict types): false when
// there is none, an error naming the file when the key is not a bool.
func manifestStrictTypes(path string) (bool, error) {
	manifest := nearestManifest(path)
	if manifest == "" {
		return false, nil
	}
	data, err := os.ReadFile(manifest)
	if err != nil {
		return false, nil
	}
	var doc struct {
		Check map[string]any `toml:"check"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return false, nil // the manifest's own readers report its syntax
	}
	v, ok := doc.Check["strict_types"]
	if !ok {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s [check]: strict_types must be true or false, got %v", manifest, v)
	}
	return b, nil
}
