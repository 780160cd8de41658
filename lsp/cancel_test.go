package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigWorkspace writes a workspace of many .harn files, so that
// workspace/symbol over it takes a while.
func bigWorkspace(t *testing.T, files, fns int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < fns; i++ {
		fmt.Fprintf(&b, "fn helper_%d(a, b) {\n  let c = a + b * %d\n  if c > 10 { return c - 1 }\n  return [a, b, c]\n}\n\n", i, i)
	}
	for i := 0; i < files; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%03d.harn", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func initializeAt(dir string) string {
	uri, _ := json.Marshal(pathURI(dir))
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":` + string(uri) + `,"capabilities":{}}}`
}

func cancelRequest(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}`, id)
}

// answers indexes a session's answers by id.
func answers(out []map[string]any) map[float64]map[string]any {
	by := map[float64]map[string]any{}
	for _, m := range out {
		if id, ok := m["id"].(float64); ok && m["method"] == nil {
			by[id] = m
		}
	}
	return by
}

// isCancelledAnswer reports the LSP RequestCancelled error.
func isCancelledAnswer(m map[string]any) bool {
	e, _ := m["error"].(map[string]any)
	return e != nil && e["code"] == float64(-32800) && m["result"] == nil
}

// TestCancelRequest: $/cancelRequest for a running workspace/symbol stops
// it, and for a formatting request queued behind it keeps that from
// running; both are answered RequestCancelled (-32800), the requests not
// cancelled are answered as usual, and the session goes on (docs/lsp.md,
// Cancellation).
func TestCancelRequest(t *testing.T) {
	dir := bigWorkspace(t, 400, 60)
	doc := pathURI(filepath.Join(dir, "m000.harn"))
	open := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + doc + `","languageId":"harn","version":1,"text":"fn  f( ) {\n return 1 }\n"}}}`
	format := func(id int) string {
		return request(id, "textDocument/formatting", `{"textDocument":{"uri":"`+doc+`"},"options":{"tabSize":2,"insertSpaces":true}}`)
	}
	began := time.Now()
	out, stderr, status := session(t, initializeAt(dir), open,
		request(2, "workspace/symbol", `{"query":"helper"}`), format(3), format(4),
		cancelRequest(2), cancelRequest(3),
		request(5, "workspace/symbol", `{"query":"helper_59"}`),
		request(9, "shutdown", "null"), `{"jsonrpc":"2.0","method":"exit"}`)
	elapsed := time.Since(began)
	if status != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	by := answers(out)
	for _, id := range []float64{2, 3} {
		if !isCancelledAnswer(by[id]) {
			t.Errorf("cancelled request %v answered %.200s", id, js(by[id]))
		}
	}
	if edits, _ := by[4]["result"].([]any); len(edits) != 1 {
		t.Errorf("formatting not cancelled: %.200s", js(by[4]))
	}
	if syms, _ := by[5]["result"].([]any); len(syms) != 399 {
		t.Errorf("workspace/symbol not cancelled: %d symbols", len(syms))
	}
	t.Logf("session took %s", elapsed)
}

// TestCancelRequestUnknownIDs: cancelling a request that never existed
// changes nothing.
func TestCancelRequestUnknownIDs(t *testing.T) {
	out, stderr, status := session(t, initialize, request(2, "workspace/symbol", `{"query":"x"}`),
		cancelRequest(77), request(3, "workspace/symbol", `{"query":"x"}`),
		request(9, "shutdown", "null"), `{"jsonrpc":"2.0","method":"exit"}`)
	if status != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	by := answers(out)
	if by[2]["error"] != nil || by[3]["error"] != nil || by[9]["error"] != nil {
		t.Errorf("answers %.300s", js(out))
	}
}

// A message the library never hands over (its arrival has another
// method) does not shift the ids of the requests after it, and only the
// answer of a request that ended cancelled is rewritten.
func TestRequestsSkipDroppedArrivals(t *testing.T) {
	var r requests
	r.arrive([]byte(request(1, "harn/dropped", "{}")))
	r.arrive([]byte(request(2, "textDocument/hover", "{}")))
	r.arrive([]byte(cancelRequest(2)))
	r.arrive([]byte(request(3, "textDocument/hover", "{}")))
	if key, cancelled := r.start("textDocument/hover"); key != "2" || !cancelled {
		t.Fatalf("start = %q, %v; want request 2, cancelled", key, cancelled)
	}
	r.finish("2", true)
	if key, _ := r.start("$/cancelRequest"); key != "" {
		t.Errorf("the notification is request %q", key)
	}
	r.finish("", false)
	if key, cancelled := r.start("textDocument/hover"); key != "3" || cancelled {
		t.Errorf("start = %q, %v; want request 3, not cancelled", key, cancelled)
	}
	r.finish("3", false)
	got := string(r.rewrite([]byte(`{"id":2,"jsonrpc":"2.0","error":{"code":-32600,"message":"request cancelled"}}`)))
	if got != `{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Request cancelled"}}` {
		t.Errorf("rewrite = %s", got)
	}
	if got := string(r.rewrite([]byte(`{"id":3,"jsonrpc":"2.0","result":null}`))); got != `{"id":3,"jsonrpc":"2.0","result":null}` {
		t.Errorf("an answer not cancelled was rewritten: %s", got)
	}
}

// A cancellation for a request answered already, or never sent, leaves
// nothing behind.
func TestRequestsForgetStaleCancellations(t *testing.T) {
	var r requests
	r.arrive([]byte(request(1, "textDocument/hover", "{}")))
	key, _ := r.start("textDocument/hover")
	r.finish(key, false)
	r.arrive([]byte(cancelRequest(1)))
	r.arrive([]byte(cancelRequest(42)))
	if len(r.cancelled) != 0 {
		t.Errorf("stale cancellations kept: %v", r.cancelled)
	}
}
