// Package lsp is `harn lsp`: a language server over stdio, built on the
// glsp protocol library and on the same front end as `harn check`, `harn
// fmt` and `harn lint`.
//
// The model. The client sends whole documents (full sync). On every open
// or change the document is analysed the way `harn check` analyses a file
// — parsed, resolved with its imports loaded from disk, checked, compiled
// (interp.Session.Analyze) — then linted (lang/lint); the diagnostics are
// published. Each request reads the latest analysis of its document: the
// tree, the resolution (every identifier's binding) and the token stream
// (syntax.Scan). When the text being typed does not parse, requests that
// only need names (completion, hover, symbols) fall back to the last
// analysis that did. Edits (formatting, fixes) replace the whole document
// with the output of lang/format.
package lsp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/lint"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/tliron/commonlog"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/tliron/glsp/server"
)

// Name is the server name reported to clients.
const Name = "harn"

// Server is the state of one language server session.
type Server struct {
	version string
	mu      sync.Mutex
	docs    map[string]*document // by URI
	root    string               // workspace root directory ("" when none)
	handler protocol.Handler
	// shutdown and exited record the client's shutdown request and exit
	// notification.
	shutdown, exited bool
	// reqs is the state of $/cancelRequest (cancel.go).
	reqs requests
	// symCache keeps each file's workspace symbols by path (wsymbols.go).
	symCache map[string]*fileSymbolCache
}

// document is one open text document.
type document struct {
	uri, path string
	text      string
	version   protocol.Integer
	cur       *analysis // of text
	good      *analysis // the last analysis whose text parsed
	// modules are the URIs of closed files whose diagnostics the last
	// analysis published (errors in modules the document imports).
	modules []string
}

// analysis is what the front end knows about one version of a document.
type analysis struct {
	text     string
	file     *syntax.File // nil when the text does not parse
	info     *resolve.Info
	mod      *interp.Module
	sess     *interp.Session
	diags    diag.List
	findings []*lint.Finding
	toks     []syntax.Token
	identAt  map[syntax.Pos]*syntax.Ident    // resolved identifiers by position
	declAt   map[syntax.Pos]*resolve.Binding // bindings by declaring position
	bindings []*resolve.Binding              // every binding of the file

	// computed on first use (types.go, typerefs.go)
	typesOnce, typeRefsOnce sync.Once
	typeDecls               []syntax.Node
	typeRefList             []typeRef
}

// New makes a server; version is reported in serverInfo.
func New(version string) *Server {
	s := &Server{version: version, docs: map[string]*document{}}
	s.handler = protocol.Handler{
		Initialize:  s.initialize,
		Initialized: func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:    s.onShutdown,
		Exit:        s.onExit,
		SetTrace:    func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		// accepted and ignored: cancellation is taken before the library
		// sees it (cancel.go), documents are read when analysed, there
		// are no settings, the server starts no progress and traces
		// nothing; a notification the library has no handler for is
		// logged to stderr as an error
		CancelRequest:                      func(*glsp.Context, *protocol.CancelParams) error { return nil },
		Progress:                           func(*glsp.Context, *protocol.ProgressParams) error { return nil },
		LogTrace:                           func(*glsp.Context, *protocol.LogTraceParams) error { return nil },
		WindowWorkDoneProgressCancel:       func(*glsp.Context, *protocol.WorkDoneProgressCancelParams) error { return nil },
		WorkspaceDidChangeWorkspaceFolders: func(*glsp.Context, *protocol.DidChangeWorkspaceFoldersParams) error { return nil },
		WorkspaceDidCreateFiles:            func(*glsp.Context, *protocol.CreateFilesParams) error { return nil },
		WorkspaceDidRenameFiles:            func(*glsp.Context, *protocol.RenameFilesParams) error { return nil },
		WorkspaceDidDeleteFiles:            func(*glsp.Context, *protocol.DeleteFilesParams) error { return nil },
		WorkspaceDidChangeWatchedFiles:     func(*glsp.Context, *protocol.DidChangeWatchedFilesParams) error { return nil },
		WorkspaceDidChangeConfiguration:    func(*glsp.Context, *protocol.DidChangeConfigurationParams) error { return nil },
		TextDocumentWillSave:               func(*glsp.Context, *protocol.WillSaveTextDocumentParams) error { return nil },
		TextDocumentDidOpen:                safeNote(s.didOpen),
		TextDocumentDidChange:              safeNote(s.didChange),
		TextDocumentDidClose:               safeNote(s.didClose),
		TextDocumentDidSave:                func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		TextDocumentCompletion:             safe(s.completion),
		TextDocumentHover:                  safe(s.hover),
		TextDocumentDefinition:             safe(s.definition),
		TextDocumentReferences:             safe(s.references),
		TextDocumentDocumentHighlight:      safe(s.documentHighlight),
		TextDocumentDocumentSymbol:         safe(s.documentSymbols),
		WorkspaceSymbol:                    safe(s.workspaceSymbols),
		TextDocumentSignatureHelp:          safe(s.signatureHelp),
		TextDocumentRename:                 safe(s.rename),
		TextDocumentFormatting:             safe(s.formatting),
		TextDocumentOnTypeFormatting:       safe(s.onTypeFormatting),
		TextDocumentCodeAction:             safe(s.codeAction),
		TextDocumentSemanticTokensFull:     safe(s.semanticTokens),
		TextDocumentFoldingRange:           safe(s.foldingRanges),
	}
	return s
}

// safe turns a panic in a request handler into an error answer, so that
// one bad request cannot end the session.
func safe[P, R any](f func(*glsp.Context, P) (R, error)) func(*glsp.Context, P) (R, error) {
	return func(ctx *glsp.Context, p P) (r R, err error) {
		defer func() {
			if x := recover(); x != nil {
				err = fmt.Errorf("internal error: %v", x)
			}
		}()
		return f(ctx, p)
	}
}

// safeNote is safe for notifications.
func safeNote[P any](f func(*glsp.Context, P) error) func(*glsp.Context, P) error {
	return func(ctx *glsp.Context, p P) (err error) {
		defer func() {
			if x := recover(); x != nil {
				err = fmt.Errorf("internal error: %v", x)
			}
		}()
		return f(ctx, p)
	}
}

// RunStdio serves one client on standard input and output until it exits.
// A message that cannot be framed ends the session with an error that
// says what was wrong with it (copyFrames); so does an `exit` that no
// `shutdown` preceded, as the protocol asks for exit status 1 then.
func (s *Server) RunStdio() error {
	commonlog.Configure(0, nil) // nothing may reach stdout but protocol messages
	in, out := os.Stdin, os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return err
	}
	// The library reads os.Stdin and writes os.Stdout; it gets the
	// messages copyFrames passes, and copyReplies passes its own on. They
	// are not put back: the library's reader may still be reading
	// os.Stdin when the session ends (after exit), and harn lsp is over
	// then.
	os.Stdin, os.Stdout = r, wOut
	var mu sync.Mutex
	replied := make(chan struct{})
	go func() {
		copyReplies(out, rOut, &mu, s.reqs.rewrite)
		close(replied)
	}()
	bad := make(chan error, 1)
	go func() {
		bad <- copyFrames(w, in, s.reqs.arrive, func(frame []byte) {
			mu.Lock()
			out.Write(frame)
			mu.Unlock()
		})
		w.Close()
	}()
	stopFilter, err := filterLibraryLog()
	if err != nil {
		return err
	}
	server.NewServer(tracked{s}, Name, false).RunStdio()
	stopFilter()
	wOut.Close()
	<-replied
	select {
	case err := <-bad:
		if err != nil {
			return fmt.Errorf("malformed message from the client: %w", err)
		}
	default: // the client exited; its stdin may stay open
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited && !s.shutdown {
		return errors.New("the client sent exit without shutdown first")
	}
	return nil
}

func (s *Server) onShutdown(*glsp.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil
}

func (s *Server) onExit(*glsp.Context) error {
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	return nil
}

func (s *Server) initialize(_ *glsp.Context, params *protocol.InitializeParams) (any, error) {
	if params.RootURI != nil {
		s.root = uriPath(*params.RootURI)
	} else if params.RootPath != nil {
		s.root = *params.RootPath
	}
	full := protocol.TextDocumentSyncKindFull
	yes := true
	caps := protocol.ServerCapabilities{
		TextDocumentSync: protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &full},
		CompletionProvider: &protocol.CompletionOptions{
			TriggerCharacters: []string{".", "\"", "/"},
		},
		HoverProvider:             true,
		DefinitionProvider:        true,
		ReferencesProvider:        true,
		DocumentHighlightProvider: true,
		DocumentSymbolProvider:    true,
		WorkspaceSymbolProvider:   true,
		SignatureHelpProvider: &protocol.SignatureHelpOptions{
			TriggerCharacters: []string{"(", ","},
		},
		RenameProvider:             true,
		DocumentFormattingProvider: true,
		DocumentOnTypeFormattingProvider: &protocol.DocumentOnTypeFormattingOptions{
			FirstTriggerCharacter: "}",
			MoreTriggerCharacter:  []string{"\n"},
		},
		CodeActionProvider: protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, fixAllKind},
		},
		SemanticTokensProvider: protocol.SemanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: tokenModifiers},
			Full:   true,
		},
		FoldingRangeProvider: true,
	}
	version := s.version
	return protocol.InitializeResult{
		Capabilities: caps,
		ServerInfo:   &protocol.InitializeResultServerInfo{Name: Name, Version: &version},
	}, nil
}

// ---- documents ----

func (s *Server) didOpen(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	d := &document{uri: p.TextDocument.URI, path: uriPath(p.TextDocument.URI)}
	s.mu.Lock()
	s.docs[d.uri] = d
	s.mu.Unlock()
	s.update(ctx, d, p.TextDocument.Text, p.TextDocument.Version)
	return nil
}

func (s *Server) didChange(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil
	}
	text := d.text
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				text = c.Text
				continue
			}
			lines := splitLines(text)
			start, end := offsetOf(lines, c.Range.Start), offsetOf(lines, c.Range.End)
			text = text[:start] + c.Text + text[end:]
		}
	}
	s.update(ctx, d, text, p.TextDocument.Version)
	return nil
}

func (s *Server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	d := s.doc(p.TextDocument.URI)
	s.mu.Lock()
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
		URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	if d != nil {
		s.publishModules(ctx, d, nil)
	}
	return nil
}

func (s *Server) doc(uri string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// update analyses a new version of a document and publishes its
// diagnostics.
func (s *Server) update(ctx *glsp.Context, d *document, text string, version protocol.Integer) {
	a := Analyze(d.path, text)
	s.mu.Lock()
	d.text, d.version, d.cur = text, version, a
	if a.file != nil {
		d.good = a
	}
	s.mu.Unlock()
	v := protocol.UInteger(version)
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
		URI: d.uri, Version: &v, Diagnostics: a.diagnostics(d.path)})
	s.publishModules(ctx, d, a.moduleDiagnostics())
}

// publishModules publishes the diagnostics found in the files a
// document's imports loaded, for those not open (an open document
// publishes its own), and clears the ones published for the document
// before that have none now.
func (s *Server) publishModules(ctx *glsp.Context, d *document, found map[string]diag.List) {
	var now []string
	for file, l := range found {
		uri := pathURI(file)
		if s.doc(uri) != nil {
			continue
		}
		text, ok := s.readFile(file)
		if !ok {
			continue
		}
		lines := splitLines(text)
		ds := []protocol.Diagnostic{}
		for _, e := range l {
			ds = append(ds, toDiagnostic(lines, e))
		}
		ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: ds})
		now = append(now, uri)
	}
	s.mu.Lock()
	before := d.modules
	d.modules = now
	s.mu.Unlock()
	for _, uri := range before {
		if !slices.Contains(now, uri) && s.doc(uri) == nil {
			ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
		}
	}
}

// Analyze runs the front end and the linter on one version of a file.
func Analyze(path, text string) (a *analysis) {
	a = &analysis{text: text, identAt: map[syntax.Pos]*syntax.Ident{}, declAt: map[syntax.Pos]*resolve.Binding{}}
	defer func() {
		if x := recover(); x != nil {
			// Report rather than crash; the text is kept for the next change.
			a.file, a.info, a.findings = nil, nil, nil
			a.diags = append(a.diags, &diag.Error{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while analysing: %v", x)})
		}
	}()
	a.sess = interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard, BindingTypes: true})
	a.mod, a.diags = a.sess.Analyze(path, []byte(text))
	a.toks, _ = syntax.Scan(path, []byte(text))
	if a.mod == nil || a.mod.Syntax == nil {
		return a
	}
	a.file, a.info = a.mod.Syntax, a.mod.Info
	if a.info == nil {
		return a
	}
	a.findings = lint.File(a.file, a.info, lint.Options{})
	for id := range a.info.Refs {
		a.identAt[id.At] = id
	}
	seen := map[*resolve.Binding]bool{}
	add := func(b *resolve.Binding) {
		if b != nil && !seen[b] {
			seen[b] = true
			a.bindings = append(a.bindings, b)
			if b.Pos.IsValid() {
				a.declAt[b.Pos] = b
			}
		}
	}
	for _, b := range a.info.Globals {
		add(b)
	}
	for _, fn := range a.info.Funcs {
		for _, b := range fn.Locals {
			add(b)
		}
	}
	return a
}

// diagnostics converts the analysis's errors, warnings and lint findings.
func (a *analysis) diagnostics(path string) []protocol.Diagnostic {
	lines := splitLines(a.text)
	out := []protocol.Diagnostic{}
	linted := map[syntax.Pos]bool{}
	for _, f := range a.findings {
		linted[f.Pos] = true
	}
	for _, d := range a.diags {
		if d.File != "" && d.File != path {
			continue // reported by the module it belongs to
		}
		if d.Severity == diag.SevWarning && linted[syntax.Pos{Line: d.Line, Col: d.Col}] {
			continue // the checker's warning repeats a lint finding (which has a fix)
		}
		pd := toDiagnostic(lines, d)
		if r, ok := a.literalRange(lines, syntax.Pos{Line: d.Line, Col: d.Col}); ok {
			pd.Range = r
		}
		out = append(out, pd)
	}
	out = append(out, a.importDiagnostics(path, lines)...)
	lintSource := "harn lint"
	for _, f := range a.findings {
		sev := protocol.DiagnosticSeverityWarning
		if f.Rule == lint.MissingDoc || f.Rule == lint.Naming || f.Rule == lint.PreferLet {
			sev = protocol.DiagnosticSeverityInformation
		}
		pd := protocol.Diagnostic{Range: a.findingRange(lines, f), Severity: &sev, Source: &lintSource,
			Message: f.Msg, Code: &protocol.IntegerOrString{Value: f.Rule.ID}}
		switch f.Rule {
		case lint.UnusedVariable, lint.UnusedParameter, lint.UnusedImport, lint.UnusedPatternBinding, lint.UnreachableCode:
			pd.Tags = []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}
		}
		out = append(out, pd)
	}
	return out
}

// findingRange is the range a lint finding covers: its Len characters,
// or for one spanning statements everything up to the last token before
// where they stop.
func (a *analysis) findingRange(lines []string, f *lint.Finding) protocol.Range {
	end := syntax.Pos{Line: f.Pos.Line, Col: f.Pos.Col + f.Len}
	if f.Spans {
		for i := len(a.toks) - 1; i >= 0; i-- {
			t := a.toks[i]
			switch t.Kind {
			case syntax.TokEOF, syntax.TokNewline, syntax.TokComment, syntax.TokDoc:
				continue
			}
			if f.Until.IsValid() && !before(t.Pos, f.Until) {
				continue
			}
			if before(f.Pos, t.End()) {
				end = t.End()
			}
			break
		}
	}
	return protocol.Range{Start: toPosition(lines, f.Pos), End: toPosition(lines, end)}
}

// literalRange covers the string literal that starts at p, when one does
// on one line (a diagnostic about it underlines all of it, not its
// quote).
func (a *analysis) literalRange(lines []string, p syntax.Pos) (protocol.Range, bool) {
	i := sort.Search(len(a.toks), func(i int) bool { return !before(a.toks[i].Pos, p) })
	if i == len(a.toks) || a.toks[i].Pos != p {
		return protocol.Range{}, false
	}
	switch t := a.toks[i]; t.Kind {
	case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
		if end := t.End(); end.Line == p.Line {
			return protocol.Range{Start: toPosition(lines, p), End: toPosition(lines, end)}, true
		}
	}
	return protocol.Range{}, false
}

// toDiagnostic converts a front-end diagnostic of the file whose lines
// are given; its help line, when it has one, ends the message.
func toDiagnostic(lines []string, d *diag.Error) protocol.Diagnostic {
	source := Name
	sev := protocol.DiagnosticSeverityError
	if d.Severity == diag.SevWarning {
		sev = protocol.DiagnosticSeverityWarning
	}
	line, col := d.Line, d.Col
	if line < 1 {
		line, col = 1, 1
	}
	r := wordRange(lines, syntax.Pos{Line: line, Col: max(col, 1)})
	msg := d.Msg
	if d.Help != "" {
		msg += "\nhelp: " + d.Help // harn check prints it as `= help: …` under the source line
	}
	pd := protocol.Diagnostic{Range: r, Severity: &sev, Source: &source, Message: msg}
	if d.Code != "" {
		pd.Code = &protocol.IntegerOrString{Value: d.Code}
	}
	return pd
}

// importDiagnostics reports, on each import whose modules have errors, the
// first of them with its place (harn check reports them all and fails).
func (a *analysis) importDiagnostics(path string, lines []string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	if a.mod == nil || a.file == nil {
		return out
	}
	source := Name
	for _, it := range a.file.Items {
		d, ok := it.(*syntax.ImportDecl)
		if !ok {
			continue
		}
		var errs diag.List
		for _, e := range a.mod.ImportDiags[d] {
			if e.Severity == diag.SevError {
				errs = append(errs, e)
			}
		}
		if len(errs) == 0 {
			continue
		}
		first := errs[0]
		where := first.File
		if rel, err := filepath.Rel(filepath.Dir(path), where); err == nil && !strings.HasPrefix(rel, "..") {
			where = rel
		}
		msg := fmt.Sprintf("module %q has errors: %s:%d:%d: %s", d.Path, where, first.Line, first.Col, first.Msg)
		if n := len(errs) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more)", n)
		}
		sev := protocol.DiagnosticSeverityError
		end := syntax.Pos{Line: d.PathPos.Line, Col: d.PathPos.Col + runeLen(d.Path) + 2}
		pd := protocol.Diagnostic{Range: protocol.Range{Start: toPosition(lines, d.At), End: toPosition(lines, end)},
			Severity: &sev, Source: &source, Message: msg}
		if text, err := os.ReadFile(first.File); err == nil {
			pd.RelatedInformation = []protocol.DiagnosticRelatedInformation{{
				Location: protocol.Location{URI: pathURI(first.File), Range: wordRange(splitLines(string(text)), syntax.Pos{Line: max(first.Line, 1), Col: max(first.Col, 1)})},
				Message:  first.Msg}}
		}
		out = append(out, pd)
	}
	return out
}

// moduleDiagnostics groups the diagnostics the analysis found in the
// files its imports loaded, by file.
func (a *analysis) moduleDiagnostics() map[string]diag.List {
	out := map[string]diag.List{}
	if a.mod == nil {
		return out
	}
	for _, l := range a.mod.ImportDiags {
		for _, e := range l {
			if !isStd(e.File) {
				out[e.File] = append(out[e.File], e)
			}
		}
	}
	return out
}

// ---- URIs ----

func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

func pathURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// readFile returns an open document's text, or the file's on disk.
func (s *Server) readFile(path string) (string, bool) {
	s.mu.Lock()
	for _, d := range s.docs {
		if d.path == path {
			t := d.text
			s.mu.Unlock()
			return t, true
		}
	}
	s.mu.Unlock()
	b, err := os.ReadFile(path)
	return string(b), err == nil
}

// analysisOf returns the analysis for a file: an open document's current
// one, or a fresh analysis of the file on disk.
func (s *Server) analysisOf(path string) *analysis {
	s.mu.Lock()
	for _, d := range s.docs {
		if d.path == path {
			a := d.cur
			s.mu.Unlock()
			return a
		}
	}
	s.mu.Unlock()
	text, ok := s.readFile(path)
	if !ok {
		return nil
	}
	return Analyze(path, text)
}

func isStd(path string) bool { return strings.HasPrefix(path, "std/") }

// closeRace is what the JSON-RPC library logs when `exit` closes a
// connection its reader already closed at the end of the client's input:
// the session ended cleanly, so it is not reported.
const closeRace = `notification "exit" handling error: close `

// filterLibraryLog points os.Stderr, where the JSON-RPC library logs
// (it takes os.Stderr when the connection is made), at a pipe copied to
// the real standard error without the closeRace line. The returned
// function restores os.Stderr and waits until everything logged before
// it was called has been copied.
func filterLibraryLog() (stop func(), err error) {
	stderr := os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	os.Stderr = w
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if line := sc.Text(); !strings.Contains(line, closeRace) {
				fmt.Fprintln(stderr, line)
			}
		}
		io.Copy(stderr, r) // a line too long for the scanner
	}()
	return func() {
		os.Stderr = stderr
		w.Close()
		<-copied
	}, nil
}
