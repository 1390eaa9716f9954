package specs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"

	"github.com/augur-dev/augur/diag"
)

// FuzzParse checks that no input makes Parse panic, that every failure is
// a non-empty diag.ErrorList, and that a spec that parses can be checked and
// evaluated on empty input.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tt := range parseErrorTests {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte("variables:\n  a: \"list<{x: int64}>\"\nderived:\n  d: {type: int64, expr: |\n    len(a)\n  }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var list diag.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse error %v is not a non-empty diag.ErrorList", err)
			}
			return
		}
		env := map[string]any{}
		for _, d := range s.Derived {
			env[d.Name], _ = d.Eval(env)
		}
		for _, p := range s.Predicates {
			p.Eval(make([]any, len(p.Params)))
		}
	})
}

// FuzzNesting checks that nesting, which reads any expression without
// recursion, counts a unary operator and the brackets around an
// expression that parses, and never less than the unary operators and
// conditionals the parser nests, so that what MaxNesting refuses bounds
// the parser's recursion.
func FuzzNesting(f *testing.F) {
	for _, src := range []string{"a", "-a + -b", "not (a ? b : c)", "let x = 1; -x ** 2", "map(l, {-#})", "((", "]"} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, deep := tooDeep(src)
		if deep {
			return
		}
		tree, err := exprparser.Parse(src)
		if err != nil {
			return
		}
		if got := nesting("-(" + src + ")"); got < n+2 {
			t.Errorf("nesting(-(%q)) = %d, want at least %d", src, got, n+2)
		}
		if d := prefixDepth(tree.Node); d > n {
			t.Errorf("nesting(%q) = %d, but the parser nests %d unary operators and conditionals", src, n, d)
		}
	})
}

// prefixDepth returns the most unary operators and conditionals on one
// path from the root of node down.
func prefixDepth(node ast.Node) int {
	deepest := 0
	var walk func(n ast.Node, d int)
	walk = func(n ast.Node, d int) {
		switch n := n.(type) {
		case *ast.UnaryNode:
			walk(n.Node, d+1)
			return
		case *ast.ConditionalNode:
			walk(n.Cond, d+1)
			walk(n.Exp1, d+1)
			walk(n.Exp2, d+1)
			return
		}
		deepest = max(deepest, d)
	}
	walk(node, 0)
	return deepest
}
