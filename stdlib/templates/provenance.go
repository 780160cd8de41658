package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/console"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Provenance (docs/templates.md, "Provenance"): render_with_provenance
// renders as render does and says, for each piece of the text, whether
// it is the template's own text, a value written by an expression, or an
// unbound name written back, with the template and line:col it came from.
// prompt_mark_rendered records that a rendered prompt was used, as a span
// of the run's trace.

// Kinds of provenance span.
const (
	provText    = "text"    // the template's literal text
	provBinding = "binding" // what a {{ expr }} wrote
	provUnbound = "unbound" // {{ name }} written back: name was not bound
)

// provSeg is one written piece, in output order.
type provSeg struct {
	kind, template, expr string
	pos                  tplPos
	chars                int
}

type provenance struct{ segs []provSeg }

// note records that s was just written, from the directive or text at
// pos of the template being rendered; nothing when provenance is off.
func (r *tplRenderer) note(kind string, pos tplPos, expr, s string) {
	if r.prov == nil || s == "" {
		return
	}
	template := ""
	if n := len(r.stack); n > 0 {
		template = r.stack[n-1]
	}
	r.prov.segs = append(r.prov.segs, provSeg{kind, template, expr, pos, utf8.RuneCountInString(s)})
}

// promptID names a rendering of a template by its path and text.
func promptID(template, text string) string {
	sum := sha256.Sum256([]byte(template + "\x00" + text))
	return "prompt_" + hex.EncodeToString(sum[:8])
}

// result is render_with_provenance's answer for text rendered from path.
// Span offsets count characters, start inclusive and end exclusive.
func (p *provenance) result(path, text string) vm.Value {
	spans := make([]vm.Value, 0, len(p.segs))
	at := 0
	for _, s := range p.segs {
		expr := vm.Nil
		if s.kind != provText {
			expr = vm.Str(s.expr)
		}
		spans = append(spans, vm.Of(lib.DictOf("start", lib.IntOf(at), "end", lib.IntOf(at+s.chars),
			"kind", vm.Str(s.kind), "template", vm.Str(s.template), "line", lib.IntOf(s.pos.line),
			"col", lib.IntOf(s.pos.col), "expr", expr)))
		at += s.chars
	}
	return vm.Of(lib.DictOf("text", vm.Str(text), "template", vm.Str(path),
		"prompt_id", vm.Str(promptID(path, text)), "spans", vm.Of(lib.List(spans))))
}

func init() {
	lib.Def("prompt_mark_rendered", "prompt_mark_rendered(rendered: dict | string, attributes?: dict)",
		"record that a rendered prompt was used: {prompt_id, template, chars, spans}, also a finished `prompt_rendered` span of the trace when tracing is on",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "prompt_mark_rendered"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
			}
			var text string
			template, spans := vm.Nil, lib.IntOf(0)
			if s, ok := a.Str(0); ok {
				text = s
			} else if d, ok := a.Dict(0); ok {
				t, _ := d.Get("text")
				ts, ok := t.AsString()
				if !ok {
					return vm.Value{}, vm.Runtimef("%s: expected a string or a render_with_provenance result (a dict with `text`), got a dict without it", name)
				}
				text = ts.Go()
				if tp, ok := d.Get("template"); ok {
					template = tp
				}
				if sp, ok := d.Get("spans"); ok {
					if l, ok := sp.AsList(); ok {
						spans = lib.IntOf(l.Len())
					}
				}
			} else {
				return vm.Value{}, vm.Runtimef("%s: expected a string or a render_with_provenance result, got %s", name, a.At(0).Type())
			}
			tp, _ := template.AsString()
			rec := lib.DictOf("prompt_id", vm.Str(promptID(tp.Go(), text)), "template", template,
				"chars", lib.IntOf(utf8.RuneCountInString(text)), "spans", spans)
			attrs := rec
			if a.Has(1) && !a.At(1).IsNil() {
				extra, ok := a.Dict(1)
				if !ok {
					return vm.Value{}, vm.Runtimef("%s: attributes must be a dict, got %s", name, a.At(1).Type())
				}
				attrs = extra.Merge(rec)
			}
			console.RecordEvent(th, "prompt_rendered", attrs)
			return vm.Of(rec), nil
		})
}
