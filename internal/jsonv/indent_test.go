package jsonv

import (
	"bytes"
	"encoding/json"
	"testing"
)

var indentCases = []string{
	`{}`, `[]`, `null`, `"s"`, `12.5e-3`, `true`,
	`{"results":[]}`,
	`{"a":{},"b":[],"c":[{}],"d":[[]],"e":{"f":{"g":[1,2,{"h":null}]}}}`,
	`[{"detector":"github-token","redacted":"ghp_…yzAB","line":1,"column_start":10}]`,
	`{"q":"a \"quoted\" [string], {with}: brackets","b":"\\","c":"\\\"","d":"\u2028<&>"}`,
	`["{","}","[","]",",",":","\\\\"]`,
}

// AppendIndent writes what encoding/json's Indent writes for compact
// JSON.
func TestAppendIndentIsIndent(t *testing.T) {
	for _, c := range indentCases {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(c), "", "  "); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if got := AppendIndent(nil, []byte(c)); string(got) != want.String() {
			t.Errorf("%s:\ngot  %s\nwant %s", c, got, want.String())
		}
	}
}

func FuzzAppendIndent(f *testing.F) {
	for _, c := range indentCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		compact, err := json.Marshal(v)
		if err != nil {
			return
		}
		var want bytes.Buffer
		json.Indent(&want, compact, "", "  ")
		if got := AppendIndent(nil, compact); string(got) != want.String() {
			t.Errorf("%s:\ngot  %s\nwant %s", compact, got, want.String())
		}
	})
}

func BenchmarkAppendIndent(b *testing.B) {
	compact := []byte(`[{"detector":"github-token","source":"gitleaks","title":"GitHub token","line":1,"column_start":10,"column_end":52,"start_offset":9,"end_offset":51,"redacted":"ghp_…yzAB","fingerprint":"c2f9a2618fbd63dd"}]`)
	b.Run("AppendIndent", func(b *testing.B) {
		var buf []byte
		for range b.N {
			buf = AppendIndent(buf[:0], compact)
		}
	})
	b.Run("json.Indent", func(b *testing.B) {
		var buf bytes.Buffer
		for range b.N {
			buf.Reset()
			json.Indent(&buf, compact, "", "  ")
		}
	})
}
