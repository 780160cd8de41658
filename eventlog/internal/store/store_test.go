package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// DecodeHeaders reads every stored form as encoding/json does: the
// plain form on its fast path, the rest (escapes, spaces, malformed
// text) through json.Unmarshal.
func TestDecodeHeadersMatchesJSON(t *testing.T) {
	for _, s := range []string{
		`{"a":"b"}`,
		`{"trace_id":"mcp_01","mcp_client":"c/1","tool_name":"harn.trust.query"}`,
		`{"k":""}`,
		`{"":"v"}`,
		`{"a":"1","a":"2"}`,
		`{"q":"say \"hi\"","u":"\u003c\u2028"}`,
		`{"é":"ü"}`,
		`{ "a" : "b" }`,
		`{"a":"b",}`,
		`{"a":"b"`,
		`{"a":1}`,
		`{"a":"b"}x`,
		`{"a":"b","c"}`,
		"{\"a\":\"\x01\"}",
		"{\"a\":\"\xff\"}",
		`[]`,
		`null`,
		EncodeHeaders(map[string]string{"x": "<&>", "y": "line\nbreak", "z": "plain"}),
	} {
		got, gotErr := DecodeHeaders(s)
		var want map[string]string
		wantErr := json.Unmarshal([]byte(s), &want)
		if len(want) == 0 {
			want = nil
		}
		if len(got) == 0 {
			got = nil
		}
		if (gotErr != nil) != (wantErr != nil) || (wantErr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("%q: got %v, %v; encoding/json %v, %v", s, got, gotErr, want, wantErr)
		}
	}
}

// EncodeHeaders writes exactly what json.Marshal writes, on its plain
// path and on the fallback.
func TestEncodeHeadersMatchesJSON(t *testing.T) {
	many := map[string]string{}
	for _, k := range []string{"j", "i", "h", "g", "f", "e", "d", "c", "b", "a"} {
		many[k] = "v" + k
	}
	for _, h := range []map[string]string{
		nil,
		{},
		{"a": "b"},
		{"trace_id": "mcp_01", "mcp_client": "c/1 (x)", "tool_name": "harn.trust.query", "": ""},
		{"z": "1", "a": "2", "m": "~ !#$%'()*+,-./:;=?@[]^_`{|}"},
		many,
		{"q": `say "hi"`},
		{"b": `back\slash`},
		{"h": "<&>"},
		{"n": "line\nbreak"},
		{"d": "\x7f"},
		{"u": "é\u2028"},
		{"x": "\xff"},
		{"é": "plain"},
	} {
		want := "{}"
		if len(h) > 0 {
			b, _ := json.Marshal(h)
			want = string(b)
		}
		if got := EncodeHeaders(h); got != want {
			t.Errorf("EncodeHeaders(%q) = %s, want %s", h, got, want)
		}
	}
}

// Plain headers are encoded in one allocation, without reflection.
func TestEncodeHeadersAllocations(t *testing.T) {
	h := map[string]string{"trace_id": "mcp_0123456789abcdef", "mcp_client": "bench/1", "tool_name": "harn.trust.query"}
	if n := testing.AllocsPerRun(100, func() { EncodeHeaders(h) }); n != 1 {
		t.Errorf("EncodeHeaders allocates %v times, want 1", n)
	}
}

func BenchmarkEncodeHeaders(b *testing.B) {
	h := map[string]string{"trace_id": "mcp_0123456789abcdef", "mcp_client": "bench/1", "tool_name": "harn.trust.query"}
	b.ReportAllocs()
	for b.Loop() {
		EncodeHeaders(h)
	}
}

// NextGroup waits for the first step, takes the ones already waiting up
// to MaxGroup, leaves the rest for the next group, and reports a closed
// quit once nothing is waiting.
func TestNextGroup(t *testing.T) {
	steps, quit := make(chan int, MaxGroup+3), make(chan struct{})
	for i := range MaxGroup + 3 {
		steps <- i
	}
	g, ok := NextGroup(steps, quit)
	if !ok || len(g) != MaxGroup || g[0] != 0 || g[MaxGroup-1] != MaxGroup-1 {
		t.Fatalf("first group: %d steps from %v, ok %v; want the first %d", len(g), g[:1], ok, MaxGroup)
	}
	if g, ok = NextGroup(steps, quit); !ok || len(g) != 3 || g[0] != MaxGroup {
		t.Fatalf("second group %v, ok %v; want the 3 left", g, ok)
	}
	go func() { steps <- 7 }()
	if g, ok = NextGroup(steps, quit); !ok || len(g) != 1 || g[0] != 7 {
		t.Fatalf("a group waited for %v, ok %v; want [7]", g, ok)
	}
	close(quit)
	if g, ok = NextGroup(steps, quit); ok || g != nil {
		t.Fatalf("after quit: %v, ok %v", g, ok)
	}
}
