package trace_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/trace"
)

// A trace holds at most MaxVariables state variables: Create refuses
// more, and so does Open, for a file written by another tool.
func TestMaxVariables(t *testing.T) {
	var schema trace.Schema
	for i := range trace.MaxVariables + 1 {
		schema = append(schema, trace.Column{Name: fmt.Sprintf("v%d", i), Type: arrow.PrimitiveTypes.Int64})
	}
	want := fmt.Sprintf("%d state variables, over the %d a trace may hold", trace.MaxVariables+1, trace.MaxVariables)
	for _, tt := range []struct {
		name   string
		schema trace.Schema
		err    string
	}{
		{"at the bound", schema[:trace.MaxVariables], ""},
		{"over it", schema, want},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, err := trace.Create(filepath.Join(t.TempDir(), "x.trace"), tt.schema, trace.Options{})
			if err == nil {
				w.Abort()
			}
			if got := fmt.Sprint(err); tt.err == "" && err != nil || tt.err != "" && !strings.Contains(got, tt.err) {
				t.Errorf("Create: %v, want %q", err, tt.err)
			}
		})
	}
	dir := writeTrace(t)
	fields := schemaOf(t, filepath.Join(dir, trace.StatesFile)).Fields()[:2]
	for _, c := range schema {
		fields = append(fields, arrow.Field{Name: c.Name, Type: c.Type, Nullable: true})
	}
	wide := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, wide)
	defer b.Release()
	rewrite(t, dir, trace.StatesFile, wide, b.NewRecordBatch())
	if _, err := trace.Open(dir); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v, want %q", err, want)
	}
	// Open finds a column given twice by name, not by searching the
	// columns before it, which was quadratic in them.
	twice := arrow.NewSchema(append(fields[:3:3], fields[2]), nil)
	b2 := array.NewRecordBuilder(memory.DefaultAllocator, twice)
	defer b2.Release()
	rewrite(t, dir, trace.StatesFile, twice, b2.NewRecordBatch())
	if _, err := trace.Open(dir); err == nil || !strings.Contains(err.Error(), "column v0 appears twice") {
		t.Errorf("Open: %v, want column v0 appears twice", err)
	}
}
