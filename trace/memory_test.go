package trace_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// TestHugeStringHeldOnce reads a trace whose one state holds a string of
// 16 MiB as the pipeline does: the snapshots (which index the nodes),
// MaxLens, and the states from two readers at once, as mining constants
// and two evaluation workers do. The readers share the batch and the
// string the memory of its batch, so that the reads allocate about the
// string's size once, not a batch and a copy of the string per reader
// (before, 5 times its size; augur infer of a 60 MB string peaked at
// 306 MB).
func TestHugeStringHeldOnce(t *testing.T) {
	const size = 16 << 20
	dir := filepath.Join(t.TempDir(), "big.trace")
	schema := trace.Schema{
		{Name: "term", Type: arrow.PrimitiveTypes.Int64},
		{Name: "note", Type: arrow.BinaryTypes.String},
	}
	w, err := trace.Create(dir, schema, trace.Options{System: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		var members []uint32
		for _, node := range []string{"n1", "n2"} {
			note := "ok"
			if s == 1 && node == "n2" {
				note = strings.Repeat("x", size)
			}
			row, err := w.AddState(node, uint64(s), []any{int64(s), note})
			if err != nil {
				t.Fatal(err)
			}
			members = append(members, row)
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(s), TS: uint64(s), Members: members}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	snaps := tr.Snapshots()
	for snaps.Next() {
	}
	snaps.Close()
	if err := snaps.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.MaxLens(); err != nil {
		t.Fatal(err)
	}
	var kept []any
	for range 2 {
		sr := tr.States()
		defer sr.Close()
		for row := range uint32(tr.NumStates()) {
			st, err := sr.State(row)
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, st.Vars[1])
		}
	}
	runtime.ReadMemStats(&after)
	if got := kept[3].(string); len(got) != size || got[size-1] != 'x' {
		t.Fatalf("row 3's note has %d bytes, want %d", len(got), size)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 2*size {
		t.Errorf("reading the trace allocated %d MiB, more than twice its string of %d MiB", n>>20, size>>20)
	}
	runtime.KeepAlive(kept)
}

// TestTypedStates reads a state holding a list of 2^20 int64 (8 MiB) and
// small lists of each kind with States and TypedStates: TypedStates
// decodes the lists without nulls to typed slices, equal element by
// element to States' []any, and the huge one shares its batch's memory,
// so that two readers of it allocate a fraction of its size; States boxes
// each element (about 3 times the list, for each reader).
func TestTypedStates(t *testing.T) {
	const n = 1 << 20
	big := make([]int64, n)
	for i := range big {
		big[i] = int64(i)*7919 - 1<<40
	}
	dir := filepath.Join(t.TempDir(), "typed.trace")
	schema := trace.Schema{
		{Name: "ints", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
		{Name: "reals", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "names", Type: arrow.ListOf(arrow.BinaryTypes.String)},
		{Name: "rec", Type: arrow.StructOf(arrow.Field{Name: "ids", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64), Nullable: true})},
	}
	w, err := trace.Create(dir, schema, trace.Options{System: "test"})
	if err != nil {
		t.Fatal(err)
	}
	states := [][]any{
		{big, []float64{0.5, -1}, []string{"a", ""}, map[string]any{"ids": []uint64{1 << 63}}},
		{[]any{int64(1), nil}, []any{}, nil, map[string]any{"ids": nil}},
	}
	var members []uint32
	for i, vars := range states {
		row, err := w.AddState(fmt.Sprint("n", i), 1, vars)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, row)
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, TS: 1, Members: members}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	wantTypes := [][]string{
		{"[]int64", "[]float64", "[]string", "map[string]interface {}"},
		{"[]interface {}", "[]float64", "<nil>", "map[string]interface {}"},
	}
	boxed, typed := tr.States(), tr.TypedStates()
	defer boxed.Close()
	defer typed.Close()
	for row := range uint32(len(states)) {
		b, err := boxed.State(row)
		if err != nil {
			t.Fatal(err)
		}
		ty, err := typed.State(row)
		if err != nil {
			t.Fatal(err)
		}
		some := make([]any, 1)
		if _, err := typed.Some(row, []int{1}, some); err != nil {
			t.Fatal(err)
		}
		for c := range schema {
			if got := fmt.Sprintf("%T", ty.Vars[c]); got != wantTypes[row][c] {
				t.Errorf("row %d %s: TypedStates gives a %s, want %s", row, schema[c].Name, got, wantTypes[row][c])
			}
			if got, want := fmt.Sprint(ty.Vars[c]), fmt.Sprint(b.Vars[c]); got != want {
				t.Errorf("row %d %s: TypedStates gives %.60s, States %.60s", row, schema[c].Name, got, want)
			}
		}
		if got := fmt.Sprintf("%T", some[0]); got != wantTypes[row][1] {
			t.Errorf("row %d: Some gives a %s, want %s", row, got, wantTypes[row][1])
		}
		if got := fmt.Sprint(ty.Vars[3].(map[string]any)["ids"]); row == 0 && got != "[9223372036854775808]" {
			t.Errorf("row 0 rec.ids = %s", got)
		}
	}

	alloc := func(sr func() *trace.StateReader) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var kept []any
		for range 2 {
			r := sr()
			st, err := r.State(0)
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, st.Vars[0])
			r.Close()
		}
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(kept)
		return after.TotalAlloc - before.TotalAlloc
	}
	alloc(tr.TypedStates) // the batch is loaded once and shared: load it before measuring
	if got := alloc(tr.TypedStates); got > 8*n/4 {
		t.Errorf("two typed readers of a list of %d MiB allocated %d KiB", 8*n>>20, got>>10)
	}
	if got := alloc(tr.States); got < 2*8*n {
		t.Errorf("two boxed readers of a list of %d MiB allocated only %d KiB: is the list shared?", 8*n>>20, got>>10)
	}
}

// TestHugeStatesReadBack writes three states of 100 MiB each: cut by rows
// alone they made one record batch of 300 MiB, which a reader refuses (an
// IPC message body over 256 MiB), so the trace written could not be read.
// The writer cuts batches by bytes too; and it refuses a state too large
// for any batch when it is added, not when it is read.
func TestHugeStatesReadBack(t *testing.T) {
	chunk := strings.Repeat("x", 1<<20)
	huge := make([]any, 100) // 100 MiB of values, one chunk shared
	for i := range huge {
		huge[i] = chunk
	}
	dir := filepath.Join(t.TempDir(), "big.trace")
	schema := trace.Schema{{Name: "blobs", Type: arrow.ListOf(arrow.BinaryTypes.String)}}
	w, err := trace.Create(dir, schema, trace.Options{System: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		row, err := w.AddState(fmt.Sprintf("n%d", s+1), uint64(s), []any{huge})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(s), TS: uint64(s), Members: []uint32{row}}); err != nil {
			t.Fatal(err)
		}
	}
	tooHuge := slices.Repeat(huge, 2)
	if _, err := w.AddState("n9", 9, []any{tooHuge}); err == nil || !strings.Contains(err.Error(), "over the 192 MiB a state may hold") {
		t.Errorf("AddState of a 200 MiB state: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	sr := tr.States()
	defer sr.Close()
	for row := range uint32(3) {
		st, err := sr.State(row)
		if err != nil {
			t.Fatalf("reading state %d back: %v", row, err)
		}
		if l, ok := st.Vars[0].([]any); !ok || len(l) != len(huge) || l[0] != chunk {
			t.Fatalf("state %d: %T of %d, want the list of %d written", row, st.Vars[0], len(l), len(huge))
		}
	}
}
