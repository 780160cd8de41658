package secretscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// encodeLikeServer is how the MCP server encodes an answer: an
// encoding/json encoder that does not escape HTML.
func encodeLikeServer(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// The hand-written JSON is byte for byte encoding/json's, for the
// findings of real scans and for strings that need escaping.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 4, 19, 18, 0, 0, 0, time.UTC)
	odd := []string{"", "plain", "a<b>&c", "quote\" back\\slash", "tab\tnl\n\x01", "bad \xff utf8", "line\u2028sep\u2029", "ü…"}
	var made []Finding
	for i, s := range odd {
		made = append(made, Finding{Detector: s, Source: s, Title: s, Line: i, ColumnStart: -i, ColumnEnd: 1 << 40,
			StartOffset: i, EndOffset: i + 1, Redacted: s, Fingerprint: s})
	}
	cases := map[string][]Finding{
		"none":  Scan("nothing to see"),
		"scan":  Scan("ü\n" + awsKey + "\n-----BEGIN RSA PRIVATE KEY-----\n" + `token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`),
		"odd":   made,
		"empty": {},
	}
	for name, fs := range cases {
		if got, want := string(AppendJSON(nil, fs)), encodeLikeServer(t, fs); got != want {
			t.Errorf("%s: findings\n got %s\nwant %s", name, got, want)
		}
		a := NewAudit(CallerMCP, 42, fs, at)
		want, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Payload(); string(got) != string(want) {
			t.Errorf("%s: audit\n got %s\nwant %s", name, got, want)
		}
	}
	var zero Audit // nil findings: null, as encoding/json writes it
	if want, _ := json.Marshal(zero); string(zero.Payload()) != string(want) {
		t.Errorf("zero audit %s, want %s", zero.Payload(), want)
	}
}
