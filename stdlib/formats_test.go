package stdlib_test

import (
	"math"
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

func TestYAMLAndTOML(t *testing.T) {
	doc := dvParse(t, `{"name":"x","n":1,"f":1.5,"ok":true,"none":null,"list":[1,"two",{"a":1,"b":[]}],"nested":{"k":"yes","e":{}},"s":"a: b","q":"it's","ml":"l1\nl2","num":"12"}`)
	yamlOut := "f: 1.5\nlist:\n- 1\n- two\n- a: 1\n  b: []\nml: |-\n  l1\n  l2\n'n': 1\nname: x\nnested:\n  e: {}\n  k: 'yes'\nnone: null\nnum: '12'\nok: true\nq: it's\ns: 'a: b'\n"
	runT2(t, []t2case{
		{"yaml_stringify", []vm.Value{doc}, yamlOut},
		{"yaml_stringify", []vm.Value{lv(lv(iv(1), iv(2)), sv(""))}, "- - 1\n  - 2\n- ''\n"},
		{"yaml_stringify", []vm.Value{iv(3)}, "3\n"},
		{"yaml_parse", []vm.Value{sv(yamlOut)}, vm.ToDisplay(doc)},
		{"yaml_parse", []vm.Value{sv("a: &x {b: 1}\nc:\n  <<: *x\n  d: 0x10\ne: 1e3\nf: .inf\ng: 2024-01-01\n")}, "{a: {b: 1}, c: {b: 1, d: 16}, e: 1000.0, f: inf, g: 2024-01-01}"},
		{"yaml_parse", []vm.Value{sv("")}, "ERR: YAML parse error: EOF while parsing a value"},
		{"yaml_parse", []vm.Value{sv("---\n")}, "nil"},
		{"yaml_parse", []vm.Value{sv("a: -0\nb: +1\nc: 0x10\nd: -0.0\n")}, "{a: 0, b: 1, c: 16, d: -0.0}"},
		{"yaml_parse", []vm.Value{sv("a: [1, 2")}, "ERR: YAML parse error: did not find expected ',' or ']' at line 2 column 1, while parsing a flow sequence at line 1 column 4"},
		{"yaml_parse", []vm.Value{sv("a: 1\nb: 2\na: 3\n")}, `ERR: YAML parse error: duplicate mapping key "a" at line 3 column 1 (first defined at line 1 column 1)`},
		{"toml_parse", []vm.Value{sv("a = 1\nb = \"x\"\n[t]\nc = [1.5, true]\n[[arr]]\nn = 1\n[[arr]]\nn = 2\n")}, "{a: 1, arr: [{n: 1}, {n: 2}], b: x, t: {c: [1.5, true]}}"},
		{"toml_parse", []vm.Value{sv("a = ")}, "ERR: TOML parse error: TOML parse error at line 1, column 5\n  |\n1 | a = \n  |     ^\ninvalid string\nexpected `\"`, `'`"},
		{"toml_stringify", []vm.Value{dvParse(t, `{"b":"x\"y","a":1,"f":2.0,"t":{"c":[1,2],"d":{"e":true}},"arr":[{"n":1},{"n":2}],"odd key":1}`)}, "a = 1\nb = \"x\\\"y\"\nf = 2.0\n\"odd key\" = 1\n\n[[arr]]\nn = 1\n\n[[arr]]\nn = 2\n\n[t]\nc = [1, 2]\n\n[t.d]\ne = true\n"},
		{"toml_stringify", []vm.Value{dvParse(t, `{"a":1,"t":{"x":null}}`)}, "ERR: TOML serialize error: nil at 't.x' (TOML has no null)"},
		{"toml_stringify", []vm.Value{iv(1)}, "ERR: TOML serialize error: the top level must be a table, got int"},
	})
}

// YAML and TOML spell a float that is not finite each their own way, and
// TOML writes a fraction on every float. YAML writes a finite float as
// serde_yaml does (Rust's ryu: exponent form past 16 digits or below
// 1e-5), so 1e15 keeps its ".0" and reads back as a float.
func TestYAMLAndTOMLScalars(t *testing.T) {
	runT2(t, []t2case{
		{"yaml_stringify", []vm.Value{lv(fv(math.NaN()), fv(math.Inf(1)), fv(math.Inf(-1)), fv(1e15), fv(2), fv(0.5), vm.False, iv(-3))},
			"- .nan\n- .inf\n- -.inf\n- 1000000000000000.0\n- 2.0\n- 0.5\n- false\n- -3\n"},
		{"yaml_stringify", []vm.Value{lv(fv(1e16), fv(1e21), fv(1.5e-7), fv(1e-6), fv(0.00001), fv(math.Copysign(0, -1)), fv(1152921504606846976))},
			"- 1e16\n- 1e21\n- 1.5e-7\n- 1e-6\n- 0.00001\n- -0.0\n- 1.152921504606847e18\n"},
		{"toml_stringify", []vm.Value{dv("a", fv(math.NaN()), "b", fv(math.Inf(1)), "c", fv(math.Inf(-1)), "d", fv(1e15), "e", fv(2), "f", vm.False, "g", iv(-3))},
			"a = nan\nb = inf\nc = -inf\nd = 1000000000000000.0\ne = 2.0\nf = false\ng = -3\n"},
		{"toml_stringify", []vm.Value{dv("l", lv(fv(math.Inf(-1)), fv(1e15), vm.True))}, "l = [-inf, 1000000000000000.0, true]\n"},
	})
}

func dvParse(t *testing.T, text string) vm.Value { return mustParse(t, text) }

func TestCSVAndURLs(t *testing.T) {
	runT2(t, []t2case{
		{"csv_parse", []vm.Value{sv("a,b\n\"x,1\",\"q\"\"q\"\nshort\n")}, "[[a, b], [x,1, q\"q], [short]]"},
		{"csv_parse", []vm.Value{sv("a;b\n1;2\n3\n"), dv("headers", vm.True, "delimiter", sv(";"))}, "[{a: 1, b: 2}, {a: 3, b: }]"},
		{"csv_stringify", []vm.Value{lv(lv(sv("a"), sv("b,c")), lv(iv(1), sv("q\"")))}, "a,\"b,c\"\n1,\"q\"\"\"\n"},
		{"csv_stringify", []vm.Value{lv(dv("b", iv(1), "a", iv(2)), dv("c", iv(3))), dv("headers", vm.True)}, "a,b,c\n2,1,\n,,3\n"},
		{"csv_stringify", []vm.Value{iv(1)}, "ERR: csv_stringify: expected a list of rows"},
		{"url_parse", []vm.Value{sv("https://u:p@Example.com:8443/a/b?x=1&y=2#frag")}, "{fragment: frag, host: example.com, password: p, path: /a/b, port: 8443, query: x=1&y=2, scheme: https, username: u}"},
		{"url_parse", []vm.Value{sv("http://example.com:80")}, "{fragment: nil, host: example.com, password: nil, path: /, port: nil, query: nil, scheme: http, username: nil}"},
		{"url_parse", []vm.Value{sv("example.com/x")}, "ERR: url_parse: relative URL without a base"},
		{"url_parse", []vm.Value{sv("http://x:99999/")}, "ERR: url_parse: invalid port number"},
		{"url_parse", []vm.Value{sv("http://xn--/")}, "ERR: url_parse: invalid international domain name"},
		{"url_parse", []vm.Value{sv("http://xn--zz-.com/")}, "ERR: url_parse: invalid international domain name"},
		{"url_parse", []vm.Value{sv("http://a.xn--a.com/")}, "ERR: url_parse: invalid international domain name"},
		{"url_parse", []vm.Value{sv("http://XN--MNCHEN-3YA.de/")}, "{fragment: nil, host: xn--mnchen-3ya.de, password: nil, path: /, port: nil, query: nil, scheme: http, username: nil}"},
		{"url_parse", []vm.Value{sv("http://:80/")}, "ERR: url_parse: empty host"},
		{"url_parse", []vm.Value{sv("http://a.com:080/")}, "{fragment: nil, host: a.com, password: nil, path: /, port: nil, query: nil, scheme: http, username: nil}"},
		{"url_parse", []vm.Value{sv("http:\\\\a.com\\b\\c?x=\\")}, "{fragment: nil, host: a.com, password: nil, path: /b/c, port: nil, query: x=\\, scheme: http, username: nil}"},
		{"url_parse", []vm.Value{sv(" http:///a.com/\tx\ny ")}, "{fragment: nil, host: a.com, password: nil, path: /xy, port: nil, query: nil, scheme: http, username: nil}"},
		{"url_parse", []vm.Value{sv("http://u:@a.com/<|^>#{`}")}, "{fragment: {%60}, host: a.com, password: nil, path: /%3C|^%3E, port: nil, query: nil, scheme: http, username: u}"},
		{"url_build", []vm.Value{dv("scheme", sv("https"), "host", sv("h.io"), "port", iv(8080), "query", sv("a=1"), "fragment", sv("f"))}, "https://h.io:8080/?a=1#f"},
		{"url_build", []vm.Value{dv("host", sv("h.io"))}, "ERR: url_build: scheme is required"},
		{"query_parse", []vm.Value{sv("?a=1&b=x+y%21&c")}, "[{key: a, value: 1}, {key: b, value: x y!}, {key: c, value: }]"},
		{"query_stringify", []vm.Value{lv(dv("key", sv("a b"), "value", sv("1&2")), dv("key", sv("c"), "value", sv("é")))}, "a+b=1%262&c=%C3%A9"},
		{"query_stringify", []vm.Value{dv("x", iv(1), "y", vm.Nil)}, "x=1"},
		{"parse_junit_xml", []vm.Value{sv(`<testsuite><testcase name="a" time="0.5"/><testcase name="b" time="1"><failure message="boom">trace</failure><system-out>o</system-out></testcase><testcase name="c"><skipped/></testcase></testsuite>`)}, "[{duration_ms: 500, message: , name: a, status: passed, stderr: , stdout: }, {duration_ms: 1000, message: boom, name: b, status: failed, stderr: , stdout: o}, {duration_ms: 0, message: , name: c, status: skipped, stderr: , stdout: }]"},
		{"parse_junit_xml", []vm.Value{sv("<testsuite><testcase")}, "[]"},
	})
}

func TestMultipart(t *testing.T) {
	e := newT2(t)
	fields := lv(dv("name", sv("a"), "value", sv("1")))
	fb, _ := e.call(t, "multipart_field_bytes", sv("f"), sv("data"), sv("x.txt"), sv("text/plain"))
	fields = lv(fields.Object().(*vm.List).At(0), fb)
	form, err := e.call(t, "multipart_form_data", fields, sv("BOUNDARY"))
	if err != nil {
		t.Fatal(err)
	}
	fd := form.Object().(*vm.Dict)
	ct, _ := fd.Get("content_type")
	body, _ := fd.Get("body")
	if vm.ToDisplay(ct) != "multipart/form-data; boundary=BOUNDARY" {
		t.Errorf("content_type %s", vm.ToDisplay(ct))
	}
	parts, err := e.call(t, "multipart_parse", body, ct)
	if err != nil {
		t.Fatal(err)
	}
	got := vm.ToDisplay(parts)
	if !strings.Contains(got, "name: a, value: 1}") || !strings.Contains(got, "content_type: text/plain, filename: x.txt, name: f, value: data}") {
		t.Errorf("multipart_parse: %s", got)
	}
}
