//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLiteLeavesOutServerDependencies checks the point of the lite build:
// the packages only the commands and library areas it leaves out need are
// not linked into it, so `harn run` does not initialise them at start-up.
func TestLiteLeavesOutServerDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "harnlite", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, p := range []string{
		"github.com/harnlang/harn/lsp",
		"github.com/harnlang/harn/orchestrator",
		"github.com/harnlang/harn/eventlog/sqlite",
		"github.com/harnlang/harn/eventlog/postgres",
		"github.com/harnlang/harn/mcp/auth",
		"github.com/harnlang/harn/tool",
		"github.com/harnlang/harn/stdlib/tools",
		"github.com/harnlang/harn/stdlib/net",
		"github.com/harnlang/harn/stdlib/formats",
		"github.com/santhosh-tekuri/jsonschema/v6",
		"github.com/klauspost/compress/zstd",
		"github.com/andybalholm/brotli",
		"go.yaml.in/yaml/v4",
		"net/http",
		"crypto/tls",
		"crypto/x509",
		"crypto/ed25519",
		"os/user",
		"runtime/cgo", // a cgo binary starts through the dynamic loader and libc
		// HARN_CPUPROFILE runs in harn-full: pprof's inits (compress/flate,
		// hash/crc32), and the heap profiling the runtime does while
		// runtime.MemProfile is linked.
		"runtime/pprof",
		"compress/flate",
	} {
		if deps[p] {
			t.Errorf("the lite build links %s", p)
		}
	}
	if !deps["github.com/harnlang/harn/interp"] {
		t.Error("the lite build does not link the interpreter")
	}
}

// TestLiteExecsFull builds the lite harn next to a harn-full (this test
// binary, which behaves as the full harn under HARN_TEST_MAIN=1) and runs
// the commands and programs it leaves out through it.
func TestLiteExecsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harn")
	}
	dir := t.TempDir()
	lite := filepath.Join(dir, "harn")
	if out, err := exec.Command("go", "build", "-tags", "harnlite", "-o", lite, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	harn := func(args ...string) (string, string, int) {
		return runBinary(t, lite, "", args...)
	}

	_, stderr, code := harn("orchestrator", "--help")
	if code != 2 || !strings.Contains(stderr, "this command runs in harn-full") || !strings.Contains(stderr, filepath.Join(dir, "harn-full")) {
		t.Errorf("without harn-full: exit %d, stderr %q", code, stderr)
	}
	if stdout, _, code := harn("run", "-e", `println("lite")`); code != 0 || stdout != "lite\n" {
		t.Errorf("harn run in the lite build: exit %d, stdout %q", code, stdout)
	}

	t.Run("programs", func(t *testing.T) { testLitePrograms(t, lite) })

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "harn-full")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"orchestrator", "--help"}, {"help", "orchestrator"}, {"help", "mcp", "serve"}, {"lsp", "--help"}, {"help", "tool"}, {"tool", "--help"}, {"check", "--help"}, {"doc", "len"}} {
		stdout, stderr, code := harn(args...)
		var want strings.Builder
		if run(args, nil, &want, &want) != 0 || code != 0 || stdout != want.String() {
			t.Errorf("harn %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(args, " "), code, stdout, stderr, want.String())
		}
	}

	t.Run("check", func(t *testing.T) { testLiteCheck(t, lite) })
	t.Run("conformance", func(t *testing.T) { testLiteConformance(t, lite, self) })

	// Under HARN_CPUPROFILE the lite harn's profiling timer must not
	// follow it into harn-full: its SIGPROF killed harn-full at start-up
	// (most times, so the command runs a few times).
	t.Setenv("HARN_CPUPROFILE", filepath.Join(dir, "cpu.pprof"))
	for range 5 {
		if _, stderr, code := harn("orchestrator", "--help"); code != 0 {
			t.Fatalf("harn orchestrator --help under HARN_CPUPROFILE: exit %d, stderr %q", code, stderr)
		}
	}
	// The lite harn links no profiler: a profiled run is harn-full's.
	profile := filepath.Join(dir, "run.pprof")
	t.Setenv("HARN_CPUPROFILE", profile)
	if stdout, stderr, code := harn("run", "-e", `println("profiled")`); code != 0 || stdout != "profiled\n" {
		t.Errorf("harn run under HARN_CPUPROFILE: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if fi, err := os.Stat(profile); err != nil || fi.Size() == 0 {
		t.Errorf("harn run under HARN_CPUPROFILE wrote no profile: %v", err)
	}
}

// testLiteCheck compares `harn check` in the lite harn (which checks the
// files it finds clean itself) with harn-full's.
func testLiteCheck(t *testing.T, lite string) {
	dir := t.TempDir()
	files := map[string]string{
		"clean.harn":   "fn twice(x) { return x * 2 }\nprintln(twice(2))\n",
		"std.harn":     `import { filter_nil } from "std/collections"` + "\nprintln(filter_nil({a: 1}))\n",
		"yaml.harn":    `println(yaml_parse("a: 1"))` + "\n",
		"warn.harn":    "println(undefined_name)\n",
		"broken.harn":  "let x = \n",
		"typo.harn":    `println(yaml_pars("a: 1"))` + "\n",
		"stdfull.harn": `import { store_stale } from "std/collections"` + "\nprintln(store_stale(\"k\", 1))\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"check", path("clean.harn")},
		{"check", path("std.harn")},
		{"check", path("clean.harn"), path("std.harn")},
		{"check", path("yaml.harn")},
		{"check", path("warn.harn")},
		{"check", path("broken.harn")},
		{"check", path("typo.harn")},
		{"check", path("stdfull.harn")},
		{"check", path("clean.harn"), path("warn.harn"), path("missing.harn")},
		{"check"},
	} {
		stdout, stderr, code := runBinary(t, lite, "", args...)
		var wantOut, wantErr strings.Builder
		wantCode := run(args, nil, &wantOut, &wantErr)
		if stdout != wantOut.String() || stderr != wantErr.String() || code != wantCode {
			t.Errorf("harn %s: exit %d, stdout %q, stderr %q; harn-full: exit %d, stdout %q, stderr %q",
				strings.Join(args, " "), code, stdout, stderr, wantCode, wantOut.String(), wantErr.String())
		}
	}
}

// testLiteInterrupt checks that a Ctrl-C the lite harn catches while it
// reads a program it then hands to harn-full is handed on, instead of
// being lost. The program imports a FIFO, so the test knows when the lite
// harn reads it.
func testLiteInterrupt(t *testing.T, dir string) {
	lib := filepath.Join(dir, "fifo_lib.harn")
	if err := syscall.Mkfifo(lib, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	prog := "import { one } from \"./fifo_lib\"\nprintln(yaml_parse(\"a: 1\"))\n"
	if err := os.WriteFile(filepath.Join(dir, "prog.harn"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join(dir, "harn"), "run", "prog.harn")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(lib, os.O_WRONLY, 0) // returns once the lite harn opened it
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(100 * time.Millisecond) // lets its handler run before it reads on
	f.WriteString("pub fn one() { return 1 }\n")
	f.Close()
	if err := cmd.Wait(); err != nil || out.String() != "harn-full run prog.harn\ninterrupted\n" {
		t.Errorf("Ctrl-C while the lite harn reads: %v, output %q", err, out.String())
	}
}

// TestRunHandedInterrupt checks harn-full's half of testLiteInterrupt: a
// run the lite harn hands on interrupted is interrupted at once, and the
// program does not see how it was told.
func TestRunHandedInterrupt(t *testing.T) {
	t.Setenv(interruptedEnv, "1")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-e", "var i = 0\nwhile i < 10000000 { i = i + 1 }"}, nil, &stdout, &stderr)
	if code != interruptedStatus || !strings.Contains(stderr.String(), "error: interrupted by Ctrl-C") {
		t.Errorf("exit %d, stderr %q; want %d", code, stderr.String(), interruptedStatus)
	}
	if v, ok := os.LookupEnv(interruptedEnv); ok {
		t.Errorf("%s=%s is left in the environment", interruptedEnv, v)
	}
}

// runBinary runs a harn binary (in dir, when set) with no input and
// returns its output and exit status.
func runBinary(t *testing.T, bin, dir string, args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// testLitePrograms checks which programs the lite harn hands to
// harn-full, with a copy of it next to a harn-full that only says it ran.
func testLitePrograms(t *testing.T, lite string) {
	dir := t.TempDir()
	bin, err := os.ReadFile(lite)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("harn", string(bin), 0o755)
	write("harn-full", "#!/bin/sh\necho \"harn-full $*\"\ntest -n \"$HARN_LITE_INTERRUPTED\" && echo interrupted\ncat\n", 0o755)
	write("yaml_lib.harn", "pub fn load(text) { return yaml_parse(text) }\n", 0o644)
	write("plain_lib.harn", "pub fn twice(x) { return x * 2 }\n", 0o644)
	for src, full := range map[string]bool{
		`println("hi")`: false,
		`println(json_stringify(json_parse("[1]")))`:                  false,
		`println(sha256("x"))`:                                        false,
		`println(file_exists("harn-full"))`:                           false,
		`import { twice } from "./plain_lib"` + "\nprintln(twice(2))": false,
		`let d = yaml_parse("a: 1")`:                                  true,
		`fn get(u) { return http_get(u) }`:                            true,
		`println(schema_check({}, {type: "int"}))`:                    true,
		`let r = tool_registry()`:                                     true,
		`println(harness.tools)`:                                      true,
		`println("a word: toml_parse")`:                               true,
		`println(blake3("x"))`:                                        true,
		`import { load } from "./yaml_lib"` + "\nprintln(1)":          true,
		"tool greet(name: string) -> string {\n  description \"greets\"\n  \"hi \" + name\n}": true,
		`println([1] |> len)`:                                                         false,
		`println(2 |> to_string(_))`:                                                  false,
		`println(2 |> "to_string")`:                                                   false,
		"fn twice(x) { return x * 2 }\nprintln(2 |> twice)":                           false,
		"let n = \"yaml\" + \"_parse\"\nprintln(\"a: 1\" |> n)":                       true, // a name computed at run time
		"fn parse(f) { return \"a: 1\" |> f }\nprintln(parse(\"yaml\" + \"_parse\"))": true,
		"let n = \"yaml\" + \"_parse\"\nprintln(\"a: 1\" |> (true ? n : len))":        true, // len is the last push before the pipe
		`println("a: 1" |> "yaml_pars")`:                                              true, // harn-full's "did you mean"
		`println(undefined_name)`:                                                     true, // a warning
		`let x = `:                                                                    true, // a static error
		// std/collections and std/schema have functions that call
		// full-only builtins: only the ones a program reaches count
		`import { filter_nil } from "std/collections"` + "\nprintln(filter_nil({a: 1}))":                                         false,
		`import { store_stale } from "std/collections"` + "\nprintln(store_stale(\"k\", 1))":                                     true,
		`import { get_typed_value, schema_int } from "std/schema"` + "\nprintln(get_typed_value(1, schema_int()))":               true,
		`import { filter_nil, store_refresh } from "std/collections"` + "\nlet f = [filter_nil, store_refresh]\nprintln(len(f))": true,
	} {
		write("prog.harn", src+"\n", 0o644)
		stdout, stderr, code := runBinary(t, filepath.Join(dir, "harn"), dir, "run", "prog.harn", "arg")
		ran := stdout == "harn-full run prog.harn arg\n"
		if ran != full || code != 0 && !full {
			t.Errorf("%s\nran in harn-full: %v, want %v (exit %d, stdout %q, stderr %q)", src, ran, full, code, stdout, stderr)
		}
	}

	// harn run -: the program on standard input reaches harn-full unread
	stdinRun := exec.Command(filepath.Join(dir, "harn"), "run", "-", "arg")
	stdinRun.Dir, stdinRun.Stdin = dir, strings.NewReader("println(\"hi\")\n")
	if out, err := stdinRun.Output(); err != nil || string(out) != "harn-full run - arg\nprintln(\"hi\")\n" {
		t.Errorf("harn run - in the lite build: %v, stdout %q", err, out)
	}

	// harn check: the files the lite harn finds clean it checks itself.
	for src, full := range map[string]bool{
		"fn twice(x) { return x * 2 }\nprintln(twice(2))":                                    false,
		`import { filter_nil } from "std/collections"` + "\nprintln(filter_nil({a: 1}))":     false,
		`println(yaml_parse("a: 1"))`:                                                        true,
		`import { store_stale } from "std/collections"` + "\nprintln(store_stale(\"k\", 1))": true,
		"println(undefined_name)":                                                            true,
	} {
		write("prog.harn", src+"\n", 0o644)
		stdout, stderr, code := runBinary(t, filepath.Join(dir, "harn"), dir, "check", "prog.harn")
		ran := stdout == "harn-full check prog.harn\n"
		if ran != full || code != 0 || !full && stdout+stderr != "" {
			t.Errorf("harn check of %s\nran in harn-full: %v, want %v (exit %d, stdout %q, stderr %q)", src, ran, full, code, stdout, stderr)
		}
	}

	// A program read from a pipe is harn-full's to read: the lite harn
	// would have consumed it.
	src := `println(yaml_parse("a: 1"))` + "\n"
	cmd := exec.Command(filepath.Join(dir, "harn"), "run", "/dev/stdin")
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.CombinedOutput()
	if want := "harn-full run /dev/stdin\n" + src; err != nil || string(out) != want {
		t.Errorf("harn run /dev/stdin: %v, output %q, want %q", err, out, want)
	}

	testLiteInterrupt(t, dir)
}

// testLiteConformance runs a sample of the conformance programs through
// the lite harn (with harn-full next to it) and through the full one,
// and compares their output and exit status: every 41st of the programs
// the lite harn runs itself and every 24th of those it hands to
// harn-full (about 120 of 4,300, to keep the test short).
func testLiteConformance(t *testing.T, lite, full string) {
	root := filepath.Join("..", "..", "conformance")
	var progs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".harn") {
			base := strings.TrimSuffix(path, ".harn")
			if fileExists(base+".expected") || fileExists(base+".error") {
				progs = append(progs, path)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(progs)
	heavy, ran := 0, 0
	for i, path := range progs {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if sourceNamesFullOnly(path, src) {
			heavy++
			if heavy%24 != 0 {
				continue
			}
		} else if i%41 != 0 {
			continue
		}
		ran++
		rel, _ := filepath.Rel(root, path)
		lout, lerr, lcode := runBinary(t, lite, root, "run", rel)
		fout, ferr, fcode := runBinary(t, full, root, "run", rel)
		lerr, ferr = tempNames(lerr), tempNames(ferr)
		if lout != fout || lerr != ferr || lcode != fcode {
			t.Errorf("%s: lite and full differ\n--- lite (exit %d)\n%s%s\n--- full (exit %d)\n%s%s", rel, lcode, lout, lerr, fcode, fout, ferr)
		}
	}
	t.Logf("%d of %d programs, %d of the %d that run in harn-full", ran, len(progs), heavy/24, heavy)
}

var (
	uuid     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	mkdtemps = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/([^/\s]*?)[0-9]+`)
)

// tempNames blanks the random parts of temporary names in a run's
// output: UUIDs and the digits harness.fs.mkdtemp appends to a prefix.
func tempNames(s string) string {
	return mkdtemps.ReplaceAllString(uuid.ReplaceAllString(s, "UUID"), os.TempDir()+"/${1}N")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestTempNames(t *testing.T) {
	tmp := os.TempDir()
	for in, want := range map[string]string{
		"state (" + tmp + "/as-3128527506/never.json)": "state (" + tmp + "/as-N/never.json)",
		tmp + "/161762455":                        tmp + "/N",
		"id 0f8fad5b-d9cb-469f-a165-70867728950e": "id UUID",
		"/var/as-31/x":                            "/var/as-31/x",
	} {
		if got := tempNames(in); got != want {
			t.Errorf("tempNames(%q) = %q, want %q", in, got, want)
		}
	}
}
