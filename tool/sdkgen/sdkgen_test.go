package sdkgen

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
)

var update = flag.Bool("update", false, "rewrite the golden packages under testdata/golden")

// readCatalog reads and prepares a catalog file.
func readCatalog(t testing.TB, path string) *tool.Prepared {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := tool.ParseCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(cat)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCatalogsCurrent: the catalog files under testdata/catalogs are
// what `harn tool schema` prints for their sources today, so the golden
// packages below follow the catalog producer.
func TestCatalogsCurrent(t *testing.T) {
	quiet := func() (io.Writer, io.Reader) { return &bytes.Buffer{}, strings.NewReader("") }
	for _, c := range []struct{ json, src, surface string }{
		{"testdata/catalogs/widget.json", "../../cmd/harn/testdata/tool_schema/widget.harn", "script"},
		{"testdata/catalogs/registry50.json", "testdata/catalogs/registry50.harn", "script"},
		{"testdata/catalogs/shop.json", "testdata/catalogs/shop.harn", "exports"},
	} {
		stderr, stdin := quiet()
		var cat *tool.Catalog
		if c.surface == "exports" {
			var err error
			if cat, err = exports.Catalog(c.src, exports.Options{Stderr: stderr, Stdin: stdin}); err != nil {
				t.Fatal(err)
			}
		} else {
			s, err := load.Load(c.src, load.Options{Stderr: stderr, Stdin: stdin})
			if err != nil {
				t.Fatal(err)
			}
			cat = s.Registry.CatalogFor(tool.AudienceCatalog)
		}
		want, err := os.ReadFile(c.json)
		if err != nil {
			t.Fatal(err)
		}
		if got := append(cat.MarshalIndent(), '\n'); !bytes.Equal(got, want) {
			if *update {
				os.WriteFile(c.json, got, 0o644)
				continue
			}
			t.Errorf("%s is stale: regenerate it with harn tool schema %s --pretty (or go test -update)", c.json, c.src)
		}
	}
}

// TestGolden pins the generated packages of two catalogs byte for byte.
func TestGolden(t *testing.T) {
	for _, name := range []string{"widget", "shop"} {
		p := readCatalog(t, "testdata/catalogs/"+name+".json")
		for _, lang := range Languages {
			t.Run(name+"/"+lang, func(t *testing.T) {
				files, err := Generate(p, lang, Options{})
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join("testdata", "golden", name, lang)
				if *update {
					os.RemoveAll(dir)
					if err := Write(dir, files); err != nil {
						t.Fatal(err)
					}
					return
				}
				want := map[string][]byte{}
				filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						rel, _ := filepath.Rel(dir, path)
						want[filepath.ToSlash(rel)], _ = os.ReadFile(path)
					}
					return nil
				})
				for _, f := range files {
					w, ok := want[f.Path]
					switch {
					case !ok:
						t.Errorf("%s: not in the golden package (go test -update)", f.Path)
					case !bytes.Equal(w, f.Data):
						t.Errorf("%s differs from the golden file (go test -update and review the diff)", f.Path)
					}
					delete(want, f.Path)
				}
				for path := range want {
					t.Errorf("%s: golden file no longer generated", path)
				}
			})
		}
	}
}

// TestDeterministic: generating twice, from catalogs read twice, gives
// the same bytes (no map order, no time, no machine in the output).
func TestDeterministic(t *testing.T) {
	for _, path := range []string{"testdata/catalogs/registry50.json", "../exports/testdata/golden/enum_payloads.json", "../exports/testdata/golden/name_collision.json"} {
		for _, lang := range Languages {
			a, err := Generate(readCatalog(t, path), lang, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Generate(readCatalog(t, path), lang, Options{})
			if len(a) != len(b) {
				t.Fatalf("%s %s: %d files, then %d", path, lang, len(a), len(b))
			}
			for i := range a {
				if a[i].Path != b[i].Path || !bytes.Equal(a[i].Data, b[i].Data) {
					t.Errorf("%s %s: %s differs between runs", path, lang, a[i].Path)
				}
			}
		}
	}
}

// TestModel checks how schemas become types: required and optional
// members, defaults, enums, anyOf with null, $ref recursion, Harn enums
// and the names of hoisted types.
func TestModel(t *testing.T) {
	m, err := Build(readCatalog(t, "testdata/catalogs/shop.json"))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]*Decl{}
	for _, d := range m.Decls {
		decls[d.Name] = d
	}
	field := func(decl, name string) *Field {
		d := decls[decl]
		if d == nil {
			t.Fatalf("no type %s", decl)
		}
		for _, f := range d.Fields {
			if f.JSON == name {
				return f
			}
		}
		t.Fatalf("%s has no field %s", decl, name)
		return nil
	}
	if f := field("Item", "note"); f.Required || !f.Type.Nullable || f.Type.Kind != String {
		t.Errorf("Item.note: %+v", f)
	}
	if f := field("Item", "tags"); !f.Required || f.Type.Kind != Array || f.Type.Elem.Kind != String {
		t.Errorf("Item.tags: %+v", f)
	}
	if f := field("Category", "children"); f.Type.Kind != Array || f.Type.Elem.Decl != decls["Category"] {
		t.Errorf("Category.children does not refer back to Category: %+v", f.Type)
	}
	if f := field("CountInput", "limit"); f.Required || !f.HasDefault || string(fieldDoc(f)[0]) != "Default: 10." {
		t.Errorf("CountInput.limit: %+v", f)
	}
	if f := field("CountInput", "kind"); f.Type.Kind != Ref || f.Type.Decl.Kind != EnumDecl || len(f.Type.Decl.Values) != 2 {
		t.Errorf("CountInput.kind is not a named enum: %+v", f.Type)
	}
	e := decls["ShopError"]
	if e == nil || e.Kind != VariantsDecl || len(e.Cases) != 3 {
		t.Fatalf("ShopError: %+v", e)
	}
	oos := e.Cases[1]
	if oos.Variant != "OutOfStock" || oos.Name != "ShopErrorOutOfStock" || len(oos.Fields) != 2 || oos.Fields[1].Label != "restock_days" || oos.Fields[1].Type.Kind != Integer {
		t.Errorf("OutOfStock: %+v", oos)
	}
	byName := map[string]*Tool{}
	for _, tl := range m.Tools {
		byName[tl.Name] = tl
	}
	get := byName["get_item"]
	if get.Error == nil || get.Error.Decl != e || get.ErrorClass != "GetItemApplicationError" || get.Wrapped {
		t.Errorf("get_item: %+v", get)
	}
	if c := byName["count"]; c.Output.Kind != Integer || !c.Wrapped {
		t.Errorf("count output: %+v", c)
	}
	if a := get.Annotations; a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
		t.Errorf("get_item annotations: %+v", a)
	}
}

// TestNames: identifiers in each language stay clear of keywords, the
// runtime's names and each other.
func TestNames(t *testing.T) {
	for _, c := range []struct{ in, pascal, camel, snake string }{
		{"lookup_widget", "LookupWidget", "lookupWidget", "lookup_widget"},
		{"harn.code.search_examples", "HarnCodeSearchExamples", "harnCodeSearchExamples", "harn_code_search_examples"},
		{"getHTTPStatus", "GetHTTPStatus", "getHTTPStatus", "get_httpstatus"},
		{"URL", "URL", "url", "url"},
		{"3d-model", "T3dModel", "t3dModel", "t_3d_model"},
		{"math::calc", "MathCalc", "mathCalc", "math_calc"},
	} {
		if got := pascal(c.in); got != c.pascal {
			t.Errorf("pascal(%q) = %q, want %q", c.in, got, c.pascal)
		}
		if got := camel(c.in); got != c.camel {
			t.Errorf("camel(%q) = %q, want %q", c.in, got, c.camel)
		}
		if got := snake(c.in); got != c.snake {
			t.Errorf("snake(%q) = %q, want %q", c.in, got, c.snake)
		}
	}
	if goPascal("widget_id") != "WidgetID" || goPackageName("example.com/my-tools") != "mytools" || goPackageName("type") != "typesdk" {
		t.Error("Go spellings")
	}
	// A component called Client and two tools whose names spell the same
	// identifier.
	cat := `{"schema_version":"harn-tools/2.0","tools":[` +
		`{"name":"a.b","inputSchema":{"type":"object","properties":{"class":{"$ref":"#/components/schemas/Client"}}},"governance":{"audiences":["mcp"]},"cli":{"command":["x"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false},` +
		`{"name":"a_b","inputSchema":{"type":"object"},"governance":{"audiences":["mcp"]},"cli":{"command":["y"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false},` +
		`{"name":"close","inputSchema":{"type":"object"},"governance":{"audiences":["mcp"]},"cli":{"command":["z"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}],` +
		`"components":{"schemas":{"Client":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`
	parsed, err := tool.ParseCatalog([]byte(cat))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(parsed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.Decls[0].Name != "ClientType" {
		t.Errorf("component Client named %q", m.Decls[0].Name)
	}
	if m.Tools[0].Ident != "AB" || m.Tools[1].Ident != "Y" {
		t.Errorf("tool identifiers %q %q", m.Tools[0].Ident, m.Tools[1].Ident)
	}
	if got := tsMethods(m); got[2] != "closeTool" {
		t.Errorf("ts methods %v", got)
	}
	if got := pyMethods(m); got[2] != "close" {
		t.Errorf("python methods %v", got)
	}
	files, err := Render(m, "python", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f.Path, "types.py") && !strings.Contains(string(f.Data), `"class": "NotRequired[ClientType]"`) {
			t.Errorf("a keyword property needs the functional TypedDict form:\n%s", f.Data)
		}
	}
	if _, err := Render(m, "rust", Options{}); err == nil || !strings.Contains(err.Error(), `unsupported --lang "rust"`) {
		t.Errorf("unknown language: %v", err)
	}
}

// TestOnlyMCPTools: a tool outside the mcp audience cannot be called
// through `harn serve mcp`, so it gets no method.
func TestOnlyMCPTools(t *testing.T) {
	cat := `{"schema_version":"harn-tools/2.0","tools":[` +
		`{"name":"open","inputSchema":{"type":"object"},"governance":{"audiences":["mcp","catalog"]},"cli":{"command":["open"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false},` +
		`{"name":"operator","inputSchema":{"type":"object"},"governance":{"audiences":["cli","catalog"]},"cli":{"command":["operator"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}]}`
	parsed, err := tool.ParseCatalog([]byte(cat))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(parsed)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p, "ts", Options{Name: "@acme/ops"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		s := string(f.Data)
		if f.Path == "src/client.ts" && (!strings.Contains(s, "async open(") || strings.Contains(s, "operator")) {
			t.Errorf("client.ts:\n%s", s)
		}
		if f.Path == "package.json" && !strings.Contains(s, `"name": "@acme/ops"`) {
			t.Errorf("package.json:\n%s", s)
		}
	}
}

// TestPercentEncodedRef: a component reference is read as the catalog
// reader and the validators read it, percent-decoding included.
func TestPercentEncodedRef(t *testing.T) {
	cat := `{"schema_version":"harn-tools/2.0","tools":[` +
		`{"name":"open","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/Big%20Box"}}},"governance":{"audiences":["mcp"]},"cli":{"command":["open"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}],` +
		`"components":{"schemas":{"Big Box":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"additionalProperties":false}}}}`
	parsed, err := tool.ParseCatalog([]byte(cat))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(parsed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Decls {
		for _, f := range d.Fields {
			if f.JSON == "a" {
				if f.Type.Kind != Ref || f.Type.Decl == nil {
					t.Errorf("field a is %+v, want a reference to the Big Box component", f.Type)
				}
				return
			}
		}
	}
	t.Fatal("no field a")
}
