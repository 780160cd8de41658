package secrets_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/interp"
)

// secret_scan reports exactly what the harn.secret_scan tool reports
// (internal/secretscan), field for field.
func TestSecretScanMatchesTool(t *testing.T) {
	for _, content := range []string{
		"",
		"clean text",
		`token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`,
		"a AKIAABCDEFGHIJKLMNOP\nb npm_abcdefghijklmnopqrstuvwxyz0123456789 é sk-abcdefghijklmnopqrstuvwx",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----",
		`api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'` + "\n" + `PASSWORD: "Zq8vR2mX7pL4tK9wB3nY6cF1"`,
	} {
		var stderr bytes.Buffer
		src := "println(json_stringify(secret_scan(" + strconv.Quote(content) + ")))"
		res := interp.RunProgram(filepath.Join(t.TempDir(), "scan.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
		if res.Err != nil {
			t.Fatalf("%q: %v\n%s", content, res.Err, stderr.String())
		}
		var got, want []map[string]any
		if err := json.Unmarshal(res.Stdout, &got); err != nil {
			t.Fatalf("%q: %v: %s", content, err, res.Stdout)
		}
		b, _ := json.Marshal(secretscan.Scan(content))
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\nsecret_scan %v\ntool        %v", content, got, want)
		}
		if content != "" && len(want) == 0 && content != "clean text" {
			t.Errorf("%q: expected findings", content)
		}
	}
}

// Findings of an empty scan is an empty list, never nil.
func TestFindingsEmpty(t *testing.T) {
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(t.TempDir(), "scan.harn"), []byte(`println(type_of(secret_scan("x")) + " " + to_string(len(secret_scan("x"))))`), interp.Options{Stderr: &stderr})
	if res.Err != nil || string(res.Stdout) != "list 0\n" {
		t.Fatalf("%q %v", res.Stdout, res.Err)
	}
}
