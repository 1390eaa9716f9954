package trace

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/internal/shutdown"
)

// Snapshot is one consistent global snapshot.
type Snapshot struct {
	ID      uint64   // strictly increasing within a trace
	TS      uint64   // logical time of the cut
	Members []uint32 // rows of states.arrow, one per live node, sorted by node
	Tags    []string // e.g. "steady", or a testbed's "bug:NAME"
}

// Options configure a Writer.
type Options struct {
	System    string // name of the traced system, recorded in the manifest
	CreatedBy string // producer, recorded in the manifest
	Overwrite bool   // replace an existing trace directory or empty directory (see CheckTarget)
	BatchRows int    // most rows per Arrow record batch; 0 means 4096
}

// batchRowsKey is the states.arrow schema metadata key that records the
// most rows of a record batch. A batch holds fewer when its values would
// pass MaxBatchBytes; readers take each batch's rows from the batch's
// own, checked, metadata.
const batchRowsKey = "augur.batch_rows"

// MaxBatchBytes bounds the values of one record batch of states.arrow,
// about: a batch is written before a state would take it past the bound.
// A reader refuses a record batch over 256 MiB (arrow-go's limit on an
// IPC message body, against a damaged or hostile file), so one of a few
// states holding huge values, cut by rows alone, could not be read back.
const MaxBatchBytes = 64 << 20

// MaxStateBytes bounds the values of one state, about: a state over it
// would make a record batch no reader takes, and is refused when added.
const MaxStateBytes = 192 << 20

// MaxVariables bounds the state variables (columns) of a trace. A column
// costs a fixed amount of memory whatever it holds: its schema entries
// in the writer and in every reader and engine of a run, its arrays in
// each record batch, the generator's literals over it. A state of a
// million one-integer variables, 18 MB of JSON, took collect 2.4 GB and
// ran out of memory under a 4 GiB address-space limit. At 2^16 columns
// collect and spec init peak at about 130 and 160 MB, a small share of
// the machine's 24 GiB and of the 4 GiB the corruption audit runs augur
// in, while a hand-written state holds tens to hundreds of variables
// (objects keyed by data, with more keys, become maps: see package
// ingest).
const MaxVariables = 1 << 16

// A Writer writes a trace directory. It writes into a temporary directory
// next to the target and renames it into place on Close, so a trace is
// either complete or absent.
type Writer struct {
	dir, tmp  string
	lock      *os.File // held on tmp, so that another writer does not take it for stale
	untrack   func()   // forgets tmp (shutdown.Track)
	opts      Options
	schema    Schema
	states    *arrowFile
	snapshots *arrowFile

	nodes    map[string]uint32 // node name → index in names
	names    []string
	rowNode  []uint32 // state row → node index
	lastSnap uint64
	nsnap    int
	order    []uint32 // scratch for sorting members
}

// Create starts a trace at dir with the given state variables.
func Create(dir string, schema Schema, opts Options) (*Writer, error) {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 4096
	}
	if len(schema) > MaxVariables {
		return nil, fmt.Errorf("create trace %s: %d state variables, over the %d a trace may hold", dir, len(schema), MaxVariables)
	}
	seen := map[string]bool{"node": true, "ts": true}
	for _, c := range schema {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("create trace %s: a state variable has no name", dir)
		case seen[c.Name]:
			return nil, fmt.Errorf("create trace %s: state variable %q is declared twice or collides with a reserved column", dir, c.Name)
		}
		seen[c.Name] = true
		if err := CheckType(c.Type); err != nil {
			return nil, fmt.Errorf("create trace %s: variable %s: %w", dir, c.Name, err)
		}
	}
	if err := CheckTarget(dir, opts.Overwrite); err != nil {
		return nil, fmt.Errorf("create trace %s: %w", dir, err)
	}
	RemoveStale(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), tmpPrefix(dir))
	if err != nil {
		return nil, fmt.Errorf("create trace %s: %w", dir, err)
	}
	w := &Writer{dir: dir, tmp: tmp, untrack: shutdown.Track(tmp), opts: opts, schema: schema, nodes: map[string]uint32{}}
	if w.lock, err = lockDir(tmp); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		w.Abort()
		return nil, fmt.Errorf("create trace %s: %w", dir, err)
	}
	// MkdirTemp makes the directory private; a trace is as readable as
	// any directory the user makes.
	if err := os.Chmod(tmp, 0o755); err != nil {
		w.Abort()
		return nil, fmt.Errorf("create trace %s: %w", dir, err)
	}
	fields := []arrow.Field{
		{Name: "node", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Uint64},
	}
	for _, c := range schema {
		fields = append(fields, arrow.Field{Name: c.Name, Type: c.Type, Nullable: true})
	}
	meta := arrow.NewMetadata([]string{batchRowsKey}, []string{strconv.Itoa(opts.BatchRows)})
	if w.states, err = newArrowFile(filepath.Join(tmp, StatesFile), arrow.NewSchema(fields, &meta), opts.BatchRows, true); err != nil {
		w.Abort()
		return nil, fmt.Errorf("create trace %s: %w", dir, err)
	}
	if w.snapshots, err = newArrowFile(filepath.Join(tmp, SnapshotsFile), snapshotSchema, opts.BatchRows, false); err != nil {
		w.Abort()
		return nil, fmt.Errorf("create trace %s: %w", dir, err)
	}
	return w, nil
}

var snapshotSchema = arrow.NewSchema([]arrow.Field{
	{Name: "snapshot", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "ts", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "members", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint32)},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String)},
}, nil)

// AddState appends a node state and returns its row. vars holds one value
// per schema column, in the representation of the package comment.
func (w *Writer) AddState(node string, ts uint64, vars []any) (uint32, error) {
	if len(vars) != len(w.schema) {
		return 0, fmt.Errorf("state of %s: %d values for %d variables", node, len(vars), len(w.schema))
	}
	row := len(w.rowNode)
	if row > 1<<32-1 {
		return 0, errors.New("trace: too many states")
	}
	// Check every value before touching the builders, so that a rejected
	// state leaves no partial row behind.
	size := len(node) + 8
	for i, c := range w.schema {
		n, err := checkValue(c.Type, vars[i])
		if err != nil {
			return 0, fmt.Errorf("state of %s at ts %d: variable %s%w", node, ts, c.Name, err)
		}
		size += n
	}
	if size > MaxStateBytes {
		return 0, fmt.Errorf("state of %s at ts %d: %d MiB of values, over the %d MiB a state may hold", node, ts, size>>20, MaxStateBytes>>20)
	}
	if err := w.states.room(size); err != nil {
		return 0, err
	}
	cols := w.states.cols
	cols[0].append(node)
	cols[1].append(ts)
	for i, v := range vars {
		cols[i+2].append(v)
	}
	n, ok := w.nodes[node]
	if !ok {
		n = uint32(len(w.names))
		w.nodes[node] = n
		w.names = append(w.names, node)
	}
	w.rowNode = append(w.rowNode, n)
	if err := w.states.rowAdded(); err != nil {
		return 0, err
	}
	return uint32(row), nil
}

// AddSnapshot appends a snapshot. Its ID must exceed the previous one's,
// its members must be rows already added, one per node; they are sorted by
// node here.
func (w *Writer) AddSnapshot(s Snapshot) error {
	if w.nsnap > 0 && s.ID <= w.lastSnap {
		return fmt.Errorf("snapshot %d: id does not increase (previous %d)", s.ID, w.lastSnap)
	}
	w.order = append(w.order[:0], s.Members...)
	for _, r := range w.order {
		if int(r) >= len(w.rowNode) {
			return fmt.Errorf("snapshot %d: member row %d does not exist (%d states)", s.ID, r, len(w.rowNode))
		}
	}
	slices.SortFunc(w.order, func(a, b uint32) int {
		return cmp.Compare(w.names[w.rowNode[a]], w.names[w.rowNode[b]])
	})
	for i := 1; i < len(w.order); i++ {
		if w.rowNode[w.order[i]] == w.rowNode[w.order[i-1]] {
			return fmt.Errorf("snapshot %d: node %s appears twice", s.ID, w.names[w.rowNode[w.order[i]]])
		}
	}
	rb := w.snapshots.b
	rb.Field(0).(*array.Uint64Builder).Append(s.ID)
	rb.Field(1).(*array.Uint64Builder).Append(s.TS)
	mb := rb.Field(2).(*array.ListBuilder)
	mb.Append(true)
	mb.ValueBuilder().(*array.Uint32Builder).AppendValues(w.order, nil)
	tb := rb.Field(3).(*array.ListBuilder)
	tb.Append(true)
	appendStrings(tb.ValueBuilder().(*array.StringBuilder), s.Tags)
	w.lastSnap = s.ID
	w.nsnap++
	return w.snapshots.rowAdded()
}

// States returns the number of states added so far.
func (w *Writer) States() int { return len(w.rowNode) }

// Close finishes both Arrow files, writes the manifest and moves the trace
// into place.
func (w *Writer) Close() error {
	m := Manifest{
		Format:    Format,
		Version:   Version,
		System:    w.opts.System,
		Snapshots: w.nsnap,
		States:    len(w.rowNode),
		Nodes:     len(w.names),
		CreatedBy: w.opts.CreatedBy,
		SHA256:    map[string]string{},
	}
	for name, f := range map[string]*arrowFile{StatesFile: w.states, SnapshotsFile: w.snapshots} {
		sum, err := f.close()
		if err != nil {
			w.Abort()
			return fmt.Errorf("write trace %s: %w", w.dir, err)
		}
		m.SHA256[name] = sum
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		w.Abort()
		return err
	}
	if err := writeFileSync(filepath.Join(w.tmp, ManifestFile), append(data, '\n')); err != nil {
		w.Abort()
		return fmt.Errorf("write trace %s: %w", w.dir, err)
	}
	if err := CheckTarget(w.dir, w.opts.Overwrite); err != nil {
		w.Abort()
		return fmt.Errorf("write trace %s: %w", w.dir, err)
	}
	if err := shutdown.Commit(func() error { return safefile.ReplaceDir(w.tmp, w.dir) }); err != nil {
		w.Abort()
		return fmt.Errorf("write trace %s: %w", w.dir, err)
	}
	w.untrack()
	w.unlock()
	return nil
}

// tmpPrefix is the name prefix of the temporary directories of the
// writers of dir.
func tmpPrefix(dir string) string { return "." + filepath.Base(filepath.Clean(dir)) + ".tmp-" }

// RemoveStale removes the temporary directories that writers of dir
// killed before they could clean up left behind: those no live writer
// holds a lock on. Create calls it; a writer that reads its input first
// may call it earlier.
func RemoveStale(dir string) {
	parent := filepath.Dir(filepath.Clean(dir))
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tmpPrefix(dir)) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if lock, err := lockDir(path); err == nil {
			os.RemoveAll(path)
			lock.Close()
		}
	}
}

func (w *Writer) unlock() {
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
}

// Abort discards everything written so far.
func (w *Writer) Abort() {
	for _, f := range []*arrowFile{w.states, w.snapshots} {
		if f != nil {
			f.abort()
		}
	}
	os.RemoveAll(w.tmp)
	w.untrack()
	w.unlock()
}

// CheckTarget returns an error if a trace may not be written at dir:
// something exists there and overwrite is not set, or it is neither a
// trace directory (one holding a manifest) nor an empty directory, which
// are the only things a trace replaces.
func CheckTarget(dir string, overwrite bool) error {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !overwrite:
		return errors.New("already exists (set Overwrite to replace it)")
	case !info.IsDir():
		return errors.New("exists and is not a trace directory; not replacing it")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
			return fmt.Errorf("exists and is not a trace directory (no %s); not replacing it", ManifestFile)
		}
	}
	return nil
}

func writeFileSync(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// arrowFile is an Arrow IPC file being written in batches of fixed size,
// hashed as it goes. Its rows are appended to the builders of b or to
// cols.
type arrowFile struct {
	f      *os.File
	buf    *bufio.Writer
	sum    hash.Hash
	w      *ipc.FileWriter
	schema *arrow.Schema
	b      *array.RecordBuilder
	cols   []column
	rows   int
	bytes  int // about, of the values of the rows of the batch being built (room)
	batch  int
}

// newArrowFile creates the Arrow IPC file at path. Its rows are appended
// to a column each (see column) when cols is set, which the states file,
// whose columns may be many, sets; to Arrow builders otherwise.
func newArrowFile(path string, schema *arrow.Schema, batch int, cols bool) (*arrowFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	af := &arrowFile{f: f, sum: sha256.New(), schema: schema, batch: batch}
	af.buf = bufio.NewWriterSize(io.MultiWriter(f, af.sum), 1<<20)
	mem := memory.DefaultAllocator
	if af.w, err = ipc.NewFileWriter(af.buf, ipc.WithSchema(schema), ipc.WithAllocator(mem)); err != nil {
		f.Close()
		return nil, err
	}
	if !cols {
		af.b = array.NewRecordBuilder(mem, schema)
		return af, nil
	}
	for _, f := range schema.Fields() {
		af.cols = append(af.cols, newColumn(mem, f.Type))
	}
	return af, nil
}

// newRecordBatch returns the rows appended since the last batch.
func (af *arrowFile) newRecordBatch() arrow.RecordBatch {
	if af.cols == nil {
		return af.b.NewRecordBatch()
	}
	arrs := make([]arrow.Array, len(af.cols))
	for i, c := range af.cols {
		arrs[i] = c.newArray()
	}
	rec := array.NewRecordBatch(af.schema, arrs, int64(af.rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// release releases af's builders.
func (af *arrowFile) release() {
	if af.b != nil {
		af.b.Release()
		af.b = nil
	}
	for _, c := range af.cols {
		c.release()
	}
	af.cols = nil
}

// room writes the batch being built if a row of about size bytes would
// take it past MaxBatchBytes, and counts the row's bytes.
func (af *arrowFile) room(size int) error {
	if af.rows > 0 && af.bytes+size > MaxBatchBytes {
		if err := af.flush(); err != nil {
			return err
		}
	}
	af.bytes += size
	return nil
}

func (af *arrowFile) rowAdded() error {
	af.rows++
	if af.rows < af.batch {
		return nil
	}
	return af.flush()
}

func (af *arrowFile) flush() error {
	if af.rows == 0 {
		return nil
	}
	rec := af.newRecordBatch()
	defer rec.Release()
	af.rows, af.bytes = 0, 0
	return af.w.Write(rec)
}

// close writes the last batch and the footer, syncs the file and returns
// the hex SHA-256 of its content.
func (af *arrowFile) close() (string, error) {
	if err := af.flush(); err != nil {
		return "", err
	}
	af.release()
	if err := af.w.Close(); err != nil {
		return "", err
	}
	if err := af.buf.Flush(); err != nil {
		return "", err
	}
	if err := af.f.Sync(); err != nil {
		return "", err
	}
	if err := af.f.Close(); err != nil {
		return "", err
	}
	af.f = nil
	return hex.EncodeToString(af.sum.Sum(nil)), nil
}

func (af *arrowFile) abort() {
	af.release()
	if af.f != nil {
		af.f.Close()
		af.f = nil
	}
}
