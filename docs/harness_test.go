package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHarnesses checks the rule of architecture.md that a package whose
// code, outside its _test.go files, imports testing is a test harness
// named for it (tracetest, evaltest, testbedtest, arrowjstest, …), as the
// standard library's httptest and fstest are: no product package links
// the testing package and its flags.
func TestHarnesses(t *testing.T) {
	harnesses := 0
	eachProductFile(t, func(dir, name string, f *ast.File) {
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path != "testing" {
				continue
			}
			harnesses++
			if !strings.HasSuffix(f.Name.Name, "test") {
				t.Errorf("%s/%s: package %s imports testing outside a _test.go file; a test harness is a package named …test", dir, name, f.Name.Name)
			}
		}
	})
	if harnesses == 0 {
		t.Error("no harness found: the walk missed the module")
	}
}

// TestInternalLeaves checks the rule of architecture.md that the helpers
// under internal/ are leaves: they import no package of the module
// outside internal/, so that any layer may use them without an arrow
// upward. Test harnesses (…test) may import what they test.
func TestInternalLeaves(t *testing.T) {
	const module = "github.com/augur-dev/augur/"
	eachProductFile(t, func(dir, name string, f *ast.File) {
		if !strings.HasPrefix(dir, "internal/") || strings.HasSuffix(f.Name.Name, "test") {
			return
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module) && !strings.HasPrefix(path, module+"internal/") {
				t.Errorf("%s/%s imports %s: a helper under internal/ imports only the standard library, other modules and internal/", dir, name, path)
			}
		}
	})
}

// TestIRLayer checks the place of ir in architecture.md, between the
// generator and the evaluator: of the module it imports only the
// property language, the spec, their positions and the helpers under
// internal/, so that the evaluator and the checker share it without an
// arrow upward.
func TestIRLayer(t *testing.T) {
	const module = "github.com/augur-dev/augur/"
	above := map[string]bool{"diag": true, "grammar": true, "specs": true}
	files := 0
	eachProductFile(t, func(dir, name string, f *ast.File) {
		if dir != "ir" {
			return
		}
		files++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(path, module)
			if ok && !above[rel] && !strings.HasPrefix(rel, "internal/") {
				t.Errorf("%s/%s imports %s: ir imports of the module only diag, grammar, specs and internal/", dir, name, path)
			}
		}
	})
	if files == 0 {
		t.Error("no file of ir found: the walk missed it")
	}
}

// eachProductFile calls fn with each Go file of the module that is not a
// test, by package directory and name, parsed up to its imports.
func eachProductFile(t *testing.T, fn func(dir, name string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	for _, dir := range goDirs(t, "..") {
		ents, err := os.ReadDir(filepath.Join("..", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join("..", dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			fn(dir, name, f)
		}
	}
}
