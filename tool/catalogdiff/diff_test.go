package catalogdiff

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
)

// spec describes one tool of a test catalog; empty schemas are omitted.
type spec struct {
	name, input, output, errSchema, extra string
}

func catalog(t *testing.T, components string, tools ...spec) *tool.Catalog {
	t.Helper()
	var parts []string
	for _, s := range tools {
		input := s.input
		if input == "" {
			input = `{"type":"object","properties":{}}`
		}
		e := fmt.Sprintf(`{"name":%q,"inputSchema":%s`, s.name, input)
		if s.output != "" {
			e += `,"outputSchema":` + s.output
		}
		if s.errSchema != "" {
			e += `,"errorSchema":` + s.errSchema
		}
		extra := s.extra
		if !strings.Contains(extra, `"governance"`) {
			extra += `,"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]}`
		}
		if !strings.Contains(extra, `"cli":{`) {
			extra += fmt.Sprintf(`,"cli":{"command":[%q],"aliases":[],"hidden":false,"arguments":{}}`, s.name)
		}
		parts = append(parts, e+extra+`,"deferLoading":false}`)
	}
	doc := `{"schema_version":"harn-tools/2.0","info":{"name":"t","version":"1.4.2"},"tools":[` + strings.Join(parts, ",") + `]`
	if components != "" {
		doc += `,"components":{"schemas":` + components + `}`
	}
	cat, err := tool.ParseCatalog([]byte(doc + "}"))
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return cat
}

func obj(props, required string) string {
	s := `{"type":"object","properties":{` + props + `}`
	if required != "" {
		s += `,"required":[` + required + `]`
	}
	return s + "}"
}

const shopError = `{"oneOf":[%s]}`

func variantSchema(name string, fields ...string) string {
	items := ""
	if len(fields) > 0 {
		items = `"prefixItems":[` + strings.Join(fields, ",") + `],`
	}
	return fmt.Sprintf(`{"type":"object","properties":{"enum":{"const":"ShopError"},"variant":{"const":%q},"fields":{"type":"array",%s"items":false,"minItems":%d,"maxItems":%d}},"required":["enum","variant","fields"],"additionalProperties":false}`, name, items, len(fields), len(fields))
}

type want struct {
	class Class
	rule  string
	path  string
}

// TestRules: every rule, old → new and new → old. Each direction lists
// exactly the changes it must report.
func TestRules(t *testing.T) {
	sku := `"sku":{"type":"string"}`
	cases := []struct {
		name       string
		comps      [2]string
		old, new   []spec
		fwd, back  []want
		fwdBump    string
		backBumped string
	}{
		{
			name: "tool removed / added",
			old:  []spec{{name: "a"}, {name: "b"}},
			new:  []spec{{name: "a"}},
			fwd:  []want{{Breaking, ToolRemoved, "/tools/b"}},
			back: []want{{Compatible, ToolAdded, "/tools/b"}},
		},
		{
			name: "tool renamed (same source)",
			old:  []spec{{name: "get", extra: `,"source":{"kind":"openapi","id":"getWidget"}`}},
			new:  []spec{{name: "fetch", extra: `,"source":{"kind":"openapi","id":"getWidget"}`}},
			fwd:  []want{{Breaking, ToolRenamed, "/tools/get"}},
			back: []want{{Breaking, ToolRenamed, "/tools/fetch"}},
		},
		{
			name: "tool renamed (same explicit CLI path)",
			old:  []spec{{name: "get", extra: `,"cli":{"command":["w","get"],"aliases":[],"hidden":false,"arguments":{}}`}},
			new:  []spec{{name: "get_widget", extra: `,"cli":{"command":["w","get"],"aliases":[],"hidden":false,"arguments":{}}`}},
			fwd:  []want{{Breaking, ToolRenamed, "/tools/get"}},
			back: []want{{Breaking, ToolRenamed, "/tools/get_widget"}},
		},
		{
			name: "new required input / input removed",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku+`,"qty":{"type":"integer"}`, `"qty"`)}},
			fwd:  []want{{Breaking, InputRequiredAdded, "/tools/a/inputSchema/properties/qty"}},
			back: []want{{Breaking, InputRemoved, "/tools/a/inputSchema/properties/qty"}},
		},
		{
			name: "new optional input",
			old:  []spec{{name: "a", input: obj(sku, `"sku"`)}},
			new:  []spec{{name: "a", input: obj(sku+`,"verbose":{"type":"boolean"}`, `"sku"`)}},
			fwd:  []want{{Compatible, InputOptionalAdded, "/tools/a/inputSchema/properties/verbose"}},
			back: []want{{Breaking, InputRemoved, "/tools/a/inputSchema/properties/verbose"}},
		},
		{
			name: "optional input made required / required made optional",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku, `"sku"`)}},
			fwd:  []want{{Breaking, InputRequiredAdded, "/tools/a/inputSchema/required"}},
			back: []want{{Compatible, InputWidened, "/tools/a/inputSchema/required"}},
		},
		{
			name: "input type narrowed / widened",
			old:  []spec{{name: "a", input: obj(`"n":{"type":"number"}`, "")}},
			new:  []spec{{name: "a", input: obj(`"n":{"type":"integer"}`, "")}},
			fwd:  []want{{Breaking, InputNarrowed, "/tools/a/inputSchema/properties/n/type"}},
			back: []want{{Compatible, InputWidened, "/tools/a/inputSchema/properties/n/type"}},
		},
		{
			name: "input type replaced",
			old:  []spec{{name: "a", input: obj(`"n":{"type":"string"}`, "")}},
			new:  []spec{{name: "a", input: obj(`"n":{"type":"integer"}`, "")}},
			fwd:  []want{{Breaking, InputNarrowed, "/tools/a/inputSchema/properties/n/type"}},
			back: []want{{Breaking, InputNarrowed, "/tools/a/inputSchema/properties/n/type"}},
		},
		{
			name: "input enum value removed / added",
			old:  []spec{{name: "a", input: obj(`"kind":{"type":"string","enum":["book","toy"]}`, "")}},
			new:  []spec{{name: "a", input: obj(`"kind":{"type":"string","enum":["book"]}`, "")}},
			fwd:  []want{{Breaking, InputEnumRemoved, "/tools/a/inputSchema/properties/kind/enum"}},
			back: []want{{Compatible, InputEnumAdded, "/tools/a/inputSchema/properties/kind/enum"}},
		},
		{
			name: "input bound tightened / loosened",
			old:  []spec{{name: "a", input: obj(`"n":{"type":"integer","minimum":0}`, "")}},
			new:  []spec{{name: "a", input: obj(`"n":{"type":"integer","minimum":1}`, "")}},
			fwd:  []want{{Breaking, ConstraintNarrowed, "/tools/a/inputSchema/properties/n/minimum"}},
			back: []want{{Compatible, ConstraintWidened, "/tools/a/inputSchema/properties/n/minimum"}},
		},
		{
			name: "input closed to undeclared properties / opened",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: `{"type":"object","properties":{` + sku + `},"additionalProperties":false}`}},
			fwd:  []want{{Breaking, ClosedObjectNarrowed, "/tools/a/inputSchema/additionalProperties"}},
			back: []want{{Compatible, InputWidened, "/tools/a/inputSchema/additionalProperties"}},
		},
		{
			name: "input default changed",
			old:  []spec{{name: "a", input: obj(`"n":{"type":"integer","default":10}`, "")}},
			new:  []spec{{name: "a", input: obj(`"n":{"type":"integer","default":20}`, "")}},
			fwd:  []want{{Compatible, DefaultChanged, "/tools/a/inputSchema/properties/n/default"}},
			back: []want{{Compatible, DefaultChanged, "/tools/a/inputSchema/properties/n/default"}},
		},
		{
			name: "output type changed",
			old:  []spec{{name: "a", output: `{"type":"string"}`}},
			new:  []spec{{name: "a", output: `{"type":"integer"}`}},
			fwd:  []want{{Breaking, OutputChanged, "/tools/a/outputSchema/type"}},
			back: []want{{Breaking, OutputChanged, "/tools/a/outputSchema/type"}},
		},
		{
			name: "output may be null / no longer",
			old:  []spec{{name: "a", output: `{"type":"string"}`}},
			new:  []spec{{name: "a", output: `{"anyOf":[{"type":"string"},{"type":"null"}]}`}},
			fwd:  []want{{Breaking, OutputWidened, "/tools/a/outputSchema/type"}},
			back: []want{{Compatible, OutputNarrowed, "/tools/a/outputSchema/type"}},
		},
		{
			name: "output field removed / added",
			old:  []spec{{name: "a", output: obj(sku+`,"price":{"type":"number"}`, `"sku","price"`)}},
			new:  []spec{{name: "a", output: obj(sku, `"sku"`)}},
			fwd:  []want{{Breaking, OutputFieldRemoved, "/tools/a/outputSchema/properties/price"}},
			back: []want{{Compatible, OutputFieldAdded, "/tools/a/outputSchema/properties/price"}},
		},
		{
			name: "output field made optional / required",
			old:  []spec{{name: "a", output: obj(sku, `"sku"`)}},
			new:  []spec{{name: "a", output: obj(sku, "")}},
			fwd:  []want{{Breaking, OutputFieldOptional, "/tools/a/outputSchema/required"}},
			back: []want{{Compatible, OutputNarrowed, "/tools/a/outputSchema/required"}},
		},
		{
			name: "output enum grew / shrank",
			old:  []spec{{name: "a", output: `{"type":"string","enum":["ok"]}`}},
			new:  []spec{{name: "a", output: `{"type":"string","enum":["ok","warn"]}`}},
			fwd:  []want{{Breaking, OutputWidened, "/tools/a/outputSchema/enum"}},
			back: []want{{Compatible, OutputNarrowed, "/tools/a/outputSchema/enum"}},
		},
		{
			name: "output schema removed / declared",
			old:  []spec{{name: "a", output: `{"type":"string"}`}},
			new:  []spec{{name: "a"}},
			fwd:  []want{{Breaking, OutputRemoved, "/tools/a/outputSchema"}},
			back: []want{{Compatible, OutputDeclared, "/tools/a/outputSchema"}},
		},
		{
			name:  "output field removed inside a component",
			comps: [2]string{`{"Item":` + obj(sku+`,"price":{"type":"number"}`, `"sku"`) + `}`, `{"Item":` + obj(sku, `"sku"`) + `}`},
			old:   []spec{{name: "a", output: `{"$ref":"#/components/schemas/Item"}`}},
			new:   []spec{{name: "a", output: `{"$ref":"#/components/schemas/Item"}`}},
			fwd:   []want{{Breaking, OutputFieldRemoved, "/components/schemas/Item/properties/price"}},
			back:  []want{{Compatible, OutputFieldAdded, "/components/schemas/Item/properties/price"}},
		},
		{
			name: "error variant added / removed (Harn enum)",
			old:  []spec{{name: "a", errSchema: fmt.Sprintf(shopError, variantSchema("NotFound", `{"type":"string","title":"sku"}`))}},
			new:  []spec{{name: "a", errSchema: fmt.Sprintf(shopError, variantSchema("NotFound", `{"type":"string","title":"sku"}`)+","+variantSchema("Closed"))}},
			fwd:  []want{{Breaking, ErrorVariantAdded, "/tools/a/errorSchema/oneOf/1"}},
			back: []want{{Compatible, ErrorVariantRemoved, "/tools/a/errorSchema/oneOf/1"}},
		},
		{
			name: "error schema declared / dropped",
			old:  []spec{{name: "a"}},
			new:  []spec{{name: "a", errSchema: obj(`"code":{"type":"integer"}`, `"code"`)}},
			fwd:  []want{{Breaking, ErrorVariantAdded, "/tools/a/errorSchema"}},
			back: []want{{Compatible, ErrorVariantRemoved, "/tools/a/errorSchema"}},
		},
		{
			name: "error union grew / shrank",
			old:  []spec{{name: "a", errSchema: `{"anyOf":[{"type":"string"}]}`}},
			new:  []spec{{name: "a", errSchema: `{"anyOf":[{"type":"string"},{"type":"integer"}]}`}},
			fwd:  []want{{Breaking, ErrorVariantAdded, "/tools/a/errorSchema/type"}, {Breaking, ErrorVariantAdded, "/tools/a/errorSchema/anyOf/1"}},
			back: []want{{Compatible, ErrorVariantRemoved, "/tools/a/errorSchema/type"}, {Compatible, ErrorVariantRemoved, "/tools/a/errorSchema/anyOf/1"}},
		},
		{
			name: "error field removed / added",
			old:  []spec{{name: "a", errSchema: obj(`"code":{"type":"integer"},"hint":{"type":"string"}`, `"code"`)}},
			new:  []spec{{name: "a", errSchema: obj(`"code":{"type":"integer"}`, `"code"`)}},
			fwd:  []want{{Breaking, ErrorChanged, "/tools/a/errorSchema/properties/hint"}},
			back: []want{{Compatible, ErrorFieldAdded, "/tools/a/errorSchema/properties/hint"}},
		},
		{
			name: "task support forbidden / optional",
			old:  []spec{{name: "a", extra: `,"execution":{"taskSupport":"optional"}`}},
			new:  []spec{{name: "a", extra: `,"execution":{"taskSupport":"forbidden"}`}},
			fwd:  []want{{Breaking, TaskSupportNarrowed, "/tools/a/execution/taskSupport"}},
			back: []want{{Compatible, ExecutionChanged, "/tools/a/execution/taskSupport"}},
		},
		{
			name: "governance audience removed / added",
			old:  []spec{{name: "a"}},
			new:  []spec{{name: "a", extra: `,"governance":{"audiences":["cli","catalog"]}`}},
			fwd:  []want{{Breaking, AudienceRemoved, "/tools/a/governance/audiences"}, {Breaking, AudienceRemoved, "/tools/a/governance/audiences"}, {Breaking, AudienceRemoved, "/tools/a/governance/audiences"}},
			back: []want{{Compatible, AudienceAdded, "/tools/a/governance/audiences"}, {Compatible, AudienceAdded, "/tools/a/governance/audiences"}, {Compatible, AudienceAdded, "/tools/a/governance/audiences"}},
		},
		{
			name: "docs changed",
			old:  []spec{{name: "a", input: obj(`"n":{"type":"integer","description":"how many"}`, ""), extra: `,"description":"Count."`}},
			new:  []spec{{name: "a", input: obj(`"n":{"type":"integer","description":"how many items"}`, ""), extra: `,"description":"Count things."`}},
			fwd:  []want{{Compatible, DocsChanged, "/tools/a/description"}, {Compatible, DocsChanged, "/tools/a/inputSchema/properties/n/description"}},
			back: []want{{Compatible, DocsChanged, "/tools/a/description"}, {Compatible, DocsChanged, "/tools/a/inputSchema/properties/n/description"}},
		},
		{
			name: "annotations changed",
			old:  []spec{{name: "a", extra: `,"annotations":{"readOnlyHint":true}`}},
			new:  []spec{{name: "a", extra: `,"annotations":{"readOnlyHint":false}`}},
			fwd:  []want{{Compatible, AnnotationsChanged, "/tools/a/annotations/readOnlyHint"}},
			back: []want{{Compatible, AnnotationsChanged, "/tools/a/annotations/readOnlyHint"}},
		},
		{
			name: "CLI path changed",
			old:  []spec{{name: "a", extra: `,"cli":{"command":["w","get"],"aliases":["show"],"hidden":false,"arguments":{}}`}},
			new:  []spec{{name: "a", extra: `,"cli":{"command":["w","fetch"],"aliases":[],"hidden":false,"arguments":{}}`}},
			fwd:  []want{{Breaking, CLIPathChanged, "/tools/a/cli/command"}, {Breaking, CLIAliasRemoved, "/tools/a/cli/aliases"}},
			back: []want{{Breaking, CLIPathChanged, "/tools/a/cli/command"}, {Compatible, CLIAliasAdded, "/tools/a/cli/aliases"}},
		},
		{
			name: "CLI argument made positional / named",
			old:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"position":0,"aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(sku, "")}},
			fwd:  []want{{Breaking, CLIPositionChanged, "/tools/a/cli/arguments/sku/position"}},
			back: []want{{Breaking, CLIPositionChanged, "/tools/a/cli/arguments/sku/position"}},
		},
		{
			name: "CLI positional index changed",
			old:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"position":0,"aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"position":1,"aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			fwd:  []want{{Breaking, CLIPositionChanged, "/tools/a/cli/arguments/sku/position"}},
			back: []want{{Breaking, CLIPositionChanged, "/tools/a/cli/arguments/sku/position"}},
		},
		{
			name: "CLI short changed",
			old:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"short":"s","aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"short":"k","aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			fwd:  []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/short"}, {Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/short"}},
			back: []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/short"}, {Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/short"}},
		},
		{
			name: "CLI short removed / added",
			old:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"short":"s","aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(sku, "")}},
			fwd:  []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/short"}},
			back: []want{{Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/short"}},
		},
		{
			name: "CLI long renamed, derived long kept as an alias",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"long":"code","aliases":["sku"],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			fwd:  []want{{Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/long"}},
			back: []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/long"}},
		},
		{
			name: "CLI long renamed",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"long":"code","aliases":[],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			fwd:  []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/long"}, {Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/long"}},
			back: []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/long"}, {Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/long"}},
		},
		{
			name: "CLI option alias removed / added",
			old:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"aliases":["code"],"boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(sku, "")}},
			fwd:  []want{{Breaking, CLISpellingRemoved, "/tools/a/cli/arguments/sku/aliases"}},
			back: []want{{Compatible, CLISpellingAdded, "/tools/a/cli/arguments/sku/aliases"}},
		},
		{
			name: "CLI argument repeatable changed",
			old:  []spec{{name: "a", input: obj(`"tags":{"type":"array","items":{"type":"string"}}`, ""), extra: cliArgs(`"tags":{"aliases":[],"boolean_style":"value","repeatable":true,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(`"tags":{"type":"array","items":{"type":"string"}}`, "")}},
			fwd:  []want{{Breaking, CLIRepeatableChanged, "/tools/a/cli/arguments/tags/repeatable"}},
			back: []want{{Breaking, CLIRepeatableChanged, "/tools/a/cli/arguments/tags/repeatable"}},
		},
		{
			name: "CLI boolean style changed",
			old:  []spec{{name: "a", input: obj(`"v":{"type":"boolean"}`, ""), extra: cliArgs(`"v":{"aliases":[],"boolean_style":"set_true","repeatable":false,"hidden":false,"completions":[]}`)}},
			new:  []spec{{name: "a", input: obj(`"v":{"type":"boolean"}`, "")}},
			fwd:  []want{{Breaking, CLIBooleanStyle, "/tools/a/cli/arguments/v/boolean_style"}},
			back: []want{{Breaking, CLIBooleanStyle, "/tools/a/cli/arguments/v/boolean_style"}},
		},
		{
			name: "CLI argument hidden / shown",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"aliases":[],"boolean_style":"value","repeatable":false,"hidden":true,"completions":[]}`)}},
			fwd:  []want{{Compatible, CLIHiddenChanged, "/tools/a/cli/arguments/sku/hidden"}},
			back: []want{{Compatible, CLIHiddenChanged, "/tools/a/cli/arguments/sku/hidden"}},
		},
		{
			name: "CLI command hidden / shown",
			old:  []spec{{name: "a"}},
			new:  []spec{{name: "a", extra: `,"cli":{"command":["a"],"aliases":[],"hidden":true,"arguments":{}}`}},
			fwd:  []want{{Compatible, CLIHiddenChanged, "/tools/a/cli/hidden"}},
			back: []want{{Compatible, CLIHiddenChanged, "/tools/a/cli/hidden"}},
		},
		{
			name: "CLI help and completions changed",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"aliases":[],"help":"The SKU","value_hint":"other","boolean_style":"value","repeatable":false,"hidden":false,"completions":["x1"]}`)}},
			fwd:  []want{{Compatible, DocsChanged, "/tools/a/cli/arguments/sku/help"}, {Compatible, CLICompletions, "/tools/a/cli/arguments/sku/completions"}, {Compatible, CLICompletions, "/tools/a/cli/arguments/sku/value_hint"}},
			back: []want{{Compatible, DocsChanged, "/tools/a/cli/arguments/sku/help"}, {Compatible, CLICompletions, "/tools/a/cli/arguments/sku/completions"}, {Compatible, CLICompletions, "/tools/a/cli/arguments/sku/value_hint"}},
		},
		{
			name: "CLI help text only",
			old:  []spec{{name: "a", input: obj(sku, "")}},
			new:  []spec{{name: "a", input: obj(sku, ""), extra: cliArgs(`"sku":{"aliases":[],"value_name":"SKU","boolean_style":"value","repeatable":false,"hidden":false,"completions":[]}`)}},
			fwd:  []want{{Compatible, DocsChanged, "/tools/a/cli/arguments/sku/value_name"}},
			back: []want{{Compatible, DocsChanged, "/tools/a/cli/arguments/sku/value_name"}},
		},
		{
			name: "task support required / relaxed",
			old:  []spec{{name: "a", extra: `,"execution":{"taskSupport":"optional"}`}},
			new:  []spec{{name: "a", extra: `,"execution":{"taskSupport":"required"}`}},
			fwd:  []want{{Breaking, TaskSupportRequired, "/tools/a/execution/taskSupport"}},
			back: []want{{Compatible, ExecutionChanged, "/tools/a/execution/taskSupport"}},
		},
		{
			name: "no change",
			old:  []spec{{name: "a", input: obj(sku, `"sku"`), output: `{"type":"string"}`}},
			new:  []spec{{name: "a", input: obj(sku, `"sku"`), output: `{"type":"string"}`}},
		},
	}
	check := func(t *testing.T, dir string, got []Change, want []want) {
		t.Helper()
		var g []string
		for _, c := range got {
			g = append(g, fmt.Sprintf("%s %s %s", c.Class, c.Rule, c.Path))
			if c.Reason == "" || strings.Contains(c.Reason, "\n") {
				t.Errorf("%s: reason must be one line: %q", dir, c.Reason)
			}
		}
		var w []string
		for _, x := range want {
			w = append(w, fmt.Sprintf("%s %s %s", x.class, x.rule, x.path))
		}
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s:\ngot\n  %s\nwant\n  %s", dir, strings.Join(g, "\n  "), strings.Join(w, "\n  "))
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := catalog(t, c.comps[0], c.old...)
			new := catalog(t, c.comps[1], c.new...)
			fwd, back := Diff(old, new), Diff(new, old)
			check(t, "old → new", fwd.Changes, c.fwd)
			check(t, "new → old", back.Changes, c.back)
			for _, r := range []*Report{fwd, back} {
				wantBump := "none"
				switch {
				case r.Count(Breaking) > 0:
					wantBump = "major"
				case len(r.Changes) > 0 && allDocs(r.Changes):
					wantBump = "patch"
				case len(r.Changes) > 0:
					wantBump = "minor"
				}
				if r.Bump != wantBump {
					t.Errorf("bump %s, want %s", r.Bump, wantBump)
				}
			}
		})
	}
}

// cliArgs is the extra of a tool "a" whose cli.arguments are args.
func cliArgs(args string) string {
	return `,"cli":{"command":["a"],"aliases":[],"hidden":false,"arguments":{` + args + `}}`
}

func allDocs(cs []Change) bool {
	for _, c := range cs {
		if c.Rule != DocsChanged {
			return false
		}
	}
	return true
}

func TestBump(t *testing.T) {
	for _, c := range []struct{ v, kind, want string }{
		{"1.4.2", "major", "2.0.0"},
		{"1.4.2", "minor", "1.5.0"},
		{"1.4.2", "patch", "1.4.3"},
		{"1.4.2", "none", "1.4.2"},
		{"0.3.1", "major", "0.4.0"},
		{"2.0.0-rc.1", "patch", "2.0.1"},
		{"v1", "major", ""},
	} {
		if got := bump(c.v, c.kind); got != c.want {
			t.Errorf("bump(%s, %s) = %q, want %q", c.v, c.kind, got, c.want)
		}
	}
}

// TestExportsModuleVersions diffs the catalogs of two versions of one
// exports module (testdata/shop_v1.harn, shop_v2.harn).
func TestExportsModuleVersions(t *testing.T) {
	read := func(path string) *tool.Catalog {
		cat, err := exports.Catalog(path, exports.Options{Stderr: &bytes.Buffer{}, Stdin: strings.NewReader("")})
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	v1, v2 := read("testdata/shop_v1.harn"), read("testdata/shop_v2.harn")
	r := Diff(v1, v2)
	var got []string
	for _, c := range r.Changes {
		got = append(got, fmt.Sprintf("%s %s %s", c.Class, c.Rule, c.Path))
	}
	want := []string{
		"breaking input-enum-value-removed /tools/count/inputSchema/properties/kind/enum",
		"compatible input-optional-added /tools/get_item/inputSchema/properties/verbose",
		"compatible output-field-added /components/schemas/Item/properties/stock",
		"breaking error-variant-added /components/schemas/ShopError/oneOf/1",
		"breaking tool-removed /tools/legacy",
		"compatible tool-added /tools/ping",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if r.Bump != "major" {
		t.Errorf("bump %s", r.Bump)
	}
	back := Diff(v2, v1)
	if back.Count(Breaking) != 3 || back.Count(Compatible) != 3 {
		t.Errorf("v2 → v1: %+v", back.Changes)
	}
	if same := Diff(v1, read("testdata/shop_v1.harn")); len(same.Changes) != 0 || same.Bump != "none" {
		t.Errorf("a module against itself: %+v", same)
	}
}

// TestParentCommands: the catalog's cli.commands, matched by path. A
// removed alias breaks callers that type it; an added one, a hidden flag
// and the help text do not.
func TestParentCommands(t *testing.T) {
	cat := func(commands string) *tool.Catalog {
		doc := `{"schema_version":"harn-tools/2.0","info":{"name":"t","version":"1.0.0"},"cli":{"commands":[` + commands + `]},"tools":[` +
			`{"name":"a","inputSchema":{"type":"object","properties":{}},"governance":{"audiences":["cli"]},` +
			`"cli":{"command":["w","a"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}]}`
		c, err := tool.ParseCatalog([]byte(doc))
		if err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		return c
	}
	full := cat(`{"command":["w"],"title":"Widgets","aliases":["wd"],"hidden":false}`)
	cases := []struct {
		name     string
		old, new *tool.Catalog
		want     []string
	}{
		{"alias removed", full, cat(`{"command":["w"],"title":"Widgets","aliases":[],"hidden":false}`),
			[]string{"breaking cli-alias-removed /cli/commands/0/aliases"}},
		{"entry removed", full, cat(``),
			[]string{"breaking cli-alias-removed /cli/commands/0/aliases", "compatible docs-changed /cli/commands/0/title"}},
		{"alias added", cat(``), full,
			[]string{"compatible cli-alias-added /cli/commands/0/aliases", "compatible docs-changed /cli/commands/0/title"}},
		{"hidden", full, cat(`{"command":["w"],"title":"Widgets","aliases":["wd"],"hidden":true}`),
			[]string{"compatible cli-hidden-changed /cli/commands/0/hidden"}},
		{"unchanged", full, full, nil},
	}
	for _, c := range cases {
		var got []string
		for _, ch := range Diff(c.old, c.new).Changes {
			got = append(got, fmt.Sprintf("%s %s %s", ch.Class, ch.Rule, ch.Path))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}
