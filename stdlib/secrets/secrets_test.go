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

// secret_get reads "<provider>/<secret>" from the variable the
// orchestrator reads trigger secrets from, and an unset secret's error
// names the variable without a value.
func TestSecretGetReadsEnvironment(t *testing.T) {
	t.Setenv("HARN_SECRET_GITHUB_API_TOKEN", "s3cr3t-value")
	t.Setenv("HARN_SECRET_EMPTY_ONE", "")
	run := func(src string) (string, error) {
		var stderr bytes.Buffer
		res := interp.RunProgram(filepath.Join(t.TempDir(), "get.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
		return string(res.Stdout), res.Err
	}
	out, err := run(`println(secret_get("github/api-token"))`)
	if err != nil || out != "s3cr3t-value\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	for src, want := range map[string]string{
		`secret_get("empty/one")`:   "secret_get: secret empty/one is not set (environment variable HARN_SECRET_EMPTY_ONE)",
		`secret_get("nope/absent")`: "secret_get: secret nope/absent is not set (environment variable HARN_SECRET_NOPE_ABSENT)",
	} {
		if _, err := run(src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}
	out, err = run(`let s = secret_get("github/api-token")
println(len(s))`)
	if err != nil || out != "12\n" {
		t.Fatalf("got %q, %v", out, err)
	}
}
