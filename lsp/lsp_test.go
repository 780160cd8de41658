package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the tests start the server as a subprocess speaking over
// real pipes: the test binary re-executed with HARN_LSP_SERVER=1 is
// `harn lsp`.
func TestMain(m *testing.M) {
	if os.Getenv("HARN_LSP_SERVER") == "1" {
		if err := New("test").RunStdio(); err != nil { // as harn lsp does
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// client is a minimal JSON-RPC client for the tests.
type client struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	mu     sync.Mutex
	nextID int
	notes  chan map[string]any
	resps  map[int]chan map[string]any
}

func startServer(t *testing.T, root string) *client {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HARN_LSP_SERVER=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, cmd: cmd, in: in, out: bufio.NewReader(out), notes: make(chan map[string]any, 100), resps: map[int]chan map[string]any{}}
	go c.read()
	t.Cleanup(func() {
		c.request("shutdown", nil)
		c.notify("exit", nil)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Error("server did not exit after exit")
		}
	})
	c.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + root, "capabilities": map[string]any{}})
	c.notify("initialized", map[string]any{})
	return c
}

func (c *client) read() {
	for {
		var length int
		for {
			line, err := c.out.ReadString('\n')
			if err != nil {
				close(c.notes)
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(c.out, body); err != nil {
			close(c.notes)
			return
		}
		var msg map[string]any
		json.Unmarshal(body, &msg)
		if id, ok := msg["id"].(float64); ok && msg["method"] == nil {
			c.mu.Lock()
			ch := c.resps[int(id)]
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
			continue
		}
		if msg["method"] != nil && msg["id"] == nil {
			c.notes <- msg
		}
	}
}

func (c *client) send(msg map[string]any) {
	b, _ := json.Marshal(msg)
	fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *client) request(method string, params any) any {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan map[string]any, 1)
	c.resps[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case msg := <-ch:
		if e := msg["error"]; e != nil {
			return e
		}
		return msg["result"]
	case <-time.After(30 * time.Second):
		c.t.Fatalf("no answer to %s", method)
		return nil
	}
}

// diagnostics waits for the next publishDiagnostics of uri.
func (c *client) diagnostics(uri string) []any {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case n, ok := <-c.notes:
			if !ok {
				c.t.Fatal("server closed")
			}
			if n["method"] != "textDocument/publishDiagnostics" {
				continue
			}
			p := n["params"].(map[string]any)
			if p["uri"] == uri {
				return p["diagnostics"].([]any)
			}
		case <-timeout:
			c.t.Fatal("no diagnostics")
		}
	}
}

func pos(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }

func docPos(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(line, char)}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const libSrc = `/// Adds two numbers.
pub fn add(a: int, b: int) -> int {
  return a + b
}
`

const mainSrc = `import { add } from "lib"

enum Color {
  Red
  Green
}

fn twice(x: int) -> int {
  var unused = 1
  return add(x, x)
}

println(twice(2), Color.Red)
println(add(1, 2))
`

func TestServer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(libSrc), 0o644)
	mainPath := filepath.Join(dir, "main.harn")
	os.WriteFile(mainPath, []byte(mainSrc), 0o644)
	uri := "file://" + mainPath
	libURI := "file://" + filepath.Join(dir, "lib.harn")
	c := startServer(t, dir)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "harn", "version": 1, "text": mainSrc}})

	diags := js(c.diagnostics(uri))
	for _, want := range []string{`"code":"prefer-let"`, `"code":"unused-variable"`, "`unused` is assigned but never used"} {
		if !strings.Contains(diags, want) {
			t.Errorf("diagnostics lack %s: %s", want, diags)
		}
	}

	// A parse error is reported at its position.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "let = 1\n"}}})
	if d := js(c.diagnostics(uri)); !strings.Contains(d, `"start":{"character":4,"line":0}`) || !strings.Contains(d, "expected variable name") {
		t.Errorf("parse error diagnostic: %s", d)
	}

	// Checker diagnostics carry their codes, builtin argument mismatches too
	// (docs/spec/newer.md §3.1).
	codesURI := "file://" + filepath.Join(dir, "codes.harn")
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": codesURI, "languageId": "harn", "version": 1,
		"text": "let label: string = 42\nprintln(uppercase(1))\n"}})
	if d := js(c.diagnostics(codesURI)); strings.Count(d, `"code":"HARN-TYP-007"`) != 2 {
		t.Errorf("coded diagnostics: %s", d)
	}
	// While the text does not parse, names come from the last version that did.
	if comp := js(c.request("textDocument/completion", docPos(uri, 0, 0))); !strings.Contains(comp, `"label":"twice"`) {
		t.Errorf("completion while broken: %.300s", comp)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": mainSrc}}})
	c.diagnostics(uri)

	t.Run("hover", func(t *testing.T) {
		h := js(c.request("textDocument/hover", docPos(uri, 9, 10))) // add in twice
		if !strings.Contains(h, "pub fn add(a: int, b: int)") || !strings.Contains(h, "Adds two numbers.") {
			t.Errorf("hover on imported fn: %s", h)
		}
		h = js(c.request("textDocument/hover", docPos(uri, 12, 2))) // println builtin
		if !strings.Contains(h, "println(") || !strings.Contains(h, "builtin") {
			t.Errorf("hover on builtin: %s", h)
		}
	})
	t.Run("definition", func(t *testing.T) {
		d := js(c.request("textDocument/definition", docPos(uri, 9, 10)))
		if !strings.Contains(d, libURI) || !strings.Contains(d, `"start":{"character":7,"line":1}`) {
			t.Errorf("definition across import: %s", d)
		}
		d = js(c.request("textDocument/definition", docPos(uri, 12, 9))) // twice
		if !strings.Contains(d, uri) || !strings.Contains(d, `"start":{"character":3,"line":7}`) {
			t.Errorf("definition in file: %s", d)
		}
	})
	t.Run("references", func(t *testing.T) {
		r := js(c.request("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": pos(13, 9), "context": map[string]any{"includeDeclaration": true}}))
		// the declaration in lib.harn, the import, the two calls in main.harn
		if strings.Count(r, `"uri"`) != 4 || !strings.Contains(r, libURI) {
			t.Errorf("references: %s", r)
		}
	})
	t.Run("completion", func(t *testing.T) {
		comp := js(c.request("textDocument/completion", docPos(uri, 9, 2)))
		for _, want := range []string{`"label":"x"`, `"label":"twice"`, `"label":"add"`, `"label":"println"`, `"label":"unused"`} {
			if !strings.Contains(comp, want) {
				t.Errorf("completion lacks %s", want)
			}
		}
		comp = js(c.request("textDocument/completion", docPos(uri, 12, 24))) // after Color.
		if !strings.Contains(comp, `"label":"Red"`) || !strings.Contains(comp, `"label":"Green"`) {
			t.Errorf("enum completion: %s", comp)
		}
	})
	t.Run("signature help", func(t *testing.T) {
		s := js(c.request("textDocument/signatureHelp", docPos(uri, 9, 16))) // add(x, |x)
		if !strings.Contains(s, "pub fn add(a: int, b: int)") || !strings.Contains(s, `"activeParameter":1`) {
			t.Errorf("signature help: %s", s)
		}
	})
	t.Run("symbols", func(t *testing.T) {
		s := js(c.request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}))
		for _, want := range []string{`"name":"Color"`, `"name":"Red"`, `"name":"twice"`} {
			if !strings.Contains(s, want) {
				t.Errorf("document symbols lack %s: %s", want, s)
			}
		}
		w := js(c.request("workspace/symbol", map[string]any{"query": "ad"}))
		if !strings.Contains(w, `"name":"add"`) || !strings.Contains(w, libURI) {
			t.Errorf("workspace symbols: %s", w)
		}
	})
	t.Run("rename", func(t *testing.T) {
		r := js(c.request("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(7, 4), "newName": "double"}))
		if strings.Count(r, `"newText":"double"`) != 2 {
			t.Errorf("rename: %s", r)
		}
		// refused with an error answer: keywords, and anything the
		// scanner does not read as one identifier
		for _, bad := range []string{"fn", "match", "", "9lives", "a-b", "two words", "x→y", "a.b", "x\n"} {
			e := js(c.request("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(7, 4), "newName": bad}))
			if !strings.Contains(e, `"code":`) || !strings.Contains(e, "not a valid") {
				t.Errorf("rename to %q: %s", bad, e)
			}
		}
		if r := js(c.request("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(7, 4), "newName": "dóble"})); strings.Count(r, `"newText":"dóble"`) != 2 {
			t.Errorf("rename to a non-ASCII identifier: %s", r)
		}
	})
	t.Run("formatting", func(t *testing.T) {
		other := "file://" + filepath.Join(dir, "messy.harn")
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": other, "languageId": "harn", "version": 1, "text": "let x=[1,2]\nprintln( x )\n"}})
		c.diagnostics(other)
		f := js(c.request("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": other}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}))
		if !strings.Contains(f, `"newText":"let x = [1, 2]\nprintln(x)\n"`) || !strings.Contains(f, `"end":{"character":0,"line":2}`) {
			t.Errorf("formatting: %s", f)
		}
		if f := js(c.request("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}})); f != "[]" {
			t.Errorf("formatting a formatted file: %s", f)
		}
	})
	t.Run("code actions", func(t *testing.T) {
		a := js(c.request("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": map[string]any{"start": pos(8, 0), "end": pos(8, 20)}, "context": map[string]any{"diagnostics": []any{}}}))
		for _, want := range []string{"[prefer-let]", "[unused-variable]", `"kind":"source.fixAll.harn"`, `let _ = 1`} {
			if !strings.Contains(a, want) {
				t.Errorf("code actions lack %s: %s", want, a)
			}
		}
	})
	t.Run("semantic tokens", func(t *testing.T) {
		st := c.request("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}).(map[string]any)
		data := st["data"].([]any)
		if len(data) == 0 || len(data)%5 != 0 {
			t.Fatalf("data: %v", data)
		}
		// the first token is the keyword `import` at 0:0, length 6
		if js(data[:5]) != "[0,0,6,10,0]" {
			t.Errorf("first token: %v", data[:5])
		}
	})
	t.Run("folding", func(t *testing.T) {
		f := js(c.request("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": uri}}))
		if !strings.Contains(f, `"startLine":2`) || !strings.Contains(f, `"startLine":7`) {
			t.Errorf("folding: %s", f)
		}
	})
}

// openMain writes src to dir/main.harn, starts a server on dir and opens
// the file; it returns the client, the file's URI and the diagnostics the
// server first published for it.
func openMain(t *testing.T, dir, src string) (*client, string, []any) {
	t.Helper()
	path := filepath.Join(dir, "main.harn")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + path
	c := startServer(t, dir)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "harn", "version": 1, "text": src}})
	return c, uri, c.diagnostics(uri)
}
