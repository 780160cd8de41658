package formats

// Other data formats (docs/spec/builtins.md §4.6): YAML and TOML over the JSON data
// model, CSV, URLs and query strings, multipart bodies and JUnit XML.

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/encoding"
	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/vm"
	toml "github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v4"
	"golang.org/x/net/idna"
)

// decodeTOML reads a TOML document as Rust's toml crate (TOML 1.0) does:
// go-toml decodes it, and a form only TOML 1.1 allows is refused. The
// error is the crate's text without prefix (toml_parse adds `TOML parse
// error: `, docs/spec/builtins.md §4.6; skill front matter none).
func decodeTOML(text string) (map[string]any, error) {
	var m map[string]any
	if err := toml.Unmarshal([]byte(text), &m); err != nil {
		return nil, errors.New(tomlCrateError(text, err))
	}
	if refused := tomlCrateRefuses(text); refused != "" {
		return nil, errors.New(refused)
	}
	return m, nil
}

func init() {
	lib.Def("yaml_parse", "yaml_parse(s)", "parse YAML into a value; a key repeated in one mapping is an error, and errors name the place: YAML parse error: <what> at line L column C", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var doc yaml.Node
		var err error
		text := a.Text(0)
		more := false
		if stop := lib.OffThread(th, len(text), func() { doc, more, err = decodeOneYAML(text) }); stop != nil {
			return vm.Value{}, stop
		}
		if err != nil {
			return vm.Value{}, vm.Throwf("YAML parse error: %s", yamlErrorText(err))
		}
		if more {
			// serde_yaml, upstream's reader, refuses a stream of documents
			return vm.Value{}, vm.Throwf("YAML parse error: deserializing from YAML containing more than one document is not supported")
		}
		v, err := yamlDocValue(&doc)
		if err != nil {
			return vm.Value{}, vm.Throwf("YAML parse error: %s", err)
		}
		return v, nil
	})
	lib.Def("yaml_stringify", "yaml_stringify(v) -> string", "block-style YAML with sorted keys", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if err := json.RefuseHandle("yaml_stringify", a.At(0)); err != nil {
			return vm.Value{}, err
		}
		var sb strings.Builder
		writeYAML(&sb, json.Data(a.At(0)), 0)
		return vm.Str(sb.String()), nil
	})
	lib.Def("toml_parse", "toml_parse(s) -> dict", "parse a TOML document into a dict (a leading byte-order mark is skipped); errors read as Rust's toml crate words them: TOML parse error: TOML parse error at line L, column C, the line with a caret, then the reason", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var m map[string]any
		var err error
		text := strings.TrimPrefix(a.Text(0), "\ufeff") // a byte-order mark may start a document
		if stop := lib.OffThread(th, len(text), func() { m, err = decodeTOML(text) }); stop != nil {
			return vm.Value{}, stop
		}
		if err != nil {
			return vm.Value{}, vm.Throwf("TOML parse error: %s", err)
		}
		if m == nil {
			return vm.Of(vm.NewDict()), nil
		}
		return jsonschema.FromAny(m), nil
	})
	lib.Def("toml_stringify", "toml_stringify(v) -> string", "a TOML document from a dict; TOML has no null, so a nil anywhere is an error naming its place (nil at 'a.b')", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if err := json.RefuseHandle("toml_stringify", a.At(0)); err != nil {
			return vm.Value{}, err
		}
		d, ok := json.Data(a.At(0)).AsDict()
		if !ok {
			return vm.Value{}, vm.Throwf("TOML serialize error: the top level must be a table, got %s", a.At(0).Type())
		}
		if at, found := tomlNilAt(vm.Of(d), ""); found {
			return vm.Value{}, vm.Throwf("TOML serialize error: nil at '%s' (TOML has no null)", at)
		}
		var sb strings.Builder
		writeTOMLTable(&sb, d, nil)
		return vm.Str(strings.TrimPrefix(sb.String(), "\n")), nil
	})
	lib.Def("csv_parse", "csv_parse(text, opts?) -> list", "rows of strings (or dicts with {headers: true}); records end at \\n, \\r\\n or a lone \\r, and a quoted field keeps its content, line endings included; a leading byte-order mark is skipped", csvParse)
	lib.Def("csv_stringify", "csv_stringify(rows, opts?) -> string", "CSV text from rows of lists or dicts", csvStringify)
	lib.Def("url_parse", "url_parse(s) -> dict", "{scheme, host, port, path, query, fragment, username, password}; path, query and fragment come back percent-encoded, username and password decoded (a `%` that starts no escape is kept as written, in the userinfo too, as the WHATWG URL standard does)", urlParse)
	lib.Def("url_build", "url_build(parts) -> string", "a URL from url_parse-style parts; path, query and fragment are percent-encoded as the WHATWG URL standard does (existing escapes kept), username and password escaped as userinfo (`@`, `:`, `/`, `%` …), and the scheme's default port is left out; an invalid scheme or host, a port that is not an int from 0 to 65535 (or its digits), or an http(s)/ws(s)/ftp URL without a host is an error", urlBuild)
	lib.Def("query_parse", "query_parse(s) -> list", "[{key, value}] from a query string; nil (no query, as url_parse gives) is []", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.At(0).IsNil() || !a.At(0).IsValid() {
			return vm.Of(vm.NewList(nil)), nil // url_parse(u).query is nil when u has none
		}
		s := strings.TrimPrefix(a.Text(0), "?")
		var out []vm.Value
		for _, pair := range strings.Split(s, "&") {
			if pair == "" {
				continue
			}
			k, v, _ := strings.Cut(pair, "=")
			out = append(out, vm.Of(lib.DictOf("key", vm.Str(encoding.PercentDecode(k, true)), "value", vm.Str(encoding.PercentDecode(v, true)))))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("query_stringify", "query_stringify(pairs) -> string", "form-encoded query text from [{key, value}] (or [key, value] pairs, or a dict; anything else is an error)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		switch x := a.At(0).Object().(type) {
		case *vm.Dict:
		case *vm.List:
			for i, it := range x.Items() {
				if k := it.Kind(); k != vm.KDict && k != vm.KList {
					return vm.Value{}, vm.Typef("query_stringify: item %d must be a {key, value} dict or a [key, value] pair, got %s", i, it.Type())
				}
			}
		default:
			if a.At(0).IsNil() || !a.At(0).IsValid() {
				break // nothing to encode
			}
			return vm.Value{}, vm.Typef("query_stringify: expected a list of {key, value} dicts or a dict, got %s", a.At(0).Type())
		}
		return vm.Str(QueryString(a.At(0))), nil
	})
	lib.Def("multipart_field_text", "multipart_field_text(name, value) -> dict", "a text field for multipart_form_data; name is a non-empty string", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if err := fieldName("multipart_field_text", a.At(0)); err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.DictOf("name", vm.Str(a.Text(0)), "value", vm.Str(a.Text(1)))), nil
	})
	lib.Def("multipart_field_bytes", "multipart_field_bytes(name, bytes, filename?, content_type?) -> dict", "a file field for multipart_form_data; name is a non-empty string", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if err := fieldName("multipart_field_bytes", a.At(0)); err != nil {
			return vm.Value{}, err
		}
		b := vm.NewDictBuilder(4)
		b.Set("name", vm.Str(a.Text(0)))
		b.Set("bytes", vm.Of(lib.NewBytes(encoding.RawBytes(a.At(1)))))
		if a.Given(2) {
			b.Set("filename", vm.Str(a.Text(2)))
		}
		ct := "application/octet-stream"
		if a.Given(3) {
			ct = a.Text(3)
		}
		b.Set("content_type", vm.Str(ct))
		return vm.Of(b.Build()), nil
	})
	lib.Def("multipart_form_data", "multipart_form_data(fields, boundary?) -> dict", "{content_type, body, boundary} for a multipart/form-data request; fields is a list of field dicts (multipart_field_text/bytes; a non-dict is an error) or a dict of name → value, where a value may be a field dict or bytes (a file part); bytes values are sent as they are", MultipartFormData)
	lib.Def("multipart_parse", "multipart_parse(body, content_type) -> list", "the parts of a multipart body: [{name, filename, content_type, value, bytes}]; content_type (or the bare boundary) must give a boundary, and the body must be well formed (errors: content type has no boundary, malformed body)", multipartParse)
	lib.Def("parse_junit_xml", "parse_junit_xml(text)", "[{name, status, duration_ms, message, stdout, stderr}]", parseJUnit)
}

// ---- YAML ----

// yamlMinExpansion is how many values a document may always expand to;
// past it, aliases may expand a document to at most yamlExpansionRatio
// times the nodes it writes. An alias copies its anchor's whole value, so
// without a bound a few hundred bytes of nested aliases ("billion laughs")
// expand to 10^8 values and gigabytes. Rust's serde_yaml, upstream's
// reader, bounds alias jumps the same way ("repetition limit exceeded").
const (
	yamlMinExpansion   = 1_000_000
	yamlExpansionRatio = 10
)

// yamlErrorText is a reader error as upstream's reader (Rust's
// serde_yaml) words it: `<what> at line L column C`, then, when the reader
// names the construct it was in, `, while parsing <construct> at line L
// column C` (docs/builtins-areas.md).
func yamlErrorText(err error) string {
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		return strings.TrimPrefix(err.Error(), "yaml: ")
	}
	msg := le.Message
	if strings.HasPrefix(msg, "unknown anchor ") {
		msg = "unknown anchor" // serde_yaml's words name no anchor
	}
	// as serde_yaml prints libyaml's errors: no place for the very start
	// of the text, and the context always, with its own place when that
	// differs from the problem's
	text := msg
	if !atYAMLStart(le.Mark.Line, le.Mark.Column) {
		text += yamlAt(le.Mark.Line, le.Mark.Column)
	}
	if le.ContextMsg != "" {
		text += ", " + le.ContextMsg
		if le.ContextMark != le.Mark && !atYAMLStart(le.ContextMark.Line, le.ContextMark.Column) {
			text += yamlAt(le.ContextMark.Line, le.ContextMark.Column)
		}
	}
	return text
}

// atYAMLStart reports whether a place (lines and columns from 1) is the
// first character of the text, or no place at all.
func atYAMLStart(line, col int) bool { return line <= 1 && col <= 1 }

// yamlAt is ` at line L column C`, or "" for an unknown place.
func yamlAt(line, col int) string {
	if line <= 0 {
		return ""
	}
	return fmt.Sprintf(" at line %d column %d", line, col)
}

// errYAMLNoDocument is the error of a text with no YAML document.
var errYAMLNoDocument = errors.New("EOF while parsing a value")

// decodeOneYAML parses the first document of text and reports whether
// another follows it.
func decodeOneYAML(text string) (yaml.Node, bool, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			// no document at all: serde_yaml, upstream's reader, finds
			// no value to read (docs/builtins-areas.md)
			return yaml.Node{}, false, errYAMLNoDocument
		}
		return doc, false, err
	}
	var next yaml.Node
	err := dec.Decode(&next)
	return doc, !errors.Is(err, io.EOF), nil
}

// yamlDecoder turns a yaml.Node tree into Harn values, counting the values
// it builds against its limit.
type yamlDecoder struct{ limit, built, nest int }

// yamlMaxNesting is how many lists and mappings may nest: serde_yaml,
// upstream's reader, refuses the 129th with `recursion limit exceeded at
// line L column C` (docs/limits.md).
const yamlMaxNesting = 128

// enterCollection counts one more level of lists and mappings, refusing
// one past yamlMaxNesting; the caller leaves it with d.nest--.
func (d *yamlDecoder) enterCollection(n *yaml.Node) error {
	if d.nest >= yamlMaxNesting {
		return fmt.Errorf("recursion limit exceeded%s", yamlAt(n.Line, n.Column))
	}
	d.nest++
	return nil
}

// yamlDocValue decodes a parsed document (docs/limits.md: YAML aliases).
func yamlDocValue(doc *yaml.Node) (vm.Value, error) {
	d := yamlDecoder{limit: max(yamlMinExpansion, yamlExpansionRatio*yamlNodeCount(doc))}
	return d.value(doc, 0)
}

// yamlNodeCount counts the nodes the document writes, an alias as one.
func yamlNodeCount(root *yaml.Node) int {
	count := 0
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		stack = append(stack, n.Content...)
	}
	return count
}

func (d *yamlDecoder) value(n *yaml.Node, depth int) (vm.Value, error) {
	if depth > 512 {
		return vm.Value{}, fmt.Errorf("document is nested too deeply")
	}
	if d.built++; d.built > d.limit {
		return vm.Value{}, fmt.Errorf("repetition limit exceeded: aliases expand the document past %d values", d.limit)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return vm.Nil, nil
		}
		return d.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		return d.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		if err := d.enterCollection(n); err != nil {
			return vm.Value{}, err
		}
		defer func() { d.nest-- }()
		out := make([]vm.Value, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := d.value(c, depth+1)
			if err != nil {
				return vm.Value{}, err
			}
			out = append(out, v)
		}
		return vm.Of(vm.NewList(out)), nil
	case yaml.MappingNode:
		if err := d.enterCollection(n); err != nil {
			return vm.Value{}, err
		}
		defer func() { d.nest-- }()
		b := vm.NewDictBuilder(len(n.Content) / 2)
		var merged []*vm.Dict
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			v, err := d.value(vn, depth+1)
			if err != nil {
				return vm.Value{}, err
			}
			if k.ShortTag() == "!!merge" {
				switch m := v.Object().(type) {
				case *vm.Dict:
					merged = append(merged, m)
				case *vm.List:
					for _, it := range m.Items() {
						if md, ok := it.AsDict(); ok {
							merged = append(merged, md)
						}
					}
				}
				continue
			}
			kv, err := d.value(k, depth+1)
			if err != nil {
				return vm.Value{}, err
			}
			key := vm.ToDisplay(kv)
			if first, dup := seen[key]; dup {
				// YAML 1.2 §3.2.1.1: the keys of a mapping are unique.
				return vm.Value{}, fmt.Errorf("duplicate mapping key %q%s (first defined%s)", key, yamlAt(k.Line, k.Column), yamlAt(first.Line, first.Column))
			}
			seen[key] = k
			b.Set(key, v)
		}
		d := b.Build()
		for _, m := range merged {
			m.Range(func(k string, v vm.Value) bool {
				if !d.Has(k) {
					d = d.Set(k, v)
				}
				return true
			})
		}
		return vm.Of(d), nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return vm.Nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return vm.Value{}, yamlScalarError(n)
			}
			return vm.BoolOf(b), nil
		case "!!int":
			if n.Style&yaml.TaggedStyle == 0 && (leadingZeroDigits(n.Value) || strings.Contains(n.Value, "_")) {
				// YAML 1.2 (and Rust's serde_yaml, upstream's reader) has no
				// 0-prefixed octal and no digit separators: 012 and 1_000
				// are strings, not 10 and 1000.
				return vm.Str(n.Value), nil
			}
			var i int64
			if err := n.Decode(&i); err == nil {
				return vm.IntOf(i), nil
			}
			var f float64
			if err := n.Decode(&f); err != nil {
				return vm.Value{}, yamlScalarError(n)
			}
			return vm.FloatOf(f), nil
		case "!!float":
			if n.Style&yaml.TaggedStyle == 0 && strings.Contains(n.Value, "_") {
				return vm.Str(n.Value), nil
			}
			if i, err := strconv.ParseInt(n.Value, 10, 64); err == nil && n.Style&yaml.TaggedStyle == 0 {
				// The v4 reader tags -0 a float (to keep the sign); YAML
				// 1.2's core schema, and serde_yaml, read it as the int 0.
				return vm.IntOf(i), nil
			}
			var f float64
			if err := n.Decode(&f); err != nil {
				return vm.Value{}, yamlScalarError(n)
			}
			return vm.FloatOf(f), nil
		}
		return vm.Str(n.Value), nil
	}
	return vm.Nil, nil
}

// yamlScalarError is a scalar its tag cannot read (`!!int x`), with its place.
func yamlScalarError(n *yaml.Node) error {
	return fmt.Errorf("invalid %s value %q%s", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value, yamlAt(n.Line, n.Column))
}

// leadingZeroDigits reports whether s is a sign, a 0 and more digits.
func leadingZeroDigits(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return len(s) > 1 && s[0] == '0' && isDecimal(s[1:])
}

// writeYAML writes v in block style at the given indent. Scalars are
// written inline by the caller's line; collections start on the current
// line position.
func writeYAML(sb *strings.Builder, v vm.Value, indent int) {
	if indent > 2*vm.MaxValueDepth {
		panic(vm.TooDeep("encode as YAML"))
	}
	switch x := v.Object().(type) {
	case *vm.Dict:
		if x.Len() == 0 {
			sb.WriteString("{}\n")
			return
		}
		first := true
		x.Range(func(k string, val vm.Value) bool {
			if !first {
				sb.WriteString(strings.Repeat(" ", indent))
			}
			first = false
			sb.WriteString(yamlScalarString(k))
			sb.WriteByte(':')
			yamlChild(sb, val, indent, true)
			return true
		})
	case *vm.List:
		if x.Len() == 0 {
			sb.WriteString("[]\n")
			return
		}
		for i, it := range x.Items() {
			if i > 0 {
				sb.WriteString(strings.Repeat(" ", indent))
			}
			sb.WriteString("-")
			yamlChild(sb, it, indent, false)
		}
	default:
		writeYAMLScalar(sb, v, indent+2)
	}
}

// yamlChild writes the value after `key:` or `-`.
func yamlChild(sb *strings.Builder, v vm.Value, indent int, inMap bool) {
	switch x := v.Object().(type) {
	case *vm.Dict:
		if x.Len() == 0 {
			sb.WriteString(" {}\n")
			return
		}
		if inMap {
			sb.WriteByte('\n')
			sb.WriteString(strings.Repeat(" ", indent+2))
		} else {
			sb.WriteByte(' ')
		}
		writeYAML(sb, v, indent+2)
	case *vm.List:
		if x.Len() == 0 {
			sb.WriteString(" []\n")
			return
		}
		if inMap {
			// list items sit at the key's indent
			sb.WriteByte('\n')
			sb.WriteString(strings.Repeat(" ", indent))
			writeYAML(sb, v, indent)
		} else {
			sb.WriteByte(' ')
			writeYAML(sb, v, indent+2)
		}
	default:
		sb.WriteByte(' ')
		writeYAMLScalar(sb, v, indent+2)
	}
}

// writeYAMLScalar writes a scalar and its line end; a multi-line string is
// a literal block scalar whose lines sit at indent.
func writeYAMLScalar(sb *strings.Builder, v vm.Value, indent int) {
	if x, ok := v.AsString(); ok && yamlBlockOK(x.Go()) {
		writeYAMLBlock(sb, x.Go(), indent)
		return
	}
	sb.WriteString(yamlScalar(v))
	sb.WriteByte('\n')
}

// yamlBlockOK reports whether s is written as a literal block scalar (|):
// as libyaml-based emitters (Rust's serde_yaml) do, a string with a line
// break, unless a line ends in a space or it holds a character a block
// cannot carry (control characters, tabs), which stay double-quoted.
func yamlBlockOK(s string) bool {
	if !strings.Contains(s, "\n") || strings.HasSuffix(s, " ") || strings.Contains(s, " \n") {
		return false
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n') || r == 0x7f || r == utf8.RuneError || r == '\ufeff' {
			return false
		}
	}
	return true
}

// writeYAMLBlock writes s as `|` (one final line break), `|-` (none) or
// `|+` (several, or nothing but one: a clipped block without content
// reads back as ""), with an indentation indicator when the first line
// starts with a space or is empty, and empty lines left bare.
func writeYAMLBlock(sb *strings.Builder, s string, indent int) {
	sb.WriteByte('|')
	if s[0] == ' ' || s[0] == '\n' {
		sb.WriteString("2")
	}
	body := strings.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		sb.WriteByte('-')
	case trailing > 1 || body == "":
		sb.WriteByte('+')
	}
	sb.WriteByte('\n')
	pad := strings.Repeat(" ", indent)
	for _, line := range strings.Split(s[:len(s)-min(1, len(s)-len(body))], "\n") {
		if line != "" {
			sb.WriteString(pad)
			sb.WriteString(line)
		}
		sb.WriteByte('\n')
	}
}

func yamlScalar(v vm.Value) string {
	if x, ok := v.AsString(); ok {
		return yamlScalarString(x.Go())
	}
	if s, ok := scalarText(v, ".nan", ".inf", lib.RyuFloat); ok {
		return s
	}
	return "null"
}

// scalarText writes a bool, int or float as YAML and TOML both do:
// true/false, a decimal int, and a float with finite or, when it is not
// finite, spelled nan, inf or "-"+inf; ok is false for any other value.
func scalarText(v vm.Value, nan, inf string, finite func(float64) string) (s string, ok bool) {
	switch x := v.Object().(type) {
	case vm.Bool:
		return strconv.FormatBool(bool(x)), true
	case vm.Int:
		return strconv.FormatInt(int64(x), 10), true
	case *decimal.Decimal:
		return x.Text(), true
	case vm.Float:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			return nan, true
		case math.IsInf(f, 1):
			return inf, true
		case math.IsInf(f, -1):
			return "-" + inf, true
		}
		return finite(f), true
	}
	return "", false
}

// yamlScalarString writes a string plainly when that reads back as the
// same string, else single-quoted, else double-quoted with escapes.
func yamlScalarString(s string) string {
	if yamlPlainOK(s) {
		return s
	}
	printable := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			printable = false
			break
		}
	}
	if printable {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return doubleQuoted(s, `\x%02x`)
}

// doubleQuoted writes s between double quotes with the escapes YAML and
// TOML share (\" \\ \n \t \r); other control characters use ctl, a
// printf format for the rune.
func doubleQuoted(s, ctl string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&sb, ctl, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// yaml11Keyword reports whether s is one of the spellings YAML 1.1
// readers (PyYAML, many tools) take as a boolean or null: y/n, yes/no,
// on/off, true/false, null, each all lower case, capitalised or all
// upper case (not `tRUE`), and `~`. serde_yaml quotes exactly these
// (recalled; docs/builtins-areas.md); a mixed-case spelling is a string
// to every reader and stays plain.
func yaml11Keyword(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		lower := strings.ToLower(s)
		return s == lower || s == strings.ToUpper(s) || s == strings.ToUpper(lower[:1])+lower[1:]
	}
	return s == "~"
}

func yamlPlainOK(s string) bool {
	if s == "" || strings.TrimSpace(s) != s {
		return false
	}
	if yaml11Keyword(s) {
		return false
	}
	if strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") && !(s[0] == '-' && len(s) > 1 && s[1] != ' ' && !lib.ASCIIDigit(s[1]) && s[1] != '.') {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	// anything yaml_parse, which reads as serde_yaml does, would not read
	// back as this string stays quoted; a YAML 1.1 timestamp such as
	// 2024-01-01, or 1_000, is a string to it and stays plain
	if leadingZeroDigits(s) {
		return false // a string to the reader, but serde_yaml quotes 007
	}
	back, err := ParseYAML(s)
	if err != nil {
		return false
	}
	str, ok := back.AsString()
	return ok && str.Go() == s
}

// ---- TOML ----

// tomlNilAt finds the first nil inside v, in the order toml_stringify
// writes, and names its place: `a.b`, `list[1]`, `"odd key".c`. TOML has
// no null, and leaving the value out would lose a key or shift a list's
// positions without a word, so toml_stringify refuses it
// (docs/builtins-areas.md).
func tomlNilAt(v vm.Value, path string) (string, bool) {
	if v.IsNil() {
		return path, true
	}
	var at string
	var found bool
	switch x := v.Object().(type) {
	case *vm.Dict:
		x.Range(func(k string, val vm.Value) bool {
			sub := tomlKey(k)
			if path != "" {
				sub = path + "." + sub
			}
			at, found = tomlNilAt(val, sub)
			return !found
		})
	case *vm.List:
		for i, it := range x.Items() {
			if at, found = tomlNilAt(it, fmt.Sprintf("%s[%d]", path, i)); found {
				break
			}
		}
	}
	return at, found
}

func writeTOMLTable(sb *strings.Builder, d *vm.Dict, path []string) {
	// key-values first; then the tables and arrays of tables in key
	// order, each followed by its own, as the toml crate writes them
	var nested []string
	d.Range(func(k string, v vm.Value) bool {
		if _, ok := v.AsDict(); ok {
			nested = append(nested, k)
			return true
		}
		if l, ok := v.AsList(); ok && l.Len() > 0 && allDicts(l) {
			nested = append(nested, k)
			return true
		}
		sb.WriteString(tomlKey(k))
		sb.WriteString(" = ")
		sb.WriteString(tomlInline(v))
		sb.WriteByte('\n')
		return true
	})
	for _, k := range nested {
		v, _ := d.Get(k)
		sub := append(append([]string(nil), path...), k)
		if t, ok := v.AsDict(); ok {
			if !tomlImplicit(t) {
				sb.WriteString("\n[" + tomlPath(sub) + "]\n")
			}
			writeTOMLTable(sb, t, sub)
			continue
		}
		for _, it := range v.List().Items() {
			sb.WriteString("\n[[" + tomlPath(sub) + "]]\n")
			writeTOMLTable(sb, it.Dict(), sub)
		}
	}
}

// tomlImplicit reports whether table d needs no header of its own: it
// holds only tables and arrays of tables, whose dotted headers ([a.b])
// define it implicitly, as Rust's toml and Python's tomli_w write it. An
// empty table keeps its header, or it would vanish.
func tomlImplicit(d *vm.Dict) bool {
	implicit := false
	d.Range(func(k string, v vm.Value) bool {
		if _, ok := v.AsDict(); ok {
			implicit = true
			return true
		}
		if l, ok := v.AsList(); ok && l.Len() > 0 && allDicts(l) {
			implicit = true
			return true
		}
		implicit = false
		return false
	})
	return implicit
}

func allDicts(l *vm.List) bool {
	for _, it := range l.Items() {
		if _, ok := it.AsDict(); !ok {
			return false
		}
	}
	return true
}

func tomlPath(p []string) string {
	parts := make([]string, len(p))
	for i, k := range p {
		parts[i] = tomlKey(k)
	}
	return strings.Join(parts, ".")
}

func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(lib.ASCIIDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-') {
			return tomlString(k)
		}
	}
	return k
}

func tomlString(s string) string { return doubleQuoted(s, `\u%04X`) }

// tomlStringValue writes a string value in the style Rust's toml crate
// picks (docs/builtins-areas.md): a string holding a backslash, and no
// other control character than tab and line break, as a literal string
// ('C:\dir'; in ”' when it holds a quote, starting on a line of its own
// when it holds a line break); otherwise a basic string, in triple
// quotes starting on a line of its own when it holds a line break.
func tomlStringValue(s string) string {
	multiline := strings.Contains(s, "\n")
	literal := strings.Contains(s, `\`) && !strings.Contains(s, "'''") && !strings.HasSuffix(s, "'")
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f {
			literal = false
		}
	}
	switch {
	case literal && multiline:
		return "'''\n" + s + "'''"
	case literal && strings.Contains(s, "'"):
		return "'''" + s + "'''"
	case literal:
		return "'" + s + "'"
	case multiline:
		var sb strings.Builder
		sb.WriteString(`"""` + "\n")
		for _, line := range strings.SplitAfter(s, "\n") {
			body, nl := strings.CutSuffix(line, "\n")
			q := tomlString(body)
			sb.WriteString(q[1 : len(q)-1])
			if nl {
				sb.WriteByte('\n')
			}
		}
		sb.WriteString(`"""`)
		return sb.String()
	}
	return tomlString(s)
}

// tomlFloat writes a finite float always with a fraction, which is how
// TOML tells a float from an int.
func tomlFloat(f float64) string {
	s := vm.FormatFloat(f)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func tomlInline(v vm.Value) string {
	if x, ok := v.AsString(); ok {
		return tomlStringValue(x.Go())
	}
	if s, ok := scalarText(v, "nan", "inf", tomlFloat); ok {
		return s
	}
	switch x := v.Object().(type) {
	case *vm.List:
		parts := make([]string, 0, x.Len())
		for _, it := range x.Items() {
			parts = append(parts, tomlInline(it))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *vm.Dict:
		var parts []string
		x.Range(func(k string, val vm.Value) bool {
			parts = append(parts, tomlKey(k)+" = "+tomlInline(val))
			return true
		})
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return `""`
}

// ---- CSV ----

func csvDelimiter(opts *vm.Dict) rune {
	if opts != nil {
		if d, ok := opts.Get("delimiter"); ok {
			if s, ok := d.AsString(); ok && s.Go() != "" {
				return rune(s.Go()[0])
			}
		}
	}
	return ','
}

func optTrue(opts *vm.Dict, key string) bool {
	if opts == nil {
		return false
	}
	v, ok := opts.Get(key)
	return ok && v.Truth()
}

func csvParse(th *vm.Thread, a vm.Args) (vm.Value, error) {
	opts, _ := a.Dict(1)
	delim := csvDelimiter(opts)
	if delim == '"' || delim == '\r' || delim == '\n' || delim == utf8.RuneError {
		return vm.Value{}, vm.Throwf("csv_parse: invalid field delimiter %q", delim)
	}
	// A leading byte-order mark (spreadsheet exports) is not part of the
	// first field, as the csv crate upstream strips it too.
	records := csvRecords(strings.TrimPrefix(a.Text(0), "\ufeff"), delim)
	if !optTrue(opts, "headers") {
		out := make([]vm.Value, len(records))
		for i, rec := range records {
			out[i] = vm.Of(lib.StrList(rec))
		}
		return vm.Of(vm.NewList(out)), nil
	}
	if len(records) == 0 {
		return vm.Of(vm.NewList(nil)), nil
	}
	header := records[0]
	out := make([]vm.Value, 0, len(records)-1)
	for _, rec := range records[1:] {
		b := vm.NewDictBuilder(len(header))
		for i, h := range header {
			cell := ""
			if i < len(rec) {
				cell = rec[i]
			}
			b.Set(h, vm.Str(cell))
		}
		out = append(out, vm.Of(b.Build()))
	}
	return vm.Of(vm.NewList(out)), nil
}

// csvRecords splits text into records of fields (RFC 4180, leniently):
// a record ends at \n, \r\n or a lone \r outside quotes; a quoted field
// keeps its content byte for byte (line endings included), `""` is a
// quote, text after its closing quote continues the field unquoted
// (`"a"b` is `ab`), and a quote inside an unquoted field is kept as
// text. Empty lines are skipped and rows may be ragged.
func csvRecords(text string, delim rune) [][]string {
	var records [][]string
	var rec []string
	var field strings.Builder
	dl := utf8.RuneLen(delim)
	i, n := 0, len(text)
	atLineStart := true
	for i < n {
		if atLineStart && (text[i] == '\n' || text[i] == '\r') {
			i++ // an empty line
			continue
		}
		atLineStart = false
		field.Reset()
		if text[i] == '"' {
			i++
			for i < n {
				if text[i] == '"' {
					if i+1 < n && text[i+1] == '"' {
						field.WriteByte('"')
						i += 2
						continue
					}
					// the quoted part ends here; any text after the
					// closing quote continues the field unquoted, as
					// Rust's csv reader takes `"a"b` to be `ab`
					i++
					break
				}
				field.WriteByte(text[i])
				i++
			}
		}
		for i < n && text[i] != '\n' && text[i] != '\r' && !strings.HasPrefix(text[i:], string(delim)) {
			field.WriteByte(text[i])
			i++
		}
		rec = append(rec, field.String())
		switch {
		case i >= n:
		case text[i] == '\n' || text[i] == '\r':
			if text[i] == '\r' && i+1 < n && text[i+1] == '\n' {
				i++
			}
			i++
			records = append(records, rec)
			rec, atLineStart = nil, true
			continue
		default:
			i += dl
			if i >= n {
				rec = append(rec, "")
			}
		}
	}
	if rec != nil {
		records = append(records, rec)
	}
	return records
}

func csvStringify(th *vm.Thread, a vm.Args) (vm.Value, error) {
	rows, ok := a.List(0)
	if !ok {
		return vm.Value{}, vm.Throwf("csv_stringify: expected a list of rows")
	}
	opts, _ := a.Dict(1)
	delim := csvDelimiter(opts)
	cell := func(v vm.Value) string {
		if !v.IsValid() || v.IsNil() {
			return ""
		}
		return vm.ToDisplay(v)
	}
	var lines [][]string
	// dict rows: columns are the sorted union of keys
	var columns []string
	seen := map[string]bool{}
	for _, r := range rows.Items() {
		if d, ok := r.AsDict(); ok {
			for _, k := range d.Keys() {
				if !seen[k] {
					seen[k] = true
					columns = append(columns, k)
				}
			}
		}
	}
	sort.Strings(columns)
	if optTrue(opts, "headers") && len(columns) > 0 {
		lines = append(lines, columns)
	}
	for _, r := range rows.Items() {
		switch x := r.Object().(type) {
		case *vm.List:
			rec := make([]string, x.Len())
			for i, it := range x.Items() {
				rec[i] = cell(it)
			}
			lines = append(lines, rec)
		case *vm.Dict:
			rec := make([]string, len(columns))
			for i, c := range columns {
				v, _ := x.Get(c)
				rec[i] = cell(v)
			}
			lines = append(lines, rec)
		default:
			return vm.Value{}, vm.Throwf("csv_stringify: expected a list of rows")
		}
	}
	var sb strings.Builder
	for _, rec := range lines {
		if len(rec) == 0 {
			// the csv crate writes an empty record as `""`, which it
			// also reads back as one record (a bare newline is skipped)
			sb.WriteString(`""`)
		}
		for i, f := range rec {
			if i > 0 {
				sb.WriteRune(delim)
			}
			if strings.ContainsRune(f, delim) || strings.ContainsAny(f, "\"\r\n") || (len(rec) == 1 && f == "") {
				sb.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
			} else {
				sb.WriteString(f)
			}
		}
		sb.WriteByte('\n')
	}
	return vm.Str(sb.String()), nil
}

// ---- URLs ----

// whatwgIPv4 reads a special URL's host as the WHATWG URL standard (and
// Rust's url crate) does: a host whose last label is a number is an IPv4
// address — decimal, 0x hex or 0-prefixed octal parts, with the last part
// filling the remaining bytes (127.1 is 127.0.0.1) — written back in
// dotted decimal. isV4 reports whether the host ends in a number; ok
// whether it is then a valid address (256.1.1.1 is not).
func whatwgIPv4(host string) (v4 string, isV4, ok bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if _, err := ipv4Part(last); err != nil && !isDecimal(last) {
		return "", false, false
	}
	if len(parts) > 4 {
		return "", true, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := ipv4Part(p)
		if err != nil {
			return "", true, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", true, false
		}
	}
	limit := uint64(1) << (8 * (5 - len(nums)))
	if nums[len(nums)-1] >= limit {
		return "", true, false
	}
	addr := nums[len(nums)-1]
	for i, n := range nums[:len(nums)-1] {
		addr += n << (8 * (3 - i))
	}
	return fmt.Sprintf("%d.%d.%d.%d", addr>>24, addr>>16&255, addr>>8&255, addr&255), true, true
}

// whatwgIPv6 writes an IPv6 address as the WHATWG serializer does: in
// hex pieces with the longest run of zeros compressed, never with an
// embedded dotted IPv4 (netip writes ::ffff:1.2.3.4, WHATWG ::ffff:102:304).
func whatwgIPv6(ip netip.Addr) string {
	if !ip.Is4In6() {
		return ip.String()
	}
	b := ip.As16()
	return fmt.Sprintf("::ffff:%x:%x", uint16(b[12])<<8|uint16(b[13]), uint16(b[14])<<8|uint16(b[15]))
}

func ipv4Part(p string) (uint64, error) {
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, nil
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(p, base, 64)
}

func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if !lib.ASCIIDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}

// removeDotSegments resolves the `.` and `..` segments of an absolute
// path as the URL standard's parser (Rust's url crate, upstream's) does:
// `/a/../b/./c` is `/b/c`, `/a/..` is `/`, a `..` at the top stays at the
// top, and `%2e` counts as a dot.
func removeDotSegments(path string) string {
	segs := strings.Split(path[1:], "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch strings.ToLower(seg) {
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case ".", "%2e":
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

func urlParse(th *vm.Thread, a vm.Args) (vm.Value, error) {
	s := decodeSpecialHost(urlInput(a.Text(0)))
	s, stray := escapeStrayPercents(s)
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		msg := err.Error()
		if e, ok := err.(*url.Error); ok {
			ue = e
			msg = ue.Err.Error()
		}
		switch {
		case strings.Contains(msg, "in host name"), strings.Contains(msg, "invalid URL escape"):
			// a stray '%' is left only in the host (escapeStrayPercents)
			msg = "invalid domain character"
		case strings.Contains(msg, "ParseAddr") || strings.Contains(msg, "IPv6") || strings.Contains(msg, "missing ']'"):
			msg = "invalid IPv6 address"
		case strings.Contains(msg, "port"):
			msg = "invalid port number"
		case strings.Contains(msg, "missing protocol scheme"), strings.Contains(msg, "first path segment in URL cannot contain colon"):
			// Go's words for input with no usable scheme ("::",
			// "%zz://a"); the URL standard's reader (Rust's url, upstream's)
			// calls it what the scheme-less case below is.
			msg = "relative URL without a base"
		}
		return vm.Value{}, vm.Throwf("url_parse: %s", msg)
	}
	if u.Scheme == "" {
		return vm.Value{}, vm.Throwf("url_parse: relative URL without a base")
	}
	scheme := strings.ToLower(u.Scheme)
	_, special := defaultPorts[scheme]
	if special && u.Host == "" && u.Opaque == "" {
		return vm.Value{}, vm.Throwf("url_parse: empty host")
	}
	if special && u.Opaque != "" {
		// "http:example.com" — treat like the WHATWG parser: host follows
		rest := strings.TrimLeft(u.Opaque, "/")
		if u2, err := url.Parse(scheme + "://" + rest); err == nil {
			u = u2
		}
	}
	nilOr := func(s string, present bool) vm.Value {
		if !present {
			return vm.Nil
		}
		return vm.Str(s)
	}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		// An IPv6 literal keeps its brackets, as the WHATWG parser (Rust's
		// url crate) serializes it, so url_build(url_parse(u)) gives u back;
		// the address is written in its canonical compressed form.
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return vm.Value{}, vm.Throwf("url_parse: invalid IPv6 address")
		}
		host = "[" + whatwgIPv6(ip) + "]"
	} else if special {
		host = strings.ToLower(host)
		if host == "" {
			return vm.Value{}, vm.Throwf("url_parse: empty host") // `http://:80`
		}
		if !isASCII(host) || hasPunycodeLabel(host) {
			ascii, err := urlDomainToASCII(host)
			if err == nil && !punycodeLabelsKept(host, ascii) {
				err = errBadPunycode
			}
			if err != nil {
				return vm.Value{}, vm.Throwf("url_parse: invalid international domain name")
			}
			host = ascii
		}
		if v4, isV4, ok := whatwgIPv4(host); isV4 {
			if !ok {
				return vm.Value{}, vm.Throwf("url_parse: invalid IPv4 address")
			}
			host = v4
		}
	} else if !isASCII(host) {
		// an opaque host (a scheme the standard does not know) keeps its
		// text, its non-ASCII bytes percent-encoded
		host = percentEncodeNonASCII(host)
	}
	var port vm.Value = vm.Nil
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n > 65535 {
			return vm.Value{}, vm.Throwf("url_parse: invalid port number")
		}
		// the scheme's default port is none, however written (`:080`)
		if strconv.Itoa(n) != defaultPorts[scheme] {
			port = lib.IntOf(n)
		}
	}
	path := escapeURLPart(rawURLPath(s), pathSet)
	if u.Opaque != "" {
		path = u.Opaque
	}
	path = stray.restore(path)
	if special && path == "" {
		path = "/"
	}
	if u.Opaque == "" && strings.HasPrefix(path, "/") {
		path = removeDotSegments(path)
	}
	var user, pass vm.Value = vm.Nil, vm.Nil
	if u.User != nil {
		if name := u.User.Username(); name != "" {
			user = vm.Str(name)
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			// an empty password is none, as the url crate reports it
			pass = vm.Str(pw)
		}
	}
	query := stray.restore(escapeURLPart(u.RawQuery, querySet(special)))
	fragment := ""
	if hash := strings.IndexByte(s, '#'); hash >= 0 {
		fragment = stray.restore(escapeURLPart(s[hash+1:], fragmentSet))
	}
	return vm.Of(lib.DictOf("scheme", vm.Str(scheme), "host", nilOr(host, u.Host != ""), "port", port, "path", vm.Str(path),
		"query", nilOr(query, u.ForceQuery || u.RawQuery != ""), "fragment", nilOr(fragment, u.Fragment != "" || strings.HasSuffix(s, "#")),
		"username", user, "password", pass)), nil
}

// urlInput is s as the URL standard's parser (Rust's url crate,
// upstream's) reads it: C0 controls and spaces trimmed from both ends,
// tabs and newlines dropped anywhere, and for a special scheme a
// backslash before the query or fragment read as a slash, and any run
// of slashes after the scheme as the two that start the authority
// (`http:\\a.com\x`, `http:/a.com` and `http:///a.com` are all
// `http://a.com/…`).
func urlInput(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return s
	}
	if _, special := defaultPorts[strings.ToLower(s[:colon])]; !special {
		return s
	}
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	rest := strings.ReplaceAll(s[colon+1:end], "\\", "/")
	return s[:colon+1] + "//" + strings.TrimLeft(rest, "/") + s[end:]
}

// rawURLPath is the path of s as written: from the end of its authority
// to its query or fragment.
func rawURLPath(s string) string {
	_, end := authority(s)
	path := s[end:]
	if stop := strings.IndexAny(path, "?#"); stop >= 0 {
		path = path[:stop]
	}
	return path
}

// urlDomainProfile is the URL standard's domain to ASCII (UTS #46,
// nontransitional, hyphens and the DNS length not checked), which Rust's
// url crate, upstream's, applies to the host of a special URL:
// `münchen.de` is `xn--mnchen-3ya.de`.
var urlDomainProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.CheckHyphens(false), idna.VerifyDNSLength(false), idna.StrictDomainName(false))

var errBadPunycode = errors.New("invalid punycode label")

// hasPunycodeLabel reports whether a lower-case host has a label in
// punycode (`xn--…`), which domain to ASCII decodes to check.
func hasPunycodeLabel(host string) bool {
	for _, label := range strings.Split(host, ".") {
		if strings.HasPrefix(label, "xn--") {
			return true
		}
	}
	return false
}

// punycodeLabelsKept reports whether each punycode label of host comes
// through domain to ASCII as written. UTS #46 (as the url crate applies
// it, recalled) refuses a label whose punycode is empty (`xn--`) or
// decodes to nothing but ASCII (`xn--zz-`), which Go's profile
// passes or rewrites.
func punycodeLabelsKept(host, ascii string) bool {
	in, out := strings.Split(host, "."), strings.Split(ascii, ".")
	if len(in) != len(out) {
		return false
	}
	for k, label := range in {
		if strings.HasPrefix(label, "xn--") && (label == "xn--" || out[k] != label) {
			return false
		}
	}
	return true
}

func urlDomainToASCII(host string) (string, error) {
	return urlDomainProfile.ToASCII(host)
}

// decodeSpecialHost percent-decodes the host of a special URL
// (`http://ex%41mple.com`), as the URL standard does before mapping the
// domain to ASCII; Go's parser refuses escapes in a host. Text that does
// not decode to UTF-8 is left for the checks after.
func decodeSpecialHost(s string) string {
	start, end := authority(s)
	colon := strings.IndexByte(s, ':')
	if start == end || colon <= 0 {
		return s
	}
	if _, special := defaultPorts[strings.ToLower(s[:colon])]; !special {
		return s
	}
	host := s[start:end]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		start += at + 1
		host = host[at+1:]
	}
	if strings.HasPrefix(host, "[") || !strings.Contains(host, "%") {
		return s
	}
	if p := strings.LastIndexByte(host, ':'); p >= 0 {
		host = host[:p]
	}
	decoded, err := url.PathUnescape(host)
	if err != nil || !utf8.ValidString(decoded) || strings.ContainsAny(decoded, "/?#@[]") {
		return s
	}
	return s[:start] + decoded + s[start+len(host):]
}

// percentEncodeNonASCII writes each byte of s past ASCII as %XX.
func percentEncodeNonASCII(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			fmt.Fprintf(&sb, "%%%02X", s[i])
			continue
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// escapeLonePercents writes as %25 each '%' of s that starts no escape.
func escapeLonePercents(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			sb.WriteString("%25")
			continue
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// strayPercents records, in order, the "%25"s of the path, query and
// fragment that escapeStrayPercents wrote for a lone '%' (true) and those
// the input had (false).
type strayPercents []bool

// escapeStrayPercents writes as %25 each '%' after the authority that
// does not start an escape ("%zz", a '%' at the end), which Go's url.Parse
// rejects and the WHATWG URL standard (Rust's url crate, upstream's)
// keeps as written in the path, query and fragment, and in the userinfo.
// The host is left alone: a stray '%' there is still an error.
func escapeStrayPercents(s string) (string, strayPercents) {
	authStart, start := authority(s)
	var sb strings.Builder
	var marks strayPercents
	if at := strings.LastIndexByte(s[authStart:start], '@'); at >= 0 {
		// the userinfo keeps a stray '%' too (WHATWG); username and
		// password come back decoded, so the "%25" reads as the '%'
		sb.WriteString(s[:authStart])
		sb.WriteString(escapeLonePercents(s[authStart : authStart+at]))
		sb.WriteString(s[authStart+at : start])
	} else {
		sb.WriteString(s[:start])
	}
	for i := start; i < len(s); i++ {
		switch {
		case s[i] != '%':
			sb.WriteByte(s[i])
		case i+2 < len(s) && s[i+1] == '2' && s[i+2] == '5':
			marks = append(marks, false)
			sb.WriteString("%25")
			i += 2
		case i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			sb.WriteByte('%')
		default:
			marks = append(marks, true)
			sb.WriteString("%25")
		}
	}
	return sb.String(), marks
}

// restore turns back into '%' the "%25"s of part (the path, query or
// fragment as url.Parse gives it, in that order) that stand for a stray
// '%'; url.Parse keeps each "%25" in place, so they come in input order.
func (m *strayPercents) restore(part string) string {
	if !strings.Contains(part, "%25") {
		return part
	}
	var sb strings.Builder
	for {
		i := strings.Index(part, "%25")
		if i < 0 || len(*m) == 0 {
			break
		}
		stray := (*m)[0]
		*m = (*m)[1:]
		sb.WriteString(part[:i])
		if stray {
			sb.WriteByte('%')
		} else {
			sb.WriteString("%25")
		}
		part = part[i+3:]
	}
	sb.WriteString(part)
	return sb.String()
}

// authority is the span [start, end) of s's authority (userinfo, host
// and port); end is where the path begins: after "scheme://authority"
// (or "scheme:" when there is no authority, start = end), or 0 when s
// has no scheme.
func authority(s string) (start, end int) {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return 0, 0
	}
	_, special := defaultPorts[strings.ToLower(s[:colon])]
	rest := colon + 1
	if special {
		for rest < len(s) && (s[rest] == '/') {
			rest++
		}
	} else if strings.HasPrefix(s[rest:], "//") {
		rest += 2
	} else {
		return rest, rest
	}
	if end := strings.IndexAny(s[rest:], "/?#"); end >= 0 {
		return rest, rest + end
	}
	return rest, len(s)
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= 'a' && c <= 'z') && (i == 0 || !lib.ASCIIDigit(s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.') {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return lib.ASCIIDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func urlBuild(th *vm.Thread, a vm.Args) (vm.Value, error) {
	parts, ok := a.Dict(0)
	if !ok {
		return vm.Value{}, vm.Throwf("url_build: expected a dict of URL parts, got %s", a.At(0).Type())
	}
	get := func(k string) (string, bool) {
		v, ok := parts.Get(k)
		if !ok || v.IsNil() {
			return "", false
		}
		return vm.ToDisplay(v), true
	}
	scheme, ok := get("scheme")
	if !ok || scheme == "" {
		return vm.Value{}, vm.Throwf("url_build: scheme is required")
	}
	if !validScheme(scheme) {
		return vm.Value{}, vm.Throwf("url_build: invalid scheme %q", scheme)
	}
	var sb strings.Builder
	sb.WriteString(scheme + "://")
	if user, ok := get("username"); ok {
		// escaped as userinfo ('@', ':', '/', '%' … too), the inverse of
		// url_parse's decoding
		info := url.User(user)
		if pw, ok := get("password"); ok {
			info = url.UserPassword(user, pw)
		}
		sb.WriteString(info.String() + "@")
	}
	host, _ := get("host")
	if ip, err := netip.ParseAddr(host); err == nil && ip.Is6() {
		host = "[" + host + "]" // a bare IPv6 address; "name:port" stays as given
	} else if strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune("/?#@\\<>^|", r) }) {
		return vm.Value{}, vm.Throwf("url_build: invalid host %q", host)
	}
	defaultPort, special := defaultPorts[strings.ToLower(scheme)]
	if host == "" && special {
		return vm.Value{}, vm.Throwf("url_build: a %s URL needs a host", strings.ToLower(scheme))
	}
	sb.WriteString(host)
	if pv, ok := parts.Get("port"); ok && !pv.IsNil() {
		n, isInt := pv.AsInt()
		if !isInt {
			// a port written as digits ("8080") is read as the number
			if d, isStr := pv.AsString(); isStr {
				if v, err := strconv.ParseInt(d.Go(), 10, 64); err == nil {
					n, isInt = vm.Int(v), true
				}
			}
		}
		if !isInt || n < 0 || n > 65535 {
			return vm.Value{}, vm.Throwf("url_build: port must be an int from 0 to 65535, got %s", lib.Shown(pv))
		}
		if port := strconv.FormatInt(int64(n), 10); port != defaultPort {
			sb.WriteString(":" + port)
		}
	}
	path, ok := get("path")
	if !ok || path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	sb.WriteString(escapeURLPart(path, pathSet))
	if q, ok := parts.Get("query"); ok && !q.IsNil() {
		text := vm.ToDisplay(q)
		switch q.Object().(type) {
		case *vm.Dict, *vm.List:
			text = QueryString(q)
		}
		if text != "" {
			sb.WriteString("?" + escapeURLPart(strings.TrimPrefix(text, "?"), querySet(special)))
		}
	}
	if f, ok := get("fragment"); ok {
		sb.WriteString("#" + escapeURLPart(f, fragmentSet))
	}
	return vm.Str(sb.String()), nil
}

// validScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.' (RFC 3986 §3.1).
func validScheme(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// escapeURLPart percent-encodes the bytes of s that the WHATWG URL
// standard (Rust's url crate) encodes in one part of a URL: every
// non-ASCII byte, C0 controls, and the part's own set. A `%` is left as it
// is, so text that is already escaped stays the same.
func escapeURLPart(s string, set func(byte) bool) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || set(c) {
			encoding.WritePercent(&sb, c)
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

func fragmentSet(c byte) bool { return strings.IndexByte(" \"<>`", c) >= 0 }

func pathSet(c byte) bool { return strings.IndexByte(" \"#<>?`{}", c) >= 0 }

// querySet is the query's set: `'` too for the special schemes.
func querySet(special bool) func(byte) bool {
	return func(c byte) bool {
		return strings.IndexByte(" \"#<>", c) >= 0 || (special && c == '\'')
	}
}

// formEncode is application/x-www-form-urlencoded byte serialisation.
func formEncode(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case lib.ASCIIDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*' || c == '-' || c == '.' || c == '_':
			sb.WriteByte(c)
		case c == ' ':
			sb.WriteByte('+')
		default:
			encoding.WritePercent(&sb, c)
		}
	}
	return sb.String()
}

// QueryString encodes [{key, value}], [[k, v]] or a dict.
func QueryString(v vm.Value) string {
	var pairs []string
	add := func(k, val vm.Value) {
		if !val.IsValid() || val.IsNil() {
			return
		}
		pairs = append(pairs, formEncode(vm.ToDisplay(k))+"="+formEncode(vm.ToDisplay(val)))
	}
	switch x := v.Object().(type) {
	case *vm.Dict:
		x.Range(func(k string, val vm.Value) bool {
			if l, ok := val.AsList(); ok {
				for _, it := range l.Items() {
					add(vm.Str(k), it)
				}
			} else {
				add(vm.Str(k), val)
			}
			return true
		})
	case *vm.List:
		for _, it := range x.Items() {
			switch p := it.Object().(type) {
			case *vm.Dict:
				k, _ := p.Get("key")
				val, _ := p.Get("value")
				if !k.IsValid() {
					k = vm.Nil
				}
				add(k, val)
			case *vm.List:
				if p.Len() >= 2 {
					add(p.At(0), p.At(1))
				}
			}
		}
	}
	return strings.Join(pairs, "&")
}

// ---- multipart ----

// fieldName checks a multipart field's name: a non-empty string.
func fieldName(fn string, v vm.Value) error {
	if s, ok := v.AsString(); !ok || s.Go() == "" {
		return vm.Typef("%s: name must be a non-empty string, got %s", fn, lib.Shown(v))
	}
	return nil
}

func MultipartFormData(th *vm.Thread, a vm.Args) (vm.Value, error) {
	fields, err := multipartFields(a.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if a.Given(1) {
		if err := w.SetBoundary(a.Text(1)); err != nil {
			// mime's "mime: invalid boundary length/character" read as ours
			return vm.Value{}, vm.Throwf("multipart_form_data: invalid boundary %q: 1 to 70 letters, digits or '()+_,-./:=? ', not ending in a space", a.Text(1))
		}
	}
	for i, f := range fields {
		name, _ := f.Get("name")
		nameS := vm.ToDisplay(OrNil(name))
		if name.IsNil() || !name.IsValid() || nameS == "" {
			return vm.Value{}, vm.Throwf("multipart_form_data: field %d has no name", i)
		}
		if b, ok := f.Get("bytes"); ok && !b.IsNil() {
			filename := ""
			if fn, ok := f.Get("filename"); ok && !fn.IsNil() {
				filename = vm.ToDisplay(fn)
			}
			ct := "application/octet-stream"
			if c, ok := f.Get("content_type"); ok && !c.IsNil() {
				ct = vm.ToDisplay(c)
			}
			h := make(map[string][]string)
			disp := fmt.Sprintf(`form-data; name="%s"`, escapeQuotes(nameS))
			if filename != "" {
				disp += fmt.Sprintf(`; filename="%s"`, escapeQuotes(filename))
			}
			h["Content-Disposition"] = []string{disp}
			h["Content-Type"] = []string{ct}
			pw, err := w.CreatePart(h)
			if err != nil {
				return vm.Value{}, vm.Throwf("multipart_form_data: %s", err)
			}
			pw.Write(encoding.RawBytes(b))
			continue
		}
		val, _ := f.Get("value")
		fw, err := w.CreateFormField(nameS)
		if err != nil {
			return vm.Value{}, vm.Throwf("multipart_form_data: %s", err)
		}
		fw.Write(encoding.RawBytes(OrNil(val)))
	}
	w.Close()
	if len(fields) == 0 {
		// The writer puts the CRLF that ends a part's body before the
		// closing delimiter even when no part came first.
		buf.Reset()
		buf.WriteString("--" + w.Boundary() + "--\r\n")
	}
	return vm.Of(lib.DictOf("content_type", vm.Str(w.FormDataContentType()), "body", lib.NewBytes(buf.Bytes()), "boundary", vm.Str(w.Boundary()))), nil
}

// multipartFields reads the fields argument of multipart_form_data: a
// list of field dicts ({name, value} or {name, bytes, filename?,
// content_type?}, as multipart_field_text/bytes make), or a dict of name
// → value whose values may be field dicts (named by their key unless they
// have a name) or bytes (a file part without a file name).
func multipartFields(v vm.Value) ([]*vm.Dict, error) {
	if l, ok := v.AsList(); ok {
		out := make([]*vm.Dict, 0, l.Len())
		for i, it := range l.Items() {
			f, ok := it.AsDict()
			if !ok {
				return nil, vm.Typef("multipart_form_data: field %d must be a dict, got %s", i, it.Type())
			}
			out = append(out, f)
		}
		return out, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("multipart_form_data: expected a list of fields, got %s", v.Type())
	}
	var out []*vm.Dict
	d.Range(func(k string, val vm.Value) bool {
		switch f, isDict := val.AsDict(); {
		case isDict:
			if n, ok := f.Get("name"); !ok || n.IsNil() {
				f = f.Set("name", vm.Str(k))
			}
			out = append(out, f)
		case lib.IsBytes(val):
			out = append(out, lib.DictOf("name", vm.Str(k), "bytes", val))
		default:
			out = append(out, lib.DictOf("name", vm.Str(k), "value", val))
		}
		return true
	})
	return out, nil
}

func OrNil(v vm.Value) vm.Value {
	if !v.IsValid() {
		return vm.Nil
	}
	return v
}

func escapeQuotes(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

func multipartParse(th *vm.Thread, a vm.Args) (vm.Value, error) {
	body, ok := lib.BytesOf(a.At(0))
	if !ok {
		return vm.Value{}, vm.Typef("multipart_parse: body must be bytes or a string, got %s", a.At(0).Type())
	}
	ct, ok := a.Str(1)
	if !ok {
		return vm.Value{}, vm.Typef("multipart_parse: content type must be a string, got %s", a.At(1).Type())
	}
	// A text without "/" is taken as the boundary itself.
	boundary := ct
	if strings.Contains(ct, "/") {
		_, params, _ := mime.ParseMediaType(ct)
		boundary = params["boundary"]
	}
	if boundary == "" {
		return vm.Value{}, vm.Throwf("multipart_parse: content type has no boundary")
	}
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	var out []vm.Value
	for {
		p, err := r.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return vm.Value{}, vm.Throwf("multipart_parse: malformed body")
		}
		data := new(bytes.Buffer)
		if _, err := data.ReadFrom(p); err != nil {
			return vm.Value{}, vm.Throwf("multipart_parse: malformed body")
		}
		b := vm.NewDictBuilder(6)
		b.Set("name", vm.Str(p.FormName()))
		if fn := p.FileName(); fn != "" {
			b.Set("filename", vm.Str(fn))
		} else {
			b.Set("filename", vm.Nil)
		}
		if c := p.Header.Get("Content-Type"); c != "" {
			b.Set("content_type", vm.Str(c))
		} else {
			b.Set("content_type", vm.Nil)
		}
		b.Set("value", vm.Str(lib.LossyUTF8(data.Bytes())))
		b.Set("bytes", vm.Of(lib.NewBytes(data.Bytes())))
		out = append(out, vm.Of(b.Build()))
	}
	return vm.Of(vm.NewList(out)), nil
}

// ---- JUnit XML ----

type junitCase struct {
	Name      string     `xml:"name,attr"`
	ClassName string     `xml:"classname,attr"`
	Time      string     `xml:"time,attr"`
	Failure   []junitMsg `xml:"failure"` // a case may report several; the first one counts
	Error     []junitMsg `xml:"error"`
	Skipped   []junitMsg `xml:"skipped"`
	SystemOut string     `xml:"system-out"`
	SystemErr string     `xml:"system-err"`
}

type junitMsg struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func parseJUnit(th *vm.Thread, a vm.Args) (vm.Value, error) {
	dec := xml.NewDecoder(strings.NewReader(a.Text(0)))
	var out []vm.Value
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				return vm.Of(vm.NewList(nil)), nil
			}
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "testcase" {
			continue
		}
		var c junitCase
		if err := dec.DecodeElement(&c, &se); err != nil {
			return vm.Of(vm.NewList(nil)), nil
		}
		status, msg := "passed", ""
		pick := func(ms []junitMsg) string {
			if ms[0].Message != "" {
				return ms[0].Message
			}
			return strings.TrimSpace(ms[0].Text)
		}
		switch {
		case len(c.Failure) > 0:
			status, msg = "failed", pick(c.Failure)
		case len(c.Error) > 0:
			status, msg = "error", pick(c.Error)
		case len(c.Skipped) > 0:
			status, msg = "skipped", pick(c.Skipped)
		}
		secs, _ := strconv.ParseFloat(c.Time, 64)
		out = append(out, vm.Of(lib.DictOf("name", vm.Str(c.Name), "status", vm.Str(status),
			"duration_ms", vm.IntOf(int64(math.Round(secs*1000))), "message", vm.Str(msg),
			"stdout", vm.Str(c.SystemOut), "stderr", vm.Str(c.SystemErr))))
	}
	return vm.Of(vm.NewList(out)), nil
}

// ParseYAML decodes the first YAML document of text into a value as
// yaml_parse does (stdlib/skills reads the front matter of skill files
// with it, yamlPlainOK a scalar read back); unlike yaml_parse it does not
// refuse text holding more documents. The error text has no prefix.
func ParseYAML(text string) (vm.Value, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return vm.Value{}, fmt.Errorf("%s", yamlErrorText(err))
	}
	return yamlDocValue(&doc)
}

// ParseTOML decodes a TOML document as toml_parse does (stdlib/skills
// reads the front matter of skill files with it). The error text has no
// prefix.
func ParseTOML(text string) (vm.Value, error) {
	m, err := decodeTOML(text)
	if err != nil {
		return vm.Value{}, err
	}
	if m == nil {
		return vm.Of(vm.NewDict()), nil
	}
	return jsonschema.FromAny(m), nil
}
