package trace_test

import (
	"path/filepath"
	"runtime"
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
