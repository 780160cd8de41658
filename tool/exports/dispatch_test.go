package exports

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
)

func loadPrepared(t *testing.T, path string) (*Library, *tool.Prepared) {
	t.Helper()
	lib, err := Load(path, quiet())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	p, err := tool.Prepare(lib.Registry)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return lib, p
}

// TestDispatch calls exported functions through the prepared catalog
// (tool.PreparedTool.Invoke, as every adapter does): arguments are
// validated, struct, enum, set, bytes and float arguments hydrated,
// defaults and host handles supplied, results converted back and
// validated, throws classified against errorSchema.
func TestDispatch(t *testing.T) {
	lib, p := loadPrepared(t, "testdata/dispatch/lib.harn")
	cases := []struct {
		tool, args string
		kind       tool.OutcomeKind
		want       string // the JSON result, application error data, or a summary fragment
	}{
		{"describe", `{"w":{"id":1,"label":"x"}}`, tool.Success, `"struct"`},
		{"describe", `{"w":{"id":1}}`, tool.InvalidInput, `/* failed required ("label" is required)`},
		{"describe", `{"w":{"id":1,"label":"x","extra":true}}`, tool.InvalidInput, `failed additionalProperties`},
		{"echo_widget", `{"w":{"id":1,"label":"x","note":null}}`, tool.Success, `{"id":1,"label":"x"}`},
		{"echo_widget", `{"w":{"id":1,"label":"x","note":"n"}}`, tool.Success, `{"id":1,"label":"x","note":"n"}`},
		{"echo_shape", `{"s":{"enum":"Shape","variant":"Rect","fields":[2,3.5]}}`, tool.Success, `{"enum":"Shape","variant":"Rect","fields":[2,3.5]}`},
		{"echo_shape", `{"s":{"enum":"Shape","variant":"Dot","fields":[]}}`, tool.Success, `{"enum":"Shape","variant":"Dot","fields":[]}`},
		{"echo_shape", `{"s":{"enum":"Shape","variant":"Dot","fields":[1]}}`, tool.InvalidInput, `input violates`},
		{"shape_kind", `{"s":{"enum":"Shape","variant":"Dot","fields":[]}}`, tool.Success, `"enum:Dot"`},
		{"area", `{"s":{"enum":"Shape","variant":"Rect","fields":[2,3]}}`, tool.Success, `6`},
		{"sum_nodes", `{"n":{"value":1,"next":{"value":2,"next":{"value":3}}}}`, tool.Success, `6`},
		{"boxed", `{"b":{"item":{"id":1,"label":"x"}}}`, tool.Success, `"struct:x"`},
		{"either", `{"x":{"id":1,"label":"x"}}`, tool.Success, `"struct"`},
		{"either", `{"x":{"enum":"Shape","variant":"Dot","fields":[]}}`, tool.Success, `"enum"`},
		{"shapes", `{"xs":[{"enum":"Shape","variant":"Dot","fields":[]}],"by_name":{"a":{"id":1,"label":"x"}}}`, tool.Success, `["enum","struct"]`},
		{"tags", `{"t":["b","a"]}`, tool.Success, `"set"`},
		{"tags", `{"t":["a","a"]}`, tool.InvalidInput, `failed uniqueItems`},
		{"half", `{"x":3}`, tool.Success, `1.5`},
		{"digest", `{"data":{"$bytes_b64":"aGk="}}`, tool.Success, `{"$bytes_b64":"aGk="}`},
		{"page", `{"query":"q"}`, tool.Success, `{"limit":20,"query":"q","tag":"all"}`},
		{"page", `{"query":"q","tag":null}`, tool.Success, `{"limit":20,"query":"q","tag":null}`},
		{"page", `{"query":"q","limit":5}`, tool.Success, `{"limit":5,"query":"q","tag":"all"}`},
		{"stamp", `{"label":"abc"}`, tool.Success, `["abc",3,"x"]`},
		{"stamp", `{"label":"abc","note":"y"}`, tool.InvalidInput, `failed dependentRequired`},
		{"stamp", `{"label":"abc","at":1,"note":"y"}`, tool.Success, `["abc",1,"y"]`},
		{"greet", `{"name":"bob"}`, tool.Success, `"hi bob Harness"`},
		{"io_kind", `{"tag":"t"}`, tool.Success, `"HarnessStdio:t"`},
		{"no_channels", `{}`, tool.RuntimeFailure, "`harness.channels` is not available in this runtime"},
		{"lookup", `{"id":1}`, tool.Success, `{"enum":"Result","variant":"Ok","fields":["one"]}`},
		{"lookup", `{"id":2}`, tool.Success, `{"enum":"Result","variant":"Err","fields":[{"code":404,"message":"no"}]}`},
		{"risky", `{"kind":"ok"}`, tool.Success, `7`},
		{"risky", `{"kind":"declared"}`, tool.ApplicationError, `{"code":1,"message":"declared"}`},
		{"risky", `{"kind":"wrong"}`, tool.ContractViolation, `tool "risky" application error violates its declared schema`},
		{"throw_back", `{"s":{"enum":"Shape","variant":"Circle","fields":[1.5]}}`, tool.ApplicationError, `{"enum":"Shape","variant":"Circle","fields":[1.5]}`},
		{"undeclared", `{}`, tool.RuntimeFailure, tool.SummaryUndeclaredThrow},
		{"bad_output", `{}`, tool.ContractViolation, `tool "bad_output" output violates its declared schema: / failed type`},
		{"leaks_closure", `{}`, tool.ContractViolation, `failed portableJson`},
		{"count_parts", `{"parts":[1,2,3]}`, tool.Success, `3`},
		{"count_parts", `{}`, tool.Success, `0`},
		{"double", `{"x":4}`, tool.Success, `8`},
	}
	for _, c := range cases {
		pt, ok := p.ToolFor(tool.AudienceMCP, c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		args, err := jsonv.Parse([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		o := pt.Invoke(lib.Thread(), args)
		got := o.Summary
		switch o.Kind {
		case tool.Success:
			got = string(jsonv.Marshal(o.Result))
		case tool.ApplicationError:
			got = string(jsonv.Marshal(o.Data))
		}
		if o.Kind != c.kind || !strings.Contains(got, c.want) {
			t.Errorf("%s %s: kind %d %q; want kind %d %q", c.tool, c.args, o.Kind, got, c.kind, c.want)
		}
		if strings.Contains(o.Summary, "secret") {
			t.Errorf("%s: the summary renders a thrown value: %s", c.tool, o.Summary)
		}
	}
}

// TestDispatchReexport calls a function the module re-exports from one
// of its imports, with a struct of that module.
func TestDispatchReexport(t *testing.T) {
	lib, p := loadPrepared(t, "testdata/golden/reexports.harn")
	for name, args := range map[string]string{"double": `{"x":21}`, "norm": `{"v":{"x":3,"y":4}}`} {
		pt, _ := p.Tool(name)
		a, _ := jsonv.Parse([]byte(args))
		o := pt.Invoke(lib.Thread(), a)
		if o.Kind != tool.Success {
			t.Errorf("%s: %s", name, o.Summary)
		}
	}
}

// TestLoadInitFailure: a module whose initialisation throws does not
// load, and the thrown value is not rendered.
func TestLoadInitFailure(t *testing.T) {
	path := writeTemp(t, "lib.harn", "fn fail() { throw \"secret value\" }\nlet secret = fail()\npub fn f() -> int { return 1 }\n")
	_, err := Load(path, quiet())
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "tool threw an undeclared value") {
		t.Fatalf("load: %v", err)
	}
	if _, err := Catalog(path, quiet()); err != nil {
		t.Fatalf("the catalog does not run the module: %v", err)
	}
}
