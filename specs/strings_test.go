package specs

import (
	"strings"
	"testing"
)

// The string builtins give what expr-lang's give, and fail an evaluation
// that would build a string of more than BuildMax bytes, whatever the
// input: three nested replaces of a 1,000-byte string built a gigabyte.
func TestStringBounds(t *testing.T) {
	tests := []struct {
		name, typ, expr string
		want            any
		err             string // a part of the evaluation's error; "" for none
	}{
		{"replace", "string", `replace(s, "b", "xy")`, "axyc", ""},
		{"replace n times", "string", `replace("aaa", "a", "b", 2)`, "bba", ""},
		{"replace empty old", "string", `replace("ab", "", "-")`, "-a-b-", ""},
		{"replace shrinking", "int64", `len(replace(repeat("ab", 2000), "ab", ""))`, int64(0), ""},
		{"repeat by a variable", "string", `repeat(s, n)`, "abcabc", ""},
		{"join", "string", `join(l, ", ")`, "x, y", ""},
		{"join without separator", "string", `join(["a", "b"])`, "ab", ""},
		{"concatenation", "string", `s + "d" + s`, "abcdabc", ""},
		{"number addition", "int64", `n + 1`, int64(3), ""},
		{"concatenation in a loop", "string", `reduce(l, #acc + #, "")`, "xy", ""},
		{"addition in a loop", "int64", `reduce(1..3, #acc + #, 0)`, int64(6), ""},
		{"nine kilobytes", "int64", `len(repeat(s, 3000))`, int64(9000), ""},
		{"a megabyte counted", "int64", `len(repeat("a", 1000000))`, nil, "builds more than"},
		{"two megabytes", "int64", `len(replace(repeat("a", 1000), "a", repeat("b", 2000)))`, nil, "replace would build"},
		{"concatenation of long strings", "int64", `len(b + b)`, nil, "+ would build"},
		{"nested replaces", "int64", `len(replace(replace(replace(repeat("a", 1000), "a", repeat("b", 1000)), "b", repeat("c", 100)), "c", "dddddddddd"))`, nil, "builds more than"},
		{"repeat of a long string", "int64", `len(repeat(repeat("a", 1000), 1000000))`, nil, "repeat would build"},
		{"negative repeat", "string", `repeat(s, -1)`, nil, "repeat: negative count"},
		{"join of long strings", "int64", `len(join(map(1..2000, s)))`, int64(6000), ""},
		{"join of a long list", "int64", `len(join(map(1..300, b)))`, nil, "join would build"},
		{"join counted", "int64", `len(join([b])) + len(join([b]))`, nil, "builds more than"},
		{"long concatenation in a loop", "int64", `len(reduce(1..3, #acc + b, ""))`, nil, "+ would build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "variables:\n  s: string\n  b: string\n  n: int64\n  l: list<string>\nderived:\n  d: {type: " + tt.typ + ", expr: '" + tt.expr + "'}\n"
			s, err := Parse("strings.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Derived[0].Eval(map[string]any{"s": "abc", "b": strings.Repeat("b", 600_000), "n": int64(2), "l": []any{"x", "y"}})
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("Eval: error %v, want %q", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Eval = %#v, want %#v", got, tt.want)
			}
		})
	}
}
