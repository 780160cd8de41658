package interp

import (
	"io"
	"testing"
)

// BenchmarkStartupEmpty is the in-process part of `harn run` of an empty
// file (process start and package init excluded): a new session, the
// global environment, compile and run.
func BenchmarkStartupEmpty(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := RunProgram("empty.harn", []byte{}, Options{Stdout: io.Discard, Stderr: io.Discard})
		if res.Status != ExitOK {
			b.Fatal(res.Err)
		}
	}
}
