package artifacts

import (
	"slices"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func TestLineDiff(t *testing.T) {
	text, add, del := lineDiff("f", "a\nb\nc\n", "a\nB\nc\nd\n")
	want := "--- a/f\n+++ b/f\n a\n-b\n+B\n c\n+d\n"
	if text != want || add != 2 || del != 1 {
		t.Fatalf("lineDiff = %q %d %d", text, add, del)
	}
	text, add, del = lineDiff("", "", "x\n")
	if !strings.HasSuffix(text, "+x\n") || add != 1 || del != 0 {
		t.Fatalf("lineDiff from empty = %q %d %d", text, add, del)
	}
	_, add, del = lineDiff("f", "same\n", "same\n")
	if add != 0 || del != 0 {
		t.Fatalf("equal texts: %d %d", add, del)
	}
}

func TestDiffStats(t *testing.T) {
	d := "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1,2 @@\n-old\n+new\n+more\n" +
		"--- /dev/null\n+++ b/new.txt\t2024-01-01\n+hello\n"
	files, add, del := diffStats(d)
	if !slices.Equal(files, []string{"x.go", "new.txt"}) || add != 3 || del != 1 {
		t.Fatalf("diffStats = %v %d %d", files, add, del)
	}
}

func TestLanguage(t *testing.T) {
	if language("a/B.PY").String() != "python" {
		t.Errorf("language of .PY = %v", language("a/B.PY"))
	}
	if !language("Makefile").IsNil() {
		t.Errorf("language of Makefile should be nil")
	}
}

func TestRender(t *testing.T) {
	withText := lib.DictOf("kind", vm.Str("workspace_file"), "id", vm.Str("a1"), "title", vm.Str("main"),
		"data", vm.Of(lib.DictOf("path", vm.Str("m.go"), "content", vm.Str("package m\n"))))
	if got := render(withText); got != "## workspace_file: main [a1]\npath: m.go\npackage m\n" {
		t.Errorf("render = %q", got)
	}
	noText := lib.DictOf("kind", vm.Str("plan"), "id", vm.Str("p1"), "title", vm.Nil,
		"data", vm.Of(lib.DictOf("steps", vm.IntOf(2))))
	if got := render(noText); got != "## plan [p1]\n{\"steps\":2}\n" {
		t.Errorf("render = %q", got)
	}
}

func TestContainsAll(t *testing.T) {
	if !containsAll([]string{"a", "b"}, []string{"b"}) {
		t.Fatal("containsAll missed a tag")
	}
	if containsAll([]string{"a"}, []string{"a", "c"}) {
		t.Fatal("containsAll accepted a missing tag")
	}
}
