package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// workspace is a server driven in process, with files written to a
// temporary directory; the diagnostics it publishes are kept by URI.
type workspace struct {
	t   *testing.T
	dir string
	s   *Server
	ctx *glsp.Context

	mu    sync.Mutex
	diags map[string][]protocol.Diagnostic
}

func newWorkspace(t *testing.T, files map[string]string) *workspace {
	t.Helper()
	w := &workspace{t: t, dir: t.TempDir(), s: New("test"), diags: map[string][]protocol.Diagnostic{}}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.ctx = &glsp.Context{Notify: func(method string, params any) {
		if p, ok := params.(protocol.PublishDiagnosticsParams); ok && method == protocol.ServerTextDocumentPublishDiagnostics {
			w.mu.Lock()
			w.diags[p.URI] = p.Diagnostics
			w.mu.Unlock()
		}
	}}
	root := w.dir
	w.s.initialize(w.ctx, &protocol.InitializeParams{RootPath: &root})
	return w
}

func (w *workspace) uri(name string) string { return pathURI(filepath.Join(w.dir, name)) }

// open opens a file of the workspace with its text on disk.
func (w *workspace) open(name string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, name))
	if err != nil {
		w.t.Fatal(err)
	}
	uri := w.uri(name)
	w.s.didOpen(w.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "harn", Version: 1, Text: string(b)}})
	return uri
}

func (w *workspace) diagnostics(uri string) []protocol.Diagnostic {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.diags[uri]
}

func (w *workspace) at(uri string, line, char int) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Position: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char)}}
}

// codeActions asks for the code actions over the whole document.
func (w *workspace) codeActions(uri string) []protocol.CodeAction {
	w.t.Helper()
	r, err := w.s.codeAction(w.ctx, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Range: protocol.Range{End: protocol.Position{Line: 1000}}})
	if err != nil {
		w.t.Fatal(err)
	}
	return r.([]protocol.CodeAction)
}

// edited is the text an action's edit leaves in the open document uri.
func (w *workspace) edited(a protocol.CodeAction, uri string) string {
	_, text := w.s.text(uri)
	return applyEdits(text, a.Edit.Changes[uri])
}

// lines is a helper for writing sources.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// write replaces a file of the workspace on disk.
func (w *workspace) write(name, text string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// change replaces the text of an open document.
func (w *workspace) change(uri, text string) {
	w.s.didChange(w.ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
}
