package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/internal/ipcfile"
	"github.com/augur-dev/augur/trace"
)

// A StreamReader reads the node-local records of an Arrow IPC stream
// written by package collector/arrowsink (or by any Arrow writer, with
// the same columns). Its API is modeled on bufio.Scanner:
//
//	for r.Next() {
//		rec := r.Record()
//		…
//	}
//	if err := r.Err(); err != nil { … }
//	if torn := r.Torn(); torn != nil { … }
//
// A stream that ends inside a message, as one does when its writer was
// killed in the middle of a flush, is torn: Next stops after the last
// complete record batch and Torn reports the file and the offset of the
// torn message. Every record before it is read. Err reports anything
// else: a file that cannot be read, or one that is not such a stream, or
// a damaged message in the middle, past which Resync can read on.
type StreamReader struct {
	path   string
	f      *os.File
	size   int64
	mem    memory.Allocator
	head   []byte // the schema message, to read on after damage
	msgs   *ipcfile.Stream
	cr     *countingReader
	r      *ipc.Reader
	schema trace.Schema

	batch  arrow.RecordBatch
	offset int64 // of the current batch's message
	row    int
	share  int // values of this many bytes share the batch's memory (see trace.SharedValue)
	rec    StreamRecord
	n      int // records returned

	torn *Error
	err  error
}

// A StreamRecord is a record read by a StreamReader. It is valid until
// the next call to Next.
type StreamRecord struct {
	Node   string
	TS     uint64
	Event  collector.Event
	Offset int64 // byte offset of the record batch that holds it
	Row    int   // row within that batch

	r *StreamReader
}

// Vars decodes the state variables, one value per column of the reader's
// Schema, in the representation that [trace.Writer.AddState] takes, as
// [trace.SharedValue] decodes them: lists of scalars as []int64,
// []uint64, []float64 or []string, and with the default allocator,
// which is Go's, the strings and lists of numbers that take a quarter of
// their record batch or more share its memory rather than copy it. All
// are nil but for [collector.EventState]. The result is owned by the
// caller.
func (sr *StreamRecord) Vars() []any {
	vals := make([]any, len(sr.r.schema))
	if sr.Event != collector.EventState {
		return vals
	}
	for i := range vals {
		vals[i] = trace.SharedValue(sr.r.batch.Column(i+3), sr.Row, sr.r.share)
	}
	return vals
}

// countingReader counts the bytes read through it, so that the reader
// knows where each message starts: the Arrow message reader reads exactly
// one message at a time.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// OpenStream opens a node-local Arrow stream file. mem holds the batches
// read; nil means memory.DefaultAllocator. A file torn before the end of
// its schema, or an empty one (its writer never flushed), opens with no
// records; the first is reported by Torn.
func OpenStream(path string, mem memory.Allocator) (*StreamReader, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	sr := &StreamReader{path: path, f: f, mem: mem}
	sr.cr = &countingReader{r: bufio.NewReaderSize(f, 64<<10)}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "open input", Err: unwrapPathError(err)}
	}
	if sr.size = fi.Size(); sr.size == 0 {
		return sr, nil
	}
	sr.r, err = newStreamReader(sr.cr, sr.size, mem)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			sr.torn = &Error{Pos: diag.Position{Filename: path}, Msg: "torn Arrow stream: it ends inside its schema message; no record is readable"}
			return sr, nil
		}
		f.Close()
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "not a node-local Arrow stream", Err: err}
	}
	if err := sr.checkSchema(); err != nil {
		sr.Close()
		return nil, err
	}
	if sr.msgs, err = ipcfile.NewStream(f, sr.size, sr.r.Schema()); err != nil {
		sr.Close()
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "not a node-local Arrow stream", Err: err}
	}
	sr.head = make([]byte, sr.cr.n)
	if _, err := f.ReadAt(sr.head, 0); err != nil {
		sr.Close()
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "read input", Err: unwrapPathError(err)}
	}
	return sr, nil
}

// newStreamReader opens the stream of size bytes, no message of which
// can be larger; the Arrow library can panic on malformed metadata.
func newStreamReader(r io.Reader, size int64, mem memory.Allocator) (rr *ipc.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rr, err = nil, fmt.Errorf("malformed metadata: %v", p)
		}
	}()
	return ipc.NewReader(r, ipc.WithAllocator(mem), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
}

func (sr *StreamReader) checkSchema() error {
	s := sr.r.Schema()
	want := []struct {
		name string
		id   arrow.Type
	}{{"node", arrow.STRING}, {"ts", arrow.UINT64}, {collector.EventColumn, arrow.STRING}}
	if s.NumFields() < len(want) {
		return &Error{Pos: diag.Position{Filename: sr.path}, Msg: fmt.Sprintf("not a node-local Arrow stream: want the columns node (utf8), ts (uint64) and %s (utf8) first, have %s", collector.EventColumn, s)}
	}
	for i, w := range want {
		if f := s.Field(i); f.Name != w.name || f.Type.ID() != w.id {
			return &Error{Pos: diag.Position{Filename: sr.path}, Msg: fmt.Sprintf("not a node-local Arrow stream: want the columns node (utf8), ts (uint64) and %s (utf8) first, have %s", collector.EventColumn, s)}
		}
	}
	seen := map[string]bool{}
	for _, f := range s.Fields()[3:] {
		if err := checkVarName(f.Name); err != nil || seen[f.Name] {
			return &Error{Pos: diag.Position{Filename: sr.path}, Field: f.Name, Msg: "column name is empty, reserved or repeated"}
		}
		seen[f.Name] = true
		if err := trace.CheckType(f.Type); err != nil {
			return &Error{Pos: diag.Position{Filename: sr.path}, Field: f.Name, Msg: err.Error()}
		}
		sr.schema = append(sr.schema, trace.Column{Name: f.Name, Type: f.Type})
	}
	return nil
}

// Schema returns the state variables of the stream (nil for a stream
// torn in its schema).
func (sr *StreamReader) Schema() trace.Schema { return sr.schema }

// Next advances to the next record and reports whether there is one.
func (sr *StreamReader) Next() bool {
	if sr.err != nil || sr.r == nil {
		return false
	}
	for sr.batch == nil || sr.row >= int(sr.batch.NumRows()) {
		if !sr.nextBatch() {
			return false
		}
	}
	i := sr.row
	sr.row++
	if i == 0 {
		sr.share = math.MaxInt
		if _, ok := sr.mem.(*memory.GoAllocator); ok {
			sr.share = trace.ShareFrom(sr.batch)
		}
	}
	nodes := sr.batch.Column(0).(*array.String)
	ts := sr.batch.Column(1).(*array.Uint64)
	events := sr.batch.Column(2).(*array.String)
	sr.rec = StreamRecord{
		// A node's name is kept for the whole collection: a copy does
		// not keep the batch.
		Node:   strings.Clone(nodes.Value(i)),
		TS:     ts.Value(i),
		Event:  parseEvent(events.Value(i)),
		Offset: sr.offset,
		Row:    i,
		r:      sr,
	}
	if sr.rec.Node == "" || sr.rec.Event == collector.EventInvalid || nodes.IsNull(i) || ts.IsNull(i) {
		sr.err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)},
			Msg: fmt.Sprintf("record batch row %d: want a node name, a ts and an event (state, heartbeat or leave), got %q, %d, %q", i, nodes.Value(i), ts.Value(i), events.Value(i))}
		return false
	}
	sr.n++
	return true
}

// nextBatch loads the next record batch, or records why there is none.
func (sr *StreamReader) nextBatch() bool {
	if sr.batch != nil {
		sr.batch.Release()
		sr.batch = nil
	}
	sr.offset = sr.cr.n
	// Check the message before the Arrow library reads it: a damaged
	// body length would make it allocate that much.
	var b arrow.RecordBatch
	_, err := sr.msgs.Message(sr.offset, sr.size)
	switch {
	case errors.Is(err, ipcfile.ErrPastEnd):
		err = io.ErrUnexpectedEOF
	case err == nil || errors.Is(err, ipcfile.ErrNoMessage):
		// The end of the stream, or what the Arrow library says.
		b, err = sr.readBatch(sr.r, sr.offset)
	default:
		err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)}, Msg: "malformed record batch", Err: err}
	}
	switch {
	case err == nil && b == nil:
		return false
	case errors.Is(err, io.ErrUnexpectedEOF):
		// The end of a stream whose writer was killed, unless an
		// intact record batch follows: then the message's length is
		// damaged.
		if next := sr.find(sr.offset + 1); next != nil {
			next.release()
			sr.err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)},
				Msg: fmt.Sprintf("malformed record batch: it runs past the end of the file, yet an intact record batch follows at offset %d", next.at)}
			return false
		}
		sr.torn = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)},
			Msg: fmt.Sprintf("torn Arrow stream: it ends inside the record batch at this offset (its writer stopped mid-write); %d records before it were read", sr.n)}
		return false
	case err != nil:
		sr.err = err
		return false
	}
	sr.batch, sr.row = b, 0
	return true
}

// readBatch reads the next record batch of r, at offset, with its arrays checked,
// which the caller releases: nil at the end of the stream. A stream that
// ends inside the batch's message is an error wrapping
// io.ErrUnexpectedEOF.
func (sr *StreamReader) readBatch(r *ipc.Reader, offset int64) (b arrow.RecordBatch, err error) {
	at := diag.Position{Filename: sr.path, Offset: int(offset)}
	defer func() {
		if p := recover(); p != nil {
			if b != nil {
				b.Release()
			}
			b, err = nil, &Error{Pos: at, Msg: fmt.Sprintf("malformed record batch: %v", p)}
		}
	}()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return nil, &Error{Pos: at, Msg: "malformed record batch", Err: err}
		}
		return nil, nil
	}
	b = r.RecordBatch()
	for c, col := range b.Columns() {
		if err := validateArray(col); err != nil {
			return nil, &Error{Pos: at, Field: b.ColumnName(c), Msg: "malformed record batch", Err: err}
		}
	}
	b.Retain()
	return b, nil
}

// A resumption is where reading goes on after damage: an intact record
// batch and a reader positioned after it.
type resumption struct {
	at    int64 // offset of the batch
	cr    *countingReader
	r     *ipc.Reader
	batch arrow.RecordBatch
}

func (p *resumption) release() {
	p.batch.Release()
	p.r.Release()
}

// find returns the first intact record batch that starts at or after
// byte from, or nil if there is none. A batch is intact if its message is
// sound and its data decode against the stream's schema and pass
// validation.
func (sr *StreamReader) find(from int64) *resumption {
	marker := []byte{0xFF, 0xFF, 0xFF, 0xFF}
	buf := make([]byte, 64<<10)
	for base := from; base+int64(len(marker)) <= sr.size; {
		n, err := sr.f.ReadAt(buf, base)
		if err != nil && err != io.EOF {
			return nil
		}
		for i := 0; ; {
			j := bytes.Index(buf[i:n], marker)
			if j < 0 {
				break
			}
			if p := sr.tryAt(base + int64(i+j)); p != nil {
				return p
			}
			i += j + 1
		}
		// A marker cut by the end of the buffer is found in the next.
		base += int64(max(n-len(marker)+1, 1))
	}
	return nil
}

// tryAt reads the record batch at byte at, if one starts there: it reads
// the stream anew, the schema message followed by the file from at.
func (sr *StreamReader) tryAt(at int64) *resumption {
	if _, err := sr.msgs.Message(at, sr.size); err != nil {
		return nil
	}
	cr := &countingReader{
		r: bufio.NewReaderSize(io.MultiReader(bytes.NewReader(sr.head), io.NewSectionReader(sr.f, at, sr.size-at)), 64<<10),
		n: at - int64(len(sr.head)),
	}
	r, err := newStreamReader(cr, sr.size, sr.mem)
	if err != nil {
		return nil
	}
	b, err := sr.readBatch(r, at)
	if b == nil || err != nil {
		r.Release()
		return nil
	}
	return &resumption{at: at, cr: cr, r: r, batch: b}
}

// Resync goes on past the damage that stopped Next with an error: it
// searches the rest of the file for the next intact record batch (its
// message sound, its data decoding against the stream's schema) and, if
// there is one, clears the error so that Next goes on from there. It
// returns an *Error naming the file and the damaged bytes skipped, from
// the damaged record batch to the intact one or to the end, and the
// records lost in them as far as the damaged messages' headers tell. It
// returns nil if Next did not stop on an error.
func (sr *StreamReader) Resync() *Error {
	if sr.err == nil || sr.r == nil {
		return nil
	}
	cause, from, read := sr.err, sr.offset, 0
	if sr.batch != nil {
		// A bad row: the rows before it were read.
		read = sr.row - 1
		sr.batch.Release()
		sr.batch = nil
	}
	sr.err = nil
	next := sr.find(from + 1)
	sr.r.Release()
	sr.r = nil
	end, after := sr.size, "no intact record batch follows"
	if next != nil {
		end, after = next.at, fmt.Sprintf("reading on at the intact record batch at %d", next.at)
		sr.cr, sr.r, sr.offset, sr.batch, sr.row = next.cr, next.r, next.at, next.batch, 0
	}
	rows, whole := sr.rowsIn(from, end)
	lost := fmt.Sprintf("%d records lost", rows-int64(read))
	switch {
	case !whole && rows == 0:
		lost = "the records of a record batch whose header is damaged lost (their count is unknown)"
	case !whole:
		lost += ", and those of a record batch whose header is damaged"
	}
	e := &Error{Pos: diag.Position{Filename: sr.path, Offset: int(from)},
		Msg: fmt.Sprintf("damaged Arrow stream: bytes %d to %d skipped (%d bytes), %s; %s", from, end, end-from, after, lost),
		Err: cause}
	var ce *Error
	if errors.As(cause, &ce) {
		// Its position is this error's.
		e.Err = errors.New(strings.TrimPrefix(strings.TrimPrefix(ce.Error(), ce.Pos.String()), ": "))
	}
	return e
}

// rowsIn adds up the rows of the record batch messages that fill bytes
// from to end; whole is false if a message there is not sound (its rows
// are not counted, nor those of any message after it).
func (sr *StreamReader) rowsIn(from, end int64) (rows int64, whole bool) {
	for off := from; off < end; {
		m, err := sr.msgs.Message(off, end)
		if err != nil {
			return rows, false
		}
		rows, off = rows+m.Rows, off+m.Size
	}
	return rows, true
}

// validateArray checks the offsets and buffers of a, so that decoding
// never reads out of bounds.
func validateArray(a arrow.Array) error {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return err
		}
	}
	switch a := a.(type) {
	case array.ListLike:
		return validateArray(a.ListValues())
	case *array.Struct:
		for f := range a.NumField() {
			if err := validateArray(a.Field(f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Record returns the current record.
func (sr *StreamReader) Record() *StreamRecord { return &sr.rec }

// Err returns the error that stopped Next, if any; a torn end is not an
// error (see Torn).
func (sr *StreamReader) Err() error { return sr.err }

// Torn returns a non-nil *Error naming the file and the offset of the
// torn message if the stream ends inside one.
func (sr *StreamReader) Torn() *Error { return sr.torn }

// Close releases the reader's memory and closes the file.
func (sr *StreamReader) Close() error {
	if sr.batch != nil {
		sr.batch.Release()
		sr.batch = nil
	}
	if sr.r != nil {
		sr.r.Release()
		sr.r = nil
	}
	return sr.f.Close()
}

// parseEvent is the inverse of collector.Event.String for valid events.
func parseEvent(s string) collector.Event {
	for e := collector.EventState; e <= collector.EventLeave; e++ {
		if e.String() == s {
			return e
		}
	}
	return collector.EventInvalid
}
