package load

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// publishing is a script that prints while loading and publishes one tool.
const publishing = `println("ran")
fn main(harness: Harness) {
  let tools = tool_registry()
  tool_define(tools, "ping", "Ping.", {
    parameters: {},
    returns: {type: "string"},
    handler: { _ -> "pong" },
  })
  harness.tools.mcp_tools(tools)
}
`

// project writes harn.toml (when manifest is not "") and a publishing
// script in a new project directory and returns the script's path.
func project(t *testing.T, manifest, script string) string {
	t.Helper()
	dir := t.TempDir()
	if manifest != "" {
		if err := os.WriteFile(filepath.Join(dir, "harn.toml"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(dir, "tools")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, "main.harn")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Step 2 of the loader (docs/spec/registry.md §7): a project manifest that cannot be
// installed fails the load before the script runs, with
// `failed to install <what>: <error>`.
func TestLoadInstallsProjectManifest(t *testing.T) {
	cases := []struct{ name, manifest, want string }{
		{"invalid TOML", "[connectors.acme\nbase_url = 1\n", "failed to install project manifest: "},
		{"unknown connector field", "[connectors.acme]\nbase_url = \"https://acme.test\"\nretries = 3\n",
			`failed to install connectors: `},
		{"token in the manifest", "[connectors.github]\ntoken = \"t\"\n", "failed to install connectors: "},
		{"bad method route", "[connectors.acme.methods]\nget = \"FETCH /x\"\n", "failed to install connectors: "},
		{"connectors not tables", "connectors = 3\n", "failed to install connectors: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := project(t, c.manifest, publishing)
			var stderr bytes.Buffer
			_, err := Load(path, Options{Stderr: &stderr})
			if err == nil {
				t.Fatal("loaded a script whose project manifest cannot be installed")
			}
			le := err.(*Error)
			if !strings.HasPrefix(le.Msg, c.want) || !strings.Contains(le.Msg, filepath.Join(filepath.Dir(filepath.Dir(path)), "harn.toml")) || le.Status != 1 {
				t.Fatalf("error %q (status %d), want it to start with %q and name the manifest", le.Msg, le.Status, c.want)
			}
			if strings.Contains(stderr.String(), "ran") {
				t.Fatal("the script ran although its manifest could not be installed")
			}
		})
	}
}

func TestLoadManifestErrorWording(t *testing.T) {
	path := project(t, "[connectors.acme]\nbase_url = \"https://acme.test\"\nretries = 3\n", publishing)
	_, err := Load(path, Options{Stderr: &bytes.Buffer{}})
	manifest := filepath.Join(filepath.Dir(filepath.Dir(path)), "harn.toml")
	want := `failed to install connectors: ` + manifest + ` [connectors.acme]: unknown field "retries" (known: auth_header, auth_scheme, base_url, headers, methods, secret, timeout_ms)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	path = project(t, "name = \"x\"\n[connectors\n", publishing)
	_, err = Load(path, Options{Stderr: &bytes.Buffer{}})
	manifest = filepath.Join(filepath.Dir(filepath.Dir(path)), "harn.toml")
	if err == nil || !strings.HasPrefix(err.Error(), "failed to install project manifest: "+manifest+":2:") || !strings.Contains(err.Error(), ": invalid TOML: ") {
		t.Fatalf("got %v", err)
	}
}

// A manifest with valid connectors and tables the loader does not read
// (an orchestrator's triggers, [[mcp]] servers) loads, as does a script
// outside any project.
func TestLoadAcceptsInstallableManifest(t *testing.T) {
	for _, manifest := range []string{
		"",
		"[package]\nname = \"demo\"\n\n[connectors.acme]\nbase_url = \"https://acme.test\"\nsecret = \"acme/token\"\ntimeout_ms = 5000\n\n[connectors.acme.methods]\nget_item = \"GET /items/{id}\"\n\n[[mcp]]\nname = \"fs\"\ncommand = \"true\"\n\n[[triggers]]\nid = \"t\"\n",
	} {
		path := project(t, manifest, publishing)
		var stderr bytes.Buffer
		s, err := Load(path, Options{Stderr: &stderr})
		if err != nil {
			t.Fatalf("manifest %q: %v", manifest, err)
		}
		if s.Registry == nil || !strings.Contains(stderr.String(), "ran") {
			t.Fatalf("manifest %q: script did not run and publish (stderr %q)", manifest, stderr.String())
		}
	}
}
