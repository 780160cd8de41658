// Package builtindoc is the reference documentation of the builtins and
// the std/* modules. Builtins are read from the one descriptor table the
// standard library's area packages fill (name, signature, one-line doc);
// std/* functions from the embedded modules' `pub fn` declarations and
// their doc comments; every entry's example from examples/*.harn (see
// examples.go). docs/builtins.md is generated from it (a test keeps the
// file in step and runs every example), `harn doc NAME` prints one entry
// and the REPL's `:help NAME` uses the same lookup.
package builtindoc

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/std"
)

// Entry documents one builtin function or method, or one function of a
// std/* module.
type Entry struct {
	Area    string // the stdlib area package that registers it ("console", …) or the module ("std/math")
	Recv    string // receiver type for a method, "" for a function
	Name    string
	Sig     string
	Doc     string
	Example *Example // nil when the entry has none yet
}

// Module is the std/* module that defines the entry ("" for a builtin).
func (e Entry) Module() string {
	if strings.HasPrefix(e.Area, "std/") {
		return e.Area
	}
	return ""
}

// Title is how the entry is looked up and headed: name, recv.name or
// std/module.name.
func (e Entry) Title() string {
	switch {
	case e.Recv != "":
		return e.Recv + "." + e.Name
	case e.Module() != "":
		return e.Module() + "." + e.Name
	}
	return e.Name
}

// signature is the entry's call form (receiver-qualified for a method).
func (e Entry) signature() string {
	sig := e.Sig
	if sig == "" {
		sig = e.Name + "(…)"
	}
	if e.Recv != "" {
		// method signatures name the receiver by a variable ("s.len()",
		// "harness.tools.mcp_log(…)")
		head, _, _ := strings.Cut(sig, "(")
		if i := strings.LastIndex(head, "."); i >= 0 {
			sig = sig[i+1:]
		}
		sig = e.Recv + "." + sig
	}
	return sig
}

// Program is the example as a complete program: a std/* function's
// module is imported for it unless the example imports it itself.
func (e Entry) Program() string {
	if e.Example == nil {
		return ""
	}
	code := e.Example.Code
	if m := e.Module(); m != "" && !strings.Contains(code, `"`+m+`"`) {
		code = fmt.Sprintf("import { %s } from %q\n", e.Name, m) + code
	}
	return code
}

// Text is the entry as `harn doc` prints it.
func (e Entry) Text() string {
	doc := e.Doc
	if doc == "" {
		doc = "(no description yet)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  %s\n  area: %s\n", e.signature(), doc, e.Area)
	if e.Example != nil {
		b.WriteString("  example:\n")
		for _, l := range strings.Split(strings.TrimSuffix(e.Program(), "\n"), "\n") {
			b.WriteString(strings.TrimRight("    "+l, " ") + "\n")
		}
		if e.Example.Output != "" {
			b.WriteString("  prints:\n")
			for _, l := range strings.Split(strings.TrimSuffix(e.Example.Output, "\n"), "\n") {
				b.WriteString(strings.TrimRight("    "+l, " ") + "\n")
			}
		}
	}
	return b.String()
}

// areaOf names the stdlib area package that defines fn.
func areaOf(fn any) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return "other"
	}
	name := f.Name()
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.Index(name, "."); i >= 0 {
		name = name[:i]
	}
	if name == "" || name == "lib" || name == "stdlib" {
		return "core"
	}
	return name
}

// moduleEntries lists the `pub fn`s of the std/* modules.
func moduleEntries() ([]Entry, error) {
	var out []Entry
	for _, name := range std.Names() {
		src, _ := std.Module(name)
		f, err := syntax.Parse("std/"+name+".harn", src)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(src), "\n")
		for _, item := range f.Items {
			fn, ok := item.(*syntax.FnDecl)
			if !ok || !fn.Pub {
				continue
			}
			out = append(out, Entry{
				Area: "std/" + name,
				Name: fn.Name,
				Sig:  fnSignature(lines, fn.NamePos),
				Doc:  strings.Join(strings.Fields(fn.Doc), " "),
			})
		}
	}
	return out, nil
}

// fnSignature is the source text from a function's name to the end of
// its parameter list (and return type), with its white space collapsed.
func fnSignature(lines []string, at syntax.Pos) string {
	text := strings.Join(lines[at.Line-1:], "\n")
	text = text[min(at.Col-1, len(text)):]
	depth := 0
	for i, r := range text {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '{':
			if depth == 0 {
				return strings.Join(strings.Fields(text[:i]), " ")
			}
			depth++
		case '}':
			depth--
		}
	}
	return strings.Join(strings.Fields(text), " ")
}

var (
	entriesOnce sync.Once
	entries     []Entry
	entriesErr  error
)

// Entries lists every builtin function, then every method, sorted by
// area and title, then the std/* functions by module in source order.
func Entries() []Entry {
	entriesOnce.Do(func() { entries, entriesErr = load() })
	if entriesErr != nil {
		panic("builtindoc: " + entriesErr.Error())
	}
	return entries
}

func load() ([]Entry, error) {
	var out []Entry
	for _, b := range stdlib.Builtins() {
		out = append(out, Entry{Area: areaOf(b.Fn), Name: b.Name(), Sig: b.Sig, Doc: b.Doc})
	}
	for _, m := range stdlib.Methods() {
		if m.Name == "*" {
			continue
		}
		area := areaOf(m.Fn)
		if a, ok := harness.CapabilityArea(m.Recv); ok && a != "" {
			area = a
		}
		out = append(out, Entry{Area: area, Recv: m.Recv, Name: m.Name, Sig: m.Sig, Doc: m.Doc})
	}
	// Members of the namespace globals read like methods: stream.map.
	for ns, members := range stdlib.NamespaceMembers() {
		for _, b := range members {
			out = append(out, Entry{Area: areaOf(b.Fn), Recv: ns, Name: strings.TrimPrefix(b.Name(), ns+"."), Sig: b.Sig, Doc: b.Doc})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Area != out[j].Area {
			return out[i].Area < out[j].Area
		}
		if (out[i].Recv == "") != (out[j].Recv == "") {
			return out[i].Recv == ""
		}
		return out[i].Title() < out[j].Title()
	})
	mods, err := moduleEntries()
	if err != nil {
		return nil, err
	}
	out = append(out, mods...)
	examples, err := loadExamples()
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Example = examples[out[i].Title()]
	}
	return out, nil
}

// Lookup finds the entries titled name ("split" finds the function and
// every method called split; "string.split" one method; "clamp" also the
// std/* functions called clamp; "std/math" every function of std/math).
// A name nothing else matches that is a receiver type or a namespace
// ("string", "stream") finds all of its methods or members.
func Lookup(name string) []Entry {
	var out []Entry
	for _, e := range Entries() {
		if e.Title() == name || e.Area == name && e.Module() != "" || (e.Recv != "" || e.Module() != "") && e.Name == name {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		for _, e := range Entries() {
			if e.Recv == name {
				out = append(out, e)
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// NotFound is the message for a name Lookup finds nothing for (`harn
// doc NAME`, the REPL's `:help NAME`): `no builtin named "splt" (did you
// mean "split"?)` when a documented name is close, else a pointer to
// docs/builtins.md.
func NotFound(name string) string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, e := range Entries() {
		add(e.Title())
		add(e.Name)
		add(e.Recv)
		add(e.Module())
	}
	if hint := diag.DidYouMean(name, names); hint != "" {
		return fmt.Sprintf("no builtin named %q%s", name, hint)
	}
	return fmt.Sprintf("no builtin named %q (see docs/builtins.md)", name)
}

// rank orders lookup results: builtin functions, methods, std functions.
func rank(e Entry) int {
	switch {
	case e.Module() != "":
		return 2
	case e.Recv != "":
		return 1
	}
	return 0
}

// Markdown renders docs/builtins.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Builtins\n\n")
	b.WriteString("<!-- Generated from the builtin descriptor table, the std/* modules and\n")
	b.WriteString("     builtindoc/examples by builtindoc; do not edit. Regenerate with:\n")
	b.WriteString("     go test ./builtindoc -run TestBuiltinsDoc -update -->\n\n")
	b.WriteString("Every builtin function and method, grouped by the standard-library area that\n")
	b.WriteString("defines it, then every function of the `std/*` modules (`import { NAME } from\n")
	b.WriteString("\"std/MODULE\"`), grouped by module. Each example is a whole program, run by\n")
	b.WriteString("`go test ./builtindoc`, followed by what it prints. `harn doc NAME` prints one\n")
	b.WriteString("entry (`harn doc std/math` a whole module); in `harn repl`, `:help NAME`.\n")
	b.WriteString("A signature ending in `-> T` states the result type `harn check` gives a call\n")
	b.WriteString("([check.md](check.md#builtin-results)); one without it gives `any`, except the few\n")
	b.WriteString("whose result follows their arguments (`Ok`, `unwrap`, `tuple`, `pick`).\n")
	b.WriteString("Adding a builtin: [CONTRIBUTING.md](CONTRIBUTING.md#builtins-and-their-examples).\n\n")
	var areas []string
	for _, e := range Entries() {
		if len(areas) == 0 || areas[len(areas)-1] != e.Area {
			areas = append(areas, e.Area)
		}
	}
	for i, a := range areas {
		if i > 0 {
			b.WriteString(" ·\n")
		}
		fmt.Fprintf(&b, "[%s](#%s)", a, strings.ReplaceAll(a, "/", ""))
	}
	b.WriteString("\n")
	area := ""
	for _, e := range Entries() {
		if e.Area != area {
			area = e.Area
			fmt.Fprintf(&b, "\n## %s\n", area)
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n`%s`", e.Title(), e.signature())
		if e.Doc != "" {
			fmt.Fprintf(&b, " — %s", e.Doc)
		}
		b.WriteString("\n")
		if e.Example != nil {
			fmt.Fprintf(&b, "\n```harn\n%s```\n", e.Program())
			if e.Example.Output != "" {
				fmt.Fprintf(&b, "\n```text\n%s```\n", e.Example.Output)
			}
		}
	}
	return b.String()
}
