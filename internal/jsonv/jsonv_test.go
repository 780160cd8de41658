package jsonv

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRoundTripKeepsOrderAndNumbers(t *testing.T) {
	for _, in := range []string{
		`{"z":1,"a":[true,false,null],"m":{"b":1.50,"a":-0,"c":1e3}}`,
		`[]`, `{}`, `"x"`, `12345678901234567890`,
		`{"s":"quote \" back \\ nl \n tab \t ctl \u0001 <>& ü 🚀"}`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10}`,
	} {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := string(Marshal(v))
		var a, b any
		json.Unmarshal([]byte(in), &a)
		json.Unmarshal([]byte(got), &b)
		if string(Marshal(FromPlain(a))) != string(Marshal(FromPlain(b))) {
			t.Errorf("%s -> %s", in, got)
		}
	}
	v, _ := Parse([]byte(`{"z":1,"a":2}`))
	if got := string(Marshal(v)); got != `{"z":1,"a":2}` {
		t.Errorf("order lost: %s", got)
	}
	if got := string(Marshal("<&>")); got != `"<&>"` {
		t.Errorf("HTML escaped: %s", got)
	}
	if got := string(MarshalIndent(v)); got != "{\n  \"z\": 1,\n  \"a\": 2\n}" {
		t.Errorf("indent: %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `[1,]`, `01`, `"\x"`, `tru`, `{} x`, "\"a\x01\""} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}

func TestEqualAndNumbers(t *testing.T) {
	a, _ := Parse([]byte(`{"x":[1,2.0],"y":{"b":1,"a":2}}`))
	b, _ := Parse([]byte(`{"y":{"a":2,"b":1.0},"x":[1.0,2]}`))
	if !Equal(a, b) {
		t.Error("semantically equal documents differ")
	}
	if !IsInteger("1.0") || !IsInteger("1e2") || IsInteger("1.5") || !IsInteger("-7") {
		t.Error("IsInteger")
	}
	if CompareNumbers("10", "9") <= 0 || CompareNumbers("0.1", "0.10") != 0 || CompareNumbers("-1e400", "1") >= 0 {
		t.Error("CompareNumbers")
	}
}

func TestLargeObjectLookup(t *testing.T) {
	o := NewObject(0)
	for i := 0; i < 20; i++ {
		o.Set(string(rune('a'+i)), i)
	}
	o.Set("c", 99)
	if v, _ := o.Get("c"); v != 99 || o.Len() != 20 {
		t.Errorf("replace in indexed object: %v %d", v, o.Len())
	}
	c := o.Copy()
	c.Set("zz", 1)
	if o.Has("zz") || !c.Has("zz") || !c.Has("t") {
		t.Error("copy shares its index")
	}
}

// toolsCall is an MCP tools/call request as a client sends it.
var toolsCall = []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"n":1},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)

// TestParseAllocations pins the allocations of parsing a request: one
// for the text its strings and numbers are cut from and one per object
// of up to four members (the three objects here each fit), plus the
// values boxed in interfaces.
func TestParseAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Parse(toolsCall) }); n > 15 {
		t.Errorf("Parse of a tools/call request: %v allocations, want at most 15", n)
	}
}

// TestParseCopiesInput checks that parsed strings and numbers never
// alias the input, which callers may reuse, whether the text is short
// enough to be shared or not.
func TestParseCopiesInput(t *testing.T) {
	for _, n := range []int{10, sharedTextLimit + 1} {
		in := []byte(`{"key":"` + strings.Repeat("v", n) + `","n":12,"o":{"a":"b","c":"d","e":"f","g":"h","i":"j"}}`)
		want := append([]byte(nil), in...)
		v, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range in {
			in[i] = 'x'
		}
		if got := Marshal(v); !bytes.Equal(got, want) {
			t.Errorf("input of %d bytes: after overwriting the input the value reads %.60s…", len(want), got)
		}
	}
}

// TestMarshalAllocations: encoding a value allocates its result once,
// not a buffer grown a step at a time.
func TestMarshalAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	v, err := Parse(toolsCall)
	if err != nil {
		t.Fatal(err)
	}
	Marshal(v) // warm the buffer pool
	if n := testing.AllocsPerRun(100, func() { Marshal(v) }); n > 1 {
		t.Errorf("Marshal of a tools/call request: %v allocations, want 1", n)
	}
	if got := string(Marshal(v)); got != string(toolsCall) {
		t.Errorf("Marshal: %s", got)
	}
}

func BenchmarkParseToolsCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(toolsCall); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMemberAndObj(t *testing.T) {
	o := Obj("type", "object", "required", Strings([]string{"a"}), "n", Int(3))
	if got := string(Marshal(o)); got != `{"type":"object","required":["a"],"n":3}` {
		t.Fatalf("Obj: %s", got)
	}
	if s, ok := Member[string](o, "type"); !ok || s != "object" {
		t.Errorf("Member[string](type) = %q, %v", s, ok)
	}
	if l, ok := Member[[]any](o, "required"); !ok || len(l) != 1 {
		t.Errorf("Member[[]any](required) = %v, %v", l, ok)
	}
	if _, ok := Member[string](o, "n"); ok {
		t.Error("Member[string] of a number reported ok")
	}
	if _, ok := Member[*Object](o, "missing"); ok {
		t.Error("Member of a missing key reported ok")
	}
	if _, ok := Member[string](nil, "type"); ok {
		t.Error("Member of a nil object reported ok")
	}
}

func TestPointerTokens(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "a/b": "a~1b", "~x": "~0x", "~/": "~0~1", "~1": "~01"} {
		if got := EscapePointer(in); got != want {
			t.Errorf("EscapePointer(%q) = %q, want %q", in, got, want)
		}
		if back := UnescapePointer(want); back != in {
			t.Errorf("UnescapePointer(%q) = %q, want %q", want, back, in)
		}
	}
}

// TestParseLimitSerdeDepth: ParseLimit(SerdeDepth) accepts 127 nested
// containers and refuses the 128th, as serde_json does; Parse accepts it.
func TestParseLimitSerdeDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if _, err := ParseLimit(nest(127), SerdeDepth); err != nil {
		t.Fatalf("127 containers: %v", err)
	}
	if _, err := ParseLimit([]byte(`{"a":`+string(nest(126))+`}`), SerdeDepth); err != nil {
		t.Fatalf("object holding 126 containers: %v", err)
	}
	if _, err := ParseLimit(nest(128), SerdeDepth); err == nil {
		t.Fatal("128 containers: accepted")
	}
	if _, err := Parse(nest(128)); err != nil {
		t.Fatalf("Parse, 128 containers: %v", err)
	}
}
