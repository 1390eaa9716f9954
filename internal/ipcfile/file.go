// Package ipcfile reads Arrow IPC files that may be damaged or crafted.
//
// The Arrow library trusts the metadata of a file: a damaged footer or
// schema can make it index out of range, recurse without end or allocate
// hundreds of gigabytes, which no recover can catch. Open checks the
// footer, the schema and every record batch's message before the library
// sees them: every offset and length lies inside the file, types nest at
// most [Options.MaxDepth] deep and are of the kinds augur writes, the
// metadata decodes to no more than a few times its own size, blocks
// neither overlap nor run past the footer, every message describes the
// arrays its schema calls for, with buffers inside its body and, for
// uncompressed data, large enough for the lengths it claims. Batch loads
// a record batch, refuses to decompress more than a bound proportional to
// the file's size, turns any panic of the library into an error, and
// validates every array, so that reading a value never goes out of
// bounds.
//
// Every error is an *Error naming the file and the byte offset of what is
// wrong.
package ipcfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Options configure Open.
type Options struct {
	// MaxDepth bounds the nesting of types: a top-level column of a
	// primitive type has depth 1. 0 means DefaultMaxDepth.
	MaxDepth int
	// Compressed accepts record batches compressed with LZ4 or ZSTD.
	Compressed bool
}

// DefaultMaxDepth is the default bound on the nesting of types.
const DefaultMaxDepth = 32

// minInflate is the least a batch may decompress to, whatever the size
// of its file; beyond it, a batch may decompress to inflateRatio times
// the size of its file.
const (
	minInflate   = 1 << 30
	inflateRatio = 64
)

// Error is a problem with an Arrow IPC file.
type Error struct {
	Path   string
	Offset int64 // byte offset in the file; -1 if none applies
	Err    error
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s: at byte %d: %v", e.Path, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// File is an Arrow IPC file opened for reading. Its methods are safe for
// concurrent use.
type File struct {
	path   string
	ra     io.ReaderAt
	size   int64
	opts   Options
	r      *ipc.FileReader
	blocks []block
	rows   []int64
	layout []nodeKind // the arrays of a record batch, depth first
	mem    memory.Allocator
}

// magic starts and ends an Arrow IPC file.
var magic = []byte("ARROW1")

// Open checks the metadata of the Arrow IPC file of size bytes read
// through ra, then opens it. path names the file in errors.
func Open(path string, ra io.ReaderAt, size int64, opts Options) (f *File, err error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	f = &File{path: path, ra: ra, size: size, opts: opts}
	f.mem = capped{max: f.inflateLimit()}
	errAt := func(off int64, format string, args ...any) error {
		return &Error{Path: path, Offset: off, Err: fmt.Errorf(format, args...)}
	}
	// magic, padding to 8, ..., footer, footer length (4 bytes), magic.
	const tail = 4 + 6
	if size < 8+tail {
		return nil, errAt(-1, "not an Arrow IPC file: %d bytes", size)
	}
	head := make([]byte, 8)
	end := make([]byte, tail)
	if err := f.readAt(head, 0); err != nil {
		return nil, err
	}
	if err := f.readAt(end, size-tail); err != nil {
		return nil, err
	}
	if !bytes.Equal(head[:6], magic) || !bytes.Equal(end[4:], magic) {
		return nil, errAt(-1, "not an Arrow IPC file (no ARROW1 magic at both ends; truncated?)")
	}
	flen := int64(binary.LittleEndian.Uint32(end))
	footerAt := size - tail - flen
	if flen < 8 || footerAt < 8 {
		return nil, errAt(size-tail, "footer length %d does not fit in a file of %d bytes", flen, size)
	}
	fb := make([]byte, flen)
	if err := f.readAt(fb, footerAt); err != nil {
		return nil, err
	}
	ft, err := checkFooter(fb, opts.MaxDepth)
	if err != nil {
		return nil, f.fbErr(err, footerAt, "footer")
	}
	// Blocks lie between the leading magic and the footer, in order,
	// without overlap.
	next := int64(8)
	for i, b := range ft.blocks {
		switch {
		case b.offset < next || b.offset%8 != 0:
			return nil, errAt(footerAt, "record batch %d at byte %d overlaps what precedes it or is misaligned", i, b.offset)
		case b.meta < 8 || b.meta%8 != 0 || b.body < 0 || b.body%8 != 0:
			return nil, errAt(footerAt, "record batch %d at byte %d: bad lengths (metadata %d, body %d)", i, b.offset, b.meta, b.body)
		case b.meta > footerAt-b.offset || b.body > footerAt-b.offset-b.meta:
			return nil, errAt(footerAt, "record batch %d at byte %d (metadata %d, body %d bytes) runs past the footer at byte %d", i, b.offset, b.meta, b.body, footerAt)
		}
		next = b.offset + b.meta + b.body
	}
	f.blocks = ft.blocks
	if err := f.openArrow(); err != nil {
		return nil, err
	}
	if f.layout, err = layoutOf(f.r.Schema()); err != nil {
		return nil, errAt(footerAt, "schema: %v", err)
	}
	f.rows = make([]int64, len(f.blocks))
	for i := range f.blocks {
		m, err := f.message(i)
		if err != nil {
			return nil, err
		}
		f.rows[i] = m.length
	}
	return f, nil
}

// openArrow lets the Arrow library read the footer and schema, now that
// they are known to be sound.
func (f *File) openArrow() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &Error{Path: f.path, Offset: -1, Err: fmt.Errorf("malformed schema: %v", p)}
		}
	}()
	r, err := ipc.NewFileReader(io.NewSectionReader(f.ra, 0, f.size), ipc.WithAllocator(f.mem))
	if err != nil {
		return &Error{Path: f.path, Offset: -1, Err: err}
	}
	f.r = r
	return nil
}

func (f *File) readAt(b []byte, off int64) error {
	if _, err := f.ra.ReadAt(b, off); err != nil {
		return &Error{Path: f.path, Offset: off, Err: fmt.Errorf("read %d bytes: %w", len(b), err)}
	}
	return nil
}

// fbErr places an error of the flatbuffer that starts at byte base.
func (f *File) fbErr(err error, base int64, what string) error {
	var fe *fbError
	if errors.As(err, &fe) {
		return &Error{Path: f.path, Offset: base + int64(fe.off), Err: fmt.Errorf("%s: %s", what, fe.msg)}
	}
	return &Error{Path: f.path, Offset: base, Err: fmt.Errorf("%s: %w", what, err)}
}

// inflateLimit bounds what one record batch may decompress to.
func (f *File) inflateLimit() int {
	return int(max(minInflate, min(f.size, 1<<40)*inflateRatio))
}

// message reads and checks the message of record batch i.
func (f *File) message(i int) (*message, error) {
	b := f.blocks[i]
	raw := make([]byte, b.meta)
	if err := f.readAt(raw, b.offset); err != nil {
		return nil, err
	}
	// A continuation marker (0xFFFFFFFF) and the length, or the length
	// alone in files older than Arrow 0.15.
	prefix := int64(8)
	if binary.LittleEndian.Uint32(raw) != 0xFFFFFFFF {
		prefix = 4
	}
	if n := int64(binary.LittleEndian.Uint32(raw[prefix-4:])); n != b.meta-prefix {
		return nil, &Error{Path: f.path, Offset: b.offset, Err: fmt.Errorf("record batch %d: metadata length %d, the footer says %d", i, n, b.meta-prefix)}
	}
	m, err := checkMessage(raw[prefix:], b.body)
	if err != nil {
		return nil, f.fbErr(err, b.offset+prefix, fmt.Sprintf("record batch %d", i))
	}
	if m.compressed && !f.opts.Compressed {
		return nil, &Error{Path: f.path, Offset: b.offset, Err: fmt.Errorf("record batch %d is compressed; compression is not part of this format", i)}
	}
	if err := checkLayout(f.layout, m); err != nil {
		return nil, &Error{Path: f.path, Offset: b.offset, Err: fmt.Errorf("record batch %d: %w", i, err)}
	}
	return m, nil
}

// Schema returns the file's schema.
func (f *File) Schema() *arrow.Schema { return f.r.Schema() }

// NumBatches returns the number of record batches.
func (f *File) NumBatches() int { return len(f.blocks) }

// BatchRows returns the number of rows of record batch i, as its checked
// metadata says.
func (f *File) BatchRows(i int) int64 { return f.rows[i] }

// Batch loads record batch i. The caller releases it.
func (f *File) Batch(i int) (rec arrow.RecordBatch, err error) {
	if i < 0 || i >= len(f.blocks) {
		return nil, &Error{Path: f.path, Offset: -1, Err: fmt.Errorf("record batch %d out of range (%d batches)", i, len(f.blocks))}
	}
	b := f.blocks[i]
	// Check the message again: the Arrow library reads it anew.
	m, err := f.message(i)
	if err != nil {
		return nil, err
	}
	if m.compressed {
		if err := f.checkInflate(i, m); err != nil {
			return nil, err
		}
	}
	defer func() {
		if p := recover(); p != nil {
			if rec != nil {
				rec.Release()
			}
			rec, err = nil, &Error{Path: f.path, Offset: b.offset, Err: fmt.Errorf("record batch %d: malformed data: %v", i, p)}
		}
	}()
	rec, err = f.r.RecordBatchAt(i)
	if err != nil {
		return nil, &Error{Path: f.path, Offset: b.offset, Err: fmt.Errorf("record batch %d: %w", i, err)}
	}
	fail := func(err error) (arrow.RecordBatch, error) {
		rec.Release()
		return nil, &Error{Path: f.path, Offset: b.offset, Err: fmt.Errorf("record batch %d: %w", i, err)}
	}
	if rec.NumRows() != f.rows[i] || int(rec.NumCols()) != f.r.Schema().NumFields() {
		return fail(fmt.Errorf("%d rows and %d columns, want %d and %d", rec.NumRows(), rec.NumCols(), f.rows[i], f.r.Schema().NumFields()))
	}
	for c, col := range rec.Columns() {
		if int64(col.Len()) != rec.NumRows() {
			return fail(fmt.Errorf("column %s has %d rows, the batch %d", rec.ColumnName(c), col.Len(), rec.NumRows()))
		}
		if err := validate(col); err != nil {
			return fail(fmt.Errorf("column %s: %w", rec.ColumnName(c), err))
		}
	}
	return rec, nil
}

// checkInflate bounds what the compressed buffers of batch i decompress
// to. Each starts with its uncompressed length (-1: stored as is).
func (f *File) checkInflate(i int, m *message) error {
	b := f.blocks[i]
	body := b.offset + b.meta
	var total int64
	limit := int64(f.inflateLimit())
	var n [8]byte
	for _, buf := range m.buffers {
		if buf.length == 0 {
			continue
		}
		at := body + buf.offset
		if buf.length < 8 {
			return &Error{Path: f.path, Offset: at, Err: fmt.Errorf("record batch %d: compressed buffer of %d bytes", i, buf.length)}
		}
		if err := f.readAt(n[:], at); err != nil {
			return err
		}
		size := int64(binary.LittleEndian.Uint64(n[:]))
		if size == -1 {
			size = buf.length - 8
		}
		if size < 0 || size > limit-total {
			return &Error{Path: f.path, Offset: at, Err: fmt.Errorf("record batch %d decompresses to more than %d bytes (a buffer claims %d)", i, limit, size)}
		}
		total += size
	}
	return nil
}

// Close releases the Arrow reader; it does not close ra.
func (f *File) Close() error {
	return f.r.Close()
}

// validate checks every array of a and below, so that reading values
// never goes out of bounds.
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

// capped is an allocator that refuses, by a panic that Batch recovers,
// any single allocation above max bytes: the size of an uncompressed
// buffer comes from the file.
type capped struct{ max int }

func (c capped) Allocate(n int) []byte {
	if n > c.max {
		panic(fmt.Sprintf("refusing to allocate %d bytes (limit %d)", n, c.max))
	}
	return memory.DefaultAllocator.Allocate(n)
}

func (c capped) Reallocate(n int, b []byte) []byte {
	if n > c.max {
		panic(fmt.Sprintf("refusing to allocate %d bytes (limit %d)", n, c.max))
	}
	return memory.DefaultAllocator.Reallocate(n, b)
}

func (c capped) Free(b []byte) { memory.DefaultAllocator.Free(b) }
