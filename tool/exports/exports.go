package exports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/lang/typeschema"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/load"
)

// Options configures Catalog and Load.
type Options struct {
	// Stderr receives the module's warnings and, once loaded for
	// dispatch, everything its functions print (stdout belongs to the
	// adapter). Default os.Stderr.
	Stderr io.Writer
	// Stdin is the module's standard input (default os.Stdin).
	Stdin io.Reader
}

// Kinds of callable an export can be (source.binding.callableKind).
const (
	KindFunction = "function"
	KindPipeline = "pipeline"
)

// export is one public function: its catalog entry and what dispatch
// needs to call it.
type export struct {
	name   string
	kind   string
	params []param
	// inject are the leading host-injected authority parameters
	// (Harness or a capability handle): never public, always supplied
	// by dispatch.
	inject []*types.Handle
	entry  *tool.Entry
}

// param is one public parameter.
type param struct {
	name string
	typ  types.Type
	// rest is an unannotated `...name`: a module function binds it as
	// one plain argument, so it receives the JSON array as a list.
	rest bool
	// optional parameters may be omitted: a default value, or a type
	// that admits nil.
	optional bool
	// def is the JSON form of a constant default (hasDef), which
	// dispatch passes when a later argument is given and this one not.
	def    any
	hasDef bool
	// lazy: a default computed in the callee at call time.
	lazy bool
}

// library is a module compiled statically: its session (nothing has run
// in it), the module and its exports with their catalog.
type library struct {
	sess    *interp.Session
	mod     *interp.Module
	exports []*export
	catalog *tool.Catalog
}

// Catalog compiles the module at path and the modules it imports and
// derives the harn-tools/2.0 catalog of its public functions (docs/spec/registry.md
// §8.4). Nothing runs: not main, not a top-level statement, not a
// handler; no capability or connector is touched. Failures are
// *load.Error values: compile errors with their rendered diagnostics,
// and positioned refusals naming the function for types with no JSON
// Schema form.
func Catalog(path string, opts Options) (*tool.Catalog, error) {
	lib, err := compile(path, opts)
	if err != nil {
		return nil, err
	}
	return lib.catalog, nil
}

func compile(path string, opts Options) (*library, error) {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	sess := interp.NewSession(interp.Options{Stdout: stderr, Stderr: stderr, Stdin: opts.Stdin})
	m, err := sess.LoadModule(path)
	var warnings diag.List
	for _, w := range sess.Warnings {
		if w.File == path {
			warnings = append(warnings, w)
		}
	}
	sess.WriteWarnings(stderr, warnings)
	if err != nil {
		return nil, compileError(sess, err)
	}
	lib := &library{sess: sess, mod: m}
	// One builder for the whole catalog: the struct, enum and recursive
	// types every export reaches become its shared components.
	b := typeschema.New(typeschema.JSON)
	own := publicCallables(m.Syntax)
	for _, name := range m.Exports() {
		def, decl := m, own[name]
		if decl == nil {
			var ok bool
			if def, decl, ok = m.Exported(name); !ok {
				continue
			}
		}
		var ex *export
		var lerr *refusalError
		switch d := decl.(type) {
		case *syntax.FnDecl:
			ex, lerr = describeFn(b, def, name, d)
		case *syntax.PipelineDecl:
			ex, lerr = describePipeline(b, def, name, d)
		default:
			continue
		}
		if lerr != nil {
			return nil, lerr.loadError(sess)
		}
		lib.exports = append(lib.exports, ex)
	}
	cat := &tool.Catalog{SchemaVersion: tool.CatalogVersion, Info: &tool.Info{Name: stem(path), Description: m.Syntax.Doc}}
	cat.Tools = make([]*tool.Entry, len(lib.exports))
	for i, ex := range lib.exports {
		cat.Tools[i] = ex.entry
	}
	if comps := b.Defs(); comps.Len() > 0 {
		cat.Components = &tool.Components{Schemas: tool.NewSchemaMap(comps)}
	}
	lib.catalog = cat
	return lib, nil
}

// publicCallables maps the names of a file's own `pub fn`s and `pub
// pipeline`s to their declarations (the first declaration of a name).
func publicCallables(f *syntax.File) map[string]syntax.Node {
	out := map[string]syntax.Node{}
	for _, it := range f.Items {
		switch d := it.(type) {
		case *syntax.FnDecl:
			if _, dup := out[d.Name]; !dup && d.Pub {
				out[d.Name] = d
			}
		case *syntax.PipelineDecl:
			if _, dup := out[d.Name]; !dup && d.Pub {
				out[d.Name] = d
			}
		}
	}
	return out
}

func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// compileError is the load error of a module that failed to compile.
// Unlike a script's (tool/load), a failure that is not a diagnostic, such
// as an import that cannot be loaded, is rendered in full.
func compileError(sess *interp.Session, err error) *load.Error {
	if le, ok := load.DiagnosticError(sess, err); ok {
		return le
	}
	return &load.Error{Msg: strings.TrimSuffix(strings.TrimPrefix(sess.RenderError(err), "error: "), "\n"), Status: 1, Rendered: sess.RenderError(err)}
}

// refusal is a positioned error naming the export.
func refusal(file string, pos syntax.Pos, name, format string, args ...any) *refusalError {
	return &refusalError{file: file, pos: pos, msg: fmt.Sprintf("export %q ", name) + fmt.Sprintf(format, args...)}
}

// refusalError is an export the catalog cannot describe, at the
// declaration (or the part of it) that makes it so.
type refusalError struct {
	file string
	pos  syntax.Pos
	msg  string
}

// loadError is the load failure of a refusal: its one-line text leads
// with file:line:col, and it is rendered as a checker diagnostic is
// (docs/exports.md): the message, `--> file:line:col`, the source line
// and a caret.
func (r *refusalError) loadError(sess *interp.Session) *load.Error {
	if !r.pos.IsValid() {
		return &load.Error{Msg: r.msg, Status: 1}
	}
	d := &diag.Error{File: r.file, Line: r.pos.Line, Col: r.pos.Col, Msg: r.msg, Phase: diag.PhaseStatic}
	return &load.Error{
		Msg:      fmt.Sprintf("%s:%d:%d: %s", r.file, r.pos.Line, r.pos.Col, r.msg),
		Status:   1,
		Rendered: diag.Render(d, sess.Sources[r.file]),
	}
}

// callable is what FnDecl and PipelineDecl have in common.
type callable struct {
	file    string
	name    string
	kind    string
	namePos syntax.Pos
	doc     string
	attrs   []*syntax.Attribute
	params  []*syntax.Param
	ret     syntax.TypeExpr
	throws  syntax.TypeExpr
	sig     *types.Func
}

func describeFn(b *typeschema.Builder, def *interp.Module, name string, fn *syntax.FnDecl) (*export, *refusalError) {
	if fn.Gen {
		return nil, refusal(def.Name, fn.NamePos, name, "is a generator function: its result (a generator) has no JSON Schema form")
	}
	return describe(b, &callable{
		file: def.Name, name: name, kind: KindFunction, namePos: fn.NamePos,
		doc: fn.Doc, attrs: fn.Attrs, params: fn.Params, ret: fn.Return, throws: fn.Throws,
		sig: def.Types().FnType(fn),
	})
}

func describePipeline(b *typeschema.Builder, def *interp.Module, name string, p *syntax.PipelineDecl) (*export, *refusalError) {
	return describe(b, &callable{
		file: def.Name, name: name, kind: KindPipeline, namePos: p.NamePos,
		doc: p.Doc, attrs: p.Attrs, params: p.Params, ret: p.Return, throws: p.Throws,
		sig: def.Types().Signature(p.Params, p.Return, p.Throws, nil),
	})
}

func typePos(t syntax.TypeExpr, fallback syntax.Pos) syntax.Pos {
	if t != nil {
		return t.Position()
	}
	return fallback
}

// describe builds an export's catalog entry (docs/spec/registry.md §8.4). Types
// reach the schema builder in reach order: parameters, then the return
// type, then the throws type.
func describe(b *typeschema.Builder, c *callable) (*export, *refusalError) {
	if !tool.ValidCommandComponent(c.name) {
		return nil, refusal(c.file, c.namePos, c.name, "has a name that is not a portable command name")
	}
	ex := &export{name: c.name, kind: c.kind}
	doc := parseDoc(c.doc)
	e := &tool.Entry{Name: c.name, Description: doc.text}
	if doc.text != "" {
		e.Title, _, _ = strings.Cut(doc.text, "\n")
	}

	props := jsonv.NewObject(len(c.params))
	var required []string
	var lazy []string // the parameters so far whose default is computed at call time
	depends := jsonv.NewObject(0)
	for i, sp := range c.params {
		pt := c.sig.Params[i].Type
		if h, ok := types.Underlying(pt).(*types.Handle); ok && i == len(ex.inject) {
			ex.inject = append(ex.inject, h)
			continue
		}
		pos := typePos(sp.Type, sp.At)
		p := param{name: sp.Name, typ: pt}
		lazyBefore := len(lazy)
		var s any
		if sp.Rest {
			if sp.Type != nil {
				return nil, refusal(c.file, pos, c.name, "parameter %q: a typed rest parameter has no exports form (a module function binds `...%s` as one plain argument of type %s)", sp.Name, sp.Name, pt)
			}
			p.rest, p.optional = true, true
			s = jsonv.Obj("type", "array", "items", jsonv.Obj())
		} else {
			var err error
			if s, err = b.Schema(pt); err != nil {
				return nil, refusal(c.file, pos, c.name, "parameter %q has a type that cannot be represented as JSON Schema: %s", sp.Name, err)
			}
			if sp.Default != nil {
				p.optional = true
				if v, ok := typeschema.Default(sp.Default); ok {
					p.def, p.hasDef = v, true
					s = typeschema.WithKey(s, "default", v)
				} else {
					p.lazy = true
					lazy = append(lazy, sp.Name)
				}
			} else if admitsNil(pt) {
				p.optional = true
			}
		}
		if d, ok := doc.params[sp.Name]; ok {
			s = typeschema.WithKey(s, "description", d)
		}
		if !p.optional {
			required = append(required, sp.Name)
		}
		if lazyBefore > 0 {
			// Dispatch cannot skip a parameter whose default runs in
			// the callee: giving a later one requires giving it.
			depends.Set(sp.Name, jsonv.Strings(lazy[:lazyBefore]))
		}
		props.Set(sp.Name, s)
		ex.params = append(ex.params, p)
	}
	in := jsonv.Obj("type", "object", "properties", props)
	if len(required) > 0 {
		in.Set("required", jsonv.Strings(required))
	}
	if depends.Len() > 0 {
		in.Set("dependentRequired", depends)
	}
	e.InputSchema = tool.NewSchema(in)

	if c.ret != nil {
		s, err := b.Schema(c.sig.Return)
		if err != nil {
			return nil, refusal(c.file, c.ret.Position(), c.name, "declares a return type that cannot be represented as JSON Schema: %s", err)
		}
		e.OutputSchema = tool.NewSchema(s)
	}
	if c.throws != nil {
		s, err := b.Schema(c.sig.Throws)
		if err != nil {
			return nil, refusal(c.file, c.throws.Position(), c.name, "declares a throws type that cannot be represented as JSON Schema: %s", err)
		}
		e.ErrorSchema = tool.NewSchema(s)
	}

	for _, a := range c.attrs {
		switch a.Name {
		case "annotations":
			ann, lerr := annotations(c, a)
			if lerr != nil {
				return nil, lerr
			}
			e.Annotations = ann
		case "job":
			e.Execution = &tool.Execution{TaskSupport: "optional"}
		}
	}
	e.Governance = tool.Governance{Audiences: append([]tool.Audience(nil), tool.Audiences...)}
	e.CLI = tool.CLISpec{Command: []string{c.name}, Aliases: []string{}, Arguments: map[string]*tool.CLIArgument{}}
	binding := jsonv.NewObject(1)
	binding.Set("callableKind", c.kind)
	e.Source = &tool.Source{Kind: "harn", ID: c.name, Binding: binding}
	ex.entry = e
	return ex, nil
}

// admitsNil reports whether nil is a value of t (T?, nil, or a union
// with nil).
func admitsNil(t types.Type) bool {
	for _, m := range types.Members(types.Underlying(t)) {
		if types.Underlying(m) == types.Nil {
			return true
		}
	}
	return false
}

// annotations reads @annotations(readOnly:, destructive:, idempotent:,
// openWorld:): named boolean literals only.
func annotations(c *callable, a *syntax.Attribute) (*tool.Annotations, *refusalError) {
	ann := &tool.Annotations{}
	for _, arg := range a.Args {
		lit, ok := arg.Value.(*syntax.BoolLit)
		var slot **bool
		switch arg.Name {
		case "readOnly":
			slot = &ann.ReadOnlyHint
		case "destructive":
			slot = &ann.DestructiveHint
		case "idempotent":
			slot = &ann.IdempotentHint
		case "openWorld":
			slot = &ann.OpenWorldHint
		}
		if slot == nil || !ok {
			return nil, refusal(c.file, a.At, c.name, "has an invalid @annotations argument: expected readOnly:, destructive:, idempotent: or openWorld: with a boolean literal")
		}
		if *slot != nil {
			return nil, refusal(c.file, a.At, c.name, "has an invalid @annotations argument: the hint %s is given twice", arg.Name)
		}
		v := lit.Value
		*slot = &v
	}
	if ann.Empty() {
		return nil, nil
	}
	return ann, nil
}

// docComment is a function's doc comment split into its text and its
// `@param name text` tags.
type docComment struct {
	text   string
	params map[string]string
}

// parseDoc reads `@param name description` tags (JSDoc style; the text
// may continue on the following lines until a blank line or another
// tag). The tags describe input properties and leave the description;
// every other line stays in it.
func parseDoc(doc string) docComment {
	out := docComment{params: map[string]string{}}
	if !strings.Contains(doc, "@param") {
		out.text = doc
		return out
	}
	var keep []string
	current := ""
	for _, line := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "@param"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest = strings.TrimSpace(rest)
			current = ""
			if rest == "" {
				continue
			}
			name := strings.Fields(rest)[0]
			current = strings.Trim(name, "{}[]")
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[len(name):]), "-"))
			out.params[current] = text
			continue
		}
		if current != "" && t != "" && !strings.HasPrefix(t, "@") {
			out.params[current] = strings.TrimSpace(out.params[current] + " " + t)
			continue
		}
		current = ""
		keep = append(keep, line)
	}
	out.text = strings.TrimSpace(strings.Join(keep, "\n"))
	return out
}
