package specs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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
