// Package builtindoc is the reference documentation of the builtins,
// read from the one descriptor table the standard library's area
// packages fill (name, signature, one-line doc). docs/builtins.md is
// generated from it (a test keeps the file in step), `harn doc NAME`
// prints one entry and the REPL's `:help NAME` uses the same lookup.
package builtindoc

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib"
)

// Entry documents one builtin function or method.
type Entry struct {
	Area string // the stdlib area package that registers it ("console", …)
	Recv string // receiver type for a method, "" for a function
	Name string
	Sig  string
	Doc  string
}

// Title is how the entry is looked up and headed: name or recv.name.
func (e Entry) Title() string {
	if e.Recv != "" {
		return e.Recv + "." + e.Name
	}
	return e.Name
}

// Text is the entry as `harn doc` prints it.
func (e Entry) Text() string {
	sig := e.Sig
	if sig == "" {
		sig = e.Name + "(…)"
	}
	if e.Recv != "" {
		// method signatures name the receiver by a variable ("s.len()")
		if i, j := strings.Index(sig, "."), strings.Index(sig, "("); i >= 0 && (j < 0 || i < j) {
			sig = sig[i+1:]
		}
		sig = e.Recv + "." + sig
	}
	doc := e.Doc
	if doc == "" {
		doc = "(no description yet)"
	}
	return fmt.Sprintf("%s\n  %s\n  area: %s\n", sig, doc, e.Area)
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

// Entries lists every builtin function, then every method, sorted by
// area and title.
func Entries() []Entry {
	var out []Entry
	for _, b := range stdlib.Builtins() {
		out = append(out, Entry{Area: areaOf(b.Fn), Name: b.Name(), Sig: b.Sig, Doc: b.Doc})
	}
	for _, m := range stdlib.Methods() {
		if m.Name == "*" {
			continue
		}
		out = append(out, Entry{Area: areaOf(m.Fn), Recv: m.Recv, Name: m.Name, Sig: m.Sig, Doc: m.Doc})
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
	return out
}

// Lookup finds the entries titled name ("split" finds the function and
// every method called split; "string.split" one method).
func Lookup(name string) []Entry {
	var out []Entry
	for _, e := range Entries() {
		if e.Title() == name || (e.Recv != "" && e.Name == name) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Recv == "" && out[j].Recv != "" })
	return out
}

// Markdown renders docs/builtins.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Builtins\n\n")
	b.WriteString("<!-- Generated from the builtin descriptor table by builtindoc; do not edit.\n")
	b.WriteString("     Regenerate with: go test ./builtindoc -run TestBuiltinsDoc -update -->\n\n")
	b.WriteString("Every builtin function and method, grouped by the standard-library area that\n")
	b.WriteString("defines it. `harn doc NAME` prints one entry; in `harn repl`, `:help NAME`.\n")
	area := ""
	for _, e := range Entries() {
		if e.Area != area {
			area = e.Area
			fmt.Fprintf(&b, "\n## %s\n\n| name | signature | description |\n| --- | --- | --- |\n", area)
		}
		sig := e.Sig
		if sig == "" {
			sig = e.Name + "(…)"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", e.Title(), cell(sig), cell(e.Doc))
	}
	return b.String()
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
