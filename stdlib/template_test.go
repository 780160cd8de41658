package stdlib_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/vm"
)

func TestRenderString(t *testing.T) {
	b := mustParse(t, `{"name":"Ada","items":["a","b","c"],"user":{"role":"admin","tags":["x","y"]},"n":3,"empty":[],"blank":"  ","f":1.0,"d":{"k1":1,"k2":2},"md":"a*b_c"}`)
	runT2(t, []t2case{
		{"render_string", []vm.Value{sv("Hi {{ name }}! {{missing}} {{ user.role }} {{ user.tags[1] }} {{ items[-1] }} {{ user[\"role\"] }} {{ user.nope }}."), b}, "Hi Ada! {{missing}} admin y c admin ."},
		{"render_string", []vm.Value{sv("{{ if n > 2 and user.role == \"admin\" }}big{{ elif n > 1 }}mid{{ else }}small{{ end }}"), b}, "big"},
		{"render_string", []vm.Value{sv("{{ if blank }}x{{ else }}blank-falsy{{ end }}|{{ if !empty }}none{{ end }}|{{ if not (n < 1 || false) }}ok{{ end }}"), b}, "blank-falsy|none|ok"},
		{"render_string", []vm.Value{sv("{{ for x in items }}{{ loop.index }}:{{ x }}{{ if not loop.last }},{{ end }}{{ end }}"), b}, "1:a,2:b,3:c"},
		{"render_string", []vm.Value{sv("{{ for x in empty }}x{{ else }}nothing{{ end }}"), b}, "nothing"},
		{"render_string", []vm.Value{sv("{{ for k, v in d }}{{ k }}={{ v }}({{ loop.index0 }}/{{ loop.length }}{{ loop.first }}) {{ end }}"), b}, "k1=1(0/2true) k2=2(1/2false) "},
		{"render_string", []vm.Value{sv("{{ name | upper }} {{ name | lower }} {{ \" x \" | trim }} {{ \"hELLO\" | capitalize }} {{ \"a big cat\" | title }} {{ items | length }} {{ items | first }}{{ items | last }} {{ items | reverse | join: \"-\" }} {{ nope | default: \"dflt\" }} {{ md | escape_md }} {{ name | replace: \"A\", \"E\" }}"), b}, "ADA ada x Hello A Big Cat 3 ac c-b-a dflt a\\*b\\_c Eda"},
		{"render_string", []vm.Value{sv("{{ user | json }}|{{ f | json }}"), b}, `{"role":"admin","tags":["x","y"]}|1.0`},
		{"render_string", []vm.Value{sv("{{ d | json: true }}"), b}, "{\n  \"k1\": 1,\n  \"k2\": 2\n}"},
		{"render_string", []vm.Value{sv("[{{ \"a\\nb\" | indent: 2 }}] [{{ \"a\\nb\" | indent: 2, true }}] {{ \"x\\ny\" | lines }}"), b}, "[a\n  b] [  a\n  b] [x, y]"},
		{"render_string", []vm.Value{sv("a {{# note #}}b {{ raw }}{{ name }}{{ endraw }}"), b}, "a b {{ name }}"},
		{"render_string", []vm.Value{sv("<ul>\n  {{- for x in items -}}\n  <li>{{ x }}</li>\n  {{- end }}\n</ul>"), b}, "<ul>  <li>a</li>  <li>b</li>  <li>c</li>\n</ul>"},
		{"render_string", []vm.Value{sv("a  \n  {{- name -}}  \n  b"), b}, "aAda  b"},
		{"render_string", []vm.Value{sv("x {{ name | foo }}"), b}, "ERR: at 1:3: unknown filter `foo`"},
		{"render_string", []vm.Value{sv("line\n  {{ name "), b}, "ERR: at 2:3: unterminated directive"},
		{"render_string", []vm.Value{sv("{{ if n }}x"), b}, "ERR: at 1:1: unterminated `if` block"},
		{"render_string", []vm.Value{sv("{{ end }}"), b}, "ERR: at 1:1: unexpected `end`"},
		{"render_string", []vm.Value{sv("{{ nil }}{{ name }}")}, "{{name}}"},
	})
}

func TestRenderFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tpl", "Hello {{ name }}\n{{ include \"parts/item.tpl\" with {label: \"L\"} }}")
	write("parts/item.tpl", "[{{ label }} {{ name }}]{{ include \"leaf.tpl\" }}")
	write("parts/leaf.tpl", "!")
	write("loop_a.tpl", "a{{ include \"loop_b.tpl\" }}")
	write("loop_b.tpl", "b{{ include \"loop_a.tpl\" }}")
	write("bad.tpl", "ok\n{{ x | nope }}")
	e := newT2(t)
	e.th.VM().ScriptDir = dir
	cases := []t2case{
		{"render", []vm.Value{sv("main.tpl"), dv("name", sv("Ada"))}, "Hello Ada\n[L Ada]!"},
		{"render_prompt", []vm.Value{sv("parts/leaf.tpl")}, "!"},
		{"render", []vm.Value{sv("missing.tpl")}, "ERR: Failed to read template " + dir + "/missing.tpl: No such file or directory (os error 2)"},
		{"render", []vm.Value{sv("bad.tpl")}, "ERR: " + dir + "/bad.tpl at 2:1: unknown filter `nope`"},
		{"render", []vm.Value{sv("loop_a.tpl")}, "ERR: " + dir + "/loop_b.tpl at 1:2: circular include detected: " + dir + "/loop_a.tpl -> " + dir + "/loop_b.tpl -> " + dir + "/loop_a.tpl"},
		{"render", []vm.Value{sv("@/parts/leaf.tpl")}, "!"},
	}
	os.WriteFile(filepath.Join(dir, "harn.toml"), []byte("[asset_roots]\nparts = \"parts\"\n"), 0o644)
	cases = append(cases, t2case{"render", []vm.Value{sv("@parts/leaf.tpl")}, "!"})
	for _, c := range cases {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s%v:\n got  %q\n want %q", c.name, c.args, got, c.want)
		}
	}
}

func TestTemplateExports(t *testing.T) {
	names, err := templates.TemplateVariables("Review {{ language }} code:\n{{ code | trim }}{{ for x in items }}{{ x }}{{ loop.index }}{{ other }}{{ end }}{{ if language == lang2 }}{{ end }}", 1)
	if err != nil || strings.Join(names, ",") != "language,code,items,other,lang2" {
		t.Errorf("TemplateVariables = %v, %v", names, err)
	}
	e := newT2(t)
	out, err := templates.RenderTemplate(e.th, "Hi {{ who }}", 1, "", dv("who", sv("you")).Dict())
	if err != nil || out != "Hi you" {
		t.Errorf("RenderTemplate = %q, %v", out, err)
	}
}

func TestTemplateValues(t *testing.T) {
	b := dv("big", fv(1e20), "tiny", fv(0.00001), "e15", fv(1e15), "mid", fv(123.456), "frac", fv(1.5e-7), "s", sv("héllo"),
		"r", &vm.Range{Start: 1, End: 3, Inclusive: true}, "nan", fv(zeroF/zeroF), "ctl", sv("a\u0001\b\u007f"))
	runT2(t, []t2case{
		{"render_string", []vm.Value{sv("{{ big | json }} {{ tiny | json }} {{ e15 | json }} {{ mid | json }} {{ frac | json }} {{ nan | json }}"), b}, "1e20 0.00001 1000000000000000.0 123.456 1.5e-7 null"},
		{"render_string", []vm.Value{sv("{{ ctl | json }}"), b}, "\"a\\u0001\\b\u007f\""},
		{"render_string", []vm.Value{sv("{{ for c in s }}{{ c }}.{{ end }} {{ for i in r }}{{ i }}{{ end }} {{ s[1] }}{{ s[-1] }}{{ s[9] }}"), b}, "h.é.l.l.o. 123 éo"},
	})
}
