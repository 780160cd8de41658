package orchestrator

import (
	"errors"
	"io"
	"testing"

	"github.com/harnlang/harn/orchestrator/manifest"
)

// A "module::fn" handler or predicate names a public function of its
// [exports] module, as any import of the module would (docs/modules.md:
// a module exports what it marks pub; docs/spec/orchestrator.md §2):
// a private one fails loading, naming the binding, the field and the fix.
// A bare name in lib.harn is the project's own code and needs no pub.
func TestExportsHandlerMustBePub(t *testing.T) {
	path := writeProject(t, `
[exports]
handlers = "handlers.harn"

[[triggers]]
id = "private"
kind = "manual"
handler = "handlers::on_hidden"

[[triggers]]
id = "private-when"
kind = "manual"
handler = "handlers::on_ok"
when = "handlers::wanted"

[[triggers]]
id = "lib"
kind = "manual"
handler = "on_lib"
`, "fn on_lib(e) { return 1 }\n", "fn on_hidden(e) { return 1 }\nfn wanted(e) { return true }\npub fn on_ok(e) { return 2 }\n")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadRuntime(m, io.Discard)
	var merr *manifest.Error
	if !errors.As(err, &merr) || len(merr.Problems) != 2 {
		t.Fatalf("got %v, want two problems", err)
	}
	for i, want := range []string{
		"function on_hidden in handlers.harn is not public: a handlers::on_hidden handler names a `pub fn` of the [exports] module handlers (declare it `pub fn on_hidden`)",
		"function wanted in handlers.harn is not public: a handlers::wanted handler names a `pub fn` of the [exports] module handlers (declare it `pub fn wanted`)",
	} {
		if got := merr.Problems[i].Msg; got != want {
			t.Errorf("problem %d: %q, want %q", i, got, want)
		}
	}
}

// The twin: the same project with the functions public loads and runs.
func TestExportsHandlerPubLoads(t *testing.T) {
	path := writeProject(t, `
[exports]
handlers = "handlers.harn"

[[triggers]]
id = "public"
kind = "manual"
handler = "handlers::on_ok"
when = "handlers::wanted"

[[triggers]]
id = "lib"
kind = "manual"
handler = "on_lib"
`, "fn on_lib(e) { return 1 }\n", "pub fn wanted(e) { return true }\npub fn on_ok(e) { return 2 }\n")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRuntime(m, io.Discard); err != nil {
		t.Fatal(err)
	}
}
