package tool

import (
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

// FuzzNormalize feeds arbitrary JSON tool definitions through the
// registry normaliser, preparation and the catalog reader: each stage
// either accepts or returns an error, never panics (issue 17 fuzzing).
func FuzzNormalize(f *testing.F) {
	f.Add(widgetDefs)
	f.Add(`[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"#"}}}}]`)
	f.Add(`[{"name":"t","parameters":{"n":{"schema":{"type":"integer","minimum":1e400}}},"cli":{"args":{"n":{"short":"n"}}}}]`)
	f.Add(`[{"name":"t","returns":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/x"}],"$defs":{"x":true}}}]`)
	f.Fuzz(func(t *testing.T, defs string) {
		x, err := jsonv.Parse([]byte(defs))
		if err != nil {
			return
		}
		l, ok := FromJSON(x).AsList()
		if !ok {
			return
		}
		items := make([]vm.Value, l.Len())
		for i, d := range l.Items() {
			if dict, ok := d.AsDict(); ok {
				d = withHandler(vm.Of(dict))
			}
			items[i] = d
		}
		b := vm.NewDictBuilder(2)
		b.Set("_type", vm.Str(RegistryType))
		b.Set("tools", vm.Of(vm.NewList(items)))
		reg, err := Normalize(vm.Of(b.Build()), nil)
		if err != nil {
			return
		}
		p, err := Prepare(reg)
		if err != nil {
			return
		}
		data := p.Catalog().Marshal()
		if _, err := ParseCatalog(data); err != nil {
			t.Fatalf("the catalog of a prepared registry does not read back: %v\n%s", err, data)
		}
		for _, pt := range p.Tools(AudienceMCP) {
			pt.ValidateInput(x)
		}
	})
}

// FuzzParseCatalog reads arbitrary bytes as a catalog document.
func FuzzParseCatalog(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":"1","tools":[]}`))
	f.Add([]byte(`{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseCatalog(data)
	})
}
