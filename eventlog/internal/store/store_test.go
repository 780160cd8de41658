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
