package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

func TestParseTemplateString(t *testing.T) {
	for _, c := range []struct {
		in         string
		head, path string // head "" for a literal
		literal    string
		err        string
	}{
		{in: "plain", literal: "plain"},
		{in: "", literal: ""},
		{in: "a $input in the middle", literal: "a $input in the middle"},
		{in: "$$", literal: "$"},
		{in: "$$input", literal: "$input"},
		{in: "$input", head: "input"},
		{in: "$prev.items.0", head: "prev", path: "items/0"},
		{in: "$sum_1.total", head: "sum_1", path: "total"},
		{in: "$", err: "not a reference"},
		{in: "$1", err: "not a reference"},
		{in: "$a-b", err: "not a reference"},
		{in: "$input.", err: "empty path segment"},
		{in: "$input..x", err: "empty path segment"},
	} {
		r, lit, err := parseTemplateString(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: unexpected error %v", c.in, err)
		case c.head == "":
			if r != nil || lit != c.literal {
				t.Errorf("%q: got ref %v literal %q, want literal %q", c.in, r, lit, c.literal)
			}
		default:
			if r == nil || r.head != c.head || strings.Join(r.path, "/") != c.path {
				t.Errorf("%q: got %+v, want head %q path %q", c.in, r, c.head, c.path)
			}
		}
	}
}

func dict(kv ...any) vm.Value {
	b := vm.NewDictBuilder(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		b.Set(kv[i].(string), kv[i+1].(vm.Value))
	}
	return vm.Of(b.Build())
}

func list(items ...vm.Value) vm.Value { return vm.Of(vm.NewList(items)) }

func TestResolveTemplate(t *testing.T) {
	env := &synthEnv{
		input:   dict("x", vm.IntOf(1), "user", dict("name", vm.Str("ada"))),
		results: []vm.Value{list(vm.Str("a"), vm.Str("b"))},
		byID:    map[string]vm.Value{"first": list(vm.Str("a"), vm.Str("b"))},
	}
	tmpl := dict(
		"x", vm.Str("$input.x"),
		"name", vm.Str("$input.user.name"),
		"second", vm.Str("$prev.1"),
		"first", vm.Str("$first.0"),
		"missing", vm.Str("$input.nope"),
		"out_of_range", vm.Str("$prev.5"),
		"nested", list(vm.Str("$input.nope"), vm.Str("$$lit"), vm.IntOf(3)),
		"whole", vm.Str("$input"),
	)
	got, ok := env.resolve(tmpl)
	if !ok {
		t.Fatal("a dict template is always present")
	}
	want := "{first: a, name: ada, nested: [nil, $lit, 3], second: b, whole: {user: {name: ada}, x: 1}, x: 1}"
	if s := vm.ToDisplay(got); s != want {
		t.Errorf("resolve = %s\nwant      %s", s, want)
	}
	if _, ok := env.resolve(vm.Str("$input.user.name.first")); ok {
		t.Error("a path through a string must be missing")
	}
}

func TestLiteralTemplate(t *testing.T) {
	if !literalTemplate(dict("a", list(vm.Str("x"), vm.Str("$$y")))) {
		t.Error("escaped dollars are literal")
	}
	if literalTemplate(dict("a", list(vm.Str("x"), dict("b", vm.Str("$prev"))))) {
		t.Error("a nested reference is not literal")
	}
}

func TestHasLocalRef(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{`{"type":"string"}`, false},
		{`{"$ref":"#/components/schemas/W"}`, false},
		{`{"$ref":"#/$defs/W"}`, true},
		{`{"items":{"anyOf":[{"type":"null"},{"$ref":"#"}]}}`, true},
		{`{"$ref":"https://example.invalid/s.json"}`, false},
		{`{"const":{"$ref":"#/x"}}`, true}, // conservative: instance data is not told apart
	} {
		doc, err := jsonv.Parse([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := hasLocalRef(doc); got != c.want {
			t.Errorf("hasLocalRef(%s) = %v, want %v", c.doc, got, c.want)
		}
	}
}

func TestSynthCacheBoundAndIdentity(t *testing.T) {
	c := &synthCache{m: map[string]*synthEntry{}}
	defs := []*vm.Dict{vm.NewDict().Set("name", vm.Str("a"))}
	for i := 0; i < maxSynthCache+10; i++ {
		h := fmt.Sprintf("h%03d", i)
		c.store(&synthEntry{hash: h, name: h, uses: defs, value: vm.NewDict()})
	}
	if len(c.order) != maxSynthCache || len(c.m) != maxSynthCache {
		t.Fatalf("cache holds %d/%d entries, want %d", len(c.order), len(c.m), maxSynthCache)
	}
	if c.order[0] != "h010" {
		t.Errorf("oldest kept entry is %s, want h010", c.order[0])
	}
	if c.lookup("h005", defs, nil) != nil {
		t.Error("an evicted entry must miss")
	}
	if c.lookup("h100", defs, nil) == nil || c.m["h100"].hits != 1 {
		t.Error("a stored entry must hit and count the hit")
	}
	other := []*vm.Dict{vm.NewDict().Set("name", vm.Str("a"))}
	if c.lookup("h100", other, nil) != nil {
		t.Error("an equal but different definition (another handler) must miss")
	}
	// Storing a hash again replaces the entry and moves it last.
	c.store(&synthEntry{hash: "h100", name: "again", uses: other, value: vm.NewDict()})
	if len(c.order) != maxSynthCache || c.order[len(c.order)-1] != "h100" || c.m["h100"].name != "again" {
		t.Errorf("re-storing h100: order tail %s, name %s", c.order[len(c.order)-1], c.m["h100"].name)
	}
}
