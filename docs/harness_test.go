package docs_test

import (
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
	fset := token.NewFileSet()
	harnesses := 0
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
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path != "testing" {
					continue
				}
				harnesses++
				if !strings.HasSuffix(f.Name.Name, "test") {
					t.Errorf("%s/%s: package %s imports testing outside a _test.go file; a test harness is a package named …test", dir, name, f.Name.Name)
				}
			}
		}
	}
	if harnesses == 0 {
		t.Error("no harness found: the walk missed the module")
	}
}
