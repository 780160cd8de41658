package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNeovim drives the server from a real editor: Neovim's built-in LSP
// client, headless, with testdata/nvim_lsp.lua. make test installs Neovim
// from Debian packages; without it the test skips, except under CI.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nvim is not installed (make test-deps installs it)")
		}
		t.Skip("nvim not installed: apt-get install neovim (or make test-deps as root) to run the editor test")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(libSrc), 0o644)
	src := `import { add } from "lib"

enum Color {
  Red
  Green
}

fn twice(x: int) -> int {
  var unused = 1

  return add(x,x)
}

println(twice(2), Color.Red)
`
	// a struct renamed from shapes.harn, which imports it from geo.harn;
	// the field, the string and the comment named Point stay
	geo := "/// Point is a place.\npub struct Point {\n  x: int\n  y: int\n}\n\npub fn origin() -> Point {\n  return Point { x: 0, y: 0 }\n}\n"
	shapes := "import { Point, origin } from \"./geo\"\n\nstruct Pin {\n  Point: int\n  at: Point\n}\n\nlet p: Point = origin()\nprintln([Pin { Point: 1, at: p }, \"Point\"])\n"
	os.WriteFile(filepath.Join(dir, "geo.harn"), []byte(geo), 0o644)
	os.WriteFile(filepath.Join(dir, "shapes.harn"), []byte(shapes), 0o644)
	file := filepath.Join(dir, "main.harn")
	os.WriteFile(file, []byte(src), 0o644)
	out := filepath.Join(dir, "answers.txt")
	script, _ := filepath.Abs("testdata/nvim_lsp.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", "NONE", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HARN_LSP_SERVER=1", "HARN_LSP_CMD="+os.Args[0]+" -test.run=^$",
		"HARN_FILE="+file, "HARN_OUT="+out,
		"HARN_RENAME_FILE="+filepath.Join(dir, "shapes.harn"), "HARN_RENAME_AT=7:8", "HARN_RENAME_TO=Spot", "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no answers: %v", err)
	}
	got := string(b)
	t.Logf("answers:\n%s", got)
	for _, want := range []string{
		"attached: true",
		"diagnostic: 8:2 [prefer-let] use `let` instead of `var`",
		"diagnostic: 8:6 [unused-variable] `unused` is assigned but never used",
		"completion x: true", "completion twice: true", "completion add: true", "completion println: true",
		"hover: ```harn\\npub fn add(a: int, b: int) -> int\\n```\\n\\nAdds two numbers.\\n\\n*imported from* `lib`",
		"definition: lib.harn:1:7",
		"formatted: import { add } from \"lib\"\\n\\nenum Color {\\n  Red\\n  Green\\n}\\n\\nfn twice(x: int) -> int {\\n  var unused = 1\\n\\n  return add(x, x)\\n}\\n\\nprintln(twice(2), Color.Red)",
		"renamed files: 2",
		"stopped: true",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("answers lack %q", want)
		}
	}
	for name, want := range map[string]string{
		"geo.harn":    strings.NewReplacer("struct Point", "struct Spot", "-> Point", "-> Spot", "return Point", "return Spot").Replace(geo),
		"shapes.harn": strings.NewReplacer("{ Point,", "{ Spot,", "at: Point", "at: Spot", "p: Point", "p: Spot").Replace(shapes),
	} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("after the rename %s is\n%s\nwant\n%s", name, b, want)
		}
	}
	if strings.Contains(got, "error:") {
		t.Errorf("the script failed")
	}
}
