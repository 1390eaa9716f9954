package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// ErrCorrupt marks errors about trace files that are not what the manifest
// and the format promise: bad checksums, truncated or malformed Arrow data.
var ErrCorrupt = errors.New("corrupt trace")

type corruptError struct{ err error }

func (e *corruptError) Error() string        { return e.err.Error() }
func (e *corruptError) Unwrap() error        { return e.err }
func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

func corruptf(format string, args ...any) error {
	return &corruptError{fmt.Errorf(format, args...)}
}

// Trace is an open trace directory. Its methods are safe for concurrent
// use; the readers it returns are not, so each goroutine takes its own.
type Trace struct {
	Dir      string
	Manifest *Manifest
	Schema   Schema

	states    *arrowReader
	snapshots *arrowReader
}

// Open opens the trace at dir. It checks the manifest, the SHA-256 of both
// Arrow files and their schemas, so later reads fail only on I/O errors.
func Open(dir string) (*Trace, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	t := &Trace{Dir: dir, Manifest: m}
	if t.states, err = openArrow(dir, StatesFile, m.SHA256[StatesFile]); err != nil {
		return nil, err
	}
	if t.snapshots, err = openArrow(dir, SnapshotsFile, m.SHA256[SnapshotsFile]); err != nil {
		t.Close()
		return nil, err
	}
	if err := t.checkSchemas(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

func (t *Trace) checkSchemas() error {
	s := t.states.r.Schema()
	if s.NumFields() < 2 || s.Field(0).Name != "node" || s.Field(0).Type.ID() != arrow.STRING ||
		s.Field(1).Name != "ts" || s.Field(1).Type.ID() != arrow.UINT64 {
		return corruptf("%s: want columns node (utf8) and ts (uint64) first, have %s", t.states.path, s)
	}
	for _, f := range s.Fields()[2:] {
		if t.Schema.Index(f.Name) >= 0 {
			return corruptf("%s: column %s appears twice", t.states.path, f.Name)
		}
		if err := CheckType(f.Type); err != nil {
			return corruptf("%s: column %s: %w", t.states.path, f.Name, err)
		}
		t.Schema = append(t.Schema, Column{Name: f.Name, Type: f.Type})
	}
	t.states.nonNull = 2    // node, ts
	t.snapshots.nonNull = 3 // snapshot, ts, members
	if !sameShape(t.snapshots.r.Schema(), snapshotSchema) {
		return corruptf("%s: schema is %s, want %s", t.snapshots.path, t.snapshots.r.Schema(), snapshotSchema)
	}
	if err := t.states.indexRows(); err != nil {
		return err
	}
	if err := t.snapshots.indexRows(); err != nil {
		return err
	}
	if t.states.rows != t.Manifest.States || t.snapshots.rows != t.Manifest.Snapshots {
		return corruptf("%s: manifest counts %d states and %d snapshots, files hold %d and %d",
			t.Dir, t.Manifest.States, t.Manifest.Snapshots, t.states.rows, t.snapshots.rows)
	}
	return nil
}

// sameShape reports whether two schemas have the same field names and
// types, ignoring nullability and metadata, which other Arrow writers set
// differently.
func sameShape(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.NumFields() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) && !sameListOf(fa.Type, fb.Type) {
			return false
		}
	}
	return true
}

// sameListOf reports whether a and b are lists of the same element type,
// whatever the element field's name and nullability.
func sameListOf(a, b arrow.DataType) bool {
	la, ok1 := a.(*arrow.ListType)
	lb, ok2 := b.(*arrow.ListType)
	return ok1 && ok2 && arrow.TypeEqual(la.Elem(), lb.Elem())
}

// Close releases the files.
func (t *Trace) Close() error {
	var errs []error
	for _, r := range []*arrowReader{t.states, t.snapshots} {
		if r != nil {
			errs = append(errs, r.close())
		}
	}
	return errors.Join(errs...)
}

// NumSnapshots returns the number of snapshots in the trace.
func (t *Trace) NumSnapshots() int { return t.snapshots.rows }

// NumStates returns the number of state rows in the trace.
func (t *Trace) NumStates() int { return t.states.rows }

// Snapshots returns a reader over the snapshots in order, one record batch
// in memory at a time.
func (t *Trace) Snapshots() *SnapshotReader {
	return &SnapshotReader{r: t.snapshots}
}

// SnapshotReader reads snapshots in order. Its API is modeled on
// bufio.Scanner: the Snapshot it returns is valid until the next call to
// Next, and a caller must copy what it keeps.
type SnapshotReader struct {
	r     *arrowReader
	batch int
	rec   arrow.RecordBatch
	row   int
	snap  Snapshot
	err   error
}

// Next advances to the next snapshot and reports whether there is one.
func (sr *SnapshotReader) Next() bool {
	if sr.err != nil {
		return false
	}
	for sr.rec == nil || sr.row >= int(sr.rec.NumRows()) {
		if sr.rec != nil {
			sr.rec.Release()
			sr.rec = nil
		}
		if sr.batch >= sr.r.r.NumRecords() {
			return false
		}
		rec, err := sr.r.batch(sr.batch)
		if err != nil {
			sr.err = err
			return false
		}
		sr.rec, sr.row = rec, 0
		sr.batch++
	}
	ids := sr.rec.Column(0).(*array.Uint64)
	tss := sr.rec.Column(1).(*array.Uint64)
	members := sr.rec.Column(2).(*array.List)
	tags := sr.rec.Column(3).(*array.List)
	i := sr.row
	sr.row++
	sr.snap.ID = ids.Value(i)
	sr.snap.TS = tss.Value(i)
	lo, hi := members.ValueOffsets(i)
	sr.snap.Members = members.ListValues().(*array.Uint32).Uint32Values()[lo:hi]
	sr.snap.Tags = sr.snap.Tags[:0]
	lo, hi = tags.ValueOffsets(i)
	tv := tags.ListValues().(*array.String)
	for j := lo; j < hi; j++ {
		sr.snap.Tags = append(sr.snap.Tags, tv.Value(int(j)))
	}
	return true
}

// Snapshot returns the current snapshot.
func (sr *SnapshotReader) Snapshot() *Snapshot { return &sr.snap }

// Err returns the error that stopped Next, if any.
func (sr *SnapshotReader) Err() error { return sr.err }

// Close releases the current batch.
func (sr *SnapshotReader) Close() {
	if sr.rec != nil {
		sr.rec.Release()
		sr.rec = nil
	}
}

// State is one decoded row of states.arrow.
type State struct {
	Row  uint32
	Node string
	TS   uint64
	Vars []any // one value per Schema column
}

// States returns a reader for random access to state rows.
func (t *Trace) States() *StateReader {
	return &StateReader{t: t, cur: -1}
}

// StateReader decodes state rows. It keeps the record batch of the last
// row read, since snapshots mostly refer to recent rows.
type StateReader struct {
	t   *Trace
	cur int
	rec arrow.RecordBatch
}

// State decodes row. The result is owned by the caller.
func (sr *StateReader) State(row uint32) (*State, error) {
	r := sr.t.states
	if int(row) >= r.rows {
		return nil, corruptf("%s: row %d out of range (%d rows)", r.path, row, r.rows)
	}
	b := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > int(row) }) - 1
	if b != sr.cur {
		sr.Close()
		rec, err := r.batch(b)
		if err != nil {
			return nil, err
		}
		sr.rec, sr.cur = rec, b
	}
	i := int(row) - r.starts[b]
	s := &State{
		Row:  row,
		Node: Value(sr.rec.Column(0), i).(string),
		TS:   sr.rec.Column(1).(*array.Uint64).Value(i),
		Vars: make([]any, len(sr.t.Schema)),
	}
	for c := range s.Vars {
		s.Vars[c] = Value(sr.rec.Column(c+2), i)
	}
	return s, nil
}

// Close releases the cached batch.
func (sr *StateReader) Close() {
	if sr.rec != nil {
		sr.rec.Release()
		sr.rec = nil
	}
	sr.cur = -1
}

// arrowReader is one Arrow IPC file of a trace.
type arrowReader struct {
	path    string
	f       *os.File
	r       *ipc.FileReader
	starts  []int // first row of each record batch
	rows    int
	nonNull int // the first nonNull columns may not hold nulls
}

func openArrow(dir, name, wantSum string) (*arrowReader, error) {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != wantSum {
		f.Close()
		return nil, corruptf("%s: SHA-256 %.12s… does not match the manifest's %.12s…: the file is corrupt or was changed after it was written", path, sum, wantSum)
	}
	r, err := newFileReader(f)
	if err != nil {
		f.Close()
		return nil, corruptf("%s: not a readable Arrow IPC file (%d bytes; truncated?): %w", path, size, err)
	}
	return &arrowReader{path: path, f: f, r: r}, nil
}

// newFileReader opens an Arrow IPC file. The Arrow library can panic on
// malformed metadata; that is reported as an error here.
func newFileReader(f *os.File) (r *ipc.FileReader, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("malformed metadata: %v", p)
		}
	}()
	return ipc.NewFileReader(f)
}

// indexRows records the first row of every batch. Our writer stores the
// fixed batch size in the schema metadata; for files from other writers
// every batch is loaded once.
func (ar *arrowReader) indexRows() error {
	n := ar.r.NumRecords()
	ar.starts = make([]int, n)
	if v, ok := ar.r.Schema().Metadata().GetValue(batchRowsKey); ok {
		size, err := strconv.Atoi(v)
		if err != nil || size <= 0 {
			return corruptf("%s: bad %s metadata %q", ar.path, batchRowsKey, v)
		}
		for i := range ar.starts {
			ar.starts[i] = i * size
		}
		if n == 0 {
			return nil
		}
		last, err := ar.batch(n - 1)
		if err != nil {
			return err
		}
		ar.rows = (n-1)*size + int(last.NumRows())
		last.Release()
		return nil
	}
	for i := range ar.starts {
		rec, err := ar.batch(i)
		if err != nil {
			return err
		}
		ar.starts[i] = ar.rows
		ar.rows += int(rec.NumRows())
		rec.Release()
	}
	return nil
}

// batch loads record batch i and validates its arrays, so that decoding
// never reads out of bounds. The Arrow library can panic on malformed
// data while loading or validating; that is reported as corruption.
func (ar *arrowReader) batch(i int) (rec arrow.RecordBatch, err error) {
	defer func() {
		if p := recover(); p != nil {
			if rec != nil {
				rec.Release()
			}
			rec, err = nil, corruptf("%s: record batch %d: malformed data: %v", ar.path, i, p)
		}
	}()
	rec, err = ar.r.RecordBatchAt(i)
	if err != nil {
		return nil, corruptf("%s: record batch %d: %w", ar.path, i, err)
	}
	for c, col := range rec.Columns() {
		if err := validate(col); err != nil {
			rec.Release()
			return nil, corruptf("%s: record batch %d, column %s: %w", ar.path, i, rec.ColumnName(c), err)
		}
	}
	if ar.nonNull > 0 && rec.NumCols() > 0 {
		for c := range ar.nonNull {
			if n := rec.Column(c).NullN(); n > 0 {
				rec.Release()
				return nil, corruptf("%s: record batch %d: column %s has %d nulls", ar.path, i, rec.ColumnName(c), n)
			}
		}
	}
	return rec, nil
}

func validate(a arrow.Array) error {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return err
		}
	}
	switch a := a.(type) {
	case array.ListLike:
		return validate(a.ListValues())
	case *array.Struct:
		for f := range a.NumField() {
			if err := validate(a.Field(f)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ar *arrowReader) close() error {
	ar.r.Close()
	return ar.f.Close()
}
