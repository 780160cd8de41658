package vm_test

import (
	"io"
	"testing"

	"github.com/harnlang/harn/interp"
)

// BenchmarkSetAddLoop grows a set one `s = s.add(i)` at a time, the
// pattern that must stay linear: rebuilding the set on each add made it
// quadratic.
//
//	go test ./vm -run '^$' -bench SetAddLoop -count 5
func BenchmarkSetAddLoop(b *testing.B) {
	src := []byte(`var s = set()
for i in 0 to 5000 exclusive {
  s = s.add(i)
  s = s.add(i)
}
println(len(s))
`)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sess := interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
		m, err := sess.Compile("set_add.harn", src)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := sess.Run(m); err != nil {
			b.Fatal(err)
		}
	}
}
