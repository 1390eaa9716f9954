package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowBoundary checks Options.Window at its boundary: a record that
// comes after late records of other nodes, all with larger timestamps,
// is read within a window of one more record than those and refused
// within a window of as many; 0 means DefaultWindow, which reads it, and
// a negative window is refused (it meant DefaultWindow before).
func TestWindowBoundary(t *testing.T) {
	const late = 5 // records of n2, each with a larger timestamp than n3's
	var b strings.Builder
	b.WriteString(`{"node": "n1", "ts": 1, "state": {"x": 1}}` + "\n")
	for i := range late {
		fmt.Fprintf(&b, `{"node": "n2", "ts": %d, "state": {"x": 1}}`+"\n", 10+i)
	}
	b.WriteString(`{"node": "n3", "ts": 2, "state": {"x": 1}}` + "\n")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		window int
		ok     bool
	}{
		{-1, false},
		{0, true}, // DefaultWindow
		{1, false},
		{late, false},
		{late + 1, true},
		{late + 2, true},
	} {
		out := filepath.Join(dir, fmt.Sprintf("w%d.trace", tt.window))
		_, err := Collect(t.Context(), out, []string{in}, Options{Window: tt.window})
		if ok := err == nil; ok != tt.ok {
			t.Errorf("Window %d: err = %v, want ok %v", tt.window, err, tt.ok)
		}
	}
}
