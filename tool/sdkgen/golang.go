package sdkgen

import (
	"fmt"
	"go/format"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// The Go module: go.mod and go.sum (the official Go SDK and its
// dependencies, pinned), types.go (one declaration per named type),
// client.go (one method per tool, one error type per declared error)
// and runtime.go. Every file goes through go/format, so the layout is
// gofmt's.

// goInitialisms are the words Go spells in capitals.
var goInitialisms = map[string]bool{
	"id": true, "url": true, "uri": true, "http": true, "https": true, "json": true, "api": true,
	"html": true, "ip": true, "sql": true, "uuid": true, "ttl": true, "ui": true, "cpu": true,
	"tls": true, "xml": true, "ascii": true, "utf8": true, "eof": true, "os": true,
}

// goRuntimeNames are the exported names runtime.go declares.
var goRuntimeNames = []string{"Client", "ToolError", "ValidationError", "Options", "StdioOptions", "HTTPOptions", "NewClient", "Connect", "ConnectStdio", "ConnectHTTP"}

// goPascal spells a JSON name as an exported Go identifier.
func goPascal(s string) string {
	var sb strings.Builder
	for _, w := range words(s) {
		if goInitialisms[strings.ToLower(w)] {
			sb.WriteString(strings.ToUpper(w))
		} else {
			sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	out := sb.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "F" + out
	}
	return out
}

// goPackageName is the package clause for a module path: its last
// element, lower case letters and digits only.
func goPackageName(path string) string {
	last := path[strings.LastIndex(path, "/")+1:]
	var sb strings.Builder
	for _, r := range strings.ToLower(last) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			sb.WriteRune(r)
		}
	}
	name := sb.String()
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "tools" + name
	}
	if token.IsKeyword(name) {
		name += "sdk"
	}
	return name
}

type goGen struct {
	m     *Model
	pkg   string
	names map[string]bool // package-level identifiers
}

func (g *goGen) unique(name string) string {
	if !g.names[name] {
		g.names[name] = true
		return name
	}
	for i := 2; ; i++ {
		c := name + strconv.Itoa(i)
		if !g.names[c] {
			g.names[c] = true
			return c
		}
	}
}

func renderGo(m *Model, path string) ([]File, error) {
	if path == "" {
		path = defaultName(m)
	}
	g := &goGen{m: m, pkg: goPackageName(path), names: map[string]bool{}}
	for _, n := range goRuntimeNames {
		g.names[n] = true
	}
	for _, d := range m.Decls {
		g.names[d.Name] = true
		for _, c := range d.Cases {
			g.names[c.Name] = true
		}
	}
	for _, t := range m.Tools {
		if t.ErrorClass != "" {
			g.names[t.ErrorClass] = true
		}
	}
	files := []File{
		{"go.mod", []byte(fmt.Sprintf(goModTemplate, path))},
		{"go.sum", []byte(goSum)},
	}
	for _, f := range []struct {
		name string
		src  []byte
	}{
		{"types.go", g.types()},
		{"client.go", g.client()},
		{"runtime.go", []byte(strings.Replace(runtimeFile("runtime.go.tmpl"), "package PACKAGE", "package "+g.pkg, 1))},
	} {
		src, err := format.Source(f.src)
		if err != nil {
			return nil, fmt.Errorf("generated %s does not parse: %v", f.name, err)
		}
		files = append(files, File{f.name, src})
	}
	return files, nil
}

func goDoc(w *writer, indent string, lines []string) {
	for _, l := range lines {
		if l == "" {
			w.line("%s//", indent)
		} else {
			w.line("%s// %s", indent, l)
		}
	}
}

// nilable reports whether a Go rendering of t already has nil.
func (g *goGen) nilable(t *Type) bool {
	switch t.Kind {
	case Any, Never, Null, Array, Tuple, Map, Union:
		return true
	case Literal:
		return g.base(t) == "any"
	case Ref:
		if t.Decl.Kind == AliasDecl {
			return g.nilable(t.Decl.Alias)
		}
	}
	return false
}

// typ renders a type; a nullable one becomes a pointer unless it is
// nilable already.
func (g *goGen) typ(t *Type) string {
	if t.Nullable && !g.nilable(t) {
		return "*" + g.base(t)
	}
	return g.base(t)
}

func (g *goGen) base(t *Type) string {
	switch t.Kind {
	case String:
		return "string"
	case Integer:
		return "int64"
	case Number:
		return "float64"
	case Boolean:
		return "bool"
	case Array:
		return "[]" + g.typ(t.Elem)
	case Tuple:
		return "[]any"
	case Map:
		return "map[string]" + g.typ(t.Elem)
	case Ref:
		return t.Decl.Name
	case Literal:
		kind := ""
		for _, v := range t.Values {
			k := "any"
			switch x := v.(type) {
			case string:
				k = "string"
			case bool:
				k = "bool"
			default:
				k = "float64"
				if _, err := strconv.ParseInt(fmt.Sprint(x), 10, 64); err == nil {
					k = "int64"
				}
			}
			if kind != "" && kind != k {
				return "any"
			}
			kind = k
		}
		return kind
	case Union:
		return "json.RawMessage"
	}
	return "any"
}

// fieldType is a struct field's type and whether its tag says omitempty.
func (g *goGen) fieldType(t *Type, required bool) (string, bool) {
	if g.nilable(t) {
		return g.base(t), !required
	}
	if t.Nullable || !required {
		return "*" + g.base(t), !required
	}
	return g.base(t), false
}

func (g *goGen) types() []byte {
	var w writer
	w.line("// Code generated by harn tool sdk from the %q catalog. DO NOT EDIT.", g.m.Name)
	w.blank()
	w.line("package %s", g.pkg)
	var body writer
	for _, d := range g.m.Decls {
		body.blank()
		g.decl(&body, d)
	}
	src := body.sb.String()
	if imports := goImports(src, "encoding/json", "fmt"); imports != "" {
		w.blank()
		w.sb.WriteString(imports)
	}
	w.sb.WriteString(src)
	return w.bytes()
}

// goImports is the import block of the packages (import paths, in
// order) that src uses, as `name.` in it shows; "" when it uses none.
func goImports(src string, paths ...string) string {
	var w writer
	for _, p := range paths {
		if strings.Contains(src, path.Base(p)+".") {
			w.line("\t%s", strconv.Quote(p))
		}
	}
	if w.sb.Len() == 0 {
		return ""
	}
	return "import (\n" + w.sb.String() + ")\n"
}

func (g *goGen) decl(w *writer, d *Decl) {
	switch d.Kind {
	case ObjectDecl:
		goDoc(w, "", docSplit(d.Doc))
		w.line("type %s struct {", d.Name)
		taken := map[string]bool{}
		for _, f := range d.Fields {
			name := goPascal(f.JSON)
			for taken[name] {
				name += "_"
			}
			taken[name] = true
			typ, omit := g.fieldType(f.Type, f.Required)
			tag := f.JSON
			if omit {
				tag += ",omitempty"
			}
			goDoc(w, "\t", fieldDoc(f))
			w.line("\t%s %s `json:%s`", name, typ, strconv.Quote(tag))
		}
		w.line("}")
	case EnumDecl:
		goDoc(w, "", docSplit(d.Doc))
		base := "string"
		if d.EnumBase == Integer {
			base = "int64"
		}
		w.line("type %s %s", d.Name, base)
		w.blank()
		w.line("// The values of %s.", d.Name)
		w.line("const (")
		for _, v := range d.Values {
			lit := fmt.Sprint(v)
			if s, ok := v.(string); ok {
				lit = strconv.Quote(s)
			}
			suffix := goPascal(fmt.Sprint(v))
			if len(words(fmt.Sprint(v))) == 0 {
				suffix = "Empty"
			}
			w.line("\t%s %s = %s", g.unique(d.Name+suffix), d.Name, lit)
		}
		w.line(")")
	case VariantsDecl:
		g.variants(w, d)
	case AliasDecl:
		goDoc(w, "", docSplit(d.Doc))
		w.line("type %s %s", d.Name, g.typ(d.Alias))
	}
}

func (g *goGen) variants(w *writer, d *Decl) {
	doc := docSplit(d.Doc)
	if len(doc) > 0 {
		doc = append(doc, "")
	}
	doc = append(doc, d.Name+" is the Harn enum "+d.HarnEnum+": exactly one of its fields is set,", "the variant the value holds (VariantName names it).")
	goDoc(w, "", doc)
	w.line("type %s struct {", d.Name)
	fieldNames := make([]string, len(d.Cases))
	taken := map[string]bool{"VariantName": true, "MarshalJSON": true, "UnmarshalJSON": true}
	for i, c := range d.Cases {
		n := goPascal(c.Variant)
		for taken[n] {
			n += "Variant"
		}
		taken[n] = true
		fieldNames[i] = n
		w.line("\t%s *%s", n, c.Name)
	}
	w.line("}")
	caseFields := make([][]string, len(d.Cases))
	for i, c := range d.Cases {
		w.blank()
		w.line("// %s is the variant %s.%s.", c.Name, d.HarnEnum, c.Variant)
		w.line("type %s struct {", c.Name)
		taken := map[string]bool{}
		for _, f := range c.Fields {
			n := goPascal(f.Label)
			for taken[n] {
				n += "_"
			}
			taken[n] = true
			caseFields[i] = append(caseFields[i], n)
			w.line("\t%s %s", n, g.typ(f.Type))
		}
		w.line("}")
	}
	w.blank()
	w.line("// VariantName names the variant v holds (\"\" when none is set).")
	w.line("func (v %s) VariantName() string {", d.Name)
	w.line("\tswitch {")
	for i, c := range d.Cases {
		w.line("\tcase v.%s != nil:", fieldNames[i])
		w.line("\t\treturn %s", strconv.Quote(c.Variant))
	}
	w.line("\t}")
	w.line("\treturn \"\"")
	w.line("}")
	w.blank()
	w.line("// MarshalJSON encodes the variant as {\"enum\", \"variant\", \"fields\"}.")
	w.line("func (v %s) MarshalJSON() ([]byte, error) {", d.Name)
	w.line("\tswitch {")
	for i, c := range d.Cases {
		w.line("\tcase v.%s != nil:", fieldNames[i])
		args := []string{strconv.Quote(d.HarnEnum), strconv.Quote(c.Variant)}
		for _, f := range caseFields[i] {
			args = append(args, "v."+fieldNames[i]+"."+f)
		}
		w.line("\t\treturn marshalVariant(%s)", strings.Join(args, ", "))
	}
	w.line("\t}")
	w.line("\treturn nil, fmt.Errorf(\"%s: no variant is set\")", d.Name)
	w.line("}")
	w.blank()
	w.line("// UnmarshalJSON decodes {\"enum\", \"variant\", \"fields\"}.")
	w.line("func (v *%s) UnmarshalJSON(b []byte) error {", d.Name)
	w.line("\tvariant, fields, err := unmarshalVariant(b, %s)", strconv.Quote(d.HarnEnum))
	w.line("\tif err != nil {")
	w.line("\t\treturn err")
	w.line("\t}")
	w.line("\t*v = %s{}", d.Name)
	w.line("\tswitch variant {")
	for i, c := range d.Cases {
		w.line("\tcase %s:", strconv.Quote(c.Variant))
		w.line("\t\tc := &%s{}", c.Name)
		var dst []string
		for _, f := range caseFields[i] {
			dst = append(dst, "&c."+f)
		}
		w.line("\t\tif err := unmarshalFields(%s); err != nil {", strings.Join(append([]string{"fields"}, dst...), ", "))
		w.line("\t\t\treturn fmt.Errorf(\"%s.%s: %%w\", err)", d.HarnEnum, c.Variant)
		w.line("\t\t}")
		w.line("\t\tv.%s = c", fieldNames[i])
	}
	w.line("\tdefault:")
	w.line("\t\treturn fmt.Errorf(\"%s has no variant %%q\", variant)", d.HarnEnum)
	w.line("\t}")
	w.line("\treturn nil")
	w.line("}")
}

// goString is a Go string literal: raw when it can be.
func goString(s string) string {
	if !strings.ContainsAny(s, "`\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func (g *goGen) client() []byte {
	m := g.m
	var header writer
	header.line("// Code generated by harn tool sdk from the %q catalog. DO NOT EDIT.", m.Name)
	header.blank()
	doc := []string{"Package " + g.pkg + " is a typed client for the tools of the " + strconv.Quote(m.Name) + " catalog,", "generated by harn tool sdk. Each method calls one tool through MCP."}
	if m.Description != "" {
		doc = append(doc, "", m.Description)
	}
	goDoc(&header, "", doc)
	header.line("package %s", g.pkg)
	header.blank()
	var w writer
	w.blank()
	w.line("// The catalog the client was generated from; the default client identity.")
	w.line("const (")
	w.line("\tcatalogName    = %s", strconv.Quote(m.Name))
	w.line("\tcatalogVersion = %s", strconv.Quote(m.version()))
	w.line(")")
	methods := map[string]bool{"Close": true, "Session": true}
	for _, t := range m.Tools {
		if t.Error != nil {
			w.blank()
			w.line("// %s is the declared application error of the tool %q.", t.ErrorClass, t.Name)
			w.line("type %s struct {", t.ErrorClass)
			w.line("\tTool string")
			w.line("\t// Data is the error value the tool threw.")
			w.line("\tData %s", g.typ(t.Error))
			w.line("\t// Message is the server's summary.")
			w.line("\tMessage string")
			w.line("}")
			w.blank()
			w.line("func (e *%s) Error() string { return e.Message }", t.ErrorClass)
		}
		spec := g.unique("spec" + t.Ident)
		w.blank()
		w.line("var %s = &toolSpec{", spec)
		w.line("\tname:    %s,", strconv.Quote(t.Name))
		w.line("\tinput:   %s,", goString(t.InputSchema))
		w.line("\twrapped: %t,", t.Wrapped)
		w.line("\ttext:    %t,", t.Output == nil)
		if t.Error != nil {
			w.line("\tappError: func(data json.RawMessage, text string) error {")
			w.line("\t\te := &%s{Tool: %s, Message: text}", t.ErrorClass, strconv.Quote(t.Name))
			w.line("\t\tif err := json.Unmarshal(data, &e.Data); err != nil {")
			w.line("\t\t\treturn &ToolError{Tool: %s, Message: text}", strconv.Quote(t.Name))
			w.line("\t\t}")
			w.line("\t\treturn e")
			w.line("\t},")
		}
		w.line("}")
		method := t.Ident
		for methods[method] {
			method += "Tool"
		}
		methods[method] = true
		out := "string"
		if t.Output != nil {
			out = g.typ(t.Output)
		}
		w.blank()
		lines := append([]string{method + " calls the tool " + strconv.Quote(t.Name) + ".", ""}, t.docLines()...)
		lines = append(lines, "")
		if t.Error != nil {
			lines = append(lines, "A declared application error is a *"+t.ErrorClass+";", "arguments that do not match the input schema are a *ValidationError")
		} else {
			lines = append(lines, "Arguments that do not match the input schema are a *ValidationError")
		}
		lines = append(lines, "(nothing is sent); other failures are a *ToolError.")
		goDoc(&w, "", lines)
		w.line("func (c *Client) %s(ctx context.Context, in %s) (%s, error) {", method, t.Input.Name, out)
		w.line("\tvar out %s", out)
		w.line("\terr := c.call(ctx, %s, in, &out)", spec)
		w.line("\treturn out, err")
		w.line("}")
	}
	body := w.sb.String()
	header.sb.WriteString(goImports(body, "context", "encoding/json"))
	header.sb.WriteString(body)
	return header.bytes()
}
