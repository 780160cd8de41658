// Package tooltest holds the test helpers shared by the packages that
// produce and serve tool catalogs (tool/exports, cmd/harn): the
// independent check that a catalog is a valid harn-tools/2.0 document,
// and the large generated module of the exports benchmarks. (Package
// tool's own tests cannot import it and compile the artifact themselves.)
package tooltest

import (
	"bytes"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harnlang/harn/tool"
)

// ArtifactSchema compiles the harn-tools/2.0 JSON Schema artifact with
// an independent Draft 2020-12 implementation. It compiles the generated
// artifact, which package tool's drift test keeps equal to the
// checked-in file.
func ArtifactSchema(tb testing.TB) *js.Schema {
	tb.Helper()
	doc, err := js.UnmarshalJSON(bytes.NewReader(tool.JSONSchemaArtifact()))
	if err != nil {
		tb.Fatal(err)
	}
	c := js.NewCompiler()
	if err := c.AddResource(tool.SchemaID, doc); err != nil {
		tb.Fatal(err)
	}
	s, err := c.Compile(tool.SchemaID)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// CheckCatalog holds a compact catalog to the rules of every catalog: it
// validates against the artifact and reads back unchanged through the
// ToolCatalog reader. It returns the catalog read back.
func CheckCatalog(tb testing.TB, artifact *js.Schema, compact []byte) *tool.Catalog {
	tb.Helper()
	doc, err := js.UnmarshalJSON(bytes.NewReader(compact))
	if err != nil {
		tb.Fatal(err)
	}
	if err := artifact.Validate(doc); err != nil {
		tb.Errorf("catalog does not validate against %s: %v", tool.ArtifactPaths.Schema, err)
	}
	back, err := tool.ParseCatalog(compact)
	if err != nil {
		tb.Fatalf("ToolCatalog reader rejects the catalog: %v", err)
	}
	if !bytes.Equal(back.Marshal(), compact) {
		tb.Error("reader round trip changed the catalog")
	}
	return back
}
