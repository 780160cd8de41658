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
