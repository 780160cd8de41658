package tool

import (
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

// A closed tuple (prefixItems + items: false), the shape of an enum
// variant's fields, travels in tools/list as prefixItems + maxItems: the
// same instances under Draft 2020-12, and no longer "no items at all" for
// the Draft-07 validator of the TypeScript SDK v1 client (docs/mcp.md).
func TestClosedTupleWireSpelling(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// enum variant fields: maxItems already bounds the tuple
		{`{"type":"array","prefixItems":[{"type":"number"}],"items":false,"minItems":1,"maxItems":1}`,
			`{"type":"array","prefixItems":[{"type":"number"}],"minItems":1,"maxItems":1}`},
		// no maxItems: the prefix length becomes it
		{`{"type":"array","prefixItems":[{},{}],"items":false}`,
			`{"type":"array","prefixItems":[{},{}],"maxItems":2}`},
		// a looser maxItems is tightened to the prefix length
		{`{"prefixItems":[{}],"items":false,"maxItems":5}`, `{"prefixItems":[{}],"maxItems":1}`},
		// nested under properties, oneOf and $defs
		{`{"type":"object","properties":{"f":{"prefixItems":[{}],"items":false}},"$defs":{"S":{"oneOf":[{"prefixItems":[],"items":false,"maxItems":0}]}}}`,
			`{"type":"object","properties":{"f":{"prefixItems":[{}],"maxItems":1}},"$defs":{"S":{"oneOf":[{"prefixItems":[],"maxItems":0}]}}}`},
		// open tuples and plain arrays are left alone
		{`{"prefixItems":[{}],"items":{"type":"string"}}`, `{"prefixItems":[{}],"items":{"type":"string"}}`},
		{`{"items":false}`, `{"items":false}`},
		{`{"type":"array","items":{"type":"integer"}}`, `{"type":"array","items":{"type":"integer"}}`},
	} {
		doc, err := jsonv.Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		got := jsonv.Marshal(objectSchemas(doc))
		if string(got) != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// The error schema under _meta gets the same tuple spelling and keeps
// its boolean schemas.
func TestClosedTuplesInErrorSchema(t *testing.T) {
	doc, err := jsonv.Parse([]byte(`{"oneOf":[{"properties":{"fields":{"prefixItems":[true],"items":false,"maxItems":1}}},false]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"oneOf":[{"properties":{"fields":{"prefixItems":[true],"maxItems":1}}},false]}`
	if got := string(jsonv.Marshal(closedTuples(doc))); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
