package sdkgen

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The end-to-end tests of `harn tool sdk` (make sdk-e2e, SDK_E2E=1):
// for every golden catalog of the repository — the widget registry, the
// 50-tool registry, the shop module and every exports golden (structs,
// enums, throws, recursion, generics) — generate all three packages and
// compile them strictly: tsc --strict (TypeScript pinned by
// testdata/sdk/ts/package-lock.json), go vet and go build (offline, from the
// module cache), mypy --strict (Debian's mypy, with testdata/sdk/python/stubs
// standing in for the mcp package, which Debian does not ship). Then the
// programs under testdata/sdk run each generated client of the shop
// catalog against a live `harn serve mcp`: a success, a declared error
// caught as its typed variant, and a client-side validation refusal.
// The Python program runs on the real mcp package when it is installed,
// else on testdata/sdk/python/shim, a stand-in for its stdio client.
//
// A missing toolchain skips its language with the reason, except under
// CI=true, where it fails.

func e2eCatalogs(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, n := range []string{"widget", "shop", "registry50"} {
		out[n] = filepath.Join("testdata", "catalogs", n+".json")
	}
	golden, _ := filepath.Glob(filepath.Join("..", "exports", "testdata", "golden", "*.json"))
	if len(golden) == 0 {
		t.Fatal("no exports goldens found")
	}
	for _, g := range golden {
		out["x_"+strings.TrimSuffix(filepath.Base(g), ".json")] = g
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type e2e struct {
	t      *testing.T
	harn   string
	shop   string
	ctx    context.Context
	repo   string
	strict bool
}

func (e *e2e) missing(what string) {
	e.t.Helper()
	if e.strict {
		e.t.Fatalf("%s (required under CI=true)", what)
	}
	e.t.Skip(what)
}

// run runs a command and fails the test with its output when it fails.
func (e *e2e) run(dir string, env []string, name string, args ...string) string {
	e.t.Helper()
	cmd := exec.CommandContext(e.ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// generate writes a package with the harn binary, as a user would.
func (e *e2e) generate(catalog, lang, out, name string) {
	e.t.Helper()
	e.run(".", nil, e.harn, "tool", "sdk", catalog, "--lang", lang, "--out", out, "--name", name)
}

func (e *e2e) checkOK(out string, want int) {
	e.t.Helper()
	if n := strings.Count(out, "\nok ") + boolInt(strings.HasPrefix(out, "ok ")); n != want || strings.Contains(out, "FAIL") {
		e.t.Fatalf("expected %d ok lines:\n%s", want, out)
	}
	e.t.Log("\n" + out)
}

// serveHTTP starts `harn serve mcp --transport http` on a free loopback
// port for the shop module and returns its URL; the server stops when
// the test ends.
func (e *e2e) serveHTTP() string {
	e.t.Helper()
	cmd := exec.Command(e.harn, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", e.shop)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
				urls <- url
			}
		}
		close(urls)
	}()
	select {
	case url, ok := <-urls:
		if !ok {
			e.t.Fatal("harn serve mcp --transport http exited before listening")
		}
		return url
	case <-time.After(2 * time.Minute):
		e.t.Fatal("harn serve mcp --transport http did not start listening")
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestEndToEnd(t *testing.T) {
	if os.Getenv("SDK_E2E") == "" {
		t.Skip("the end-to-end SDK tests run with SDK_E2E=1 (make sdk-e2e installs their toolchains)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	harn := os.Getenv("HARN_BIN")
	if harn == "" {
		harn = filepath.Join(t.TempDir(), "harn")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", harn, "../../cmd/harn").CombinedOutput()
		if err != nil {
			t.Fatalf("building harn: %v\n%s", err, out)
		}
	} else if harn, err = filepath.Abs(harn); err != nil {
		t.Fatal(err)
	}
	shop, _ := filepath.Abs("testdata/catalogs/shop.harn")
	base := e2e{harn: harn, shop: shop, ctx: ctx, repo: repo, strict: os.Getenv("CI") == "true"}
	catalogs := e2eCatalogs(t)
	for i, p := range catalogs {
		if catalogs[i], err = filepath.Abs(p); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("ts", func(t *testing.T) {
		e := base
		e.t = t
		modules := filepath.Join(repo, "testdata", "sdk", "ts", "node_modules")
		if _, err := os.Stat(filepath.Join(modules, "typescript")); err != nil {
			e.missing("testdata/sdk/ts/node_modules is not installed (make sdk-deps runs npm ci)")
		}
		root := t.TempDir()
		for _, name := range sortedKeys(catalogs) {
			e.generate(catalogs[name], "ts", filepath.Join(root, name), name+"-client")
		}
		os.Symlink(modules, filepath.Join(root, "node_modules"))
		for _, f := range []string{"e2e.ts", "tsconfig.e2e.json"} {
			data, err := os.ReadFile(filepath.Join(repo, "testdata", "sdk", "ts", f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, strings.Replace(f, ".e2e", "", 1)), data, 0o644)
		}
		os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"type":"module"}`+"\n"), 0o644)
		e.run(root, nil, filepath.Join(modules, ".bin", "tsc"), "-p", "tsconfig.json")
		t.Logf("tsc --strict: %d packages compile", len(catalogs))
		out := e.run(root, []string{"HARN_BIN=" + harn, "SHOP_FILE=" + shop}, "node", filepath.Join("dist", "e2e.js"))
		e.checkOK(out, 7)
	})
	t.Run("go", func(t *testing.T) {
		e := base
		e.t = t
		// One workspace over every generated module, so go vet and go
		// build run once (offline: the module cache only).
		root := t.TempDir()
		env := []string{"GOFLAGS=-mod=readonly", "GOPROXY=off"}
		work := "go 1.25.0\n\nuse (\n"
		var pkgs []string
		for _, name := range sortedKeys(catalogs) {
			dir := filepath.Join(root, name)
			e.generate(catalogs[name], "go", dir, name+"-client")
			if name == "shop" {
				data, err := os.ReadFile(filepath.Join(repo, "testdata", "sdk", "go", "main.go.txt"))
				if err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Join(dir, "cmd", "e2e"), 0o755)
				os.WriteFile(filepath.Join(dir, "cmd", "e2e", "main.go"), data, 0o644)
			}
			work += "\t./" + name + "\n"
			pkgs = append(pkgs, "./"+name+"/...")
		}
		os.WriteFile(filepath.Join(root, "go.work"), []byte(work+")\n"), 0o644)
		e.run(root, env, "go", append([]string{"vet"}, pkgs...)...)
		e.run(root, env, "go", append([]string{"build"}, pkgs...)...)
		t.Logf("go vet, go build: %d modules", len(catalogs))
		url := e.serveHTTP()
		out := e.run(root, append(env, "HARN_BIN="+harn, "SHOP_FILE="+shop, "SHOP_URL="+url), "go", "run", "./shop/cmd/e2e")
		e.checkOK(out, 9)
	})
	t.Run("python", func(t *testing.T) {
		e := base
		e.t = t
		mypy, err := exec.LookPath("mypy")
		if err != nil {
			e.missing("mypy is not installed (make sdk-deps installs Debian's mypy)")
		}
		python := "python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			python = "/usr/bin/python3" // the interpreter Debian's mypy and jsonschema belong to
		}
		if exec.Command(python, "-c", "import jsonschema").Run() != nil {
			e.missing("the jsonschema Python package is not installed (make sdk-deps installs python3-jsonschema)")
		}
		root := t.TempDir()
		var dirs []string
		for _, name := range sortedKeys(catalogs) {
			dir := filepath.Join(root, name)
			e.generate(catalogs[name], "python", dir, name+"-client")
			dirs = append(dirs, dir)
		}
		data, err := os.ReadFile(filepath.Join(repo, "testdata", "sdk", "python", "e2e.py"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, "shop", "e2e.py"), data, 0o644)
		stubs := []string{"MYPYPATH=" + filepath.Join(repo, "testdata", "sdk", "python", "stubs")}
		e.run(root, stubs, mypy, append([]string{"--strict", "--no-incremental"}, dirs...)...)
		t.Logf("mypy --strict: %d packages", len(dirs))
		env := []string{"HARN_BIN=" + harn, "SHOP_FILE=" + shop}
		if exec.Command(python, "-c", "import mcp").Run() != nil {
			// The mcp package is on PyPI only, which this environment
			// cannot reach: run the generated client's own logic on the
			// stand-in of its API surface instead, and say so.
			env = append(env, "PYTHONPATH="+filepath.Join(repo, "testdata", "sdk", "python", "shim"))
			t.Log("the mcp Python package is not installed: the live run uses testdata/sdk/python/shim, a stand-in for its stdio client, not the SDK")
		}
		out := e.run(filepath.Join(root, "shop"), env, python, "e2e.py")
		e.checkOK(out, 7)
	})
}
