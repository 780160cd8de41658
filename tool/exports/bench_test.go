package exports

import (
	"testing"

	"github.com/harnlang/harn/tool/tooltest"
)

// BenchmarkCatalogLarge is `harn tool schema --surface exports` in
// process on the generated 1,000-function, 200-struct module: read,
// parse, resolve, check and compile the module, derive the catalog and
// encode it.
func BenchmarkCatalogLarge(b *testing.B) {
	path, err := tooltest.WriteLargeModule(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cat, err := Catalog(path, quiet())
		if err != nil {
			b.Fatal(err)
		}
		if len(cat.Tools) != tooltest.LargeFunctions || cat.Components.Schemas.Len() != tooltest.LargeStructs {
			b.Fatalf("%d tools, %d components", len(cat.Tools), cat.Components.Schemas.Len())
		}
		_ = cat.Marshal()
	}
}

func TestLargeModuleCatalog(t *testing.T) {
	path, err := tooltest.WriteLargeModule(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Catalog(path, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != tooltest.LargeFunctions || cat.Components.Schemas.Len() != tooltest.LargeStructs {
		t.Fatalf("%d tools, %d components", len(cat.Tools), cat.Components.Schemas.Len())
	}
	checkValid(t, tooltest.ArtifactSchema(t), cat)
}
