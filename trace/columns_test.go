package trace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/trace"
)

// A state variable costs the writer about what it holds: with a state
// of 20,000 variables of one integer each added, the writer holds under
// 500 bytes a variable, its schema's entries and its column (an Arrow
// builder per variable, with room for 32 values and a bitmap reserved at
// its first value, held 1 KB; collect of a million variables ran out
// of memory).
func TestWideStateMemory(t *testing.T) {
	const n = 20_000
	var schema trace.Schema
	vars := make([]any, n)
	for i := range n {
		schema = append(schema, trace.Column{Name: fmt.Sprintf("v%d", i), Type: arrow.PrimitiveTypes.Int64})
		vars[i] = int64(i)
	}
	dir := filepath.Join(t.TempDir(), "wide.trace")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w, err := trace.Create(dir, schema, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := w.AddState("n1", 1, vars)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if per := (int64(after.HeapAlloc) - int64(before.HeapAlloc) - 2<<20) / n; per > 500 { // 2 MiB: the files' buffers
		t.Errorf("with a state of %d variables added, the writer holds %d bytes a variable", n, per)
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, TS: 1, Members: []uint32{row}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(vars)
}

// states.arrow is the same bytes as Arrow's builders write for the same
// rows, whichever types, nulls and batch sizes: the columns that keep
// scalars in Go slices size their validity bitmaps as the builders do.
func TestStatesAsBuilders(t *testing.T) {
	schema := trace.Schema{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64},
	}
	row := func(r int, nulls bool) []any {
		vals := []any{r%3 == 0, float64(r) / 2, int64(-r), []any{int64(r)}, fmt.Sprint("s", r), uint64(r)}
		if nulls {
			vals[r%len(vals)] = nil
			if r%7 == 0 {
				vals[(r+1)%len(vals)] = nil
			}
		}
		return vals
	}
	for _, tt := range []struct {
		name        string
		rows, batch int
		nulls       bool
	}{
		{"one row", 1, 0, false},
		{"one row, nulls", 1, 0, true},
		{"33 rows, nulls", 33, 0, true},
		{"1000 rows in batches of 100, nulls", 1000, 100, true},
		{"5000 rows", 5000, 0, false},
		{"5000 rows, nulls", 5000, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "x.trace")
			w, err := trace.Create(dir, schema, trace.Options{BatchRows: tt.batch})
			if err != nil {
				t.Fatal(err)
			}
			for r := range tt.rows {
				if _, err := w.AddState(fmt.Sprint("n", r), uint64(r), row(r, tt.nulls)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, trace.StatesFile))
			if err != nil {
				t.Fatal(err)
			}
			want := statesByBuilders(t, schemaOf(t, filepath.Join(dir, trace.StatesFile)), tt.rows, tt.batch, row, tt.nulls)
			if string(got) != string(want) {
				t.Errorf("states.arrow (%d bytes) differs from what Arrow's builders write (%d bytes)", len(got), len(want))
			}
		})
	}
}

// statesByBuilders writes the rows of TestStatesAsBuilders with Arrow's
// record builder, batch rows to a batch (0: 4096).
func statesByBuilders(t *testing.T, schema *arrow.Schema, rows, batch int, row func(int, bool) []any, nulls bool) []byte {
	t.Helper()
	if batch == 0 {
		batch = 4096
	}
	path := filepath.Join(t.TempDir(), "states.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	flush := func() {
		rec := b.NewRecordBatch()
		defer rec.Release()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	for r := range rows {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprint("n", r))
		b.Field(1).(*array.Uint64Builder).Append(uint64(r))
		for i, v := range row(r, nulls) {
			fb := b.Field(i + 2)
			switch v := v.(type) {
			case nil:
				fb.AppendNull()
			case bool:
				fb.(*array.BooleanBuilder).Append(v)
			case float64:
				fb.(*array.Float64Builder).Append(v)
			case int64:
				fb.(*array.Int64Builder).Append(v)
			case uint64:
				fb.(*array.Uint64Builder).Append(v)
			case string:
				fb.(*array.StringBuilder).Append(v)
			case []any:
				lb := fb.(*array.ListBuilder)
				lb.Append(true)
				lb.ValueBuilder().(*array.Int64Builder).Append(v[0].(int64))
			}
		}
		if (r+1)%batch == 0 {
			flush()
		}
	}
	if rows%batch != 0 {
		flush()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
