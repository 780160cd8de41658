package load

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
)

// TestLoadConformance runs conformance/registry_load (see its README).
func TestLoadConformance(t *testing.T) {
	files, err := filepath.Glob("../../conformance/registry_load/*.harn")
	if err != nil || len(files) == 0 {
		t.Fatalf("no load conformance tests: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".harn")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(f, ".harn") + ".load-error")
			if err != nil {
				t.Fatal(err)
			}
			fragment := strings.TrimSpace(string(want))
			got := loadFailure(t, f)
			if got == "" {
				t.Fatalf("loaded, prepared and ran without the expected failure %q", fragment)
			}
			if !strings.Contains(got, fragment) {
				t.Fatalf("failure %q does not contain %q", got, fragment)
			}
		})
	}
}

// loadFailure returns the first failure of loading, preparing, building
// the CLI tree and (when the header asks) invoking one tool.
func loadFailure(t *testing.T, path string) string {
	src, _ := os.ReadFile(path)
	var stderr bytes.Buffer
	s, err := Load(path, Options{Stderr: &stderr})
	if err != nil {
		return err.Error()
	}
	p, err := tool.Prepare(s.Registry)
	if err != nil {
		return err.Error()
	}
	if _, err := p.CLITree(); err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(src), "\n") {
		spec, ok := strings.CutPrefix(line, "// invoke: ")
		if !ok {
			continue
		}
		name, argText, _ := strings.Cut(spec, " ")
		args, err := jsonv.Parse([]byte(argText))
		if err != nil {
			t.Fatalf("bad invoke header: %v", err)
		}
		pt, ok := p.Tool(name)
		if !ok {
			t.Fatalf("no tool %q", name)
		}
		o := pt.Invoke(s.Thread(), args)
		switch o.Kind {
		case tool.Success:
			return ""
		case tool.RuntimeFailure, tool.ApplicationError:
			return o.FailureText()
		default:
			return o.Summary
		}
	}
	return ""
}

func TestLoadKeepsVMAlive(t *testing.T) {
	s, err := Load("../../cmd/harn/testdata/tool_schema/widget.harn", Options{Stderr: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tool.Prepare(s.Registry)
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := p.ToolFor(tool.AudienceCLI, "lookup_widget")
	args, _ := jsonv.Parse([]byte(`{"widget_id":42,"verbose":false}`))
	o := pt.Invoke(s.Thread(), args)
	if o.Kind != tool.Success || string(jsonv.Marshal(o.Result)) != `{"id":42,"label":"example"}` {
		t.Fatalf("outcome %+v", o)
	}
}

// A tool failure never quotes a script value: unwrap(Err(v)) and
// unreachable(v) keep v in their script-visible text but out of the
// value-free summary (issue 17 item 5).
func TestFailureSummaryOmitsValues(t *testing.T) {
	for _, body := range []string{
		`unwrap(Err("sk-live-123"))`,
		`unreachable("sk-live-123")`,
		`unwrap(Err({token: "sk-live-123"}))`,
		`[1].map({_ -> unwrap(Err("sk-live-123"))})`,
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "t.harn")
		src := "import { tool_registry_from } from \"std/tools\"\n\nfn main(harness: Harness) {\n" +
			"  harness.tools.mcp_tools(tool_registry_from([{name: \"t\", handler: {x -> " + body + "}}]))\n}\n"
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path, Options{Stderr: &bytes.Buffer{}})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		p, err := tool.Prepare(s.Registry)
		if err != nil {
			t.Fatal(err)
		}
		pt, _ := p.Tool("t")
		o := pt.Invoke(s.Thread(), map[string]any{})
		if o.Kind != tool.RuntimeFailure {
			t.Fatalf("%s: outcome %+v", body, o)
		}
		if text := o.FailureText(); strings.Contains(text, "sk-live") || !strings.Contains(text, "Runtime error: un") {
			t.Errorf("%s: failure text %q", body, text)
		}
	}
}

// TestLoadWarnsAboutMisspeltKeys: a definition key close to a known one
// warns on stderr; HARN_WARNINGS=error fails the load, =off is silent.
func TestLoadWarnsAboutMisspeltKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.harn")
	src := `import { tool_registry_from } from "std/tools"

fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", errors: {type: "object"}, handler: {x -> x}},
  ]))
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = "warning: tool \"t\" has unknown key `errors` — did you mean `error_schema`?\n"
	for _, c := range []struct{ mode, stderr, err string }{
		{"", warning, ""},
		{"off", "", ""},
		{"error", "error: tool \"t\" has unknown key `errors` — did you mean `error_schema`?\n", "1 warning treated as error (HARN_WARNINGS=error)"},
	} {
		t.Setenv("HARN_WARNINGS", c.mode)
		var stderr bytes.Buffer
		_, err := Load(path, Options{Stderr: &stderr})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err || stderr.String() != c.stderr {
			t.Errorf("HARN_WARNINGS=%s: err %q, stderr %q; want %q, %q", c.mode, got, stderr.String(), c.err, c.stderr)
		}
	}
}

// loadWithHelpers writes the helper modules (name → source) under
// dir/helpers and a registry script importing `label` from
// helpers/<imported>, loads the script and returns its load failure.
func loadWithHelpers(t *testing.T, dir string, helpers map[string]string, imported string) *Error {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "helpers"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range helpers {
		if err := os.WriteFile(filepath.Join(dir, "helpers", name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "reg_"+imported+".harn")
	src := "import { tool_registry_from } from \"std/tools\"\nimport { label } from \"helpers/" + imported + "\"\n\nfn main(harness: Harness) {\n" +
		"  harness.tools.mcp_tools(tool_registry_from([{name: \"t\", handler: {x -> label(1)}}]))\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, Options{Stderr: &bytes.Buffer{}})
	le, ok := err.(*Error)
	if !ok {
		t.Fatalf("%s: load error %v", imported, err)
	}
	return le
}

// TestMissingHelperModuleIsShownAtTheImport: a registry script whose
// helper module cannot be loaded fails as harn run reports it — the
// message, then the import's location and the help line (docs/modules.md,
// "Load failures") — not as a bare message line.
func TestMissingHelperModuleIsShownAtTheImport(t *testing.T) {
	le := loadWithHelpers(t, t.TempDir(), map[string]string{"fmt.harn": "pub fn label(id) { return \"w\" }\n"}, "fmtx")
	if !strings.HasPrefix(le.Msg, "Runtime error: Import error: cannot read '") {
		t.Errorf("message %q", le.Msg)
	}
	out := le.Render()
	for _, want := range []string{"reg_fmtx.harn:2:23", `import { label } from "helpers/fmtx"`, "= help: did you mean `helpers/fmt`?"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered failure lacks %q:\n%s", want, out)
		}
	}
}

// TestHelperModuleInitFailureIsLocated: a run-time failure while a
// registry script's helper module initialises names the file and line,
// as harn run does; a thrown value is still only summarized.
func TestHelperModuleInitFailureIsLocated(t *testing.T) {
	dir := t.TempDir()
	helpers := map[string]string{
		"ratio.harn":  "let ratio = 1 / 0\npub fn label(id) { return \"w\" }\n",
		"throws.harn": "fn fail() { throw \"sk-live-123\" }\nlet x = fail()\npub fn label(id) { return \"w\" }\n",
	}
	le := loadWithHelpers(t, dir, helpers, "ratio")
	if le.Msg != "Runtime error: Division by zero (line 1)" || !strings.Contains(le.Render(), filepath.Join("helpers", "ratio.harn")+":1:15") {
		t.Errorf("init failure %q rendered:\n%s", le.Msg, le.Render())
	}
	le = loadWithHelpers(t, dir, helpers, "throws")
	if out := le.Render(); strings.Contains(out, "sk-live") || strings.Contains(out, "-->") {
		t.Errorf("thrown value rendered:\n%s", out)
	}
}
