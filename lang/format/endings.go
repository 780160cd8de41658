package format

import (
	"bytes"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// The renderer writes LF line endings and no byte order mark. A file
// edited on Windows often has both, and formatting it should not rewrite
// every line: the output takes them back from the original.

// bom is the UTF-8 byte order mark.
var bom = []byte("\uFEFF")

// endings is the text convention of a source file.
type endings struct {
	bom  bool // the file starts with a byte order mark
	crlf bool // every line feed of the file follows a carriage return
}

// endingsOf reads the convention of src. A file that mixes CRLF and LF
// counts as LF.
func endingsOf(src []byte) endings {
	lf := bytes.Count(src, []byte("\n"))
	return endings{
		bom:  bytes.HasPrefix(src, bom),
		crlf: lf > 0 && bytes.Count(src, []byte("\r\n")) == lf,
	}
}

// apply gives out, a rendered file, the convention e: the byte order mark,
// and either CRLF or LF for every line ending outside string literals.
// The contents of strings are copied as they are, whatever line endings
// they hold.
func (e endings) apply(out []byte) []byte {
	if e == (endings{}) && !bytes.HasPrefix(out, bom) && !bytes.Contains(out, []byte("\r\n")) {
		return out // already LF without a byte order mark: nothing to scan for
	}
	out = bytes.TrimPrefix(out, bom)
	strs := stringSpans(out)
	res := make([]byte, 0, len(out)+len(out)/32+len(bom))
	if e.bom {
		res = append(res, bom...)
	}
	for i := 0; i < len(out); i++ {
		if len(strs) > 0 && i == strs[0][0] {
			res = append(res, out[i:strs[0][1]]...)
			i = strs[0][1] - 1
			strs = strs[1:]
			continue
		}
		switch c := out[i]; {
		case c == '\r' && i+1 < len(out) && out[i+1] == '\n':
			// the line feed that follows is written with the right ending
		case c == '\n' && e.crlf:
			res = append(res, '\r', '\n')
		default:
			res = append(res, c)
		}
	}
	return res
}

// stringSpans lists, in order, the byte ranges [start, end) of the string
// literals of src (nil when src does not scan).
func stringSpans(src []byte) [][2]int {
	toks, err := syntax.Scan("", src)
	if err != nil {
		return nil
	}
	var out [][2]int
	for _, t := range toks {
		switch t.Kind {
		case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
			if strings.Contains(t.Text, "\n") {
				out = append(out, [2]int{t.Offset, t.Offset + len(t.Text)})
			}
		}
	}
	return out
}
