package ingest

import (
	"fmt"
	"strings"
	"testing"
)

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		line  string
		off   int
		field string
	}{
		{`{"snapshot": 1, "nodes": {"a": {"x": 1}, "b": {"x": 1}}}`, -1, ""},
		{`{"snapshot": 1, "nodes": {"a": {"x": 1}, "a": {"x": 2}}}`, 41, "nodes.a"},
		{`{"nodes": {"a": {"x": 1, "y": [1, 2], "x": 3}}}`, 38, "nodes.a.x"},
		{`{"log": [{"t": 1}, {"t": 2, "t": 3}]}`, 28, "log[1].t"},
		{`{"a": "}{\"a\": 1", "b": ["a", "a"]}`, -1, ""},
		{`{"a": 1, "\u0061": 2}`, 9, "a"},
		{`{"10.0.0.1:80": 1, "10.0.0.1:80": 2}`, 19, `["10.0.0.1:80"]`},
		{`"a string"`, -1, ""},
		{`[{"a": 1}, {"a": 1}]`, -1, ""},
		{many(20, "k3"), 201, "k3"},
		{many(20, "new"), -1, ""},
	}
	for _, tt := range tests {
		off, field := duplicateKey(tt.line)
		if off != tt.off || field != tt.field {
			t.Errorf("duplicateKey(%s) = %d, %q; want %d, %q", tt.line, off, field, tt.off, tt.field)
		}
	}
}

// many returns an object of n keys k0, k1, …, then last.
func many(n int, last string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `"k%d": %d, `, i, i)
	}
	return "{" + b.String() + `"` + last + `": 0}`
}
