package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// An input whose states hold more state variables between them than a
// trace may hold is an error at the line that holds one too many, read
// in the first pass before any column is built (a line of a million
// variables took collect 2.4 GB and ran out of memory).
func TestMaxVariables(t *testing.T) {
	vars := func(from, n int) map[string]int {
		m := map[string]int{}
		for i := from; i < from+n; i++ {
			m[fmt.Sprintf("v%06d", i)] = i
		}
		return m
	}
	line := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	const bound = trace.MaxVariables
	tests := []struct {
		name  string
		input string
		line  int    // of the error; 0 for none
		field string // of the error
	}{
		{"at the bound", line(map[string]any{"snapshot": 1, "nodes": map[string]any{"n1": vars(0, bound)}}), 0, ""},
		{"over it in one state", line(map[string]any{"snapshot": 1, "nodes": map[string]any{"n1": vars(0, bound+1)}}), 1, fmt.Sprintf("nodes.n1.v%06d", bound)},
		{"over it between nodes", line(map[string]any{"snapshot": 1, "nodes": map[string]any{"n1": vars(0, bound), "n2": vars(bound, 1)}}), 1, fmt.Sprintf("nodes.n2.v%06d", bound)},
		{"over it between lines, node-local", line(map[string]any{"node": "n1", "ts": 1, "state": vars(0, bound)}) +
			line(map[string]any{"node": "n2", "ts": 1, "state": vars(1, bound)}), 2, fmt.Sprintf("state.v%06d", bound)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			inputs := writeInputs(t, dir, tt.input)
			_, err := Collect(t.Context(), filepath.Join(dir, "out.trace"), inputs, Options{})
			if tt.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Pos.Line != tt.line || e.Field != tt.field || e.Msg != fmt.Sprintf("one state variable more than the %d a trace may hold", bound) {
				t.Fatalf("error %v, want one at line %d, %s", err, tt.line, tt.field)
			}
		})
	}
}
