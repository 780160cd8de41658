package schema

import (
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harnlang/harn/internal/jsonv"
)

func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// differential cases: every schema is checked against santhosh-tekuri's
// Draft 2020-12 implementation on every instance.
var diffCases = []struct {
	schema    string
	instances []string
}{
	{`{"type":"object","properties":{"a":{"type":"integer","minimum":0}},"required":["a"],"additionalProperties":false}`,
		[]string{`{}`, `{"a":1}`, `{"a":-1}`, `{"a":1.0}`, `{"a":1.5}`, `{"a":1,"b":2}`, `[]`, `"x"`}},
	{`{"type":["string","null"],"minLength":2,"maxLength":3,"pattern":"^a"}`,
		[]string{`null`, `"a"`, `"ab"`, `"abcd"`, `"ba"`, `1`, `"añb"`}},
	{`{"enum":[1,"a",{"x":[1,2]}],"const":null}`, []string{`1`, `1.0`, `"a"`, `{"x":[1,2]}`, `null`}},
	{`{"enum":[1,"a",{"x":[1,2]}]}`, []string{`1`, `1.0`, `"a"`, `{"x":[1,2.0]}`, `null`}},
	{`{"multipleOf":0.1,"exclusiveMaximum":1,"exclusiveMinimum":0}`, []string{`0.3`, `0.35`, `1`, `0`, `0.9`}},
	{`{"anyOf":[{"type":"string"},{"type":"integer"}],"not":{"const":3}}`, []string{`"x"`, `3`, `4`, `true`}},
	{`{"oneOf":[{"minimum":2},{"maximum":5}]}`, []string{`1`, `3`, `6`}},
	{`{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`,
		[]string{`{"k":"a"}`, `{"k":"a","a":1}`, `{"k":"b"}`, `{"b":1}`}},
	{`{"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`, []string{`[1]`, `[1,"a"]`, `[1,"a",3]`, `["a"]`}},
	{`{"contains":{"type":"integer"},"minContains":2,"maxContains":3,"uniqueItems":true}`,
		[]string{`[1]`, `[1,2]`, `[1,2,3,4]`, `[1,1]`, `["a",1,2]`}},
	{`{"properties":{"a":true},"allOf":[{"properties":{"b":true}}],"unevaluatedProperties":false}`,
		[]string{`{"a":1,"b":2}`, `{"a":1,"c":3}`, `{}`}},
	{`{"anyOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":true}}],"unevaluatedProperties":false}`,
		[]string{`{"a":1}`, `{"a":"x"}`, `{"a":"x","b":1}`, `{"b":1}`}},
	{`{"prefixItems":[true],"contains":{"type":"string"},"unevaluatedItems":false}`,
		[]string{`[1]`, `[1,"a"]`, `[1,2]`, `[1,"a","b"]`}},
	{`{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"},"v":{"type":"integer"}}}},"$ref":"#/$defs/node"}`,
		[]string{`{"v":1,"next":{"v":2}}`, `{"v":1,"next":{"v":"x"}}`}},
	{`{"$id":"https://example.com/root","$defs":{"a":{"$id":"a.json","$anchor":"it","type":"string"}},"properties":{"x":{"$ref":"a.json"},"y":{"$ref":"a.json#it"}}}`,
		[]string{`{"x":"s","y":"t"}`, `{"x":1}`, `{"y":1}`}},
	{`{"propertyNames":{"maxLength":2},"minProperties":1,"maxProperties":2,"dependentRequired":{"a":["b"]},"dependentSchemas":{"b":{"required":["c"]}}}`,
		[]string{`{}`, `{"abc":1}`, `{"a":1}`, `{"a":1,"b":1}`, `{"b":1,"c":1}`}},
	{`{"patternProperties":{"^x":{"type":"integer"}},"additionalProperties":{"type":"string"}}`,
		[]string{`{"x1":1,"y":"s"}`, `{"x1":"s"}`, `{"y":1}`}},
	{`{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
		[]string{`{"children":[{"data":1}]}`, `{"children":[1]}`}},
	{`{"$id":"https://example.com/strict","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`,
		[]string{`{"children":[{"data":1}]}`, `{"children":[{"daat":1}]}`}},
	{`false`, []string{`1`}},
	{`true`, []string{`1`}},
	{`{"items":{"type":"number"},"minItems":1,"maxItems":2}`, []string{`[]`, `[1]`, `[1,"a"]`, `[1,2,3]`}},
}

func TestDifferential(t *testing.T) {
	for i, tc := range diffCases {
		sdoc := parse(t, tc.schema)
		c := NewCompiler(nil)
		mine, err := c.Compile(sdoc)
		if err != nil {
			t.Fatalf("case %d: compile: %v", i, err)
		}
		ref := js.NewCompiler()
		ref.DefaultDraft(js.Draft2020)
		if err := ref.AddResource("mem://case.json", jsonv.Plain(sdoc)); err != nil {
			t.Fatal(err)
		}
		oracle, err := ref.Compile("mem://case.json")
		if err != nil {
			t.Fatalf("case %d: oracle compile: %v", i, err)
		}
		for _, inst := range tc.instances {
			x := parse(t, inst)
			want := oracle.Validate(jsonv.Plain(x)) == nil
			got := mine.Valid(x)
			if got != want {
				t.Errorf("case %d %s on %s: got valid=%v, oracle says %v (%v)", i, tc.schema, inst, got, want, mine.Validate(x))
			}
			if (mine.Validate(x) == nil) != got {
				t.Errorf("case %d on %s: Validate and Valid disagree", i, inst)
			}
		}
	}
}

func TestComponents(t *testing.T) {
	comps := parse(t, `{"Widget":{"type":"object","properties":{"id":{"type":"integer"},"next":{"$ref":"#"},"m":{"$ref":"#/components/schemas/Meta"}},"required":["id"]},"Meta":{"type":"string"},"My Thing":{"type":"boolean"}}`).(*jsonv.Object)
	c := NewCompiler(comps)
	s, err := c.Compile(parse(t, `{"$ref":"#/components/schemas/Widget"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate(parse(t, `{"id":1,"next":{"id":2,"m":"x"}}`)) != nil {
		t.Error("valid widget rejected")
	}
	got := Summary(s.Validate(parse(t, `{"next":{"id":"x","m":1}}`)))
	want := `/ failed required ("id" is required); /*/* failed type`
	if got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	s2, err := c.Compile(parse(t, `{"type":"object","properties":{"t":{"$ref":"#/components/schemas/My%20Thing"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s2.Valid(parse(t, `{"t":1}`)) {
		t.Error("percent-encoded component ref not followed")
	}
	for _, bad := range []string{
		`{"$ref":"#/components/schemas/Nope"}`,
		`{"$ref":"https://example.com/x.json"}`,
		`{"$ref":"#/definitions/none"}`,
		`{"pattern":"(?=x)"}`,
	} {
		if _, err := c.Compile(parse(t, bad)); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
	if _, err := c.Compile(parse(t, `{"$ref":"#/components/schemas/Nope"}`)); err == nil || !strings.Contains(err.Error(), "dangling") {
		t.Errorf("dangling message: %v", err)
	}
}

func TestFailurePaths(t *testing.T) {
	s, err := NewCompiler(nil).Compile(parse(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"n":{"enum":[1]}},"required":["a","b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := Summary(s.Validate(parse(t, `{"tags":["x",2],"n":2}`)))
	want := `/ failed required ("a" is required); / failed required ("b" is required); /* failed enum; /*/[] failed type`
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
