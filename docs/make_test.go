package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRaceSkippedTestsRunWithoutRace: make test runs the Go tests under
// the race detector, so a test that skips under it (`if raceEnabled {
// t.Skip(…) }`, or returns, or skips part of its loop) would never run in
// CI unless the Makefile's NORACE_TESTS names it for the extra run
// without -race.
func TestRaceSkippedTestsRunWithoutRace(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	listed := makeList(t, string(makefile), "NORACE_TESTS")
	packages := makeList(t, string(makefile), "NORACE_PACKAGES")
	found := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, name := range raceSkippingTests(t, path) {
			found++
			if !listed[name] {
				t.Errorf("%s: %s skips under -race but NORACE_TESTS in the Makefile does not name it, so CI never runs it", path, name)
			}
			if pkg := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../"))); !packages[pkg] {
				t.Errorf("%s: %s skips under -race but NORACE_PACKAGES in the Makefile does not name %s", path, name, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no test that skips under -race; the scan is broken")
	}
}

// makeList reads the words of a make variable set with `NAME = …` and
// continued over lines with backslashes.
func makeList(t *testing.T, makefile, variable string) map[string]bool {
	m := regexp.MustCompile(`(?m)^` + variable + ` = ((?:.*\\\n)*.*)$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile has no %s", variable)
	}
	names := map[string]bool{}
	for _, f := range strings.Fields(strings.ReplaceAll(m[1], "\\", " ")) {
		names[f] = true
	}
	return names
}

// raceSkippingTests returns the Test functions of a file with an
// `if raceEnabled { … }` whose body skips, returns or continues.
func raceSkippingTests(t *testing.T, path string) []string {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
			continue
		}
		skips := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			ifs, ok := n.(*ast.IfStmt)
			if !ok {
				return true
			}
			if id, ok := ifs.Cond.(*ast.Ident); ok && id.Name == "raceEnabled" && leavesEarly(ifs.Body) {
				skips = true
			}
			return true
		})
		if skips {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}

func leavesEarly(body *ast.BlockStmt) bool {
	for _, stmt := range body.List {
		switch s := stmt.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			if s.Tok == token.CONTINUE {
				return true
			}
		case *ast.ExprStmt:
			if call, ok := s.X.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Skip") {
					return true
				}
			}
		}
	}
	return false
}
