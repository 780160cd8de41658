//go:build !harnlite

package main

import (
	"os"
	"runtime/pprof"
)

// runProfiled runs the command line with a CPU profile written to path
// (HARN_CPUPROFILE); ok is false when the file cannot be created, and the
// command then runs unprofiled. The lite build hands the command to
// harn-full instead (lite.go).
func runProfiled(path string) (code int, ok bool) {
	f, err := os.Create(path)
	if err != nil {
		return 0, false
	}
	pprof.StartCPUProfile(f)
	code = run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	f.Close()
	return code, true
}
