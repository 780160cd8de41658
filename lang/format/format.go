// Package format is `harn fmt`: it prints a parsed Harn file in one
// canonical layout and keeps every comment.
//
// The model. The tree from lang/syntax records where each node starts but
// not the text between nodes, so the formatter also scans the file
// (syntax.Scan) for its comments and for literals as written. The printer
// (print*.go) turns the tree into a document of text, optional line breaks,
// groups and indentation (doc.go); the renderer then breaks, group by
// group, only the groups that do not fit in the line width (100 columns
// unless Options say otherwise). A comment is emitted before the first
// node that starts after it, so it stays in the same gap between tokens
// it was written in: at the end of a line when it trailed code, on a line
// of its own when it stood alone. Blank lines between statements survive
// (collapsed to one); declarations with bodies get one around them. The
// output keeps the file's byte order mark and, when every line of it
// ends in CRLF, its CRLF line endings (endings.go).
//
// Formatting never changes meaning: Source re-parses its output and
// refuses (with an error, leaving the input alone) when the trees differ
// or a comment went missing.
package format

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// DefaultWidth is the column limit of `harn fmt`.
const DefaultWidth = 100

// Options are the settings of one formatting run. The zero value is
// `harn fmt`'s layout.
type Options struct {
	// Width is the column limit lines are broken at (DefaultWidth when
	// zero); tests narrow it to reach the layouts of long lines with short
	// programs.
	Width int
}

func (o Options) width() int {
	if o.Width <= 0 {
		return DefaultWidth
	}
	return o.Width
}

// Source formats one file in the default layout. path is used in error
// messages.
func Source(path string, src []byte) ([]byte, error) {
	return Options{}.Source(path, src)
}

// File formats a parsed file in the default layout, without the checks
// of Source.
func File(path string, src []byte, f *syntax.File) ([]byte, error) {
	return Options{}.File(path, src, f)
}

// Source formats one file. path is used in error messages.
func (o Options) Source(path string, src []byte) ([]byte, error) {
	f, err := syntax.Parse(path, src)
	if err != nil {
		return nil, err
	}
	out, err := o.File(path, src, f)
	if err != nil {
		return nil, err
	}
	g, err := syntax.Parse(path, out)
	if err != nil {
		return nil, fmt.Errorf("%s: internal formatter error: the output does not parse: %v", path, err)
	}
	if d := Diff(f, g); d != "" {
		return nil, fmt.Errorf("%s: internal formatter error: the output means something else (%s)", path, d)
	}
	if a, b := commentTexts(src), commentTexts(out); !reflect.DeepEqual(a, b) {
		return nil, fmt.Errorf("%s: internal formatter error: comments changed", path)
	}
	return out, nil
}

// File formats a parsed file whose source is src, without the checks of
// Source. The output keeps the byte order mark and the line endings of
// src (endings.go).
func (o Options) File(path string, src []byte, f *syntax.File) (out []byte, err error) {
	toks, err := syntax.Scan(path, src)
	if err != nil {
		return nil, err
	}
	p := newPrinter(toks)
	defer func() {
		if r := recover(); r != nil {
			if u, ok := r.(unsupported); ok {
				err = &UnsupportedError{Path: path, What: string(u)}
				return
			}
			panic(r)
		}
	}()
	d := p.file(f)
	return endingsOf(src).apply([]byte(render(d, o.width()))), nil
}

// UnsupportedError reports a file the formatter leaves alone because it
// holds syntax the formatter does not know.
type UnsupportedError struct{ Path, What string }

func (e *UnsupportedError) Error() string {
	return e.Path + ": cannot format " + e.What + " yet"
}

// TypeString prints a type annotation in the canonical layout, on one
// line (for hovers and signatures).
func TypeString(t syntax.TypeExpr) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = "?"
		}
	}()
	p := newPrinter([]syntax.Token{{Kind: syntax.TokEOF}})
	return strings.TrimSpace(render(p.typ(t), DefaultWidth))
}

// unsupported is raised for a node kind the printer does not know (syntax
// added after it), so that such a file is left alone rather than damaged.
type unsupported string

// commentTexts lists the comments of src, trimmed, in order.
func commentTexts(src []byte) []string {
	toks, err := syntax.Scan("", src)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range toks {
		if t.Kind == syntax.TokComment || t.Kind == syntax.TokDoc {
			for _, l := range strings.Split(t.Text, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// Diff compares two trees without positions and returns a description of
// the first difference, or "" when they are equal.
func Diff(a, b *syntax.File) string {
	return diffValue("file", reflect.ValueOf(a), reflect.ValueOf(b))
}

var posType = reflect.TypeOf(syntax.Pos{})

func diffValue(path string, a, b reflect.Value) string {
	if a.IsValid() != b.IsValid() {
		return path + ": one side missing"
	}
	if !a.IsValid() {
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: %s vs %s", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil vs non-nil"
			}
			return ""
		}
		return diffValue(path, a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == posType {
			return ""
		}
		for i := 0; i < a.NumField(); i++ {
			fd := a.Type().Field(i)
			if !fd.IsExported() || fd.Name == "Path" {
				continue
			}
			if d := diffValue(path+"."+fd.Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d vs %d elements", path, a.Len(), b.Len())
		}
		if (a.IsNil() || b.IsNil()) && a.Len() == 0 && a.IsNil() != b.IsNil() {
			return path + ": nil vs empty"
		}
		for i := 0; i < a.Len(); i++ {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + ": map sizes differ"
		}
		return ""
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())
		}
		return ""
	}
}
