package secretscan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScan checks the invariants every scan must keep, whatever the
// input: findings sorted and in bounds, positions that agree with the
// offsets, fingerprints of the matched text, and redactions that never
// reveal a whole match longer than eight characters.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{
		`token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`,
		"ü\n" + awsKey + "\n-----BEGIN PRIVATE KEY-----\n",
		`password: 'Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6' sk-abcdefghijklmnopqrstuvwx`,
		"\xff\xfe xoxb-1234567890-abcdefghij",
		// Case folds outside ASCII: ſ (U+017F) matches s and K (U+212A)
		// matches k under (?i).
		`ſecret = "Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6"`,
		`api_KEY: "Zx9Qw2Lp7Rt5Yv3Bn8Mk4Hj6"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		findings := Scan(content)
		// The literal prefilter only skips searches that cannot match.
		if ref := scan(content, false); fmt.Sprint(ref) != fmt.Sprint(findings) {
			t.Fatalf("prefiltered scan %v differs from the full scan %v", findings, ref)
		}
		if got, want := string(AppendJSON(nil, findings)), encodeLikeServer(t, findings); got != want {
			t.Fatalf("findings JSON %s, encoding/json writes %s", got, want)
		}
		for i, fd := range findings {
			if fd.StartOffset < 0 || fd.EndOffset > len(content) || fd.StartOffset >= fd.EndOffset {
				t.Fatalf("finding %d out of bounds: %+v", i, fd)
			}
			if i > 0 {
				p := findings[i-1]
				if p.StartOffset > fd.StartOffset || p.StartOffset == fd.StartOffset && (p.EndOffset > fd.EndOffset || p.EndOffset == fd.EndOffset && p.Detector >= fd.Detector) {
					t.Fatalf("findings %d and %d out of order or duplicated", i-1, i)
				}
			}
			before := content[:fd.StartOffset]
			if fd.Line != strings.Count(before, "\n")+1 {
				t.Fatalf("line %d for offset %d", fd.Line, fd.StartOffset)
			}
			lineStart := strings.LastIndexByte(before, '\n') + 1
			if fd.ColumnStart != utf8.RuneCountInString(content[lineStart:fd.StartOffset])+1 {
				t.Fatalf("column_start %d for offset %d", fd.ColumnStart, fd.StartOffset)
			}
			raw := content[fd.StartOffset:fd.EndOffset]
			sum := sha256.Sum256([]byte(raw))
			if fd.Fingerprint != hex.EncodeToString(sum[:8]) {
				t.Fatalf("fingerprint %s", fd.Fingerprint)
			}
			if utf8.RuneCountInString(raw) > 8 && strings.Contains(fd.Redacted, raw) && fd.Detector != privateKeyID {
				t.Fatalf("redaction %q reveals the match", fd.Redacted)
			}
		}
	})
}
