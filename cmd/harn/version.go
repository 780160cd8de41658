package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// buildDate is set at build time with -ldflags "-X main.buildDate=…"
// (the Makefile does); Go's build info records the commit time only.
var buildDate = ""

// versionInfo is what `harn version` prints, read from the binary's
// build information.
type versionInfo struct {
	Version, Module, ModuleVersion, Commit, CommitTime, BuildDate, Go string
	Modified                                                          bool
}

func readVersionInfo() versionInfo {
	vi := versionInfo{Version: version, BuildDate: buildDate}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return vi
	}
	vi.Module, vi.ModuleVersion, vi.Go = bi.Main.Path, bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			vi.Commit = s.Value
		case "vcs.time":
			vi.CommitTime = s.Value
		case "vcs.modified":
			vi.Modified = s.Value == "true"
		}
	}
	return vi
}

// cmdVersion is `harn version`, which takes no arguments.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, commandHelp["version"])
			return 0
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--help"), commandHelp["version"])
		default:
			fmt.Fprintf(stderr, "error: unexpected argument %s\n\n%s", a, commandHelp["version"])
		}
		return 2
	}
	writeVersion(stdout, readVersionInfo())
	return 0
}

func writeVersion(w io.Writer, vi versionInfo) {
	or := func(s, dflt string) string {
		if s == "" {
			return dflt
		}
		return s
	}
	fmt.Fprintf(w, "harn %s\n", vi.Version)
	fmt.Fprintf(w, "module:  %s %s\n", or(vi.Module, "unknown"), or(vi.ModuleVersion, "(devel)"))
	commit := or(vi.Commit, "unknown (built outside a git checkout)")
	if vi.Modified {
		commit += " (modified)"
	}
	if vi.CommitTime != "" {
		commit += ", committed " + vi.CommitTime
	}
	fmt.Fprintf(w, "commit:  %s\n", commit)
	fmt.Fprintf(w, "built:   %s\n", or(vi.BuildDate, "unknown (set with -ldflags -X main.buildDate=...)"))
	fmt.Fprintf(w, "go:      %s\n", or(vi.Go, "unknown"))
}
