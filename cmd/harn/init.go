//go:build !harnlite

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/harnlang/harn/scaffold"
	"github.com/harnlang/harn/stdlib"
)

const initHelp = `Usage: harn init [DIR] [--template script|tool-server|library] [--name NAME]

Create a Harn project in DIR (default: the current directory; created when
missing): harn.toml, a main file, a test file and a README (docs/init.md).
Existing files are never overwritten.

  --template T   script (default): main.harn with fn main
                 tool-server: main.harn publishing a tool registry
                 library: lib.harn with pub functions
  --name NAME    the package name: letters, digits, _ and - (default: DIR's
                 base name, other characters replaced by _)
`

// cmdInit is `harn init`.
func cmdInit(args []string, stdout, stderr io.Writer) int {
	dir, template, name := ".", "script", ""
	dirSet, nameSet := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		key, _, _ := strings.Cut(a, "=")
		switch key {
		case "-h", "--help":
			fmt.Fprint(stdout, initHelp)
			return 0
		case "--template", "-t", "--name":
			val, last, err := flagValue(args, i)
			if err != nil {
				fmt.Fprintf(stderr, "error: %v\n\n%s", err, initHelp)
				return 2
			}
			i = last
			if key == "--name" {
				name, nameSet = val, true
			} else {
				template = val
			}
		default:
			if len(a) > 1 && a[0] == '-' {
				fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--template", "--name", "--help"), initHelp)
				return 2
			}
			if dirSet {
				fmt.Fprintf(stderr, "error: unexpected argument %s\n\n%s", a, initHelp)
				return 2
			}
			dir, dirSet = a, true
		}
	}
	if !slices.Contains(scaffold.Templates(), template) {
		fmt.Fprintf(stderr, "error: unknown template %q (templates: %s)\n\n%s", template, strings.Join(scaffold.Templates(), ", "), initHelp)
		return 2
	}
	if !nameSet {
		name = scaffold.ProjectName(dir)
	} else if err := scaffold.CheckName(name); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	files, err := scaffold.Create(dir, template, name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // a directory or file that cannot be made
			fmt.Fprintf(stderr, "error: cannot create %s: %s\n", pe.Path, stdlib.OSErrorText(pe.Err))
		} else {
			fmt.Fprintf(stderr, "error: %v\n", err)
		}
		return 1
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "created %s\n", f)
	}
	return 0
}
