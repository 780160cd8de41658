package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harnlang/harn/mcp/mcptest"
)

// writeProject writes files (relative path → content) into a new
// directory and returns it.
func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startExports(t *testing.T, path string) *session {
	t.Helper()
	stderr := &mcptest.SyncBuffer{}
	sf, err := LoadExports(path, stderr, "0.0.0-test")
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return startSurface(t, sf, Options{Stderr: stderr}, stderr)
}

const exportsModule = "/// Adds.\npub fn add(a: int, b: int) -> int {\n  return a + b\n}\n"

// The exports surface serves the project context discovered next to the
// module: the manifest, README and .harn.prompt files (and the module
// source) as resources, the prompt files as prompts rendered by
// prompts/get and completed by completion/complete
// (docs/spec/mcp-projection.md §3.3, §14).
func TestExportsProjectContext(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"harn.toml":          "[package]\nname = \"demo\"\n",
		"README.md":          "# Demo\n",
		"src/lib.harn":       exportsModule,
		"review.harn.prompt": "---\nid = \"review\"\ndescription = \"Review code\"\n[[arguments]]\nname = \"code\"\n[[arguments]]\nname = \"language\"\nrequired = false\nsuggestions = [\"rust\", \"ruby\", \"go\"]\n---\nReview this {{ language }} code:\n{{ code }}\n",
	})
	s := startExports(t, filepath.Join(dir, "src", "lib.harn"))
	caps := s.initialize("2025-06-18")["capabilities"].(map[string]any)
	for _, k := range []string{"tools", "resources", "prompts", "completions"} {
		if _, ok := caps[k]; !ok {
			t.Errorf("capability %s missing: %s", k, js(caps))
		}
	}
	var names []string
	for _, r := range s.result("resources/list", nil)["resources"].([]any) {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	jsonEq(t, "resource names", names, `["src/lib.harn","harn.toml","README.md","review.harn.prompt"]`)
	readme := "file://" + filepath.ToSlash(filepath.Join(dir, "README.md"))
	jsonEq(t, "README", s.result("resources/read", map[string]any{"uri": readme}),
		`{"contents":[{"uri":"`+readme+`","mimeType":"text/markdown","text":"# Demo\n"}]}`)
	jsonEq(t, "prompts", s.result("prompts/list", nil),
		`{"prompts":[{"name":"review","description":"Review code","arguments":[{"name":"code","required":true},{"name":"language","required":false}]}]}`)
	jsonEq(t, "prompts/get", s.result("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": "x := 1", "language": "go"}}),
		`{"description":"Review code","messages":[{"role":"user","content":{"type":"text","text":"Review this go code:\nx := 1\n"}}]}`)
	jsonEq(t, "complete", s.result("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "language", "value": "ru"}}),
		`{"completion":{"values":["ruby","rust"],"total":2,"hasMore":false}}`)
	if e := s.rpcErr("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{}}); e["message"] != "Missing required argument: code" {
		t.Errorf("missing argument: %s", js(e))
	}
	if e := s.rpcErr("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "nope", "value": ""}}); e["message"] != "Unknown prompt argument: nope" {
		t.Errorf("unknown argument: %s", js(e))
	}
}

// The resources' file: URIs are percent-encoded: a project under a
// directory with a space or a non-ASCII name lists URIs a client can
// parse, and reads them back.
func TestExportsFileURIsAreEscaped(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"my proj/harn.toml":   "[package]\nname = \"demo\"\n",
		"my proj/café/m.harn": exportsModule,
	})
	s := startExports(t, filepath.Join(dir, "my proj", "café", "m.harn"))
	s.initialize("2025-06-18")
	base := "file://" + filepath.ToSlash(dir) + "/my%20proj/"
	var uris []string
	for _, r := range s.result("resources/list", nil)["resources"].([]any) {
		uris = append(uris, r.(map[string]any)["uri"].(string))
	}
	jsonEq(t, "uris", uris, js([]string{base + "caf%C3%A9/m.harn", base + "harn.toml"}))
	jsonEq(t, "read", s.result("resources/read", map[string]any{"uri": base + "harn.toml"}),
		`{"contents":[{"uri":"`+base+`harn.toml","mimeType":"application/toml","text":"[package]\nname = \"demo\"\n"}]}`)
}

// A module with no manifest, README or prompt file next to it has no
// project context: only tools are advertised and nothing is listed.
func TestExportsWithoutProjectContext(t *testing.T) {
	dir := writeProject(t, map[string]string{"lib.harn": exportsModule})
	s := startExports(t, filepath.Join(dir, "lib.harn"))
	caps := s.initialize("2025-06-18")["capabilities"].(map[string]any)
	for _, k := range []string{"resources", "prompts", "completions"} {
		if _, ok := caps[k]; ok {
			t.Errorf("capability %s advertised without project context: %s", k, js(caps))
		}
	}
	jsonEq(t, "resources", s.result("resources/list", nil), `{"resources":[]}`)
}
