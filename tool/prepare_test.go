package tool

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

func mustPrepare(t *testing.T, defs, options string) *Prepared {
	t.Helper()
	p, err := Prepare(mustNormalize(t, defs, options))
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return p
}

func TestWidgetMCPDocument(t *testing.T) {
	p := mustPrepare(t, widgetDefs, widgetOptions)
	docs := p.MCPTools(MCPReleased)
	if len(docs) != 1 {
		t.Fatalf("%d MCP tools", len(docs))
	}
	got := string(jsonv.Marshal(docs[0]))
	want := `{"name":"lookup_widget","title":"lookup_widget","description":"Fetch one widget by numeric id.","inputSchema":{"properties":{"verbose":{"type":"boolean"},"widget_id":{"type":"integer"}},"required":["widget_id"],"type":"object"},"outputSchema":{"$ref":"#/$defs/Widget","$defs":{"Widget":{"additionalProperties":false,"properties":{"id":{"type":"integer"},"label":{"type":"string"}},"required":["id","label"],"type":"object"}}},"annotations":{"title":"lookup_widget","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":true}}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestOutputWrapping(t *testing.T) {
	p := mustPrepare(t, `[{"name":"count","returns":{"$ref":"#/components/schemas/Count"}},{"name":"n","returns":{"type":"integer"}},{"name":"o","returns":{"anyOf":[{"type":"object"},{"$ref":"#/components/schemas/Obj"}]}}]`,
		`{"components":{"schemas":{"Count":{"type":"integer"},"Obj":{"type":"object"}}}}`)
	out := func(profile MCPProfile, i int) string {
		o, _ := p.MCPTools(profile)[i].Get("outputSchema")
		return string(jsonv.Marshal(o))
	}
	if got, want := out(MCPReleased, 0), `{"type":"object","properties":{"result":{"$ref":"#/properties/result/$defs/Count","$defs":{"Count":{"type":"integer"}}}},"required":["result"],"additionalProperties":false}`; got != want {
		t.Errorf("released\n got %s\nwant %s", got, want)
	}
	if got, want := out(MCP20260728, 0), `{"$ref":"#/$defs/Count","$defs":{"Count":{"type":"integer"}}}`; got != want {
		t.Errorf("2026\n got %s\nwant %s", got, want)
	}
	if got, want := out(MCPReleased, 1), `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"additionalProperties":false}`; got != want {
		t.Errorf("released int\n got %s", got)
	}
	if got := out(MCPReleased, 2); strings.Contains(got, "result") {
		t.Errorf("object union wrapped: %s", got)
	}
}

func TestBundlingRebases(t *testing.T) {
	comps := `{"components":{"schemas":{"Node":{"type":"object","properties":{"next":{"$ref":"#"},"meta":{"$ref":"#/components/schemas/Meta"}}},"Meta":{"type":"string"}}}}`
	p := mustPrepare(t, `[{"name":"n","returns":{"$ref":"#/components/schemas/Node"}}]`, comps)
	o, _ := p.MCPTools(MCP20260728)[0].Get("outputSchema")
	want := `{"$ref":"#/$defs/Node","$defs":{"Node":{"properties":{"meta":{"$ref":"#/$defs/Meta"},"next":{"$ref":"#/$defs/Node"}},"type":"object"},"Meta":{"type":"string"}}}`
	if got := string(jsonv.Marshal(o)); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	_, err := Prepare(mustNormalize(t, `[{"name":"n","inputSchema":{"type":"object","$id":"https://x.example/s"}}]`, comps))
	wantError(t, err, "cannot project tool schema through MCP components: $id changes JSON Schema resource scope")
	// without components the same schema is fine
	mustPrepare(t, `[{"name":"n","inputSchema":{"type":"object","$id":"https://x.example/s"}}]`, "")
}

func TestCLITree(t *testing.T) {
	p := mustPrepare(t, widgetDefs, widgetOptions)
	tree, err := p.CLITree()
	if err != nil {
		t.Fatal(err)
	}
	w := tree.Root.Child("w")
	if w == nil || w.Title != "Manage widgets" {
		t.Fatalf("parent alias w: %+v", w)
	}
	leaf := w.Child("show")
	if leaf == nil || !leaf.Leaf() || leaf.Tool.Name() != "lookup_widget" || !leaf.JSONFlag {
		t.Fatalf("leaf alias show: %+v", leaf)
	}
	if len(leaf.Args) != 2 || !leaf.Args[0].Positional || leaf.Args[0].Property != "widget_id" || leaf.Args[0].Coerce != "integer" {
		t.Fatalf("args: %+v", leaf.Args[0])
	}
	v := leaf.Args[1]
	if v.Long != "verbose" || v.Short != "v" || v.HelpGroup != "Display" || v.Coerce != "boolean" || v.ValueName != "VERBOSE" {
		t.Fatalf("verbose arg: %+v", v)
	}
}

func TestPreparationRules(t *testing.T) {
	props := func(s string) string { return `"inputSchema":{"type":"object","properties":` + s + `}` }
	cases := []struct{ defs, options, want string }{
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"b":{}}}}]`, ``, `tool "t" CLI argument metadata names unknown input property "b"`},
		{`[{"name":"t",` + props(`{"a":{},"b":{}}`) + `,"cli":{"arguments":{"a":{"position":0},"b":{"position":0}}}}]`, ``, `tool "t" CLI position 0 is shared by properties "a" and "b"`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"position":1}}}}]`, ``, `dense from 0; expected 0, found 1`},
		{`[{"name":"t","inputSchema":{"type":"object","properties":{"a":{},"b":{}},"required":["b"]},"cli":{"arguments":{"a":{"position":0},"b":{"position":1}}}}]`, ``, `tool "t" CLI positional property "b" at 1 is required after optional property "a"`},
		{`[{"name":"t",` + props(`{"a":{"type":"array","items":{}},"b":{}}`) + `,"cli":{"arguments":{"a":{"position":0,"repeatable":true},"b":{"position":1}}}}]`, ``, `repeatable CLI positional property "a" must be last`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"position":0,"short":"a"}}}}]`, ``, `property "a" cannot be both positional and named`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"long":"harn-input"}}}}]`, ``, `CLI argument "a" collides with reserved --harn-input`},
		{`[{"name":"t",` + props(`{"a":{},"b":{}}`) + `,"cli":{"arguments":{"a":{"long":"x"},"b":{"aliases":["x"]}}}}]`, ``, `CLI spelling --x is shared by properties "a" and "b"`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"short":"h"}}}}]`, ``, `collides with reserved -h`},
		{`[{"name":"t",` + props(`{"a":{},"b":{}}`) + `,"cli":{"arguments":{"a":{"short":"x"},"b":{"short":"x"}}}}]`, ``, `CLI spelling -x is shared by properties "a" and "b"`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"short":"-"}}}}]`, ``, `short spelling must be one ASCII letter or digit`},
		{`[{"name":"t","governance":{"audiences":["mcp"]},` + props(`{"a.b":{}}`) + `}]`, ``, `invalid CLI spelling --a.b`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"help":"  "}}}}]`, ``, `CLI argument help must not be empty`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"completions":[""]}}}}]`, ``, `CLI completion must be non-empty and contain no control characters`},
		{`[{"name":"t",` + props(`{"a":{}}`) + `,"cli":{"arguments":{"a":{"completions":["x","x"]}}}}]`, ``, `has duplicate CLI completion "x"`},
		{`[{"name":"t",` + props(`{"a":{"type":"string"}}`) + `,"cli":{"arguments":{"a":{"boolean_style":"set_true"}}}}]`, ``, `can use a boolean presence style only when its schema type is boolean`},
		{`[{"name":"t",` + props(`{"a":{"type":["boolean","null"]}}`) + `,"cli":{"arguments":{"a":{"boolean_style":"set_true"}}}}]`, ``, `can use a boolean presence style only when its schema type is boolean`},
		{`[{"name":"t",` + props(`{"a":{"type":"boolean"}}`) + `,"cli":{"arguments":{"a":{"boolean_style":"set_true","position":0}}}}]`, ``, `boolean presence style must be a non-repeatable named option`},
		{`[{"name":"t",` + props(`{"a":{"type":"boolean"}}`) + `,"cli":{"arguments":{"a":{"boolean_style":"set_false","value_name":"X"}}}}]`, ``, `boolean presence style cannot declare value metadata`},
		{`[{"name":"t",` + props(`{"a":{"type":"string"}}`) + `,"cli":{"arguments":{"a":{"repeatable":true}}}}]`, ``, `can be repeatable only when its schema type is array`},
		{`[{"name":"t",` + props(`{"a":{"type":"array"}}`) + `,"cli":{"arguments":{"a":{"repeatable":true}}}}]`, ``, `needs one JSON Schema 'items' schema for repeatable CLI tokens`},
		{`[{"name":"a","cli":{"command":["x"]}},{"name":"b","cli":{"command":["y"],"aliases":["x"]}}]`, ``, `CLI command spelling "x" is shared by sibling commands "x" and "y"`},
		{`[{"name":"help"}]`, ``, `CLI command spelling "help" is reserved by the generated command framework`},
		{`[{"name":"a","cli":{"command":["w","a"]}}]`, `{"cli":{"commands":[{"command":["w"],"aliases":["bad alias"]}]}}`, `CLI command spelling "bad alias" is not a portable command component`},
		{`[{"name":"a","cli":{"command":["w","a"]}}]`, `{"cli":{"commands":[{"command":["w"],"title":" "}]}}`, `CLI command title must not be empty`},
		{`[{"name":"a","cli":{"command":["w","a"]}}]`, `{"cli":{"commands":[{"command":["w"]},{"command":["w"]}]}}`, `duplicate registry-level CLI command metadata path`},
		{`[{"name":"a","cli":{"command":["w","a"]},"governance":{"audiences":["mcp"]}}]`, `{"cli":{"commands":[{"command":["w"]}]}}`, `registry-level CLI metadata path "w" does not name a command`},
		{`[{"name":"a","cli":{"command":["w","a"]}}]`, `{"cli":{"commands":[{"command":["w","a"]}]}}`, `names a tool rather than a parent command`},
		{`[{"name":"t",` + props(`{"a":{"pattern":"(?=x)"}}`) + `}]`, ``, `tool "t" input schema could not be compiled`},
	}
	for _, c := range cases {
		reg, err := Normalize(registry(t, c.defs, c.options), nil)
		if err != nil {
			t.Errorf("%s: normalize failed: %v", c.defs, err)
			continue
		}
		_, err = Prepare(reg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s:\n got %v\nwant %q", c.defs, c.options, err, c.want)
		}
	}
}

func TestParserRule(t *testing.T) {
	// an external or cyclic reference cannot even be compiled (P27)
	for _, bad := range []string{`{"$ref":"https://x.example/a.json"}`, `{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}`} {
		_, err := Prepare(mustNormalize(t, `[{"name":"t","inputSchema":{"type":"object","properties":{"a":`+bad+`}}}]`, ""))
		wantError(t, err, `tool "t" input schema could not be compiled`)
	}
	p := mustPrepare(t, `[{"name":"t","inputSchema":{"type":"object","properties":{"count":{"$ref":"#/components/schemas/Count"}}}}]`, `{"components":{"schemas":{"Count":{"type":"integer","minimum":0}}}}`)
	tree, err := p.CLITree()
	if err != nil {
		t.Fatal(err)
	}
	if a := tree.Root.Child("t").Args[0]; a.Coerce != "integer" || !a.Negative {
		t.Errorf("ref coercion: %+v", a)
	}
}

func newThread() *vm.Thread { return vm.New(vm.NewUniverse()).NewThread() }

func TestInvokeClassification(t *testing.T) {
	throwing := func(v vm.Value) vm.Value {
		return vm.Of(vm.NewBuiltin("h", "h(a)", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) { return vm.Value{}, vm.Throw(v) }))
	}
	returning := func(v vm.Value) vm.Value {
		return vm.Of(vm.NewBuiltin("h", "h(a)", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) { return v, nil }))
	}
	errSchema := `"error_schema":{"type":"object","properties":{"variant":{"const":"NotFound"}},"required":["variant"]}`
	build := func(def string, h vm.Value) *PreparedTool {
		d := jv(t, def).Object().(*vm.Dict).Set("handler", h)
		pt, _ := prepared(t, vm.Of(d)).Tool("lookup")
		return pt
	}
	th := newThread()
	notFound := jv(t, `{"variant":"NotFound"}`)
	cases := []struct {
		def     string
		handler vm.Value
		args    string
		kind    OutcomeKind
		summary string
	}{
		{`{"name":"lookup","parameters":{"id":{"schema":{"type":"integer"},"required":true}}}`, returning(vm.Nil), `{}`, InvalidInput, `tool "lookup" input violates its declared schema: / failed required ("id" is required)`},
		{`{"name":"lookup",` + errSchema + `}`, throwing(notFound), `{}`, ApplicationError, `declared application error`},
		{`{"name":"lookup",` + errSchema + `}`, throwing(vm.Str("secret")), `{}`, ContractViolation, `tool "lookup" application error violates its declared schema: / failed type`},
		{`{"name":"lookup"}`, throwing(vm.Str("secret")), `{}`, RuntimeFailure, `tool threw an undeclared value`},
		{`{"name":"lookup"}`, throwing(jv(t, `{"category":"rate_limit"}`)), `{}`, RuntimeFailure, `tool execution was rate limited`},
		{`{"name":"lookup",` + errSchema + `}`, throwing(jv(t, `{"category":"cancelled","variant":"NotFound"}`)), `{}`, RuntimeFailure, `tool execution cancelled`},
		{`{"name":"lookup"}`, returning(vm.Of(echoHandler)), `{}`, ContractViolation, `tool "lookup" output violates its declared schema: / failed portableJson`},
		{`{"name":"lookup","returns":{"type":"string"}}`, returning(vm.IntOf(3)), `{}`, ContractViolation, `tool "lookup" output violates its declared schema: / failed type`},
		{`{"name":"lookup","returns":{"type":"integer"}}`, returning(vm.IntOf(3)), `{}`, Success, ``},
		{`{"name":"lookup"}`, vm.Of(vm.NewBuiltin("h", "", "", func(*vm.Thread, vm.Args) (vm.Value, error) {
			return vm.Value{}, vm.Plainf("Undefined builtin: f")
		})), `{}`, RuntimeFailure, `Undefined builtin: f`},
	}
	for i, c := range cases {
		o := build(c.def, c.handler).Invoke(th, parseArgs(t, c.args))
		if o.Kind != c.kind || o.Summary != c.summary {
			t.Errorf("case %d: got kind %d summary %q, want %d %q", i, o.Kind, o.Summary, c.kind, c.summary)
		}
		if strings.Contains(o.Summary, "secret") {
			t.Errorf("case %d leaked a thrown value", i)
		}
	}
}

func parseArgs(t *testing.T, s string) any {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRequireHandlers: an adapter that runs tools refuses a tool of its
// audience that has no local handler, and only those
// (docs/spec/registry.md §5).
func TestRequireHandlers(t *testing.T) {
	p := mustPrepare(t, `[
	  {"name":"model_side","executor":"provider_native","governance":{"audiences":["agent","catalog"]}},
	  {"name":"bridge","executor":"host_bridge","host_capability":"fs.read","governance":{"audiences":["mcp"]}},
	  {"name":"local"}
	]`, "")
	if err := p.RequireHandlers(AudienceCLI); err != nil {
		t.Errorf("cli: %v", err)
	}
	wantError(t, p.RequireHandlers(AudienceMCP), `tool "bridge" has no local handler (executor "host_bridge") but is exposed to the mcp audience; leave "mcp" out of its governance.audiences`)

	all := mustPrepare(t, `[{"name":"local"},{"name":"native","executor":"provider_native"}]`, "")
	for _, a := range []Audience{AudienceCLI, AudienceMCP} {
		wantError(t, all.RequireHandlers(a), `tool "native" has no local handler (executor "provider_native") but is exposed to the `+string(a)+` audience`)
	}
}

// TestBooleanSchemasOnTheWire: tools/list spells a boolean schema at a
// schema root or in a properties map as an object (true → {}, false →
// {"not":{}}), which the SDK clients require; the entry, and the
// validators compiled from it, keep the booleans (docs/mcp.md).
func TestBooleanSchemasOnTheWire(t *testing.T) {
	p := mustPrepare(t, `[
		{"name":"anyarg","parameters":{"payload":{"schema":true,"required":true},"never":{"schema":false},"cfg":{"schema":{"type":"object","properties":{"x":true,"y":{"$ref":"#/components/schemas/C"}},"additionalProperties":false,"items":true}}}},
		{"name":"anything","returns":true},
		{"name":"nothing","returns":false},
		{"name":"obj","returns":{"type":"object","properties":{"r":true},"additionalProperties":false}}]`,
		`{"components":{"schemas":{"C":{"type":"object","properties":{"z":false}}}}}`)
	field := func(profile MCPProfile, i int, key string) string {
		v, _ := p.MCPTools(profile)[i].Get(key)
		return string(jsonv.Marshal(v))
	}
	for _, profile := range []MCPProfile{MCPReleased, MCP20260728} {
		if got, want := field(profile, 0, "inputSchema"), `{"properties":{"cfg":{"additionalProperties":false,"items":true,"properties":{"x":{},"y":{"$ref":"#/$defs/C"}},"type":"object"},"never":{"not":{}},"payload":{}},"required":["payload"],"type":"object","$defs":{"C":{"properties":{"z":{"not":{}}},"type":"object"}}}`; got != want {
			t.Errorf("profile %d input\n got %s\nwant %s", profile, got, want)
		}
		if got, want := field(profile, 3, "outputSchema"), `{"additionalProperties":false,"properties":{"r":{}},"type":"object"}`; got != want {
			t.Errorf("profile %d object output\n got %s\nwant %s", profile, got, want)
		}
	}
	wants := map[MCPProfile][2]string{
		MCPReleased: {`{"type":"object","properties":{"result":{}},"required":["result"],"additionalProperties":false}`,
			`{"type":"object","properties":{"result":{"not":{}}},"required":["result"],"additionalProperties":false}`},
		MCP20260728: {`{}`, `{"not":{}}`},
	}
	for profile, w := range wants {
		for i, want := range w {
			if got := field(profile, 1+i, "outputSchema"); got != want {
				t.Errorf("profile %d output %d\n got %s\nwant %s", profile, 1+i, got, want)
			}
		}
	}

	// The entry keeps the booleans, and validation is what they say.
	anyarg, _ := p.Tool("anyarg")
	props, _ := jsonv.Member[*jsonv.Object](anyarg.Entry().InputSchema.Doc().(*jsonv.Object), "properties")
	if v, _ := props.Get("payload"); v != true {
		t.Errorf("entry payload schema = %v, want true", v)
	}
	if b, _ := p.Tool("anything"); b.Entry().OutputSchema.Doc() != true {
		t.Errorf("entry output schema = %v, want true", b.Entry().OutputSchema.Doc())
	}
	arg := func(s string) any {
		x, err := jsonv.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	if err := anyarg.ValidateInput(arg(`{"payload":[1,"x",null]}`)); err != nil {
		t.Errorf("any payload refused: %v", err)
	}
	for _, bad := range []string{`{}`, `{"payload":1,"never":1}`, `{"payload":1,"cfg":{"y":{"z":1}}}`} {
		if err := anyarg.ValidateInput(arg(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	nothing, _ := p.Tool("nothing")
	if err := nothing.ValidateOutput(arg(`{}`)); err == nil {
		t.Errorf("returns: false accepted a result")
	}
	anything, _ := p.Tool("anything")
	if err := anything.ValidateOutput(arg(`"x"`)); err != nil {
		t.Errorf("returns: true refused a result: %v", err)
	}
}

// TestAnnotationTitleKept: the entry's annotations.title is published as
// is; the entry title only fills it in when absent
// (docs/spec/mcp-projection.md §4).
func TestAnnotationTitleKept(t *testing.T) {
	p := mustPrepare(t, `[
		{"name":"t","title":"Entry Title","annotations":{"title":"Annot Title","readOnlyHint":true}},
		{"name":"u","title":"Entry Title","annotations":{"readOnlyHint":true}},
		{"name":"v","annotations":{"title":"From Annot"}},
		{"name":"w"}]`, "")
	wants := []string{
		`"title":"Entry Title","annotations":{"title":"Annot Title","readOnlyHint":true}`,
		`"title":"Entry Title","annotations":{"title":"Entry Title","readOnlyHint":true}`,
		`"title":"From Annot","annotations":{"title":"From Annot"}`,
		`"title":"w","annotations":{"title":"w"}`,
	}
	for _, profile := range []MCPProfile{MCPReleased, MCP20260728} {
		for i, d := range p.MCPTools(profile) {
			title, _ := d.Get("title")
			ann, _ := d.Get("annotations")
			got := `"title":` + string(jsonv.Marshal(title)) + `,"annotations":` + string(jsonv.Marshal(ann))
			if got != wants[i] {
				t.Errorf("profile %d tool %d\n got %s\nwant %s", profile, i, got, wants[i])
			}
		}
	}
}
