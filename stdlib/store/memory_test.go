package store

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func memRecord(id, text string, tags ...string) vm.Value {
	return vm.Of(lib.DictOf("id", vm.Str(id), "text", vm.Str(text), "tags", vm.Of(lib.StrList(tags))))
}

// recall ranks by the number of distinct query words a record's text and
// tags hold, newest first among equals, drops records sharing none, keeps
// only records with every wanted tag, and cuts at the limit.
func TestRecallRanking(t *testing.T) {
	all := []vm.Value{
		memRecord("m1", "The tests run with make test", "build"),
		memRecord("m2", "Deploys happen on Fridays"),
		memRecord("m3", "Run LINT before tests", "build"),
		memRecord("m4", "tests, tests and more TESTS"),
	}
	ids := func(out []vm.Value) string {
		var s []string
		for _, r := range out {
			d, _ := r.AsDict()
			s = append(s, vm.ToDisplay(lib.Get(d, "id"))+":"+vm.ToDisplay(lib.Get(d, "score")))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		query string
		tags  []string
		limit int
		want  string
	}{
		{"How do the tests run?", nil, 5, "m1:3 m3:2 m4:1"},
		{"tests", nil, 2, "m4:1 m3:1"},
		{"build", nil, 5, "m3:1 m1:1"},
		{"tests", []string{"build"}, 5, "m3:1 m1:1"},
		{"nothing here", nil, 5, ""},
		{"", nil, 3, "m4:0 m3:0 m2:0"},
	} {
		if got := ids(recall(all, words(c.query), c.tags, c.limit)); got != c.want {
			t.Errorf("recall(%q, %v, %d) = %q, want %q", c.query, c.tags, c.limit, got, c.want)
		}
	}
}

// A document name is a plain file name: nothing that could leave the
// directory or hide the file.
func TestDocName(t *testing.T) {
	for _, ok := range []string{"s1", "chat-7", "a.b_c", strings.Repeat("x", maxDocName)} {
		if _, err := docName("f", "session id", vm.Str(ok)); err != nil {
			t.Errorf("docName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".hidden", "../x", "a/b", "a b", "é", strings.Repeat("x", maxDocName+1)} {
		if _, err := docName("f", "session id", vm.Str(bad)); err == nil {
			t.Errorf("docName(%q) accepted", bad)
		}
	}
	if _, err := docName("f", "session id", vm.IntOf(1)); err == nil || !strings.Contains(err.Error(), "must be a string, got int") {
		t.Errorf("docName(1): %v", err)
	}
}
