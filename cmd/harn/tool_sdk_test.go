package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolSDK: `harn tool sdk` from a module and from its catalog file
// writes the same package; usage errors exit 2 and name the problem.
func TestToolSDK(t *testing.T) {
	dir := t.TempDir()
	module := "../../tool/sdkgen/testdata/catalogs/shop.harn"
	catalog := "../../tool/sdkgen/testdata/catalogs/shop.json"
	for _, c := range []struct{ src, out string }{{module, "a"}, {catalog, "b"}} {
		if _, stderr, code := runHarn("tool", "sdk", c.src, "--lang", "go", "--out", filepath.Join(dir, c.out), "--name", "example.com/shop"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	for _, f := range []string{"go.mod", "go.sum", "client.go", "types.go", "runtime.go"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "b", f))
		if string(a) != string(b) {
			t.Errorf("%s differs between the module and its catalog", f)
		}
	}
	if mod, _ := os.ReadFile(filepath.Join(dir, "a", "go.mod")); !strings.HasPrefix(string(mod), "module example.com/shop\n") {
		t.Errorf("go.mod: %s", mod)
	}
	if src, _ := os.ReadFile(filepath.Join(dir, "a", "client.go")); !strings.Contains(string(src), "\npackage shop\n") {
		t.Error("the package clause is the last element of --name")
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"tool", "sdk", catalog, "--out", dir}, "--lang is required"},
		{[]string{"tool", "sdk", catalog, "--lang", "rust", "--out", dir}, `unsupported --lang "rust"`},
		{[]string{"tool", "sdk", catalog, "--lang", "ts"}, "--out is required"},
		{[]string{"tool", "sdk", "--lang", "ts", "--out", dir}, "needs a FILE"},
		{[]string{"tool", "sdk", module, "--lang", "ts", "--out", dir, "--surface", "nope"}, `unsupported --surface "nope"`},
	} {
		_, stderr, code := runHarn(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	// a missing catalog is worded as harn check words a missing file
	if _, stderr, code := runHarn("tool", "sdk", "missing.json", "--lang", "ts", "--out", dir); code != 1 || stderr != "error: cannot read missing.json: No such file or directory (os error 2)\n" {
		t.Errorf("missing catalog: exit %d, %q", code, stderr)
	}
	// docs/sdk.md: the default --name is info.name followed by -client
	if out, _, _ := runHarn("tool", "sdk", "--help"); !strings.Contains(out, "info.name followed by -client") {
		t.Errorf("--help does not give the default --name:\n%s", out)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema_version":"harn-tools/1.0","tools":[]}`), 0o644)
	if _, stderr, code := runHarn("tool", "sdk", bad, "--lang", "ts", "--out", dir); code != 1 || !strings.Contains(stderr, "unsupported tool catalog schema_version") {
		t.Errorf("bad catalog: exit %d, %q", code, stderr)
	}
}

// TestToolDiff: text and JSON reports, --fail-on, exit statuses.
func TestToolDiff(t *testing.T) {
	v1, v2 := "../../tool/catalogdiff/testdata/shop_v1.harn", "../../tool/catalogdiff/testdata/shop_v2.harn"
	out, stderr, code := runHarn("tool", "diff", v1, v2)
	if code != 0 || !strings.Contains(out, "breaking   /tools/legacy: tool \"legacy\" no longer exists (tool-removed)\n") ||
		!strings.HasSuffix(out, "3 breaking, 3 compatible; suggested version bump: major\n") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	if _, _, code := runHarn("tool", "diff", v1, v2, "--fail-on", "breaking"); code != 1 {
		t.Errorf("--fail-on breaking with breaking changes: exit %d", code)
	}
	if _, _, code := runHarn("tool", "diff", v1, v1, "--fail-on=any"); code != 0 {
		t.Errorf("--fail-on any without changes: exit %d", code)
	}
	out, _, code = runHarn("tool", "diff", v2, v1, "--json", "--fail-on", "any")
	var r struct {
		Changes []struct{ Class, Rule, Tool, Path, Reason string }
		Bump    string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Bump != "major" || len(r.Changes) != 6 {
		t.Errorf("--json: exit %d, %v\n%s", code, err, out)
	}
	// A widened input only: compatible, minor.
	dir := t.TempDir()
	old := `{"schema_version":"harn-tools/2.0","info":{"name":"x","version":"1.2.3"},"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"governance":{"audiences":["mcp"]},"cli":{"command":["a"],"aliases":[],"hidden":false,"arguments":{}},"deferLoading":false}]}`
	new := strings.Replace(old, `"required":["n"]`, `"required":[]`, 1)
	os.WriteFile(filepath.Join(dir, "old.json"), []byte(old), 0o644)
	os.WriteFile(filepath.Join(dir, "new.json"), []byte(new), 0o644)
	out, _, code = runHarn("tool", "diff", filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json"), "--fail-on", "breaking")
	if code != 0 || !strings.Contains(out, "(input-widened)") || !strings.HasSuffix(out, "suggested version bump: minor (1.2.3 → 1.3.0)\n") {
		t.Errorf("exit %d\n%s", code, out)
	}
	badJSON, badScript := filepath.Join(dir, "bad.json"), filepath.Join(dir, "bad.harn")
	os.WriteFile(badJSON, []byte("{\n"), 0o644)
	os.WriteFile(badScript, []byte("let x = ~1\n"), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"tool", "diff", v1}, "needs OLD and NEW"},
		{[]string{"tool", "diff", v1, v2, "--fail-on", "some"}, `unsupported --fail-on "some"`},
		{[]string{"tool", "diff", v1, v2, "--colour"}, `unknown option --colour`},
		{[]string{"tool", "diff", "missing.json", v2}, "error: cannot read missing.json: No such file or directory (os error 2)\n"},
		{[]string{"tool", "diff", v1, v2, "extra"}, `error: unexpected argument "extra"`},
		// the file is named once, a script's error shows its source line
		{[]string{"tool", "diff", badJSON, v2}, "error: " + badJSON + ": invalid tool catalog JSON: EOF while parsing an object at line 2 column 0\n"},
		{[]string{"tool", "diff", v1, badScript}, "error: Unexpected character '~' at 1:9\n  --> " + badScript + ":1:9\n"},
	} {
		_, stderr, code := runHarn(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) || strings.Count(stderr, "error:") != 1 {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
}
