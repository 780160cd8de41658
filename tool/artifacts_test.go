package tool

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harnlang/harn/internal/jsonv"
)

// TestProtocolArtifactsUpToDate is the drift check: the checked-in
// artifacts must equal what the catalog types generate.
func TestProtocolArtifactsUpToDate(t *testing.T) {
	for _, f := range []struct {
		path string
		want []byte
	}{
		{ArtifactPaths.Schema, JSONSchemaArtifact()},
		{ArtifactPaths.TypeScript, TypeScriptArtifact()},
		{ArtifactPaths.Manifest, ManifestArtifact()},
	} {
		got, err := os.ReadFile(filepath.Join("..", f.path))
		if err != nil {
			t.Fatalf("%s: %v (run `go generate ./tool`)", f.path, err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s drifted from the catalog types; run `go generate ./tool`", f.path)
		}
	}
}

// artifactSchema compiles the generated JSON Schema artifact with an
// independent Draft 2020-12 implementation; it is tooltest.ArtifactSchema,
// which this package's tests cannot import.
func artifactSchema(t testing.TB) *js.Schema {
	t.Helper()
	doc, err := js.UnmarshalJSON(bytes.NewReader(JSONSchemaArtifact()))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestArtifactSchemaValidatesCatalogs(t *testing.T) {
	s := artifactSchema(t)
	check := func(text string) error {
		v, err := js.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return s.Validate(v)
	}
	if err := check(widgetCatalog); err != nil {
		t.Errorf("widget catalog rejected: %v", err)
	}
	withExtra := strings.Replace(widgetCatalog, `{"schema_version"`, `{"extra":1,"schema_version"`, 1)
	if check(withExtra) == nil {
		t.Error("unknown top-level key accepted")
	}
	if check(strings.Replace(widgetCatalog, `"harn-tools/2.0"`, `"harn-tools/1.0"`, 1)) == nil {
		t.Error("version 1 accepted")
	}
	if check(strings.Replace(widgetCatalog, `"boolean_style":"value"`, `"boolean_style":"loud"`, 1)) == nil {
		t.Error("unknown enum value accepted")
	}
	// embedded schemas stay open
	if err := check(strings.Replace(widgetCatalog, `"outputSchema":{`, `"outputSchema":{"x-vendor":1,`, 1)); err != nil {
		t.Errorf("open schema rejected: %v", err)
	}
}

func TestParseCatalog(t *testing.T) {
	cases := []struct{ text, want string }{
		{`{"schema_version":"harn-tools/1.0","tools":[]}`, `unsupported tool catalog schema_version "harn-tools/1.0"`},
		{`{"schema_version":"harn-tools/2.0","tools":[],"x":1}`, `contains unknown key "x"`},
		{`{"tools":[]}`, `missing schema_version`},
		{strings.Replace(widgetCatalog, `"deferLoading":false,`, ``, 1), `is missing required field "deferLoading"`},
		{strings.Replace(widgetCatalog, `"audiences":["cli",`, `"audiences":["shell",`, 1), `has unknown value "shell"`},
		{strings.Replace(widgetCatalog, `"Widget":{`, `"Gadget":{`, 1), `dangling schema component reference`},
		{strings.Replace(widgetCatalog, `"type":"object"},"outputSchema"`, `"type":"string"},"outputSchema"`, 1), `tools[0].inputSchema must explicitly declare an object root with type: object`},
		{strings.Replace(widgetCatalog, `"tools":[{"name":"lookup_widget"`, `"tools":[{"name":"x","inputSchema":{"type":"object"},"governance":{"audiences":["cli"]},"cli":{"command":["widgets","get"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false},{"name":"lookup_widget"`, 1), `duplicate CLI command path "widgets get"`},
		{strings.Replace(widgetCatalog, `"tools":[{"name":"lookup_widget"`, `"tools":[{"name":"lookup_widget","inputSchema":{"type":"object"},"governance":{"audiences":["mcp"]},"cli":{"command":["x"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false},{"name":"lookup_widget"`, 1), `duplicate tool name "lookup_widget"`},
		{strings.Replace(widgetCatalog, `"additionalProperties":false,"properties":{"id"`, `"additionalProperties":7,"properties":{"id"`, 1), `is not a valid Draft 2020-12 JSON Schema`},
		{strings.Replace(widgetCatalog, `"policy":{`, `"_meta":{"com.harnlang/toolContract":{}},"policy":{`, 1), `reserved for Harn-owned adapter projections`},
	}
	for _, c := range cases {
		_, err := ParseCatalog([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	// pretty and compact forms read back identically
	cat, err := ParseCatalog([]byte(widgetCatalog))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := jsonv.Parse(cat.MarshalIndent()); err != nil || string(jsonv.Marshal(v)) != widgetCatalog {
		t.Errorf("pretty form differs: %v", err)
	}
}

// TestTSPropertyName: a property name that is not a TypeScript
// identifier is quoted, including one that starts with a digit and the
// empty name, which stay invalid TypeScript when written bare.
func TestTSPropertyName(t *testing.T) {
	for in, want := range map[string]string{
		"name": "name", "_x": "_x", "$ref": "$ref", "a1": "a1",
		"1a": `"1a"`, "": `""`, "with-dash": `"with-dash"`, "a b": `"a b"`, "é": `"é"`,
	} {
		if got := TSPropertyName(in); got != want {
			t.Errorf("TSPropertyName(%q) = %s, want %s", in, got, want)
		}
	}
}
