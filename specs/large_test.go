package specs

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Parsing takes time about linear in the size of a spec: an enum of
// 1,000,000 values took spec check over an hour when each value was
// looked for among those before it, and 10,000 derived variables took
// minutes when each was compiled against all those before it.
func TestParseLarge(t *testing.T) {
	tests := []struct {
		name string
		src  func(b *strings.Builder)
	}{
		{"enum of 300,000 values", func(b *strings.Builder) {
			b.WriteString("variables:\n  state: {enum: [")
			for i := range 300_000 {
				fmt.Fprintf(b, "e%d, ", i)
			}
			b.WriteString("last]}\n")
		}},
		{"10,000 derived variables", func(b *strings.Builder) {
			b.WriteString("variables:\n  commit: int64\nderived:\n")
			for i := range 10_000 {
				fmt.Fprintf(b, "  d%d: {type: int64, expr: \"commit + %d\"}\n", i, i)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			tt.src(&b)
			start := time.Now()
			if _, err := Parse("large.yaml", []byte(b.String())); err != nil {
				t.Fatal(err)
			}
			// About 1 s; 20 s leaves room for a loaded machine.
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("Parse took %v", took)
			}
		})
	}
}

// A derived variable is compiled against the names it uses, and against
// all the variables and derived variables before it when it reads $env.
func TestDerivedEnv(t *testing.T) {
	src := "variables:\n  commit: int64\n  applied: int64\nderived:\n" +
		"  a: {type: int64, expr: \"commit + 1\"}\n" +
		"  b: {type: int64, expr: \"a + applied\"}\n" +
		"  c: {type: int64, expr: '$env.b + $env[\"commit\"]'}\n"
	s, err := Parse("env.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]any{"commit": int64(3), "applied": int64(2)}
	for _, d := range s.Derived {
		v, err := d.Eval(env)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		env[d.Name] = v
	}
	if env["a"] != int64(4) || env["b"] != int64(6) || env["c"] != int64(9) {
		t.Errorf("a, b, c = %v, %v, %v; want 4, 6, 9", env["a"], env["b"], env["c"])
	}
}
