package trace

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/augur-dev/augur/internal/infile"
	"github.com/augur-dev/augur/internal/ipcfile"
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

	nodesOnce sync.Once
	nodeRank  []uint32 // state row → rank of its node in name order
	nodesErr  error

	lensOnce sync.Once
	lens     map[string]int // see MaxLens
	lensErr  error
}

// Open opens the trace at dir. It checks the manifest, the SHA-256 of both
// Arrow files, their metadata (footer, schema, the layout of every record
// batch) and the row counts, without trusting any of it: a damaged or
// crafted file is an error wrapping ErrCorrupt, never a panic. The
// arrays of a record batch are checked when it is read, and snapshots as
// they are read (see [SnapshotReader.Next]).
func Open(dir string) (*Trace, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	return open(dir, m, func(name string) (file, error) {
		return infile.Open(filepath.Join(dir, name))
	})
}

// file is an open Arrow file of a trace: an *os.File, or bytes in tests.
type file interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// open opens the trace at dir with manifest m, reading its Arrow files
// through openFile.
func open(dir string, m *Manifest, openFile func(name string) (file, error)) (t *Trace, err error) {
	defer func() {
		// The checks above should leave nothing for the Arrow library to
		// panic on; should one remain, it is still an error.
		if p := recover(); p != nil {
			if t != nil {
				t.Close()
			}
			t, err = nil, corruptf("open trace %s: malformed file: %v", dir, p)
		}
	}()
	t = &Trace{Dir: dir, Manifest: m}
	if t.states, err = openArrow(dir, StatesFile, m.SHA256[StatesFile], openFile); err != nil {
		return nil, err
	}
	if t.snapshots, err = openArrow(dir, SnapshotsFile, m.SHA256[SnapshotsFile], openFile); err != nil {
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
	s := t.states.f.Schema()
	if s.NumFields() < 2 || s.Field(0).Name != "node" || s.Field(0).Type.ID() != arrow.STRING ||
		s.Field(1).Name != "ts" || s.Field(1).Type.ID() != arrow.UINT64 {
		return corruptf("%s: want columns node (utf8) and ts (uint64) first, have %s", t.states.path, s)
	}
	if s.NumFields()-2 > MaxVariables {
		return corruptf("%s: %d state variables, over the %d a trace may hold", t.states.path, s.NumFields()-2, MaxVariables)
	}
	seen := make(map[string]bool, s.NumFields())
	for _, f := range s.Fields()[2:] {
		if seen[f.Name] {
			return corruptf("%s: column %s appears twice", t.states.path, f.Name)
		}
		if err := CheckType(f.Type); err != nil {
			return corruptf("%s: column %s: %w", t.states.path, f.Name, err)
		}
		seen[f.Name] = true
		t.Schema = append(t.Schema, Column{Name: f.Name, Type: f.Type})
	}
	t.states.nonNull = 2    // node, ts
	t.snapshots.nonNull = 3 // snapshot, ts, members
	if !sameShape(t.snapshots.f.Schema(), snapshotSchema) {
		return corruptf("%s: schema is %s, want %s", t.snapshots.path, t.snapshots.f.Schema(), snapshotSchema)
	}
	t.states.indexRows()
	t.snapshots.indexRows()
	if t.states.rows > 1<<32 {
		return corruptf("%s: %d rows; rows are numbered by uint32", t.states.path, t.states.rows)
	}
	if t.Manifest.Nodes < 0 || t.Manifest.Nodes > t.Manifest.States {
		return corruptf("%s: manifest counts %d nodes for %d states", t.Dir, t.Manifest.Nodes, t.Manifest.States)
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
	return &SnapshotReader{t: t, r: t.snapshots}
}

// SnapshotReader reads snapshots in order. Its API is modeled on
// bufio.Scanner: the Snapshot it returns is valid until the next call to
// Next, and a caller must copy what it keeps.
type SnapshotReader struct {
	t     *Trace
	r     *arrowReader
	batch int
	rec   arrow.RecordBatch
	row   int
	snap  Snapshot
	read  int // snapshots read so far
	err   error
}

// Next advances to the next snapshot and reports whether there is one.
// It checks what the format promises of a snapshot: ids increase, members
// are rows of states.arrow, sorted by node, one per node. A snapshot that
// breaks a promise stops the reader with an error wrapping ErrCorrupt.
func (sr *SnapshotReader) Next() bool {
	if sr.err != nil {
		return false
	}
	if sr.read == 0 {
		if sr.err = sr.t.indexNodes(); sr.err != nil {
			return false
		}
	}
	for sr.rec == nil || sr.row >= int(sr.rec.NumRows()) {
		if sr.rec != nil {
			sr.rec.Release()
			sr.rec = nil
		}
		if sr.batch >= sr.r.f.NumBatches() {
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
	prev := sr.snap.ID
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
	if sr.read > 0 && sr.snap.ID <= prev {
		sr.err = corruptf("%s: snapshot %d (row %d) follows snapshot %d: ids must increase", sr.r.path, sr.snap.ID, sr.read, prev)
		return false
	}
	if sr.err = sr.t.checkMembers(&sr.snap); sr.err != nil {
		return false
	}
	sr.read++
	return true
}

// checkMembers checks that the members of s are rows of states.arrow in
// increasing order of their nodes' names, so that no node appears twice.
func (t *Trace) checkMembers(s *Snapshot) error {
	last := -1
	for _, row := range s.Members {
		if int(row) >= len(t.nodeRank) {
			return corruptf("%s: snapshot %d: member row %d does not exist (%d states)", t.snapshots.path, s.ID, row, len(t.nodeRank))
		}
		r := int(t.nodeRank[row])
		if r <= last {
			what := "members are not sorted by node"
			if r == last {
				what = "a node appears twice"
			}
			return corruptf("%s: snapshot %d: %s (row %d)", t.snapshots.path, s.ID, what, row)
		}
		last = r
	}
	return nil
}

// indexNodes reads the node column of states.arrow, once, and ranks each
// row's node in name order, for checkMembers.
func (t *Trace) indexNodes() error {
	t.nodesOnce.Do(func() {
		rank := make([]uint32, 0, t.states.rows)
		ids := map[string]uint32{}
		var names []string
		for b := range t.states.f.NumBatches() {
			rec, _, err := t.states.shared(b)
			if err != nil {
				t.nodesErr = err
				return
			}
			col := rec.Column(0).(*array.String)
			for i := range col.Len() {
				name := col.Value(i)
				id, ok := ids[name]
				if !ok {
					id = uint32(len(names))
					name = string([]byte(name)) // the batch is released below
					ids[name] = id
					names = append(names, name)
				}
				rank = append(rank, id)
			}
			rec.Release()
		}
		if len(names) != t.Manifest.Nodes {
			t.nodesErr = corruptf("%s: %d distinct nodes, the manifest says %d", t.states.path, len(names), t.Manifest.Nodes)
			return
		}
		order := make([]uint32, len(names))
		for i := range order {
			order[i] = uint32(i)
		}
		slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(names[a], names[b]) })
		byID := make([]uint32, len(names))
		for r, id := range order {
			byID[id] = uint32(r)
		}
		for i, id := range rank {
			rank[i] = byID[id]
		}
		t.nodeRank = rank
	})
	return t.nodesErr
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

// TypedStates is States, except that the reader decodes a list of int64,
// uint64, float64 or utf8 without nulls, at any depth, as [SharedValue]
// does: a []int64, []uint64, []float64 or []string, 8 or 16 bytes an
// element where a []any takes 16 and, for most numbers, an allocation
// more; and a list of numbers of at least a quarter of its record batch
// (and at least minShared bytes) shares the batch's memory, as a string
// does. Its reader must take these where it takes a []any.
func (t *Trace) TypedStates() *StateReader {
	return &StateReader{t: t, cur: -1, typed: true}
}

// StateReader decodes state rows. It keeps the record batch of the last
// row read, since snapshots mostly refer to recent rows; the readers of a
// trace share the batches they load (see arrowReader.shared), so that
// readers in several goroutines hold one copy of a batch between them.
type StateReader struct {
	t     *Trace
	cur   int
	rec   arrow.RecordBatch
	share int  // strings (and, if typed, lists of numbers) of this many bytes share the batch's memory
	typed bool // lists of numbers and strings decode to typed slices (TypedStates)
}

// State decodes row. The result is owned by the caller. A string of at
// least a quarter of its record batch's bytes (and at least minShared)
// is not copied but shares the batch's memory: a huge value is then held
// once, however many readers decode it and for as long as any keeps it,
// and keeping it holds at most four times its size.
func (sr *StateReader) State(row uint32) (*State, error) {
	i, err := sr.seek(row)
	if err != nil {
		return nil, err
	}
	s := &State{
		Row:  row,
		Node: decode(sr.rec.Column(0), i, sr.share, false).(string),
		TS:   sr.rec.Column(1).(*array.Uint64).Value(i),
		Vars: make([]any, len(sr.t.Schema)),
	}
	for c := range s.Vars {
		s.Vars[c] = decode(sr.rec.Column(c+2), i, sr.share, sr.typed)
	}
	return s, nil
}

// Some decodes the node of row and the variables at cols (indices of the
// trace's Schema) into vars, as long as cols, as State decodes them: a
// pass over every state that reads a few variables need not decode the
// others.
func (sr *StateReader) Some(row uint32, cols []int, vars []any) (node string, err error) {
	i, err := sr.seek(row)
	if err != nil {
		return "", err
	}
	for j, c := range cols {
		vars[j] = decode(sr.rec.Column(c+2), i, sr.share, sr.typed)
	}
	return decode(sr.rec.Column(0), i, sr.share, false).(string), nil
}

// seek loads the record batch of row, unless it is the one loaded, and
// returns the row's index in it.
func (sr *StateReader) seek(row uint32) (int, error) {
	r := sr.t.states
	if int(row) >= r.rows {
		return 0, corruptf("%s: row %d out of range (%d rows)", r.path, row, r.rows)
	}
	b := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > int(row) }) - 1
	if b != sr.cur {
		sr.Close()
		rec, size, err := r.shared(b)
		if err != nil {
			return 0, err
		}
		sr.rec, sr.cur = rec, b
		sr.share = max(minShared, size/4)
	}
	return int(row) - r.starts[b], nil
}

// minShared is the least length of a string that State shares with its
// record batch rather than copies.
const minShared = 64 << 10

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
	file    file
	f       *ipcfile.File
	starts  []int // first row of each record batch
	rows    int
	nonNull int // the first nonNull columns may not hold nulls

	mu     sync.Mutex
	recent [2]sharedBatch // the batches last loaded by shared, the latest first
}

// sharedBatch is a record batch that readers share, and its size in
// bytes.
type sharedBatch struct {
	i    int
	rec  arrow.RecordBatch // nil if none
	size int
}

// shared returns record batch i and its size in bytes, with a reference
// for the caller to release. The last two batches loaded stay loaded and
// are handed to every caller that asks for them, so that the readers of
// a trace, in any goroutine, share one copy of a batch instead of each
// loading its own (a batch holding a 60 MB string was held by MineConstants
// and by each evaluation worker at once).
func (ar *arrowReader) shared(i int) (arrow.RecordBatch, int, error) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	for k, sb := range ar.recent {
		if sb.rec != nil && sb.i == i {
			copy(ar.recent[1:k+1], ar.recent[:k])
			ar.recent[0] = sb
			sb.rec.Retain()
			return sb.rec, sb.size, nil
		}
	}
	rec, err := ar.batch(i)
	if err != nil {
		return nil, 0, err
	}
	if last := ar.recent[len(ar.recent)-1]; last.rec != nil {
		last.rec.Release()
	}
	copy(ar.recent[1:], ar.recent[:len(ar.recent)-1])
	sb := sharedBatch{i: i, rec: rec, size: batchSize(rec)}
	ar.recent[0] = sb
	rec.Retain()
	return rec, sb.size, nil
}

// batchSize returns the bytes of the buffers of rec.
func batchSize(rec arrow.RecordBatch) int {
	n := 0
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += b.Len()
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
	}
	for _, col := range rec.Columns() {
		add(col.Data())
	}
	return n
}

func openArrow(dir, name, wantSum string, openFile func(string) (file, error)) (*arrowReader, error) {
	path := filepath.Join(dir, name)
	fh, err := openFile(name)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	if err := checkMagic(path, fh, magicFrom); err != nil {
		fh.Close()
		return nil, err
	}
	h := sha256.New()
	size, err := io.Copy(h, fh)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != wantSum {
		fh.Close()
		return nil, corruptf("%s: SHA-256 %.12s… does not match the manifest's %.12s…: the file is corrupt or was changed after it was written", path, sum, wantSum)
	}
	f, err := ipcfile.Open(path, fh, size, ipcfile.Options{MaxDepth: MaxDepth})
	if err != nil {
		fh.Close()
		return nil, corruptf("%s: %w", path, unwrapPath(err))
	}
	return &arrowReader{path: path, file: fh, f: f}, nil
}

// magicFrom is the size from which checkMagic looks: below it, the
// SHA-256 is quick, and says more of a damaged file.
const magicFrom = 64 << 20

// checkMagic refuses a file of at least from bytes that does not start
// and end as an Arrow IPC file does, before its SHA-256 is computed over
// the whole of it: a sparse file of 8 GiB took 20 s to be told corrupt.
// It checks what it can learn the size of (an *os.File).
func checkMagic(path string, fh file, from int64) error {
	st, ok := fh.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return nil
	}
	info, err := st.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if info.Size() < from {
		return nil
	}
	const magic = "ARROW1"
	var head, tail [len(magic)]byte
	if info.Size() >= 2*int64(len(magic)) {
		if _, err := fh.ReadAt(head[:], 0); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if _, err := fh.ReadAt(tail[:], info.Size()-int64(len(magic))); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
	}
	if string(head[:]) != magic || string(tail[:]) != magic {
		return corruptf("%s: not an Arrow IPC file (no ARROW1 magic at both ends; truncated?)", path)
	}
	return nil
}

// MaxDepth bounds the nesting of a state variable's type: a column of a
// primitive type has depth 1, a list of them depth 2, and so on.
const MaxDepth = 32

// unwrapPath drops the path from an ipcfile error, which our message
// already names, keeping its offset.
func unwrapPath(err error) error {
	var e *ipcfile.Error
	if errors.As(err, &e) {
		if e.Offset >= 0 {
			return fmt.Errorf("at byte %d: %w", e.Offset, e.Err)
		}
		return e.Err
	}
	return err
}

// indexRows records the first row of every batch, from the batches'
// metadata, which Open has checked against their buffers.
func (ar *arrowReader) indexRows() {
	ar.starts = make([]int, ar.f.NumBatches())
	for i := range ar.starts {
		ar.starts[i] = ar.rows
		ar.rows += int(ar.f.BatchRows(i))
	}
}

// batch loads and validates record batch i and checks the columns that
// may hold no nulls.
func (ar *arrowReader) batch(i int) (arrow.RecordBatch, error) {
	rec, err := ar.f.Batch(i)
	if err != nil {
		return nil, corruptf("%s: %w", ar.path, unwrapPath(err))
	}
	for c := range min(ar.nonNull, int(rec.NumCols())) {
		if n := rec.Column(c).NullN(); n > 0 {
			rec.Release()
			return nil, corruptf("%s: record batch %d: column %s has %d nulls", ar.path, i, rec.ColumnName(c), n)
		}
	}
	return rec, nil
}

func (ar *arrowReader) close() error {
	for k, sb := range ar.recent {
		if sb.rec != nil {
			sb.rec.Release()
			ar.recent[k] = sharedBatch{}
		}
	}
	ar.f.Close()
	return ar.file.Close()
}
