//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/harnlang/harn/tool/catalogdiff"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
)

const toolDiffHelp = `Usage: harn tool diff OLD NEW [--json] [--fail-on breaking|any]
                     [--surface script|exports|auto]

Compare two harn-tools/2.0 catalogs and classify every change as breaking
(a client or caller built for OLD can fail against NEW) or compatible,
with a JSON-pointer-like location and a one-line reason, then suggest a
semantic-version bump. OLD and NEW are catalog files (*.json) or Harn
modules, whose catalogs are built as 'harn tool schema --surface S' does
(default auto). The rules are listed in docs/tool-diff.md.

  --json             print the report as one JSON object
  --fail-on breaking exit 1 when a breaking change exists
  --fail-on any      exit 1 when any change exists

Exit status: 0, or 1 when --fail-on found a change of its class; 2 on a
usage error or when a catalog cannot be read.
`

func cmdToolDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var files []string
	asJSON := false
	failOn, surface := "", exports.SurfaceAuto
	usage := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "error: "+format+"\n\n%s", append(args, toolDiffHelp)...)
		return 2
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, _, _ := strings.Cut(arg, "=")
		switch {
		case arg == "--help" || arg == "-h":
			fmt.Fprint(stdout, toolDiffHelp)
			return 0
		case arg == "--json":
			asJSON = true
		case name == "--fail-on" || name == "--surface":
			value, last, err := flagValue(args, i)
			if err != nil {
				return usage("%v", err)
			}
			i = last
			if name == "--fail-on" {
				failOn = value
			} else {
				surface = value
			}
		case strings.HasPrefix(arg, "-") && arg != "-":
			return usage("%s", unknownOption(arg, "--json", "--fail-on", "--surface", "--help"))
		default:
			files = append(files, arg)
		}
	}
	if len(files) > 2 {
		return usage("unexpected argument %q", files[2])
	}
	if len(files) != 2 {
		return usage("harn tool diff needs OLD and NEW")
	}
	if failOn != "" && failOn != "breaking" && failOn != "any" {
		return usage("unsupported --fail-on %q (available: breaking, any)", failOn)
	}
	if !slices.Contains(schemaSurfaces, surface) {
		return usage("unsupported --surface %q (available: %s)", surface, strings.Join(schemaSurfaces, ", "))
	}
	old, err := catalogFrom(files[0], surface, stdin, stderr)
	if err != nil {
		return reportCatalogError(stderr, files[0], err)
	}
	new, err := catalogFrom(files[1], surface, stdin, stderr)
	if err != nil {
		return reportCatalogError(stderr, files[1], err)
	}
	r := catalogdiff.Diff(old, new)
	if asJSON {
		b, _ := marshalJSON(r, "")
		stdout.Write(append(b, '\n'))
	} else {
		writeDiffText(stdout, r)
	}
	switch {
	case failOn == "breaking" && r.Count(catalogdiff.Breaking) > 0, failOn == "any" && len(r.Changes) > 0:
		return 1
	}
	return 0
}

// writeDiffText prints one line per change, then the summary.
func writeDiffText(w io.Writer, r *catalogdiff.Report) {
	for _, c := range r.Changes {
		fmt.Fprintf(w, "%-10s %s: %s (%s)\n", c.Class, c.Path, c.Reason, c.Rule)
	}
	if len(r.Changes) == 0 {
		fmt.Fprintln(w, "no changes")
	}
	fmt.Fprintf(w, "%d breaking, %d compatible; suggested version bump: %s", r.Count(catalogdiff.Breaking), r.Count(catalogdiff.Compatible), r.Bump)
	if r.Suggested != "" && r.Suggested != r.OldVersion {
		fmt.Fprintf(w, " (%s → %s)", r.OldVersion, r.Suggested)
	}
	fmt.Fprintln(w)
}

// reportCatalogError prints why the catalog at path cannot be read, as
// `harn tool schema` would (a script's diagnostics with their source),
// naming the file once, and returns the exit status.
func reportCatalogError(stderr io.Writer, path string, err error) int {
	if le, ok := err.(*load.Error); ok && le.Rendered != "" {
		io.WriteString(stderr, le.Rendered)
		return 2
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, path+": ") && !strings.HasPrefix(msg, "cannot read "+path+": ") {
		msg = path + ": " + msg
	}
	fmt.Fprintf(stderr, "error: %s\n", msg)
	return 2
}
