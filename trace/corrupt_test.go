package trace_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/trace"
)

// footer locates the footer flatbuffer of an Arrow IPC file, so that a
// test can damage precise parts of it as a crafted file would.
type footer struct {
	data []byte
	base int // offset of the footer in data
}

func footerOf(t *testing.T, data []byte) footer {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-10:]))
	return footer{data: data, base: len(data) - 10 - n}
}

func (f footer) u32(p int) int { return int(binary.LittleEndian.Uint32(f.data[p:])) }

// root returns the position of the footer table.
func (f footer) root() int { return f.base + f.u32(f.base) }

// slot returns the position of field i of the table at p; 0 if absent.
func (f footer) slot(p, i int) int {
	vt := p - int(int32(f.u32(p)))
	if 4+2*i >= int(binary.LittleEndian.Uint16(f.data[vt:])) {
		return 0
	}
	o := int(binary.LittleEndian.Uint16(f.data[vt+4+2*i:]))
	if o == 0 {
		return 0
	}
	return p + o
}

// deref follows the offset stored at p.
func (f footer) deref(p int) int { return p + f.u32(p) }

// elem returns the position of table element k of the vector at p.
func (f footer) elem(p, k int) int { return f.deref(p + 4 + 4*k) }

func (f footer) put(p, v int) { binary.LittleEndian.PutUint32(f.data[p:], uint32(v)) }

// Slot numbers in Arrow's File.fbs and Schema.fbs.
const (
	footerSchema, footerBatches  = 1, 3
	schemaFields, schemaMetadata = 1, 2
	fieldChildren                = 5
)

// damageFile rewrites the named file of a trace with damage applied and
// re-signs the manifest, so that the checksum does not catch it.
func damageFile(t *testing.T, dir, name string, damage func(f footer)) {
	t.Helper()
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damage(footerOf(t, data))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := trace.Rehash(t, dir, name); err != nil {
		t.Fatal(err)
	}
}

// TestCraftedFooter damages the footers that crashed the reader in the
// reliability audit (issue 12) and in the corruption harness that
// reproduced it: each used to panic or die of a fatal error before any
// check of ours ran.
func TestCraftedFooter(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		damage func(f footer)
		want   string
	}{
		// panic: slice bounds out of range in Footer.RecordBatchesLength,
		// through NumRecords in indexRows.
		{"batches vector past the end", trace.StatesFile, func(f footer) {
			f.put(f.slot(f.root(), footerBatches), 65536)
		}, "points outside the metadata"},
		// fatal error: out of memory in schemaFromFB: make([]Field, n).
		{"schema claims 2^31 fields", trace.StatesFile, func(f footer) {
			s := f.deref(f.slot(f.root(), footerSchema))
			f.put(f.deref(f.slot(s, schemaFields)), 1<<31-1)
		}, "does not fit in the metadata"},
		// fatal error: out of memory in metadataFromFB.
		{"schema metadata claims 2^30 entries", trace.StatesFile, func(f footer) {
			s := f.deref(f.slot(f.root(), footerSchema))
			f.put(f.deref(f.slot(s, schemaMetadata)), 1<<30)
		}, "does not fit in the metadata"},
		// fatal error: out of memory in fieldFromFB: make([]Field, n) for
		// the children of the list column log.
		{"field claims 2^28 children", trace.StatesFile, func(f footer) {
			s := f.deref(f.slot(f.root(), footerSchema))
			log := f.elem(f.deref(f.slot(s, schemaFields)), 4)
			f.put(f.deref(f.slot(log, fieldChildren)), 1<<28)
		}, "does not fit in the metadata"},
		// fatal error: stack overflow: goroutine stack exceeds the limit in
		// fieldFromFB, for a field that is its own child: FlatBuffers
		// offsets point forward, but the accessors add them modulo 2^32.
		{"field is its own child", trace.StatesFile, func(f footer) {
			s := f.deref(f.slot(f.root(), footerSchema))
			log := f.elem(f.deref(f.slot(s, schemaFields)), 4)
			kids := f.deref(f.slot(log, fieldChildren))
			f.put(kids+4, log-(kids+4))
		}, "points outside the metadata"},
		{"members column claims a billion children", trace.SnapshotsFile, func(f footer) {
			s := f.deref(f.slot(f.root(), footerSchema))
			members := f.elem(f.deref(f.slot(s, schemaFields)), 2)
			f.put(f.deref(f.slot(members, fieldChildren)), 1<<30)
		}, "does not fit in the metadata"},
		{"record batch past the footer", trace.SnapshotsFile, func(f footer) {
			v := f.deref(f.slot(f.root(), footerBatches))
			binary.LittleEndian.PutUint64(f.data[v+4+16:], 1<<40) // body length of batch 0
		}, "runs past the footer"},
		{"record batches overlap", trace.StatesFile, func(f footer) {
			v := f.deref(f.slot(f.root(), footerBatches))
			copy(f.data[v+4+24:v+4+32], f.data[v+4:v+4+8]) // batch 1 at batch 0's offset
		}, "overlaps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTrace(t)
			damageFile(t, dir, tt.file, tt.damage)
			err := readAll(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.file+": at byte ") {
				t.Fatalf("error = %v, want one naming %s, a byte offset and %q", err, tt.file, tt.want)
			}
			if !errors.Is(err, trace.ErrCorrupt) {
				t.Errorf("error %v is not ErrCorrupt", err)
			}
		})
	}
}

// rewrite replaces the named Arrow file of the trace at dir with batches
// written by the Arrow library, keeping the schema, and re-signs it.
func rewrite(t *testing.T, dir, name string, schema *arrow.Schema, batches ...arrow.RecordBatch) {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := trace.Rehash(t, dir, name); err != nil {
		t.Fatal(err)
	}
}

func schemaOf(t *testing.T, path string) *arrow.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Schema()
}

// snapshotBatch builds a record batch of snapshots.
func snapshotBatch(schema *arrow.Schema, ids []uint64, members [][]uint32) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, id := range ids {
		b.Field(0).(*array.Uint64Builder).Append(id)
		b.Field(1).(*array.Uint64Builder).Append(uint64(i))
		mb := b.Field(2).(*array.ListBuilder)
		mb.Append(true)
		mb.ValueBuilder().(*array.Uint32Builder).AppendValues(members[i], nil)
		tb := b.Field(3).(*array.ListBuilder)
		tb.Append(true)
	}
	return b.NewRecordBatch()
}

// TestCraftedSnapshots writes snapshots that break the format's promises
// with the Arrow library itself, so that only the trace reader can catch
// them. writeTrace's states are rows 0 (b), 1 (a) and 2 (b).
func TestCraftedSnapshots(t *testing.T) {
	tests := []struct {
		name    string
		ids     []uint64
		members [][]uint32
		want    string
	}{
		{"ids decrease", []uint64{5, 4}, [][]uint32{{1, 0}, {1, 0}}, "snapshot 4 (row 1) follows snapshot 5: ids must increase"},
		{"ids repeat", []uint64{5, 5}, [][]uint32{{1, 0}, {1, 0}}, "ids must increase"},
		{"member out of range", []uint64{1}, [][]uint32{{1, 7}}, "snapshot 1: member row 7 does not exist (3 states)"},
		{"node twice", []uint64{1}, [][]uint32{{1, 0, 2}}, "snapshot 1: a node appears twice (row 2)"},
		{"same row twice", []uint64{1}, [][]uint32{{0, 0}}, "a node appears twice"},
		{"unsorted", []uint64{1}, [][]uint32{{0, 1}}, "members are not sorted by node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTrace(t)
			schema := schemaOf(t, filepath.Join(dir, trace.SnapshotsFile))
			rewrite(t, dir, trace.SnapshotsFile, schema, snapshotBatch(schema, tt.ids, tt.members))
			forgeCounts(t, dir, 3, len(tt.ids))
			err := readAll(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, trace.ErrCorrupt) {
				t.Fatalf("error = %v, want ErrCorrupt with %q", err, tt.want)
			}
		})
	}
}

// forgeCounts sets the manifest's counts, as a forger would.
func forgeCounts(t *testing.T, dir string, states, snapshots int) {
	t.Helper()
	path := filepath.Join(dir, trace.ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := string(data)
	m = replaceCount(m, "states", states)
	m = replaceCount(m, "snapshots", snapshots)
	if err := os.WriteFile(path, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
}

func replaceCount(js, key string, n int) string {
	i := strings.Index(js, `"`+key+`":`)
	j := i + len(key) + 3
	k := j
	for k < len(js) && (js[k] >= '0' && js[k] <= '9' || js[k] == ' ') {
		k++
	}
	return js[:j] + strconv.Itoa(n) + js[k:]
}

// TestDepth checks that the writer refuses a type nested deeper than the
// reader reads, and that the reader refuses one written by the Arrow
// library directly.
func TestDepth(t *testing.T) {
	deep := arrow.DataType(arrow.PrimitiveTypes.Int64)
	for range trace.MaxDepth {
		deep = arrow.ListOf(deep)
	}
	dir := filepath.Join(t.TempDir(), "deep.trace")
	if _, err := trace.Create(dir, trace.Schema{{Name: "x", Type: deep}}, trace.Options{}); err == nil || !strings.Contains(err.Error(), "nests more than 32 deep") {
		t.Errorf("Create: %v", err)
	}
	dir = writeTrace(t)
	schema := arrow.NewSchema(append(schemaOf(t, filepath.Join(dir, trace.StatesFile)).Fields(), arrow.Field{Name: "deep", Type: deep, Nullable: true}), nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	rewrite(t, dir, trace.StatesFile, schema, b.NewRecordBatch())
	if _, err := trace.Open(dir); err == nil || !strings.Contains(err.Error(), "types nest more than 32 deep") {
		t.Errorf("Open: %v", err)
	}
}

// TestUnevenBatches is the audit's third crash: states.arrow's batches
// are not of the size its metadata records (here 1, 3 and 1 rows where
// the writer said 2), and the manifest's counts agree with the total
// the old reader computed from that size. It placed rows by the recorded
// size and indexed past the end of a batch (panic: arrow/array: index
// out of range); the reader now takes each batch's rows from its checked
// metadata, so every state reads right.
func TestUnevenBatches(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.trace")
	w, err := trace.Create(dir, trace.Schema{{Name: "term", Type: arrow.PrimitiveTypes.Int64}}, trace.Options{BatchRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := w.AddState([]string{"a", "b"}[i%2], uint64(i), []any{int64(10 * i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddSnapshot(trace.Snapshot{ID: 1, Members: []uint32{3, 4}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := states(t, dir)
	path := filepath.Join(dir, trace.StatesFile)
	schema := schemaOf(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var cols [][]arrow.Array
	for i := range r.NumRecords() {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		for c, col := range rec.Columns() {
			if i == 0 {
				cols = append(cols, nil)
			}
			cols[c] = append(cols[c], col)
		}
	}
	r.Close()
	f.Close()
	var whole []arrow.Array
	for _, parts := range cols {
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Release()
		whole = append(whole, a)
	}
	all := array.NewRecordBatch(schema, whole, int64(len(want)))
	defer all.Release()
	// Rows 0 | 1 2 3 | 4, where the writer wrote 0 1 | 2 3 | 4.
	rewrite(t, dir, trace.StatesFile, schema, all.NewSlice(0, 1), all.NewSlice(1, 4), all.NewSlice(4, 5))
	if got := states(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("states\n%+v\nwant\n%+v", got, want)
	}
	if err := readAll(dir); err != nil {
		t.Fatal(err)
	}
}

// states reads every state of the trace at dir.
func states(t *testing.T, dir string) []*trace.State {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	st := tr.States()
	defer st.Close()
	var out []*trace.State
	for row := range tr.NumStates() {
		s, err := st.State(uint32(row))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
