package builtindoc

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/builtins.md")

// TestBuiltinsDocUpToDate is the drift check: docs/builtins.md must be
// what the descriptor table generates.
func TestBuiltinsDocUpToDate(t *testing.T) {
	const path = "../docs/builtins.md"
	want := Markdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("docs/builtins.md is out of date with the builtin table: go test ./builtindoc -run TestBuiltinsDoc -update")
	}
}

func TestLookup(t *testing.T) {
	es := Lookup("println")
	if len(es) < 1 || es[0].Recv != "" || es[0].Area != "console" || !strings.Contains(es[0].Text(), "println(v?)") {
		t.Fatalf("println: %+v", es)
	}
	if len(Lookup("no_such_builtin")) != 0 {
		t.Fatal("unknown name found")
	}
}
