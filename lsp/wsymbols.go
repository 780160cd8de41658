package lsp

import (
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// maxWorkspaceSymbols bounds a workspace/symbol answer: the best matches
// first (docs/lsp.md, Symbols).
const maxWorkspaceSymbols = 500

// fileSymbolCache is the flattened symbols of one version of a file: an
// open document's last analysis that parsed, or a file on disk as of its
// modification time and size.
type fileSymbolCache struct {
	doc     *analysis
	modTime int64
	size    int64
	syms    []protocol.SymbolInformation
}

// symbolSource is where a file's symbols come from now: the open
// document's last parsed analysis (doc), else the file on disk (info).
type symbolSource struct {
	doc  *analysis
	info os.FileInfo
}

func (c *fileSymbolCache) fresh(src symbolSource) bool {
	if src.doc != nil || c.doc != nil {
		return c.doc == src.doc
	}
	return src.info != nil && c.modTime == src.info.ModTime().UnixNano() && c.size == src.info.Size()
}

// workspaceSymbols searches the declarations of open documents and of the
// workspace's .harn files (parsed, not run). Each file's symbols are kept
// until it changes, so only new and changed files are read and parsed; a
// file not kept yet whose text does not have the query, ignoring case,
// has no symbol for it and is not parsed. The answer holds the best
// maxWorkspaceSymbols matches: exact names, then prefixes, then the
// rest, open documents before other files.
func (s *Server) workspaceSymbols(_ *glsp.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	query := strings.ToLower(p.Query)
	open := map[string]*analysis{}
	s.mu.Lock()
	for _, d := range s.docs {
		open[d.path] = d.good
	}
	s.mu.Unlock()
	paths := s.workspaceFiles(maxSearchFiles)
	for path := range open {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	paths = slices.Compact(paths)
	type match struct {
		rank int
		si   protocol.SymbolInformation
	}
	var found []match
	kept := map[string]*fileSymbolCache{}
	for _, path := range paths {
		if s.cancelled() {
			return nil, errCancelled
		}
		c := s.symbolsOf(path, open, query)
		if c == nil {
			continue
		}
		kept[path] = c
		for _, si := range c.syms {
			if r := symbolRank(si.Name, p.Query, query); r >= 0 {
				r *= 2
				if open[path] == nil {
					r++ // open documents first among equals
				}
				found = append(found, match{r, si})
			}
		}
	}
	s.mu.Lock()
	s.symCache = kept // forget deleted files
	s.mu.Unlock()
	sort.SliceStable(found, func(i, j int) bool { return found[i].rank < found[j].rank })
	out := make([]protocol.SymbolInformation, 0, min(len(found), maxWorkspaceSymbols))
	for _, m := range found[:min(len(found), maxWorkspaceSymbols)] {
		out = append(out, m.si)
	}
	return out, nil
}

// symbolRank orders a symbol for a query (lower is better; -1 when it
// does not match): the exact name, the name ignoring case, a prefix, a
// part of the name. lower is query in lower case.
func symbolRank(name, query, lower string) int {
	switch n := strings.ToLower(name); {
	case query == "" || name == query:
		return 0
	case n == lower:
		return 1
	case strings.HasPrefix(n, lower):
		return 2
	case strings.Contains(n, lower):
		return 3
	}
	return -1
}

// symbolsOf is the kept symbols of path, read and parsed again when the
// file changed; nil when it cannot be read or parsed, or when it is not
// kept yet and its text lacks query (in lower case).
func (s *Server) symbolsOf(path string, open map[string]*analysis, query string) *fileSymbolCache {
	src := symbolSource{doc: open[path]}
	if _, isOpen := open[path]; isOpen && src.doc == nil {
		return nil // open and never parsed
	}
	if src.doc == nil {
		info, err := os.Stat(path)
		if err != nil {
			return nil
		}
		src.info = info
	}
	s.mu.Lock()
	c := s.symCache[path]
	s.mu.Unlock()
	if c != nil && c.fresh(src) {
		return c
	}
	c = &fileSymbolCache{doc: src.doc}
	var text string
	var f *syntax.File
	var toks []syntax.Token
	if src.doc != nil {
		text, f, toks = src.doc.text, src.doc.file, src.doc.toks
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		text = string(b)
		if query != "" && !strings.Contains(strings.ToLower(text), query) {
			return nil
		}
		if f, err = syntax.Parse(path, b); err != nil {
			return nil
		}
		toks, _ = syntax.Scan(path, b)
		c.modTime, c.size = src.info.ModTime().UnixNano(), src.info.Size()
	}
	lines := splitLines(text)
	var walk func(syms []symbol, container string)
	walk = func(syms []symbol, container string) {
		for _, sym := range syms {
			si := protocol.SymbolInformation{Name: sym.name, Kind: sym.kind,
				Location: protocol.Location{URI: pathURI(path), Range: rangeOf(lines, sym.namePos, runeLen(sym.name))}}
			if container != "" {
				in := container
				si.ContainerName = &in
			}
			c.syms = append(c.syms, si)
			walk(sym.children, sym.name)
		}
	}
	walk(fileSymbols(f, toks), "")
	s.mu.Lock()
	if s.symCache == nil {
		s.symCache = map[string]*fileSymbolCache{}
	}
	s.symCache[path] = c
	s.mu.Unlock()
	return c
}
