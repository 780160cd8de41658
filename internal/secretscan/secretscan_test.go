package secretscan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// The spec's example, byte for byte.
func TestSpecExample(t *testing.T) {
	got, err := json.Marshal(Scan(`token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"detector":"github-token","source":"gitleaks","title":"GitHub token","line":1,"column_start":10,"column_end":52,"start_offset":9,"end_offset":51,"redacted":"ghp_…yzAB","fingerprint":"c2f9a2618fbd63dd"}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// want is the part of a finding a table row states; source and title
// come from the detector and the fingerprint is checked separately.
type want struct {
	detector               string
	line, colStart, colEnd int
	start, end             int
	redacted               string
}

func (w want) String() string {
	return fmt.Sprintf("%s line %d col %d..%d bytes %d..%d %q", w.detector, w.line, w.colStart, w.colEnd, w.start, w.end, w.redacted)
}

const (
	ghToken   = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB" // 42 chars
	awsKey    = "AKIAIOSFODNN7EXAMPLE"                       // AWS's documented example
	npmToken  = "npm_abcdefghijklmnopqrstuvwxyz0123456789"   // npm_ + 36
	pemHeader = "-----BEGIN RSA PRIVATE KEY-----"
)

func TestScan(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []want
	}{
		{"empty", "", nil},
		{"clean prose", "nothing to see here: token = \"short\"\n", nil},
		{"aws key unquoted", "aws_access_key_id = " + awsKey + "\n",
			[]want{{"aws-access-key-id", 1, 21, 41, 20, 40, "AKIA…MPLE"}}},
		{"aws key quoted: the assignment rule yields to the specific one", `aws_access_key = "` + awsKey + `"`,
			[]want{{"aws-access-key-id", 1, 19, 39, 18, 38, "AKIA…MPLE"}}},
		{"aws key needs a word boundary", "XAKIAIOSFODNN7EXAMPLE", nil},
		{"github token types", "gho_" + ghToken[4:] + " ghs_" + ghToken[4:],
			[]want{{"github-token", 1, 1, 43, 0, 42, "gho_…yzAB"}, {"github-token", 1, 44, 86, 43, 85, "ghs_…yzAB"}}},
		{"github token too short", "ghp_" + strings.Repeat("a", 35), nil},
		{"github token glued to a word", "xghp_" + ghToken[4:], nil},
		{"fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefXYZ",
			[]want{{"github-fine-grained-token", 1, 1, 41, 0, 40, "gith…fXYZ"}}},
		{"gitlab", "CI_TOKEN glpat-abcDEF123_456-ghiJKLmn end",
			[]want{{"gitlab-token", 1, 10, 38, 9, 37, "glpa…KLmn"}}},
		{"npm", npmToken,
			[]want{{"npm-token", 1, 1, 41, 0, 40, "npm_…6789"}}},
		{"npm wrong length", npmToken + "0", nil},
		{"openai", "OPENAI=sk-proj-AbCdEfGhIjKlMnOpQrStUv",
			[]want{{"openai-api-key", 1, 8, 38, 7, 37, "sk-p…StUv"}}},
		{"slack", "hook xoxb-1234567890-abcdefghij",
			[]want{{"slack-token", 1, 6, 32, 5, 31, "xoxb…ghij"}}},
		{"stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
			[]want{{"stripe-secret-key", 1, 1, 33, 0, 32, "sk_l…p7dc"}}},
		{"restricted stripe key", "rk_test_0123456789abcdefXYZ",
			[]want{{"stripe-secret-key", 1, 1, 28, 0, 27, "rk_t…fXYZ"}}},
		{"private key block", "key:\n" + pemHeader + "\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n",
			[]want{{"private-key-block", 2, 1, 32, 5, 36, pemHeader + " …"}}},
		{"private key header must be a whole line", "x " + pemHeader, nil},
		{"openssh and pkcs8 headers", "-----BEGIN OPENSSH PRIVATE KEY-----\n-----BEGIN PRIVATE KEY-----",
			[]want{{"private-key-block", 1, 1, 36, 0, 35, "-----BEGIN OPENSSH PRIVATE KEY----- …"}, {"private-key-block", 2, 1, 28, 36, 63, "-----BEGIN PRIVATE KEY----- …"}}},
		{"high-entropy assignment covers the value only", `password = "c2VjcmV0LXZhbHVlLXdpdGgtZW50cm9weQ=="`,
			[]want{{"high-entropy-credential-assignment", 1, 13, 49, 12, 48, "c2Vj…eQ=="}}},
		{"keyword is case-insensitive, colon form, single quotes", `  Client_Secret: 'Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6'`,
			[]want{{"high-entropy-credential-assignment", 1, 19, 43, 18, 42, "Zx9Q…4Hj6"}}},
		{"keywords fold like (?i): long s", "ſecret = \"Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6\"",
			[]want{{"high-entropy-credential-assignment", 1, 11, 35, 11, 35, "Zx9Q…4Hj6"}}},
		{"keywords fold like (?i): Kelvin sign", "api_\u212aEY: 'Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6'",
			[]want{{"high-entropy-credential-assignment", 1, 11, 35, 12, 36, "Zx9Q…4Hj6"}}},
		{"low-entropy value is not a secret", `password = "aaaaaaaaaaaaaaaaaaaaaaaa"`, nil},
		{"value shorter than 20", `api_key = "Zx9Qw2Lp7Rt5Yv3Bn8M"`, nil},
		{"keyword too far from the operator", `token` + strings.Repeat(" ", 33) + `= "Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6"`, nil},
		{"assignment span differs from the token span: both kept", `token = "` + ghToken + `-x"`,
			[]want{{"github-token", 1, 10, 52, 9, 51, "ghp_…yzAB"}, {"high-entropy-credential-assignment", 1, 10, 54, 9, 53, "ghp_…AB-x"}}},
		{"columns count characters, offsets count bytes", "héllo wörld\n  ünïcode " + ghToken,
			[]want{{"github-token", 2, 11, 53, 26, 68, "ghp_…yzAB"}}},
		{"sorted by offset whatever the detector order", "sk_test_0123456789abcdefXYZ " + awsKey + "\n" + npmToken,
			[]want{
				{"stripe-secret-key", 1, 1, 28, 0, 27, "sk_t…fXYZ"},
				{"aws-access-key-id", 1, 29, 49, 28, 48, "AKIA…MPLE"},
				{"npm-token", 2, 1, 41, 49, 89, "npm_…6789"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Scan(tc.content)
			if got == nil {
				t.Fatal("Scan returned nil, want an empty list")
			}
			var gotW []want
			for _, f := range got {
				gotW = append(gotW, want{f.Detector, f.Line, f.ColumnStart, f.ColumnEnd, f.StartOffset, f.EndOffset, f.Redacted})
				sum := sha256.Sum256([]byte(tc.content[f.StartOffset:f.EndOffset]))
				if f.Fingerprint != hex.EncodeToString(sum[:8]) {
					t.Errorf("%s: fingerprint %s is not the SHA-256 prefix of the match", f.Detector, f.Fingerprint)
				}
				d := detectorByID(f.Detector)
				if f.Source != d.source || f.Title != d.title {
					t.Errorf("%s: source/title %q/%q", f.Detector, f.Source, f.Title)
				}
			}
			if fmt.Sprint(gotW) != fmt.Sprint(tc.want) {
				t.Errorf("got  %v\nwant %v", gotW, tc.want)
			}
		})
	}
}

func detectorByID(id string) detector {
	for _, d := range detectors {
		if d.id == id {
			return d
		}
	}
	return detector{}
}

func TestRedact(t *testing.T) {
	tests := []struct{ detector, text, want string }{
		{"npm-token", "abc", "***"},
		{"npm-token", "abcdefgh", "********"},
		{"npm-token", "abcdefghi", "abcd…fghi"},
		{"npm-token", "ééééxyzàààà", "éééé…àààà"},
		{"npm-token", "ééé", "***"},
		{privateKeyID, "-----BEGIN EC PRIVATE KEY-----", "-----BEGIN EC PRIVATE KEY----- …"},
	}
	for _, tc := range tests {
		if got := redact(tc.detector, tc.text); got != tc.want {
			t.Errorf("redact(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestEntropy(t *testing.T) {
	tests := []struct {
		s    string
		want float64
	}{{"", 0}, {"aaaa", 0}, {"abab", 1}, {"abcd", 2}, {"0123456789abcdef", 4},
		// ASCII is counted in an array, other characters in a map.
		{"aé", 1}, {"ééüü", 1}, {"aéaé", 1}}
	for _, tc := range tests {
		if got := entropy(tc.s); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("entropy(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// The audit record describes the scan without any of the secrets in it.
func TestAuditHoldsNoRawSecret(t *testing.T) {
	content := strings.Join([]string{
		`token = "` + ghToken + `"`,
		"aws = " + awsKey,
		`password = "c2VjcmV0LXZhbHVlLXdpdGgtZW50cm9weQ=="`,
		pemHeader,
		"MIIEowIBAAKCAQEAsecretbody",
		"slack xoxb-1234567890-abcdefghij",
	}, "\n")
	findings := Scan(content)
	if len(findings) != 5 {
		t.Fatalf("got %d findings, want 5: %+v", len(findings), findings)
	}
	at := time.Date(2026, 4, 19, 18, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	a := NewAudit(CallerMCP, len(content), findings, at)
	payload := string(a.Payload())
	for _, f := range findings {
		raw := content[f.StartOffset:f.EndOffset]
		if f.Detector == privateKeyID {
			// The redaction keeps the header line on purpose; what
			// follows it must not leak.
			raw = "MIIEowIBAAKCAQEAsecretbody"
		}
		if strings.Contains(payload, raw) {
			t.Errorf("audit payload contains the raw %s match %q", f.Detector, raw)
		}
		// Nor any 9-character window of it (redaction keeps 4+4).
		for i := 0; i+9 <= len(raw); i++ {
			if strings.Contains(payload, raw[i:i+9]) && f.Detector != privateKeyID {
				t.Errorf("audit payload contains %q from the %s match", raw[i:i+9], f.Detector)
				break
			}
		}
	}
	if a.Kind() != KindDetected || a.Clean || a.FindingCount != 5 || a.ContentLen != len(content) || a.Caller != "mcp.harn.secret_scan" {
		t.Errorf("audit header wrong: %+v", a)
	}
	if a.ObservedAt != "2026-04-19T16:00:00Z" {
		t.Errorf("observed_at = %q", a.ObservedAt)
	}
	var doc map[string]any
	if err := json.Unmarshal(a.Payload(), &doc); err != nil {
		t.Fatal(err)
	}
	first := doc["findings"].([]any)[0].(map[string]any)
	if len(first) != 10 || first["fingerprint"] != "c2f9a2618fbd63dd" || first["redacted"] != "ghp_…yzAB" {
		t.Errorf("first audit finding = %v", first)
	}

	clean := NewAudit(CallerMCP, 3, Scan("abc"), at)
	wantClean := `{"caller":"mcp.harn.secret_scan","content_len":3,"finding_count":0,"clean":true,"findings":[],"observed_at":"2026-04-19T16:00:00Z"}`
	if clean.Kind() != KindClean || string(clean.Payload()) != wantClean {
		t.Errorf("clean audit %s %s\nwant %s", clean.Kind(), clean.Payload(), wantClean)
	}
}

// A token rule's matches, found by trying the anchored regexp where its
// literals occur, are those of its whole regexp: at a word boundary only,
// leftmost first, not overlapping, a literal inside a match skipped.
func TestTokenMatchesAgreeWithRegexp(t *testing.T) {
	tok := strings.Repeat("a1B2", 10)
	contents := []string{
		"",
		"ghp_" + tok,
		"xghp_" + tok + " _ghp_" + tok + " -ghp_" + tok + " éghp_" + tok,
		"ghp_" + tok + "ghp_" + tok + " ghp_" + tok + ".gho_" + tok,
		"ghp_" + strings.Repeat("x", 300) + " ghp_" + tok,
		"sk_live_" + tok + " sk-" + tok + "sk-" + tok + " rk_test_" + tok[:16],
		"AKIA" + strings.Repeat("Q", 16) + "AKIA " + "ASIAASIA" + strings.Repeat("7", 12) + " AKIA" + strings.Repeat("Z", 15),
		"xoxb-" + tok + "-xoxp-1234567890 npm_" + strings.Repeat("n", 36) + " npm_" + strings.Repeat("n", 37),
	}
	for _, content := range contents {
		for i := range detectors {
			d := &detectors[i]
			if d.anchored == nil {
				continue
			}
			got, want := d.tokenMatches(content), d.re().FindAllStringSubmatchIndex(content, -1)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s in %q: %v, the regexp finds %v", d.id, content, got, want)
			}
		}
	}
}

// The assignment rule's matches in ASCII text, found by trying its
// anchored regexp only where an assignment can start, are those of its
// whole regexp: keywords in any case, up to 32 characters before the
// ':' or '=', spaces and newlines before the quote, values of 20
// characters and more, one match not overlapping the next.
func TestAssignmentMatchesAgreeWithRegexp(t *testing.T) {
	v := "Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6"
	contents := []string{
		"",
		`token = "` + v + `"`,
		`TOKEN="` + v + `" Api_Key: '` + v + `' passwd= "short"`,
		`client-secret` + strings.Repeat("x", 32) + `= "` + v + `"` + ` private_key` + strings.Repeat("x", 33) + `= "` + v + `"`,
		"secret:\n\n\t  \"" + v + "\"\nsecret\n= \"" + v + "\"",
		`pwd = "` + v + `' access_key = "` + v + ` " secret = "` + v + v + v + `"secret="` + v + `"`,
		`token = "` + v + `token = "` + v + `"`,
		`apiapiapi token: token: "` + v + `" password=password="` + v + `"`,
		`token = ""` + v + `"" secret = '` + v + `'x`,
		`secret = "` + v[:20] + `" token = "` + v[:19] + `"`,
	}
	d := &detectors[len(detectors)-1]
	if d.id != highEntropyID {
		t.Fatalf("last detector is %s", d.id)
	}
	for _, content := range contents {
		got, want := d.assignmentMatches(content, strings.ToLower(content)), d.re().FindAllStringSubmatchIndex(content, -1)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("in %q: %v, the regexp finds %v", content, got, want)
		}
	}
}
