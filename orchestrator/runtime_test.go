package orchestrator

import (
	"testing"

	"github.com/harnlang/harn/eventlog/memory"
)

// TestHandlerErrorIsLocated: a runtime error in a handler names the
// module file (relative to the project) and line, not just a line: a
// project has several modules.
func TestHandlerErrorIsLocated(t *testing.T) {
	const manifestSrc = `
[exports]
handlers = "handlers.harn"

[[triggers]]
id = "nil-field"
kind = "manual"
handler = "handlers::deref"
retry = { max = 0 }

[[triggers]]
id = "thrown"
kind = "manual"
handler = "boom"
retry = { max = 0 }
`
	const handlers = "fn inner(x) {\n  return x.y.z\n}\n\npub fn deref(event) {\n  return inner(event.payload)\n}\n"
	o := start(t, memory.New(), writeProject(t, manifestSrc, testLib, handlers))
	h := fire(t, o, "nil-field", map[string]any{"payload": map[string]any{}})
	if h.Status != "dlq" || h.Error == nil || *h.Error != "Type error: cannot access property `z` on nil (handlers.harn:2)" {
		t.Fatalf("%s", js(h))
	}
	// A thrown value is the handler's own message: left as it is.
	if h := fire(t, o, "thrown", map[string]any{}); h.Error == nil || *h.Error != "boom: manual" {
		t.Fatalf("%s", js(h))
	}
}

// A handler whose result holds a value with no JSON form (a closure)
// fails its attempt, naming the handler and the value's kind and place,
// as a tool's result would (docs/spec/registry.md §6); it used to
// succeed with a null result. Data values (sets, structs, enum
// variants) are converted.
func TestHandlerResultMustBeJSONData(t *testing.T) {
	path := writeProject(t, `
[[triggers]]
id = "closure"
kind = "manual"
handler = "closure"
retry = { max = 0 }

[[triggers]]
id = "nested"
kind = "manual"
handler = "nested"
retry = { max = 0 }

[[triggers]]
id = "data"
kind = "manual"
handler = "data"
`, `
fn closure(e) { return fn(x) { return x } }
fn nested(e) { return {ok: true, later: [1, fn() { return 2 }]} }
fn data(e) { return {set: set(1), n: 3, f: 1.5} }
`, "")
	o := start(t, memory.New(), path)
	for id, want := range map[string]string{
		"closure": "closure returned a value that is not JSON data: closure value at / has no portable JSON form",
		"nested":  "nested returned a value that is not JSON data: closure value at /*/[] has no portable JSON form",
	} {
		h := fire(t, o, id, nil)
		if h.Status != "dlq" || h.Error == nil || *h.Error != want || h.Result != nil {
			t.Errorf("%s: %s, want dlq with error %q", id, js(h), want)
		}
	}
	if h := fire(t, o, "data", nil); h.Status != "succeeded" || js(h.Result) != `{"f":1.5,"n":3,"set":[1]}` {
		t.Errorf("data: %s", js(h))
	}
}
