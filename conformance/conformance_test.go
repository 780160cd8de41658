package conformance

import (
	"path/filepath"
	"testing"
)

// TestConformance runs the whole .harn suite; each file is a subtest.
func TestConformance(t *testing.T) {
	tests, err := Find(".", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) == 0 {
		t.Fatal("no conformance tests found")
	}
	for _, path := range tests {
		path := path
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			t.Parallel()
			if r := Run(path); !r.Pass {
				t.Errorf("%s", r.Detail)
			}
		})
	}
}
