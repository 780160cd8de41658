package stdlib_test

import (
	"path/filepath"
	"testing"

	"github.com/harnlang/harn/conformance"
)

// TestScripts runs testdata/*.harn (the std/* modules and file-relative
// builtins such as render) through the interpreter, checking each against
// its .expected output.
func TestScripts(t *testing.T) {
	tests, err := conformance.Find("testdata", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) == 0 {
		t.Fatal("no script tests found")
	}
	for _, path := range tests {
		path := path
		t.Run(filepath.Base(path), func(t *testing.T) {
			if r := conformance.Run(path); !r.Pass {
				t.Errorf("%s", r.Detail)
			}
		})
	}
}
