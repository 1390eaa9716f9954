package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

var testSchema = trace.Schema{
	{Name: "term", Type: arrow.PrimitiveTypes.Int64},
	{Name: "state", Type: arrow.BinaryTypes.String},
	{Name: "log", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "index", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		arrow.Field{Name: "term", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	))},
	{Name: "tags", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean)},
}

// writeTrace writes a small trace with batches of two rows and returns its
// directory.
func writeTrace(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "x.trace")
	w, err := trace.Create(dir, testSchema, trace.Options{System: "test", BatchRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	states := []struct {
		node string
		vars []any
	}{
		{"b", []any{int64(1), "follower", []any{}, nil}},
		{"a", []any{int64(1), "leader", []any{map[string]any{"index": uint64(1), "term": int64(1)}}, map[string]any{"x": true}}},
		{"b", []any{int64(2), nil, []any{map[string]any{"index": uint64(1)}}, map[string]any{}}},
	}
	for i, s := range states {
		row, err := w.AddState(s.node, uint64(i), s.vars)
		if err != nil {
			t.Fatal(err)
		}
		if int(row) != i {
			t.Fatalf("row = %d, want %d", row, i)
		}
	}
	for i, m := range [][]uint32{{0, 1}, {2, 1}, {1}} {
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(10 + i), TS: uint64(i), Members: m, Tags: []string{"steady"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRoundTrip(t *testing.T) {
	tr, err := trace.Open(writeTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if m := tr.Manifest; m.Snapshots != 3 || m.States != 3 || m.Nodes != 2 || m.System != "test" {
		t.Errorf("manifest = %+v", m)
	}
	if len(tr.Schema) != len(testSchema) {
		t.Fatalf("schema = %v", tr.Schema)
	}
	sr := tr.Snapshots()
	defer sr.Close()
	var got [][]uint32
	for sr.Next() {
		s := sr.Snapshot()
		got = append(got, append([]uint32(nil), s.Members...))
		if !reflect.DeepEqual(s.Tags, []string{"steady"}) {
			t.Errorf("tags = %v", s.Tags)
		}
	}
	if err := sr.Err(); err != nil {
		t.Fatal(err)
	}
	// Members are sorted by node: a before b.
	want := [][]uint32{{1, 0}, {1, 2}, {1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("members = %v, want %v", got, want)
	}
	st := tr.States()
	defer st.Close()
	s, err := st.State(2)
	if err != nil {
		t.Fatal(err)
	}
	wantVars := []any{int64(2), nil, []any{map[string]any{"index": uint64(1), "term": nil}}, map[string]any{}}
	if s.Node != "b" || s.TS != 2 || !reflect.DeepEqual(s.Vars, wantVars) {
		t.Errorf("state 2 = %+v, want vars %v", s, wantVars)
	}
	if s, err = st.State(1); err != nil || s.Vars[3].(map[string]any)["x"] != true {
		t.Errorf("state 1 = %+v, %v", s, err)
	}
}

// TestStateReaderSome checks that Some decodes what State decodes, for
// every row and every choice of columns, in any order.
func TestStateReaderSome(t *testing.T) {
	tr, err := trace.Open(writeTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	all, some := tr.States(), tr.States()
	defer all.Close()
	defer some.Close()
	for _, cols := range [][]int{{}, {0}, {3, 1}, {2, 0, 3, 1}, {1, 1}} {
		for row := range uint32(tr.NumStates()) {
			s, err := all.State(row)
			if err != nil {
				t.Fatal(err)
			}
			vars := make([]any, len(cols))
			node, err := some.Some(row, cols, vars)
			if err != nil {
				t.Fatal(err)
			}
			for j, c := range cols {
				if !reflect.DeepEqual(vars[j], s.Vars[c]) {
					t.Errorf("row %d, column %d: Some = %v, State = %v", row, c, vars[j], s.Vars[c])
				}
			}
			if node != s.Node {
				t.Errorf("row %d: Some's node %q, State's %q", row, node, s.Node)
			}
		}
	}
	if _, err := some.Some(uint32(tr.NumStates()), []int{0}, make([]any, 1)); err == nil {
		t.Error("Some of a row past the end: no error")
	}
}

func TestWriterErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.trace")
	w, err := trace.Create(dir, testSchema, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	_, err = w.AddState("a", 0, []any{"one", nil, nil, nil})
	if err == nil || !strings.Contains(err.Error(), "variable term: want int64, got string") {
		t.Errorf("AddState error = %v", err)
	}
	_, err = w.AddState("a", 0, []any{nil, nil, []any{map[string]any{"term": 1.5}}, nil})
	if err == nil || !strings.Contains(err.Error(), "variable log[0].term: want int64, got number") {
		t.Errorf("AddState error = %v", err)
	}
	if _, err := w.AddState("a", 0, []any{nil, nil, nil, nil}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, Members: []uint32{0, 0}}); err == nil || !strings.Contains(err.Error(), "node a appears twice") {
		t.Errorf("AddSnapshot error = %v", err)
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, Members: []uint32{7}}); err == nil || !strings.Contains(err.Error(), "member row 7 does not exist") {
		t.Errorf("AddSnapshot error = %v", err)
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, Members: []uint32{0}}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, Members: []uint32{0}}); err == nil || !strings.Contains(err.Error(), "does not increase") {
		t.Errorf("AddSnapshot error = %v", err)
	}
	w.Abort()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("aborted trace exists: %v", err)
	}
}

func TestOpenCorrupt(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(dir string) error
		corrupt bool
		msg     string
	}{
		{"flipped byte", func(dir string) error {
			return flipByte(filepath.Join(dir, trace.StatesFile), 100)
		}, true, "states.arrow: SHA-256"},
		{"truncated", func(dir string) error {
			return truncateHalf(t, dir, trace.SnapshotsFile)
		}, true, "snapshots.arrow: not an Arrow IPC file"},
		{"missing manifest", func(dir string) error {
			return os.Remove(filepath.Join(dir, trace.ManifestFile))
		}, false, "manifest.json: no such file"},
		{"other version", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, trace.ManifestFile), []byte(`{"format":"augur-trace","version":9}`), 0o644)
		}, false, "unsupported trace version 9"},
		// Special files are refused at once, neither read without end
		// nor waited on (issue 31, cases 5 and 6).
		{"manifest a link to /dev/zero", replaceWith(trace.ManifestFile, func(p string) error {
			return os.Symlink("/dev/zero", p)
		}), false, "manifest.json: is a device, not a regular file"},
		{"manifest a named pipe", replaceWith(trace.ManifestFile, func(p string) error {
			return syscall.Mkfifo(p, 0o644)
		}), false, "manifest.json: is a named pipe, not a regular file"},
		{"manifest of 3 GB", replaceWith(trace.ManifestFile, func(p string) error {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				return err
			}
			return os.Truncate(p, 3<<30) // sparse
		}), false, "manifest.json: 3221225472 bytes, more than the 1048576 read"},
		{"states a link to /dev/zero", replaceWith(trace.StatesFile, func(p string) error {
			return os.Symlink("/dev/zero", p)
		}), false, "states.arrow: is a device, not a regular file"},
		{"states a named pipe", replaceWith(trace.StatesFile, func(p string) error {
			return syscall.Mkfifo(p, 0o644)
		}), false, "states.arrow: is a named pipe, not a regular file"},
		// A file that is not Arrow is refused before its SHA-256 is
		// computed, which takes 20 s for 8 GiB (issue 31 audit).
		{"states of 8 GiB, sparse", replaceWith(trace.StatesFile, func(p string) error {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				return err
			}
			return os.Truncate(p, 8<<30)
		}), true, "states.arrow: not an Arrow IPC file"},
		{"snapshots a directory", replaceWith(trace.SnapshotsFile, func(p string) error {
			return os.Mkdir(p, 0o755)
		}), false, "snapshots.arrow: is a directory, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTrace(t)
			if err := tt.damage(dir); err != nil {
				t.Fatal(err)
			}
			opened := make(chan error, 1)
			go func() {
				tr, err := trace.Open(dir)
				if err == nil {
					tr.Close()
				}
				opened <- err
			}()
			var err error
			select {
			case err = <-opened:
			case <-time.After(5 * time.Second):
				t.Fatal("Open still running after 5s")
			}
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Open error = %v, want it to contain %q", err, tt.msg)
			}
			if got := errors.Is(err, trace.ErrCorrupt); got != tt.corrupt {
				t.Errorf("errors.Is(err, ErrCorrupt) = %v, want %v", got, tt.corrupt)
			}
		})
	}
}

// replaceWith returns a damage that removes the file name of a trace and
// has create make another in its place.
func replaceWith(name string, create func(path string) error) func(dir string) error {
	return func(dir string) error {
		path := filepath.Join(dir, name)
		if err := os.Remove(path); err != nil {
			return err
		}
		return create(path)
	}
}

func flipByte(path string, off int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	data[off] ^= 0xff
	return os.WriteFile(path, data, 0o644)
}

// truncateHalf cuts a file in half and fixes the manifest's checksum, so
// that the Arrow reader itself must notice.
func truncateHalf(t *testing.T, dir, name string) error {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		return err
	}
	return trace.Rehash(t, dir, name)
}

// TestCorruptBytes damages random bytes of the record batches of both
// files, fixing the checksums so that the Arrow reader must cope, and
// checks that reading fails with ErrCorrupt or succeeds, but never
// panics. The schema and footer are left alone: a damaged schema can make
// the Arrow library allocate without bound before any check of ours runs,
// which the checksum prevents in practice.
func TestCorruptBytes(t *testing.T) {
	dir := writeTrace(t)
	orig := map[string][]byte{}
	for _, name := range []string{trace.StatesFile, trace.SnapshotsFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		orig[name] = data
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		name := []string{trace.StatesFile, trace.SnapshotsFile}[i%2]
		data := bytes.Clone(orig[name])
		lo, hi := batchRegion(data)
		for range 1 + rng.IntN(4) {
			data[lo+rng.IntN(hi-lo)] ^= byte(1 + rng.IntN(255))
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := trace.Rehash(t, dir, name); err != nil {
			t.Fatal(err)
		}
		if err := readAll(dir); err != nil && !errors.Is(err, trace.ErrCorrupt) {
			t.Errorf("damaged %s (case %d): error %v is not ErrCorrupt", name, i, err)
		}
		if err := os.WriteFile(path, orig[name], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := trace.Rehash(t, dir, name); err != nil {
			t.Fatal(err)
		}
	}
}

// batchRegion returns the byte range of an Arrow IPC file between its
// schema message and its footer: the record batches.
func batchRegion(data []byte) (lo, hi int) {
	// magic (8 bytes), continuation marker, metadata length, metadata.
	lo = 16 + int(binary.LittleEndian.Uint32(data[12:16]))
	// footer, footer length (4 bytes), magic (6 bytes).
	hi = len(data) - 10 - int(binary.LittleEndian.Uint32(data[len(data)-10:]))
	return lo, hi
}

// readAll opens a trace and reads every snapshot and state.
func readAll(dir string) error {
	tr, err := trace.Open(dir)
	if err != nil {
		return err
	}
	defer tr.Close()
	return readTrace(tr)
}

// readTrace reads every snapshot and state of tr.
func readTrace(tr *trace.Trace) error {
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
	}
	if err := sr.Err(); err != nil {
		return err
	}
	st := tr.States()
	defer st.Close()
	for row := range tr.NumStates() {
		if _, err := st.State(uint32(row)); err != nil {
			return err
		}
	}
	return nil
}

// TestStaleTemporaryDirs checks that a writer removes the temporary
// directories of its destination that killed writers left, and keeps
// those of live writers.
func TestStaleTemporaryDirs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.trace")
	stale := filepath.Join(dir, ".run.trace.tmp-123")
	other := filepath.Join(dir, ".other.trace.tmp-123")
	for _, d := range []string{stale, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	live, err := trace.Create(out, testSchema, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	w, err := trace.Create(out, testSchema, trace.Options{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != ".other.trace.tmp-123" || !strings.HasPrefix(names[1], ".run.trace.tmp-") || names[1] == filepath.Base(stale) {
		t.Errorf("left %v, want the other destination's and the live writer's", names)
	}
}

// TestMaxLens checks the longest container at each place of the state
// variables: the log has at most one entry (in two batches), the map one
// key.
func TestMaxLens(t *testing.T) {
	tr, err := trace.Open(writeTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	got, err := tr.MaxLens()
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"log": 1, "tags": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("MaxLens = %v, want %v", got, want)
	}
}

// AddState takes a list of scalars as a []int64, []uint64, []float64 or
// []string too, and writes it as it writes the []any of its values: the files are
// byte for byte the same. A slice of another element type is refused.
func TestAddStateNumberLists(t *testing.T) {
	schema := trace.Schema{
		{Name: "i", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
		{Name: "u", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64)},
		{Name: "f", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.PrimitiveTypes.Float64))},
		{Name: "s", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	}
	write := func(vars ...[]any) string {
		dir := filepath.Join(t.TempDir(), "x.trace")
		w, err := trace.Create(dir, schema, trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vars {
			if _, err := w.AddState("n1", uint64(i), v); err != nil {
				t.Fatal(err)
			}
			if err := w.AddSnapshot(trace.Snapshot{ID: uint64(i), Members: []uint32{uint32(i)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, trace.StatesFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	typed := write(
		[]any{[]int64{1, -2}, []uint64{1 << 63}, map[string]any{"a": []float64{0.5, -1}}, []string{"x", ""}},
		[]any{[]int64{}, nil, map[string]any{}, []string{}},
	)
	boxed := write(
		[]any{[]any{int64(1), int64(-2)}, []any{uint64(1 << 63)}, map[string]any{"a": []any{0.5, -1.0}}, []any{"x", ""}},
		[]any{[]any{}, nil, map[string]any{}, []any{}},
	)
	if typed != boxed {
		t.Errorf("states.arrow differs: %d bytes from typed lists, %d from []any", len(typed), len(boxed))
	}

	w, err := trace.Create(filepath.Join(t.TempDir(), "y.trace"), schema, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, tt := range []struct {
		vars []any
		want string
	}{
		{[]any{[]float64{1}, nil, nil, nil}, "variable i[0]: want int64, got float64"},
		{[]any{nil, []int64{1}, nil, nil}, "variable u[0]: want uint64, got int64"},
		{[]any{[]string{"x"}, nil, nil, nil}, "variable i[0]: want int64, got utf8"},
		{[]any{[]bool{true}, nil, nil, nil}, "variable i: want list, got []bool"},
	} {
		if _, err := w.AddState("n1", 0, tt.vars); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AddState(%v) = %v, want %s", tt.vars, err, tt.want)
		}
	}
}

// Many short []string lists in one state cost their bytes, not a copy of
// the column's buffer each: arrow's StringBuilder.AppendValues reserves
// exactly what it needs, and 500,000 lists of two strings took collect
// 43 s and 222 MB when AddState appended each list with it.
func TestAddStateStringListsLinear(t *testing.T) {
	const n = 20_000
	schema := trace.Schema{{Name: "peers", Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String))}}
	lists := make([]any, n)
	for i := range lists {
		lists[i] = []string{"n1", "n2"}
	}
	var a uint64 = math.MaxUint64
	for range 3 {
		w, err := trace.Create(filepath.Join(t.TempDir(), "x.trace"), schema, trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = w.AddState("n1", 1, []any{lists})
		runtime.ReadMemStats(&after)
		w.Abort()
		if err != nil {
			t.Fatal(err)
		}
		a = min(a, after.TotalAlloc-before.TotalAlloc)
	}
	if a > 2<<20 {
		t.Errorf("adding %d lists of two strings allocated %d KiB", n, a>>10)
	}
}

// The tags of a batch of snapshots cost their bytes: each snapshot's were
// appended with arrow's StringBuilder.AppendValues, which reserves exactly
// what it needs and so copied the batch's tags so far each time (a trace
// of 200,000 snapshots with two tags each took collect 2.9 s of CPU, 2.0 s
// after).
func TestAddSnapshotTagsLinear(t *testing.T) {
	const n = 4000
	schema := trace.Schema{{Name: "term", Type: arrow.PrimitiveTypes.Int64}}
	var a uint64 = math.MaxUint64
	for range 3 {
		w, err := trace.Create(filepath.Join(t.TempDir(), "x.trace"), schema, trace.Options{BatchRows: 2 * n})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddState("n1", 1, []any{int64(1)}); err != nil {
			t.Fatal(err)
		}
		tags := []string{"steady", "phase-1"}
		members := []uint32{0}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			if err := w.AddSnapshot(trace.Snapshot{ID: uint64(i), Members: members, Tags: tags}); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		w.Abort()
		a = min(a, after.TotalAlloc-before.TotalAlloc)
	}
	if a > 1<<20 {
		t.Errorf("adding %d snapshots of two tags allocated %d KiB", n, a>>10)
	}
}
