package main

import (
	"strings"
	"testing"
)

// TestPrintable checks that a message prints as what it says: raw bytes
// and control characters escaped, a huge quoted value cut (issue 31).
func TestPrintable(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	tests := []struct {
		msg, want string
	}{
		{"", ""},
		{"spec.yaml:3:5: unknown variable x", "spec.yaml:3:5: unknown variable x"},
		{"line one\n\tline two", "line one\n\tline two"},
		{"node \xff\xfe of states.arrow", `node \xff\xfe of states.arrow`},
		{"name \x1b[31mred\x00", `name \x1b[31mred\x00`},
		{"a\u2028b é ✓", `a\u2028b é ✓`},
		{"x: integer " + long + " does not fit", "x: integer " + strings.Repeat("9", 64) + "…[1048576 bytes]…" + strings.Repeat("9", 16) + " does not fit"},
		{"cut between runes " + strings.Repeat("é", 200), "cut between runes " + strings.Repeat("é", 32) + "…[400 bytes]…" + strings.Repeat("é", 8)},
		{"raw in a long run " + strings.Repeat("\xff", 300), "raw in a long run " + strings.Repeat(`\xff`, 64) + "…[300 bytes]…" + strings.Repeat(`\xff`, 16)},
	}
	for _, tt := range tests {
		if got := printable(tt.msg); got != tt.want {
			t.Errorf("printable(%.40q) = %.200q, want %.200q", tt.msg, got, tt.want)
		}
	}
}
