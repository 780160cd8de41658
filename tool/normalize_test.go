package tool

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

const widgetCatalog = `{"schema_version":"harn-tools/2.0","info":{"name":"widgets","version":"1.0.0","description":"Widget integration"},"cli":{"commands":[{"command":["widgets"],"title":"Manage widgets","aliases":["w"],"hidden":false}]},"tools":[{"name":"lookup_widget","description":"Fetch one widget by numeric id.","inputSchema":{"properties":{"verbose":{"type":"boolean"},"widget_id":{"type":"integer"}},"required":["widget_id"],"type":"object"},"outputSchema":{"$ref":"#/components/schemas/Widget"},"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":true},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["widgets","get"],"aliases":["show"],"hidden":false,"arguments":{"verbose":{"short":"v","aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[],"help_group":"Display"},"widget_id":{"aliases":[],"position":0,"value_name":"WIDGET_ID","help":"Numeric widget id","boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}}},"deferLoading":false,"source":{"kind":"openapi","id":"getWidget","binding":{"method":"GET","path":"/widgets/{widget_id}"}},"policy":{"kind":"fetch","side_effect_level":"network"}}],"components":{"schemas":{"Widget":{"additionalProperties":false,"properties":{"id":{"type":"integer"},"label":{"type":"string"}},"required":["id","label"],"type":"object"}}}}`

func TestWidgetCatalog(t *testing.T) {
	r := mustNormalize(t, widgetDefs, widgetOptions)
	got := string(r.CatalogFor(AudienceCatalog).Marshal())
	if got != widgetCatalog {
		t.Errorf("catalog mismatch\n got: %s\nwant: %s", got, widgetCatalog)
	}
	// the reader accepts what the writer writes, and round-trips it
	c, err := ParseCatalog([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if again := string(c.Marshal()); again != got {
		t.Errorf("round trip changed the catalog\n got: %s", again)
	}
}

func TestEntryRules(t *testing.T) {
	cases := []struct{ defs, options, want string }{
		{`[{"description":"x"}]`, ``, `field "name" must be a non-empty string`},
		{`[{"name":""}]`, ``, `field "name" must be a non-empty string`},
		{`[{"name":"a"},{"name":"a"}]`, ``, `duplicate tool name "a"`},
		{`[{"name":"a","parameters":{},"inputSchema":{"type":"object"}}]`, ``, `declares its input schema twice ("parameters" and "inputSchema")`},
		{`[{"name":"a","input_schema":{"type":"object"},"inputSchema":{"type":"object"}}]`, ``, `("input_schema" and "inputSchema")`},
		{`[{"name":"a","parameters":{"type":"object","properties":{}}}]`, ``, `declare a complete schema under "inputSchema" instead`},
		{`[{"name":"a","inputSchema":{"type":"string"}}]`, ``, `object-root`},
		{`[{"name":"a","params":{}}]`, ``, `use 'parameters', not 'params'`},
		{`[{"name":"a","parameters":{"p":"widget"}}]`, ``, `unknown shorthand type "widget"`},
		{`[{"name":"a","parameters":{"p":{"schema":{"type":"not-a-json-schema-type"}}}}]`, ``, `input schema is invalid`},
		{`[{"name":"a","parameters":{"p":{"type":"not-a-json-schema-type"}}}]`, ``, `has unknown type "not-a-json-schema-type"`},
		{`[{"name":"a","returns":{"$schema":"http://json-schema.org/draft-07/schema#"}}]`, ``, `unsupported JSON Schema dialect`},
		{`[{"name":"a","returns":{"properties":{"f":{"x-harn-type":"closure"}}}}]`, ``, `runtime-only Harn type "closure"`},
		{`[{"name":"a","annotations":{"readOnlyHint":"yes"}}]`, ``, `must be a bool`},
		{`[{"name":"a","execution_policy":{"kind":"teleport","side_effect_level":"none"}}]`, ``, `execution_policy.kind' has unknown value "teleport"`},
		{`[{"name":"a","execution_policy":{"kind":"read","side_effect_level":"none","x":1}}]`, ``, `contains unknown key`},
		{`[{"name":"a","governance":{"audiences":[]}}]`, ``, `must be a non-empty list`},
		{`[{"name":"a","governance":{}}]`, ``, `must be a non-empty list`},
		{`[{"name":"a","governance":{"audiences":["desktop"]}}]`, ``, `unknown audience "desktop"`},
		{`[{"name":"a","governance":{"audiences":["mcp","mcp"]}}]`, ``, `duplicate audience "mcp"`},
		{`[{"name":"a","governance":{"audiences":["cli"],"authorization":"admin"}}]`, ``, `unknown key "authorization"`},
		{`[{"name":"a","cli":{"commnad":["x"]}}]`, ``, `contains unknown key "commnad"`},
		{`[{"name":"a","cli":{"command":[]}}]`, ``, `cli.command`},
		{`[{"name":"a","cli":{"command":["-inspect"]}}]`, ``, `cli.command`},
		{`[{"name":"a","cli":{"command":["inspect me"]}}]`, ``, `cli.command`},
		{`[{"name":"math::calc"}]`, ``, `CLI command must contain only non-empty portable command names`},
		{`[{"name":"a","cli":{"command":["widgets","get"]}},{"name":"b","cli":{"command":["widgets","get"]}}]`, ``, `duplicate CLI command path "widgets get"`},
		{`[{"name":"a","cli":{"command":["widgets"]}},{"name":"b","cli":{"command":["widgets","get"]}}]`, ``, `both a tool and a parent`},
		{`[{"name":"a","icons":[]}]`, ``, `must be a non-empty list`},
		{`[{"name":"a","icons":[{"url":"x"}]}]`, ``, `unknown key "url"`},
		{`[{"name":"a","icons":[{"src":"x","theme":"blue"}]}]`, ``, `unknown value "blue"`},
		{`[{"name":"a","icons":[{"src":"x"},{"src":"x"}]}]`, ``, `contains a duplicate icon`},
		{`[{"name":"a","icons":[{"src":"x","sizes":["1","1"]}]}]`, ``, `sizes`},
		{`[{"name":"a","execution":{"taskSupport":"sometimes"}}]`, ``, `has unknown value "sometimes"`},
		{`[{"name":"a","_meta":{"com.harnlang/toolContract":1}}]`, ``, `reserved for Harn-owned adapter projections`},
		{`[{"name":"a","meta":{"io.modelcontextprotocol/private":1}}]`, ``, `MCP-reserved prefix`},
		{`[{"name":"a","meta":{"com.mcp.tools/version":1}}]`, ``, `MCP-reserved prefix`},
		{`[{"name":"a","meta":{"vendor.example/version/extra":1}}]`, ``, `at most one '/' separator`},
		{`[{"name":"a","meta":{"1example.vendor/version":1}}]`, ``, `invalid reverse-DNS prefix`},
		{`[{"name":"a","meta":{"com.example/-version":1}}]`, ``, `invalid metadata name`},
		{`[{"name":"a","source":{"id":"x"}}]`, ``, `field "kind" must be a non-empty string`},
		{`[{"name":"a","source":{"kind":"x","y":1}}]`, ``, `unknown key "y"`},
		{`[]`, `{"info":{"name":"x","owner":"y"}}`, `info contains unknown key "owner"`},
		{`[]`, `{"info":{"name":"   "}}`, `info field "name" must be a non-empty string`},
		{`[{"name":"a","returns":{"$ref":"#/components/schemas/Nope"}}]`, `{"components":{"schemas":{"W":true}}}`, `dangling schema component reference`},
		{`[{"name":"a","inputSchema":{"type":"object","$defs":{"Widget":true}}}]`, `{"components":{"schemas":{"Widget":true}}}`, `conflicts with components.schemas`},
		{`[{"name":"a","defer_loading":"yes"}]`, ``, "`defer_loading` must be a bool"},
		{`[{"name":"a","executor":"teleport"}]`, ``, `unknown executor "teleport"`},
		{`[{"name":"a","executor":"host_bridge"}]`, ``, "is missing `host_capability`"},
		{`[{"name":"a","executor":"mcp_server"}]`, ``, "is missing `mcp_server`"},
		{`[{"name":"a","returns":"x"}]`, ``, `field "outputSchema" must be a JSON Schema boolean or object`},
		{`[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/none"}}}}]`, ``, `unresolved schema reference`},
	}
	for _, c := range cases {
		_, err := Normalize(registry(t, c.defs, c.options), nil)
		if err == nil {
			t.Errorf("%s %s: no error, want %q", c.defs, c.options, c.want)
			continue
		}
		if !contains(err.Error(), c.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", c.defs, c.options, err.Error(), c.want)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestEntryShapes(t *testing.T) {
	r := mustNormalize(t, `[
	  {"name":"a","parameters":{"i":"int","f":"float","b":"bool","l":"list","d":"dict","x":"any","s":{"schema":false,"description":"No value"},"r":{"type":"int","required":true,"description":"R"}}},
	  {"name":"b","input_schema":{"type":"object","zeta":1,"alpha":2},"returns":false,"error_schema":true,"output_schema":{"type":"string"}},
	  {"name":"c","annotations":{"readOnlyHint":true,"agent_lifecycle":true,"inline_result":true,"emits_artifacts":true}},
	  {"name":"d","annotations":{"kind":"execute","side_effect_level":"process_exec"}},
	  {"name":"e","annotations":{"kind":"execute","side_effect_level":"everywhere"},"policy":{"kind":"search","path_params":["path"]}},
	  {"name":"get_widget","namespace":"widgets","description":""},
	  {"name":"harn.code.search_examples","governance":{"audiences":["catalog","cli"]}},
	  {"name":"lookup","cli":{"hidden":true},"_meta":{"com.example/tool-version":"1"}}
	]`, "")
	want := []string{
		`{"name":"a","inputSchema":{"properties":{"b":{"type":"boolean"},"d":{"type":"object"},"f":{"type":"number"},"i":{"type":"integer"},"l":{"type":"array"},"r":{"description":"R","type":"integer"},"s":{"allOf":[false],"description":"No value"},"x":{}},"required":["r"],"type":"object"},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["a"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}`,
		`{"name":"b","inputSchema":{"alpha":2,"type":"object","zeta":1},"outputSchema":false,"errorSchema":true,"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["b"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}`,
		`{"name":"c","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["c"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}`,
		`{"name":"d","inputSchema":{"type":"object","properties":{}},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["d"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false,"policy":{"kind":"execute","side_effect_level":"process_exec"}}`,
		`{"name":"e","inputSchema":{"type":"object","properties":{}},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["e"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}`,
		`{"name":"get_widget","inputSchema":{"type":"object","properties":{}},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["widgets","get_widget"],"aliases":[],"hidden":false,"arguments":{}},"namespace":"widgets","deferLoading":false}`,
		`{"name":"harn.code.search_examples","inputSchema":{"type":"object","properties":{}},"governance":{"audiences":["cli","catalog"]},"cli":{"command":["harn","code","search_examples"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}`,
		`{"name":"lookup","inputSchema":{"type":"object","properties":{}},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["lookup"],"aliases":[],"hidden":true,"arguments":{}},"deferLoading":false,"_meta":{"com.example/tool-version":"1"}}`,
	}
	c := r.Catalog
	c.Marshal()
	for i, e := range c.Tools {
		got := string(jsonv.Marshal(mustParse(t, e)))
		if got != want[i] {
			t.Errorf("tool %d\n got %s\nwant %s", i, got, want[i])
		}
	}
}

func mustParse(t *testing.T, e *Entry) any {
	cat := &Catalog{Tools: []*Entry{e}}
	v, err := jsonv.Parse(cat.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := v.(*jsonv.Object).Get("tools")
	return tools.([]any)[0]
}

// TestMisspeltDefinitionKeys: a key close to a definition key warns with
// a suggestion; other extra keys are kept silently (docs/spec/registry.md §2).
func TestMisspeltDefinitionKeys(t *testing.T) {
	r := mustNormalize(t, `[{"name":"a","errors":{"type":"object"},"descripton":"x","guidance":"keep","returns":true},{"name":"b","input":{"type":"object"}}]`, ``)
	got := strings.Join(r.Warnings(), "\n")
	want := "tool \"a\" has unknown key `descripton` — did you mean `description`?\n" +
		"tool \"a\" has unknown key `errors` — did you mean `error_schema`?\n" +
		"tool \"b\" has unknown key `input` — did you mean `input_schema`?"
	if got != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, want)
	}
}
