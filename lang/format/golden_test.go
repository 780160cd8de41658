package format

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden formats each testdata/golden/NAME.input and compares the
// result with NAME.golden; formatting the result again must change
// nothing. Each case pins one bug the corpus round trip found.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/golden/*.input")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs (%v)", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(in, ".input") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			check(t, name, string(src), string(want))
		})
	}
}
