package templates

// Templates (docs/spec/builtins.md §4.8): render / render_prompt read a template
// file relative to the calling script's directory, render_string renders
// inline text. A template is text with `{{ … }}` directives: expressions
// with filters, if/elif/else, for loops with a `loop` variable, include,
// comments, raw blocks and `{{-`/`-}}` whitespace trimming. Failures read
// `[<path> ]at L:C: <what>`, L:C being the position of the directive.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/schema"
	"github.com/harnlang/harn/stdlib/text"
	"github.com/harnlang/harn/vm"
	toml "github.com/pelletier/go-toml/v2"
)

func init() {
	file := func(name string) vm.BuiltinFunc {
		return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			_, out, err := renderPath(th, name, a, nil)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Str(out), nil
		}
	}
	lib.Def("render", "render(path, bindings?) -> string", "render a template file (relative to the script's directory)", file("render"))
	lib.Def("render_prompt", "render_prompt(path, bindings?) -> string", "render a prompt template file", file("render_prompt"))
	lib.Def("render_with_provenance", "render_with_provenance(path, bindings?) -> dict",
		"render a template file as render does, with where each piece of the text came from: {text, template, prompt_id, spans}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			prov := &provenance{}
			path, out, err := renderPath(th, "render_with_provenance", a, prov)
			if err != nil {
				return vm.Value{}, err
			}
			return prov.result(path, out), nil
		})
	lib.Def("render_string", "render_string(text, bindings?) -> string", "render inline template text", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("render_string requires at least 1 argument: text")
		}
		r := &tplRenderer{th: th}
		out, err := r.render(a.Text(0), "", templateBaseDir(th), bindingsArg(a, 1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(out), nil
	})
}

// renderPath renders the template file named by the builtin name's
// first argument, with the bindings of the second, recording provenance
// into prov when it is not nil. It returns the resolved path and the text.
func renderPath(th *vm.Thread, name string, a vm.Args, prov *provenance) (string, string, error) {
	if !a.Given(0) {
		return "", "", vm.Throwf("%s requires at least 1 argument: path", name)
	}
	path, err := templatePath(th, a.Text(0), templateBaseDir(th))
	if err != nil {
		return "", "", err
	}
	r := &tplRenderer{th: th, prov: prov}
	out, err := r.renderFile(path, bindingsArg(a, 1))
	return path, out, err
}

// RenderTemplate renders template text that starts on line line of its
// file (1 for a whole file), with bindings; includes resolve against
// dir. Failures are thrown strings in the `at L:C: …` form, L counting
// the file's lines. Hosts (MCP prompts, the orchestrator) reuse it.
func RenderTemplate(th *vm.Thread, text string, line int, dir string, bindings *vm.Dict) (string, error) {
	if bindings == nil {
		bindings = vm.NewDict()
	}
	r := &tplRenderer{th: th}
	return r.renderAt(text, line, "", dir, bindings)
}

// TemplateVariables lists, in first-use order, the root names a template
// reads from its bindings (loop variables and `loop` excluded). The
// text starts on line line of its file, for the positions of errors.
func TemplateVariables(text string, line int) ([]string, error) {
	toks, err := tokenizeTemplateAt(text, line)
	if err != nil {
		return nil, err
	}
	nodes, _, _, err := (&tplParser{toks: toks}).parseBlock()
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	var walk func(nodes []tplNode, bound map[string]bool)
	var expr func(e tplExp, bound map[string]bool)
	expr = func(e tplExp, bound map[string]bool) {
		switch x := e.(type) {
		case *tplVar:
			if !bound[x.name] && !seen[x.name] {
				seen[x.name] = true
				names = append(names, x.name)
			}
		case *tplGet:
			expr(x.obj, bound)
			expr(x.key, bound)
		case *tplNot:
			expr(x.x, bound)
		case *tplBin:
			expr(x.l, bound)
			expr(x.r, bound)
		case *tplFilter:
			expr(x.x, bound)
			for _, a := range x.args {
				expr(a, bound)
			}
		case *tplListLit:
			for _, it := range x.items {
				expr(it, bound)
			}
		case *tplDictLit:
			for _, it := range x.vals {
				expr(it, bound)
			}
		}
	}
	walk = func(nodes []tplNode, bound map[string]bool) {
		for _, n := range nodes {
			switch x := n.(type) {
			case *tplExpr:
				expr(x.expr, bound)
			case *tplIf:
				for _, br := range x.branches {
					expr(br.cond, bound)
					walk(br.body, bound)
				}
				walk(x.orElse, bound)
			case *tplFor:
				expr(x.iter, bound)
				inner := map[string]bool{"loop": true, x.val: true}
				if x.key != "" {
					inner[x.key] = true
				}
				for k := range bound {
					inner[k] = true
				}
				walk(x.body, inner)
				walk(x.orElse, bound)
			case *tplInclude:
				expr(x.path, bound)
				if x.with != nil {
					expr(x.with, bound)
				}
			}
		}
	}
	walk(nodes, map[string]bool{})
	return names, nil
}

func bindingsArg(a vm.Args, i int) *vm.Dict {
	switch d := a.At(i).Object().(type) {
	case *vm.Dict:
		return d
	case *vm.StructValue:
		return schema.StructFields(d)
	}
	return vm.NewDict()
}

// templateBaseDir is the calling script's directory (fallback: the
// execution root).
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func templateBaseDir(th *vm.Thread) string {
	// A template named by a function of an imported module is relative to
	// that module's file, like its imports.
	if f := th.CallerFile(); f != "" && !vm.IsStdFile(f) && fileExists(f) {
		if abs, err := filepath.Abs(filepath.Dir(f)); err == nil {
			return abs
		}
	}
	if d := th.VM().ScriptDir; d != "" {
		return d
	}
	return fs.ExecutionRoot(th)
}

// templatePath resolves a template reference: `@/rel` against the project
// root, `@alias/rel` against a configured asset root, anything else
// relative to base.
func templatePath(th *vm.Thread, ref, base string) (string, error) {
	if strings.HasPrefix(ref, "@") {
		alias, rest, _ := strings.Cut(ref[1:], "/")
		root := process.ProjectRoot(th)
		if root == "" {
			root = fs.ExecutionRoot(th)
		}
		if alias == "" {
			return filepath.Join(root, rest), nil
		}
		dir, ok := assetRoot(root, alias)
		if !ok {
			return "", vm.Throwf("Failed to read template %s: unknown asset root '@%s'", ref, alias)
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		return filepath.Join(dir, rest), nil
	}
	if filepath.IsAbs(ref) {
		return ref, nil
	}
	return filepath.Join(base, ref), nil
}

// assetRoot looks an alias up in the project's harn.toml ([asset_roots]
// or [assets] table).
func assetRoot(projectDir, alias string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(projectDir, "harn.toml"))
	if err != nil {
		return "", false
	}
	var cfg map[string]any
	if toml.Unmarshal(data, &cfg) != nil {
		return "", false
	}
	for _, table := range []string{"asset_roots", "assets"} {
		if m, ok := cfg[table].(map[string]any); ok {
			if s, ok := m[alias].(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

// ---- parsing ----

type tplNode interface{}

type tplText struct {
	text string
	pos  tplPos
}

type tplExpr struct {
	expr tplExp
	src  string // the directive's text, for provenance
	lone string // the identifier when the expression is a bare name
	pos  tplPos
}

type tplBranch struct {
	cond tplExp
	body []tplNode
}

type tplIf struct {
	branches []tplBranch
	orElse   []tplNode
}

type tplFor struct {
	key, val string // key is "" for `for x in xs`
	iter     tplExp
	body     []tplNode
	orElse   []tplNode
	pos      tplPos
}

type tplInclude struct {
	path tplExp
	with tplExp
	pos  tplPos
}

type tplPos struct{ line, col int }

// tplError is a template failure at a position.
type tplError struct {
	pos tplPos
	msg string
}

func (e *tplError) Error() string { return fmt.Sprintf("at %d:%d: %s", e.pos.line, e.pos.col, e.msg) }

// tplToken is one piece of template source.
type tplToken struct {
	text      string // raw text, or the directive body
	directive bool
	pos       tplPos
}

// tplPositions gives the 1-based line and column (in characters) of
// byte offsets of src. The tokenizer asks for offsets in increasing
// order, so each answer continues from the previous one: a template of n
// bytes costs O(n) however many directives it has.
type tplPositions struct {
	src   string
	first int    // the line src starts on
	off   int    // the offset last answered
	pos   tplPos // its position
}

func newTplPositions(src string, firstLine int) *tplPositions {
	return &tplPositions{src: src, first: firstLine, pos: tplPos{firstLine, 1}}
}

func (t *tplPositions) at(i int) tplPos {
	if i < t.off {
		t.off, t.pos = 0, tplPos{t.first, 1}
	}
	for _, r := range t.src[t.off:i] {
		if r == '\n' {
			t.pos = tplPos{t.pos.line + 1, 1}
		} else {
			t.pos.col++
		}
	}
	t.off = i
	return t.pos
}

// tokenize splits src into text and directive tokens, applying the trim
// markers and dropping comments; raw blocks become text.
func tokenizeTemplate(src string) ([]tplToken, error) { return tokenizeTemplateAt(src, 1) }

// tokenizeTemplateAt tokenizes src, which starts on line firstLine of
// its file.
func tokenizeTemplateAt(src string, firstLine int) ([]tplToken, error) {
	var toks []tplToken
	positions := newTplPositions(src, firstLine)
	trimNext := false
	i := 0
	for i < len(src) {
		j := strings.Index(src[i:], "{{")
		if j < 0 {
			toks = appendText(toks, src[i:], trimNext, false, positions.at(i))
			break
		}
		open := i + j
		trimPrev := strings.HasPrefix(src[open:], "{{-")
		toks = appendText(toks, src[i:open], trimNext, trimPrev, positions.at(i))
		trimNext = false
		pos := positions.at(open)
		if strings.HasPrefix(src[open:], "{{#") {
			end := strings.Index(src[open+3:], "#}}")
			if end < 0 {
				return nil, &tplError{pos, "unterminated comment"}
			}
			i = open + 3 + end + 3
			continue
		}
		end := directiveEnd(src[open+2:])
		if end < 0 {
			return nil, &tplError{pos, "unterminated directive"}
		}
		body := src[open+2 : open+2+end]
		i = open + 2 + end + 2
		if strings.HasPrefix(body, "-") {
			body = body[1:]
		}
		if strings.HasSuffix(body, "-") {
			body = body[:len(body)-1]
			trimNext = true
		}
		body = strings.TrimSpace(body)
		if body == "raw" {
			// everything up to {{ endraw }} is literal
			k := i
			for {
				m := strings.Index(src[k:], "{{")
				if m < 0 {
					return nil, &tplError{pos, "unterminated raw block"}
				}
				at := k + m
				close := strings.Index(src[at+2:], "}}")
				if close < 0 {
					return nil, &tplError{pos, "unterminated raw block"}
				}
				inner := strings.Trim(strings.TrimSpace(src[at+2:at+2+close]), "-")
				if strings.TrimSpace(inner) == "endraw" {
					// `{{ raw -}}` and `{{- endraw }}` trim the raw text's
					// edges as they would any text (docs/spec/builtins.md §4.8)
					toks = appendText(toks, src[i:at], trimNext, strings.HasPrefix(src[at:], "{{-"), positions.at(i))
					i = at + 2 + close + 2
					trimNext = strings.HasSuffix(strings.TrimSpace(src[at+2:at+2+close]), "-")
					break
				}
				k = at + 2
			}
			continue
		}
		toks = append(toks, tplToken{text: body, directive: true, pos: pos})
	}
	return toks, nil
}

// directiveEnd is the offset in s (the text after a `{{`) of the `}}`
// closing the directive: one inside a string literal or a bracketed
// dict, list or group does not close it, so `{{ "}}" }}` and
// `{{ include "f" with {a: {b: 1}} }}` are whole directives. When the
// strings and brackets do not pair up it is the first `}}`, so the
// expression's own error names the problem. -1: none.
func directiveEnd(s string) int {
	var open []byte // the brackets not yet closed
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return strings.Index(s, "}}")
			}
			i = j
		case '{', '[', '(':
			open = append(open, c)
		case '}', ']', ')':
			if len(open) == 0 {
				if c == '}' && strings.HasPrefix(s[i:], "}}") {
					return i
				}
				return strings.Index(s, "}}")
			}
			if open[len(open)-1] != opener(c) {
				return strings.Index(s, "}}")
			}
			open = open[:len(open)-1]
		}
	}
	return strings.Index(s, "}}")
}

// opener is the bracket a closing one pairs with.
func opener(closing byte) byte {
	switch closing {
	case '}':
		return '{'
	case ']':
		return '['
	}
	return '('
}

// appendText adds a text token, trimming leading whitespace (and one
// newline) after a `-}}` and trailing whitespace (and one newline) before
// a `{{-`.
func appendText(toks []tplToken, text string, trimLead, trimTrail bool, pos tplPos) []tplToken {
	if trimLead {
		t := strings.TrimLeft(text, " \t")
		pos.col += len(text) - len(t) // spaces and tabs: one byte each
		if strings.HasPrefix(t, "\r\n") {
			t = t[2:]
			pos = tplPos{pos.line + 1, 1}
		} else if strings.HasPrefix(t, "\n") {
			t = t[1:]
			pos = tplPos{pos.line + 1, 1}
		}
		text = t
	}
	if trimTrail {
		t := strings.TrimRight(text, " \t")
		if strings.HasSuffix(t, "\r\n") {
			t = t[:len(t)-2]
		} else if strings.HasSuffix(t, "\n") {
			t = t[:len(t)-1]
		}
		text = strings.TrimRight(t, " \t")
	}
	if text == "" {
		return toks
	}
	return append(toks, tplToken{text: text, pos: pos})
}

type tplParser struct {
	toks []tplToken
	i    int
}

// parseBlock parses nodes until one of the stop keywords; it returns the
// keyword met ("" at the end of input) and its token.
func (p *tplParser) parseBlock(stops ...string) ([]tplNode, string, tplToken, error) {
	var nodes []tplNode
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		p.i++
		if !t.directive {
			nodes = append(nodes, &tplText{t.text, t.pos})
			continue
		}
		word, rest := tplSplitWord(t.text)
		for _, s := range stops {
			if word == s {
				return nodes, word, t, nil
			}
		}
		switch word {
		case "if":
			n, err := p.parseIf(rest, t)
			if err != nil {
				return nil, "", t, err
			}
			nodes = append(nodes, n)
		case "for":
			n, err := p.parseFor(rest, t)
			if err != nil {
				return nil, "", t, err
			}
			nodes = append(nodes, n)
		case "include":
			n, err := parseInclude(rest, t)
			if err != nil {
				return nil, "", t, err
			}
			nodes = append(nodes, n)
		case "elif", "else", "end", "endif", "endfor", "endraw":
			return nil, "", t, &tplError{t.pos, "unexpected `" + word + "`"}
		default:
			e, err := parseTplExpr(t.text, t.pos)
			if err != nil {
				return nil, "", t, err
			}
			lone := ""
			if tplIsIdent(t.text) {
				lone = t.text
			}
			nodes = append(nodes, &tplExpr{expr: e, src: t.text, lone: lone, pos: t.pos})
		}
	}
	return nodes, "", tplToken{}, nil
}

func tplSplitWord(s string) (string, string) {
	i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) })
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func tplIsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	switch s {
	case "true", "false", "nil", "null", "not", "and", "or":
		return false
	}
	return true
}

func (p *tplParser) parseIf(cond string, open tplToken) (tplNode, error) {
	n := &tplIf{}
	c, err := parseTplExpr(cond, open.pos)
	if err != nil {
		return nil, err
	}
	for {
		body, stop, tok, err := p.parseBlock("elif", "else", "end", "endif")
		if err != nil {
			return nil, err
		}
		n.branches = append(n.branches, tplBranch{c, body})
		switch stop {
		case "":
			return nil, &tplError{open.pos, "unterminated `if` block"}
		case "elif":
			_, rest := tplSplitWord(tok.text)
			if c, err = parseTplExpr(rest, tok.pos); err != nil {
				return nil, err
			}
			continue
		case "else":
			body, stop, _, err := p.parseBlock("end", "endif")
			if err != nil {
				return nil, err
			}
			if stop == "" {
				return nil, &tplError{open.pos, "unterminated `if` block"}
			}
			n.orElse = body
		}
		return n, nil
	}
}

// forHead splits `NAME in EXPR` / `K, V in EXPR` at the first `in`
// standing alone between whitespace (spaces, tabs or newlines).
var forHead = regexp.MustCompile(`(?s)^(.*?)\s+in\s+(.*)$`)

func (p *tplParser) parseFor(spec string, open tplToken) (tplNode, error) {
	m := forHead.FindStringSubmatch(spec)
	if m == nil {
		return nil, &tplError{open.pos, "expected `for NAME in EXPR`"}
	}
	head, iterText := m[1], m[2]
	n := &tplFor{pos: open.pos}
	vars := strings.Split(head, ",")
	switch len(vars) {
	case 1:
		n.val = strings.TrimSpace(vars[0])
	case 2:
		n.key, n.val = strings.TrimSpace(vars[0]), strings.TrimSpace(vars[1])
	default:
		return nil, &tplError{open.pos, "expected `for NAME in EXPR`"}
	}
	if !tplIsIdent(n.val) || (n.key != "" && !tplIsIdent(n.key)) {
		return nil, &tplError{open.pos, "expected `for NAME in EXPR`"}
	}
	it, err := parseTplExpr(iterText, open.pos)
	if err != nil {
		return nil, err
	}
	n.iter = it
	body, stop, _, err := p.parseBlock("else", "end", "endfor")
	if err != nil {
		return nil, err
	}
	n.body = body
	if stop == "else" {
		body, stop, _, err = p.parseBlock("end", "endfor")
		if err != nil {
			return nil, err
		}
		n.orElse = body
	}
	if stop == "" {
		return nil, &tplError{open.pos, "unterminated `for` block"}
	}
	return n, nil
}

func parseInclude(rest string, t tplToken) (tplNode, error) {
	lx := &tplLexer{src: rest, pos: t.pos}
	lx.next()
	path, err := lx.parsePrimary()
	if err != nil {
		return nil, err
	}
	n := &tplInclude{path: path, pos: t.pos}
	if lx.tok.kind == tkIdent && lx.tok.text == "with" {
		lx.next()
		w, err := lx.parseOr()
		if err != nil {
			return nil, err
		}
		n.with = w
	}
	if lx.tok.kind != tkEOF {
		return nil, &tplError{t.pos, "unexpected `" + lx.tok.text + "` in include"}
	}
	return n, nil
}

// ---- expressions ----

type tplExp interface{}

type (
	tplLit struct{ v vm.Value }
	tplVar struct{ name string }
	tplGet struct{ obj, key tplExp }
	tplNot struct{ x tplExp }
	tplBin struct {
		op   string
		l, r tplExp
	}
	tplFilter struct {
		x    tplExp
		name string
		args []tplExp
		pos  tplPos
	}
	tplListLit struct{ items []tplExp }
	tplDictLit struct {
		keys []string
		vals []tplExp
	}
)

type tkKind int

const (
	tkEOF tkKind = iota
	tkIdent
	tkNum
	tkStr
	tkOp
)

type tplTok struct {
	kind tkKind
	text string
	val  vm.Value
}

type tplLexer struct {
	src string
	i   int
	tok tplTok
	pos tplPos
	err error
}

func parseTplExpr(src string, pos tplPos) (tplExp, error) {
	lx := &tplLexer{src: src, pos: pos}
	lx.next()
	if lx.err != nil {
		return nil, lx.err
	}
	if lx.tok.kind == tkEOF {
		return nil, &tplError{pos, "empty expression"}
	}
	e, err := lx.parseOr()
	if err != nil {
		return nil, err
	}
	if lx.err != nil {
		return nil, lx.err
	}
	if lx.tok.kind != tkEOF {
		return nil, &tplError{pos, "unexpected `" + lx.tok.text + "`"}
	}
	return e, nil
}

func (lx *tplLexer) fail(msg string) error {
	if lx.err == nil {
		lx.err = &tplError{lx.pos, msg}
	}
	return lx.err
}

func (lx *tplLexer) next() {
	for lx.i < len(lx.src) && (lx.src[lx.i] == ' ' || lx.src[lx.i] == '\t' || lx.src[lx.i] == '\n' || lx.src[lx.i] == '\r') {
		lx.i++
	}
	if lx.i >= len(lx.src) {
		lx.tok = tplTok{kind: tkEOF}
		return
	}
	c := lx.src[lx.i]
	switch {
	case c == '"' || c == '\'':
		var sb strings.Builder
		j := lx.i + 1
		for j < len(lx.src) && lx.src[j] != c {
			if lx.src[j] == '\\' && j+1 < len(lx.src) {
				j++
				switch lx.src[j] {
				case 'n':
					sb.WriteByte('\n')
				case 't':
					sb.WriteByte('\t')
				default:
					sb.WriteByte(lx.src[j])
				}
				j++
				continue
			}
			sb.WriteByte(lx.src[j])
			j++
		}
		if j >= len(lx.src) {
			lx.fail("unterminated string")
			lx.tok = tplTok{kind: tkEOF}
			lx.i = len(lx.src)
			return
		}
		lx.tok = tplTok{kind: tkStr, text: lx.src[lx.i : j+1], val: vm.Str(sb.String())}
		lx.i = j + 1
	case lib.ASCIIDigit(c) || (c == '-' && lx.i+1 < len(lx.src) && lib.ASCIIDigit(lx.src[lx.i+1])):
		j := lx.i + 1
		for j < len(lx.src) && (lib.ASCIIDigit(lx.src[j]) || lx.src[j] == '.' || lx.src[j] == '_') {
			j++
		}
		text := strings.ReplaceAll(lx.src[lx.i:j], "_", "")
		var v vm.Value
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			v = vm.IntOf(n)
		} else if f, err := strconv.ParseFloat(text, 64); err == nil {
			v = vm.FloatOf(f)
		} else {
			lx.fail("invalid number `" + text + "`")
			v = vm.Nil
		}
		lx.tok = tplTok{kind: tkNum, text: text, val: v}
		lx.i = j
	case c == '_' || c >= utf8.RuneSelf || unicode.IsLetter(rune(c)):
		j := lx.i
		for j < len(lx.src) {
			r, size := utf8.DecodeRuneInString(lx.src[j:])
			if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
				break
			}
			j += size
		}
		if j == lx.i {
			r, size := utf8.DecodeRuneInString(lx.src[j:])
			lx.fail(fmt.Sprintf("unexpected character `%c`", r))
			lx.tok = tplTok{kind: tkOp, text: string(r)}
			lx.i += size
			return
		}
		lx.tok = tplTok{kind: tkIdent, text: lx.src[lx.i:j]}
		lx.i = j
	default:
		for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", "{", "}", ".", ",", ":", "|"} {
			if strings.HasPrefix(lx.src[lx.i:], op) {
				lx.tok = tplTok{kind: tkOp, text: op}
				lx.i += len(op)
				return
			}
		}
		r, size := utf8.DecodeRuneInString(lx.src[lx.i:])
		lx.fail(fmt.Sprintf("unexpected character `%c`", r))
		lx.tok = tplTok{kind: tkOp, text: string(r)}
		lx.i += size
	}
}

func (lx *tplLexer) isOp(s string) bool { return lx.tok.kind == tkOp && lx.tok.text == s }
func (lx *tplLexer) isWord(s string) bool {
	return lx.tok.kind == tkIdent && lx.tok.text == s
}

func (lx *tplLexer) parseOr() (tplExp, error) {
	l, err := lx.parseAnd()
	if err != nil {
		return nil, err
	}
	for lx.isWord("or") || lx.isOp("||") {
		lx.next()
		r, err := lx.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &tplBin{"or", l, r}
	}
	return l, nil
}

func (lx *tplLexer) parseAnd() (tplExp, error) {
	l, err := lx.parseNot()
	if err != nil {
		return nil, err
	}
	for lx.isWord("and") || lx.isOp("&&") {
		lx.next()
		r, err := lx.parseNot()
		if err != nil {
			return nil, err
		}
		l = &tplBin{"and", l, r}
	}
	return l, nil
}

func (lx *tplLexer) parseNot() (tplExp, error) {
	if lx.isWord("not") || lx.isOp("!") {
		lx.next()
		x, err := lx.parseNot()
		if err != nil {
			return nil, err
		}
		return &tplNot{x}, nil
	}
	return lx.parseCmp()
}

func (lx *tplLexer) parseCmp() (tplExp, error) {
	l, err := lx.parseFiltered()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if lx.isOp(op) {
			lx.next()
			r, err := lx.parseFiltered()
			if err != nil {
				return nil, err
			}
			return &tplBin{op, l, r}, nil
		}
	}
	return l, nil
}

func (lx *tplLexer) parseFiltered() (tplExp, error) {
	x, err := lx.parsePrimary()
	if err != nil {
		return nil, err
	}
	for lx.isOp("|") {
		lx.next()
		if lx.tok.kind != tkIdent {
			return nil, lx.fail("expected a filter name after `|`")
		}
		f := &tplFilter{x: x, name: lx.tok.text, pos: lx.pos}
		lx.next()
		if lx.isOp(":") {
			lx.next()
			for {
				a, err := lx.parsePrimary()
				if err != nil {
					return nil, err
				}
				f.args = append(f.args, a)
				if !lx.isOp(",") {
					break
				}
				lx.next()
			}
		}
		x = f
	}
	return x, nil
}

func (lx *tplLexer) parsePrimary() (tplExp, error) {
	if lx.err != nil {
		return nil, lx.err
	}
	t := lx.tok
	var x tplExp
	switch {
	case t.kind == tkStr || t.kind == tkNum:
		lx.next()
		x = &tplLit{t.val}
	case t.kind == tkIdent:
		lx.next()
		switch t.text {
		case "true":
			x = &tplLit{vm.True}
		case "false":
			x = &tplLit{vm.False}
		case "nil", "null":
			x = &tplLit{vm.Nil}
		default:
			x = &tplVar{t.text}
		}
	case lx.isOp("("):
		lx.next()
		e, err := lx.parseOr()
		if err != nil {
			return nil, err
		}
		if !lx.isOp(")") {
			return nil, lx.fail("expected `)`")
		}
		lx.next()
		x = e
	case lx.isOp("["):
		lx.next()
		l := &tplListLit{}
		for !lx.isOp("]") {
			e, err := lx.parseOr()
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, e)
			if lx.isOp(",") {
				lx.next()
				continue
			}
			if !lx.isOp("]") {
				return nil, lx.fail("expected `,` or `]`")
			}
		}
		lx.next()
		x = l
	case lx.isOp("{"):
		lx.next()
		d := &tplDictLit{}
		for !lx.isOp("}") {
			var key string
			switch lx.tok.kind {
			case tkIdent:
				key = lx.tok.text
			case tkStr:
				key = vm.ToDisplay(lx.tok.val)
			default:
				return nil, lx.fail("expected a key in dict literal")
			}
			lx.next()
			if !lx.isOp(":") {
				return nil, lx.fail("expected `:` in dict literal")
			}
			lx.next()
			e, err := lx.parseOr()
			if err != nil {
				return nil, err
			}
			d.keys = append(d.keys, key)
			d.vals = append(d.vals, e)
			if lx.isOp(",") {
				lx.next()
				continue
			}
			if !lx.isOp("}") {
				return nil, lx.fail("expected `,` or `}`")
			}
		}
		lx.next()
		x = d
	case t.kind == tkEOF:
		return nil, lx.fail("unexpected end of expression")
	default:
		return nil, lx.fail("unexpected `" + t.text + "`")
	}
	for {
		switch {
		case lx.isOp("."):
			lx.next()
			if lx.tok.kind != tkIdent && lx.tok.kind != tkNum {
				return nil, lx.fail("expected a name after `.`")
			}
			var key vm.Value = vm.Str(lx.tok.text)
			if lx.tok.kind == tkNum {
				key = lx.tok.val
			}
			x = &tplGet{x, &tplLit{key}}
			lx.next()
		case lx.isOp("["):
			lx.next()
			k, err := lx.parseOr()
			if err != nil {
				return nil, err
			}
			if !lx.isOp("]") {
				return nil, lx.fail("expected `]`")
			}
			lx.next()
			x = &tplGet{x, k}
		default:
			return x, lx.err
		}
	}
}

// ---- rendering ----

type tplRenderer struct {
	th    *vm.Thread
	stack []string    // files being rendered, for include cycles
	prov  *provenance // where each piece of the output came from, when asked
}

// tplScope is a chain of variable frames.
type tplScope struct {
	vars   *vm.Dict
	parent *tplScope
}

func (s *tplScope) lookup(name string) (vm.Value, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars.Get(name); ok {
			return v, true
		}
	}
	return vm.Value{}, false
}

// flatten merges the chain into one dict (innermost wins).
func (s *tplScope) flatten() *vm.Dict {
	if s == nil {
		return vm.NewDict()
	}
	return s.parent.flatten().Merge(s.vars)
}

func (r *tplRenderer) renderFile(path string, bindings *vm.Dict) (string, error) {
	data, err := fs.ReadText(path)
	if err != nil {
		return "", vm.Throwf("Failed to read template %s: %s", path, fs.OSErrorText(err))
	}
	for _, p := range r.stack {
		if p == path {
			chain := append(append([]string(nil), r.stack...), path)
			return "", &tplError{tplPos{1, 1}, "circular include detected: " + strings.Join(chain, " -> ")}
		}
	}
	r.stack = append(r.stack, path)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()
	text, line := templateBody(path, data)
	return r.renderAt(text, line, path, filepath.Dir(path), bindings)
}

// render renders src; label ("" for inline text) prefixes error positions.
func (r *tplRenderer) render(src, label, dir string, bindings *vm.Dict) (string, error) {
	return r.renderAt(src, 1, label, dir, bindings)
}

// renderAt renders src, which starts on line line of its file.
func (r *tplRenderer) renderAt(src string, line int, label, dir string, bindings *vm.Dict) (string, error) {
	out, err := r.renderInner(src, line, dir, &tplScope{vars: bindings})
	if err != nil {
		if te, ok := err.(*tplError); ok {
			if label != "" {
				return "", vm.Throwf("%s %s", label, te.Error())
			}
			return "", vm.Throwf("%s", te.Error())
		}
		return "", err
	}
	return out, nil
}

func (r *tplRenderer) renderInner(src string, line int, dir string, scope *tplScope) (string, error) {
	toks, err := tokenizeTemplateAt(src, line)
	if err != nil {
		return "", err
	}
	p := &tplParser{toks: toks}
	nodes, _, _, err := p.parseBlock()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	if err := r.exec(&sb, nodes, dir, scope); err != nil {
		return "", err
	}
	return sb.String(), nil
}

func (r *tplRenderer) exec(sb *strings.Builder, nodes []tplNode, dir string, scope *tplScope) error {
	for _, n := range nodes {
		switch x := n.(type) {
		case *tplText:
			sb.WriteString(x.text)
			r.note(provText, x.pos, "", x.text)
		case *tplExpr:
			if x.lone != "" {
				if _, ok := scope.lookup(x.lone); !ok {
					back := "{{" + x.lone + "}}"
					sb.WriteString(back)
					r.note(provUnbound, x.pos, x.src, back)
					continue
				}
			}
			v, err := r.eval(x.expr, scope)
			if err != nil {
				return err
			}
			if !v.IsNil() {
				out := vm.ToDisplay(v)
				sb.WriteString(out)
				r.note(provBinding, x.pos, x.src, out)
			}
		case *tplIf:
			done := false
			for _, br := range x.branches {
				c, err := r.eval(br.cond, scope)
				if err != nil {
					return err
				}
				if tplTruthy(c) {
					if err := r.exec(sb, br.body, dir, scope); err != nil {
						return err
					}
					done = true
					break
				}
			}
			if !done {
				if err := r.exec(sb, x.orElse, dir, scope); err != nil {
					return err
				}
			}
		case *tplFor:
			if err := r.execFor(sb, x, dir, scope); err != nil {
				return err
			}
		case *tplInclude:
			if err := r.execInclude(sb, x, dir, scope); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *tplRenderer) execFor(sb *strings.Builder, f *tplFor, dir string, scope *tplScope) error {
	it, err := r.eval(f.iter, scope)
	if err != nil {
		return err
	}
	type pair struct{ k, v vm.Value }
	var items []pair
	if c, ok := it.AsString(); ok {
		i := 0
		for _, ch := range c.Go() {
			items = append(items, pair{vm.IntOf(int64(i)), vm.Str(string(ch))})
			i++
		}
	}
	switch c := it.Object().(type) {
	case *vm.List:
		for i, v := range c.Items() {
			items = append(items, pair{vm.IntOf(int64(i)), v})
		}
	case *vm.Set:
		for i, v := range c.Items() {
			items = append(items, pair{vm.IntOf(int64(i)), v})
		}
	case *vm.Dict:
		c.Range(func(k string, v vm.Value) bool {
			if f.key == "" {
				items = append(items, pair{vm.Str(k), vm.Of(vm.EntryDict(k, v))})
			} else {
				items = append(items, pair{vm.Str(k), v})
			}
			return true
		})
	case *vm.Range:
		iter := c.Iterate()
		for i := 0; ; i++ {
			v, ok, _ := iter.Next()
			if !ok {
				break
			}
			items = append(items, pair{vm.IntOf(int64(i)), v})
		}
	}
	if len(items) == 0 {
		return r.exec(sb, f.orElse, dir, scope)
	}
	for i, p := range items {
		b := vm.NewDictBuilder(3)
		b.Set(f.val, p.v)
		if f.key != "" {
			b.Set(f.key, p.k)
		}
		b.Set("loop", vm.Of(lib.DictOf("index", lib.IntOf(i+1), "index0", lib.IntOf(i), "first", vm.BoolOf(i == 0),
			"last", vm.BoolOf(i == len(items)-1), "length", lib.IntOf(len(items)))))
		if err := r.exec(sb, f.body, dir, &tplScope{vars: b.Build(), parent: scope}); err != nil {
			return err
		}
	}
	return nil
}

func (r *tplRenderer) execInclude(sb *strings.Builder, inc *tplInclude, dir string, scope *tplScope) error {
	pv, err := r.eval(inc.path, scope)
	if err != nil {
		return err
	}
	path, err := templatePath(r.th, vm.ToDisplay(pv), dir)
	if err != nil {
		return err
	}
	vars := scope.flatten()
	if inc.with != nil {
		w, err := r.eval(inc.with, scope)
		if err != nil {
			return err
		}
		if wd, ok := w.AsDict(); ok {
			vars = vars.Merge(wd)
		}
	}
	for _, p := range r.stack {
		if p == path {
			chain := append(append([]string(nil), r.stack...), path)
			return &tplError{inc.pos, "circular include detected: " + strings.Join(chain, " -> ")}
		}
	}
	data, err := fs.ReadText(path)
	if err != nil {
		return vm.Throwf("Failed to read template %s: %s", path, fs.OSErrorText(err))
	}
	r.stack = append(r.stack, path)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()
	text, line := templateBody(path, data)
	out, err := r.renderInner(text, line, filepath.Dir(path), &tplScope{vars: vars})
	if err != nil {
		if te, ok := err.(*tplError); ok {
			return vm.Throwf("%s %s", path, te.Error())
		}
		return err
	}
	sb.WriteString(out)
	return nil
}

// tplTruthy is Harn truthiness, with whitespace-only strings false.
func tplTruthy(v vm.Value) bool {
	if s, ok := v.AsString(); ok {
		return strings.TrimSpace(s.Go()) != ""
	}
	return v.Truth()
}

func (r *tplRenderer) eval(e tplExp, scope *tplScope) (vm.Value, error) {
	switch x := e.(type) {
	case *tplLit:
		return x.v, nil
	case *tplVar:
		if v, ok := scope.lookup(x.name); ok {
			return v, nil
		}
		return vm.Nil, nil
	case *tplGet:
		obj, err := r.eval(x.obj, scope)
		if err != nil {
			return vm.Value{}, err
		}
		key, err := r.eval(x.key, scope)
		if err != nil {
			return vm.Value{}, err
		}
		return tplIndex(obj, key), nil
	case *tplNot:
		v, err := r.eval(x.x, scope)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(!tplTruthy(v)), nil
	case *tplBin:
		l, err := r.eval(x.l, scope)
		if err != nil {
			return vm.Value{}, err
		}
		switch x.op {
		case "and":
			if !tplTruthy(l) {
				return vm.False, nil
			}
			rv, err := r.eval(x.r, scope)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.BoolOf(tplTruthy(rv)), nil
		case "or":
			if tplTruthy(l) {
				return vm.True, nil
			}
			rv, err := r.eval(x.r, scope)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.BoolOf(tplTruthy(rv)), nil
		}
		rv, err := r.eval(x.r, scope)
		if err != nil {
			return vm.Value{}, err
		}
		switch x.op {
		case "==":
			return vm.BoolOf(vm.Equal(l, rv)), nil
		case "!=":
			return vm.BoolOf(!vm.Equal(l, rv)), nil
		case "<":
			return vm.BoolOf(vm.Compare(l, rv) < 0), nil
		case ">":
			return vm.BoolOf(vm.Compare(l, rv) > 0), nil
		case "<=":
			return vm.BoolOf(vm.Compare(l, rv) <= 0), nil
		case ">=":
			return vm.BoolOf(vm.Compare(l, rv) >= 0), nil
		}
	case *tplFilter:
		v, err := r.eval(x.x, scope)
		if err != nil {
			return vm.Value{}, err
		}
		args := make([]vm.Value, len(x.args))
		for i, a := range x.args {
			if args[i], err = r.eval(a, scope); err != nil {
				return vm.Value{}, err
			}
		}
		return applyFilter(x, v, args)
	case *tplListLit:
		out := make([]vm.Value, len(x.items))
		for i, it := range x.items {
			v, err := r.eval(it, scope)
			if err != nil {
				return vm.Value{}, err
			}
			out[i] = v
		}
		return vm.Of(vm.NewList(out)), nil
	case *tplDictLit:
		b := vm.NewDictBuilder(len(x.keys))
		for i, k := range x.keys {
			v, err := r.eval(x.vals[i], scope)
			if err != nil {
				return vm.Value{}, err
			}
			b.Set(k, v)
		}
		return vm.Of(b.Build()), nil
	}
	return vm.Nil, nil
}

func tplIndex(obj, key vm.Value) vm.Value {
	if o, ok := obj.AsString(); ok {
		if n, ok := key.AsInt(); ok {
			runes := []rune(o.Go())
			i := int(n)
			if i < 0 {
				i += len(runes)
			}
			if i >= 0 && i < len(runes) {
				return vm.Str(string(runes[i]))
			}
		}
	}
	switch o := obj.Object().(type) {
	case *vm.Dict:
		if v, ok := o.Get(vm.ToDisplay(key)); ok {
			return v
		}
	case *vm.StructValue:
		if v, ok := o.Get(vm.ToDisplay(key)); ok {
			return v
		}
	case *vm.List:
		if n, ok := key.AsInt(); ok {
			i := int(n)
			if i < 0 {
				i += o.Len()
			}
			if i >= 0 && i < o.Len() {
				return o.At(i)
			}
		}
	}
	return vm.Nil
}

// ---- filters ----

// seqItems is the elements of a list, set or range, in order; ok is
// false for any other value.
func seqItems(v vm.Value) (items []vm.Value, ok bool) {
	switch x := v.Object().(type) {
	case *vm.List:
		return x.Items(), true
	case *vm.Set:
		return x.Items(), true
	case *vm.Range:
		it := x.Iterate()
		for {
			e, more, _ := it.Next()
			if !more {
				return items, true
			}
			items = append(items, e)
		}
	}
	return nil, false
}

// filterText is a filter's string input: nil reads as "".
func filterText(v vm.Value) string {
	if v.IsNil() {
		return ""
	}
	return vm.ToDisplay(v)
}

func applyFilter(f *tplFilter, v vm.Value, args []vm.Value) (vm.Value, error) {
	arg := func(i int) vm.Value {
		if i < len(args) {
			return args[i]
		}
		return vm.Nil
	}
	switch f.name {
	case "upper":
		return vm.Str(text.Upper(filterText(v))), nil
	case "lower":
		return vm.Str(text.Lower(filterText(v))), nil
	case "trim":
		return vm.Str(strings.TrimSpace(filterText(v))), nil
	case "capitalize":
		s := filterText(v)
		if s == "" {
			return vm.Str(""), nil
		}
		r, size := utf8.DecodeRuneInString(s)
		return vm.Str(text.UpperRune(r) + text.Lower(s[size:])), nil
	case "title":
		var sb strings.Builder
		start := true
		for _, r := range filterText(v) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
				if start {
					sb.WriteString(text.UpperRune(r))
				} else {
					sb.WriteString(text.LowerRune(r))
				}
				start = false
			} else {
				sb.WriteRune(r)
				start = true
			}
		}
		return vm.Str(sb.String()), nil
	case "length":
		if x, ok := v.AsString(); ok {
			return lib.IntOf(x.Len()), nil
		}
		switch x := v.Object().(type) {
		case *vm.List:
			return lib.IntOf(x.Len()), nil
		case *vm.Dict:
			return lib.IntOf(x.Len()), nil
		case *vm.Set:
			return lib.IntOf(x.Len()), nil
		case *vm.Range:
			return vm.IntOf(x.Len()), nil
		}
		return lib.IntOf(0), nil
	case "first", "last":
		if x, ok := v.AsString(); ok {
			runes := []rune(x.Go())
			if len(runes) == 0 {
				return vm.Nil, nil
			}
			if f.name == "first" {
				return vm.Str(string(runes[0])), nil
			}
			return vm.Str(string(runes[len(runes)-1])), nil
		}
		if r, ok := v.Object().(*vm.Range); ok {
			last, ok := r.Last()
			switch {
			case !ok:
				return vm.Nil, nil
			case f.name == "first":
				return vm.IntOf(r.Start), nil
			}
			return vm.IntOf(last), nil
		}
		items, ok := seqItems(v)
		if !ok || len(items) == 0 {
			return vm.Nil, nil
		}
		if f.name == "first" {
			return items[0], nil
		}
		return items[len(items)-1], nil
	case "reverse":
		switch items, ok := seqItems(v); {
		case ok:
			n := len(items)
			out := make([]vm.Value, n)
			for i, it := range items {
				out[n-1-i] = it
			}
			return vm.Of(vm.NewList(out)), nil
		default:
			runes := []rune(filterText(v))
			for i, j := 0, len(runes)-1; i < j; i, j = i+1, j-1 {
				runes[i], runes[j] = runes[j], runes[i]
			}
			return vm.Str(string(runes)), nil
		}
	case "join":
		sep := ""
		if len(args) > 0 {
			sep = filterText(arg(0))
		}
		items, ok := seqItems(v)
		if !ok {
			return vm.Str(filterText(v)), nil
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = vm.ToDisplay(it)
		}
		return vm.Str(strings.Join(parts, sep)), nil
	case "default":
		if !v.Truth() {
			return arg(0), nil
		}
		return v, nil
	case "json":
		if arg(0).Truth() {
			return vm.Str(SerdeJSON(v, "  ")), nil
		}
		return vm.Str(SerdeJSON(v, "")), nil
	case "indent":
		n := 2
		if k, ok := arg(0).AsInt(); ok {
			n = int(k)
		}
		pad := strings.Repeat(" ", max(n, 0))
		lines := strings.Split(filterText(v), "\n")
		for i, ln := range lines {
			if (i == 0 && !arg(1).Truth()) || ln == "" {
				continue
			}
			lines[i] = pad + ln
		}
		return vm.Str(strings.Join(lines, "\n")), nil
	case "lines":
		return vm.Of(lib.StrList(text.Lines(filterText(v)))), nil
	case "escape_md":
		var sb strings.Builder
		for _, r := range filterText(v) {
			if strings.ContainsRune("\\`*_{}[]()#+-.!|<>~", r) {
				sb.WriteByte('\\')
			}
			sb.WriteRune(r)
		}
		return vm.Str(sb.String()), nil
	case "replace":
		return vm.Str(strings.ReplaceAll(filterText(v), filterText(arg(0)), filterText(arg(1)))), nil
	}
	return vm.Value{}, &tplError{f.pos, "unknown filter `" + f.name + "`"}
}

// SerdeJSON renders v the way serde_json does: floats keep `.0` and use
// exponents outside [1e-5, 1e16), non-finite floats are null, only
// control characters below U+0020 are escaped.
func SerdeJSON(v vm.Value, indent string) string {
	var sb strings.Builder
	writeSerde(&sb, json.Data(v), indent, 0)
	return sb.String()
}

func writeSerde(sb *strings.Builder, v vm.Value, indent string, depth int) {
	nl := func(d int) {
		if indent != "" {
			sb.WriteByte('\n')
			sb.WriteString(strings.Repeat(indent, d))
		}
	}
	// Scalars are read by kind: Value.Object would box them.
	switch v.Kind() {
	case vm.KBool:
		sb.WriteString(vm.ToDisplay(v))
		return
	case vm.KInt:
		n, _ := v.AsInt()
		sb.WriteString(strconv.FormatInt(int64(n), 10))
		return
	case vm.KFloat:
		f, _ := v.AsFloat()
		sb.WriteString(lib.RyuFloat(float64(f)))
		return
	case vm.KString:
		str, _ := v.AsString()
		writeSerdeString(sb, str.Go())
		return
	}
	if text, ok := decimal.Text(v); ok {
		sb.WriteString(text)
		return
	}
	switch x := v.Object().(type) {
	case *vm.List:
		sb.WriteByte('[')
		for i, it := range x.Items() {
			if i > 0 {
				sb.WriteByte(',')
			}
			nl(depth + 1)
			writeSerde(sb, it, indent, depth+1)
		}
		if x.Len() > 0 {
			nl(depth)
		}
		sb.WriteByte(']')
	case *vm.Dict:
		sb.WriteByte('{')
		i := 0
		x.Range(func(k string, val vm.Value) bool {
			if i > 0 {
				sb.WriteByte(',')
			}
			i++
			nl(depth + 1)
			writeSerdeString(sb, k)
			sb.WriteByte(':')
			if indent != "" {
				sb.WriteByte(' ')
			}
			writeSerde(sb, val, indent, depth+1)
			return true
		})
		if x.Len() > 0 {
			nl(depth)
		}
		sb.WriteByte('}')
	default:
		sb.WriteString("null")
	}
}

// writeSerdeString writes s as a JSON string, escaped as serde_json does
// (which is jsonv's escaping: \b and \f short, other controls \u00xx).
func writeSerdeString(sb *strings.Builder, s string) {
	var buf [64]byte
	sb.Write(jsonv.AppendString(buf[:0], s))
}
